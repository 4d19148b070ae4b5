// MaterializeSemanticAliases (seed 003; spec/lowering.md step 3): must-alias storage before any
// planner runs. It always runs (A2), after SelectBufferIRFunctions and before PlanMemory.
//
// - Loops (For, While; every kernel): each Tile carry gets one canonical storage shared by its
//   initializer, iter_arg, backedge value and result (A3, L8). An input still observable elsewhere,
//   not a whole allocation, or overlapping another carry's input is first copied before the loop
//   (`x_in = pl.tile.move(x, ...)`, L2, L3). The yielded value's producer writes the carry storage
//   directly when that is safe (A3); otherwise a transfer before the yield, scheduled in parallel:
//   every source that may overlap a destination is snapshotted into scratch first (L9).
// - Branches (selected kernels): a Tile result keeps a window both arms already yield (B1), else
//   gets a fresh destination that an arm-local fresh producer writes directly (B3) or the arm copies
//   into before its yield (B2, B4); orphaned allocations are deleted.
// - A needed copy of Mat/Left/Right/Acc storage is impossible: a selected kernel is rejected with
//   `MaterializeSemanticAliases [L11]` (branches: [B13]) before anything is copied; an unselected
//   kernel keeps that loop as it was (VerifyTileStorage's L9 check stays the net).
#pragma once

#include <memory>

#include "compiler/passes/Pass.h"

namespace ptodiff {

std::unique_ptr<Pass> createMaterializeSemanticAliasesPass();

/// The postcondition: in every kernel, each legalized Tile carry's initializer and backedge value
/// name one MemRef (loops of an unselected kernel that needed a non-Vec copy excepted), and in a
/// selected kernel each Tile branch result's arms do.
std::vector<Diagnostic> checkSemanticAliases(const Program& program);

}  // namespace ptodiff
