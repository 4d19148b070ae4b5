// SelectBufferIRFunctions (spec/lowering.md step 1, seed 000 "Default whole-kernel selection"):
// decides once per kernel whether it takes the Buffer path, and records the verdict in the
// function's `buffer_ir_selected` attribute (S2: an existing verdict is never recomputed).
//
// It runs after InitMemRef and reads the planned MemRefs (M6: a matmul_acc must already be in
// place). One feature outside the contract keeps the *whole* kernel on Tile (S3). Tile loop
// carries and branch results (L1, B1) are selected when MaterializeSemanticAliases can give each one
// storage (a dry run of its plan): a kernel needing a Mat/Left/Right/Acc copy stays on Tile (L11,
// B13), as does a matmul_acc whose accumulator stays observable (M6). docs/lowering.md lists every
// rule ID and how it is decided.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/passes/Pass.h"

namespace ptodiff {

/// Why a kernel stays on Tile: the contract rule (contract-rules.md ID), where, and what.
struct SelectionReason {
  std::string rule;  // e.g. "S19"
  SourceLoc loc;
  std::string message;
};

struct SelectionVerdict {
  bool selected = false;
  std::vector<SelectionReason> reasons;  // empty exactly when selected
};

/// The whole-kernel verdict for one verified Tile-stage kernel after InitMemRef.
SelectionVerdict decideBufferIRSelection(const Function& kernel, const PassContext& context);

/// "S19: tile.row_sum is a reduction; ..." (one line per reason).
std::string describeReasons(const SelectionVerdict& verdict);

std::unique_ptr<Pass> createSelectBufferIRFunctionsPass();

}  // namespace ptodiff
