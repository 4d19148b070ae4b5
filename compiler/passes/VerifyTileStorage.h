// VerifyTileStorage (spec/lowering.md step 5): checks the planned storage of every Tile-stage
// kernel before LowerTileToBuffer.
//
// - Closure: every Tile value bound by an assignment names a MemRef inside its root (P14: static
//   offsets nonnegative multiples of 32; a runtime offset only on a slice); a view lies inside its
//   source's window; an allocation identity's window holds its whole tile.
// - Roots: addressed planners (PYPTO, DSA_RP) give every root an address (P1), aligned to 32 bytes
//   or the fractal box of the tiles it holds, inside the space and outside its reserved range;
//   PTOAS roots have none, and together fit the usable capacity (semantics.md §3).
// - Overlap: no two allocation identities live at the same time share bytes (addressed planners:
//   absolute addresses; PTOAS: within one root), except an in-place-safe elementwise op writing
//   exactly the window of the input it consumes (Liveness).
// - Generations (L9): a carry that may still hold an earlier trip's value while the loop rewrites
//   that value's storage cannot be planned without a copy; until MaterializeSemanticAliases adds
//   one, such a kernel fails here instead of producing a plan that reads clobbered bytes.
// - The 32-byte rule for window offsets (P14) binds Buffer-path kernels; a Tile-path kernel may
//   keep a window at any element offset (its roots stay aligned).
#pragma once

#include <memory>
#include <vector>

#include "compiler/passes/Pass.h"

namespace ptodiff {

/// Every storage problem of `program` under `context.planner` and `context.target`; empty = sound.
/// `generations`: also report reads of an earlier trip's generation of a value (L9), which no
/// planner can avoid (the planners' postcondition leaves them to this pass).
std::vector<Diagnostic> checkTileStorage(const Program& program, const PassContext& context, bool generations = true);

std::unique_ptr<Pass> createVerifyTileStoragePass();

}  // namespace ptodiff
