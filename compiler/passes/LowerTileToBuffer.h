// LowerTileToBuffer (seed 000): converts the selected kernels of a planned Tile program into Buffer
// programs: allocations at their definitions, views at their use sites, destination-passing ops.
#pragma once

#include <memory>

#include "compiler/passes/Pass.h"

namespace ptodiff {

std::unique_ptr<Pass> createLowerTileToBufferPass();

}  // namespace ptodiff
