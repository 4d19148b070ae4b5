#include "compiler/passes/LowerTileToBuffer.h"

#include <stdexcept>

namespace ptodiff {
// Placeholder until the pass lands (owner: LowerTileToBuffer engineer).
std::unique_ptr<Pass> createLowerTileToBufferPass() { throw std::logic_error("LowerTileToBuffer not implemented"); }
}  // namespace ptodiff
