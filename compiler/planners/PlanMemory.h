// PlanMemory: the memory-planning step of the pipeline (spec/lowering.md step 4), running the
// planner the context names (PYPTO, DSA_RP or PTOAS, one file each) on every Tile-stage kernel.
// Its postcondition is VerifyTileStorage's check.
#pragma once

#include <memory>

#include "compiler/passes/Pass.h"

namespace ptodiff {

std::unique_ptr<Pass> createPlanMemoryPass();

}  // namespace ptodiff
