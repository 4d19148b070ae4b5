// The planned-Tile interpreter: runs a verified Tile-stage kernel whose tiles all carry planned
// storage (pl.MemRef, roots hoisted as `pl.tile.alloc(SPACE, SIZE[, addr=A])`) on the physical
// machine of semantics.md §3 — the same byte arenas, addressing and checkers as the Buffer
// interpreter — with the Tile ops' arithmetic of interp/TileOps and interp/Arith, so a correct
// planning gives bit for bit the value interpreter's outputs.
//
// Every Tile value lives in its storage window: a producing op reads its operands from their
// windows and writes exactly the bytes its Buffer counterpart writes into its result's window
// (semantics.md §3/§4); view ops (slice, reshape, set_validshape, transpose_view) write nothing.
// On top of the Buffer checkers (bounds, align, reserved, overlap, capacity, valid, addressless)
// it runs the live-clobber checker (semantics.md §5): every byte carries the event of its last
// write, every value the event it expects per element, and a read that finds another event is
// `hazard: live-clobber` naming the clobbering op, its location and the clobbered value.
// docs/semantics.md, "The planned-Tile interpreter", lists the decisions taken here.
#pragma once

#include "compiler/ir/IR.h"
#include "interp/Tensor.h"
#include "interp/TileInterpreter.h"

namespace ptodiff {

/// Runs `kernel` (a verified Tile-stage function of `program` whose tile values carry MemRefs)
/// on `args`. Program faults and hazards are RunResult statuses (a hazard stops the run;
/// RunResult::hazard says which); throws DiagnosticError for arguments that do not fit the kernel
/// and for a program the machine cannot interpret (a Buffer-stage function, a tile without a
/// MemRef, a MemRef naming no root), std::logic_error for harness bugs.
RunResult runPlannedTileKernel(const Program& program, const Function& kernel, const KernelArgs& args,
                               const RunConfig& config = {});

/// Whether every tile value `kernel` binds by assignment carries a MemRef (and it binds at least
/// one): the functions `ptodiff interp` runs on the planned-Tile interpreter by default.
bool isPlannedTileKernel(const Function& kernel);

/// How a planned kernel writes its roots: `tile.alloc(SPACE, SIZE, addr=A)` or without addr.
struct RootForms {
  int addressed = 0, addressless = 0;
  bool mixed() const { return addressed > 0 && addressless > 0; }
};
RootForms rootFormsOf(const Function& kernel);

}  // namespace ptodiff
