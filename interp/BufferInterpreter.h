// The Buffer interpreter: runs a verified Buffer-stage kernel (text-format.md, "Buffer programs")
// on the physical machine of semantics.md §3–§6 — per-space byte arenas with real addresses,
// layouts and per-byte poison — with every storage checker that applies to Buffer programs
// (bounds, align, reserved, overlap, capacity, valid, empty-op, addressless), plus the GM rules,
// race detection and step budget of the Tile interpreter.
//
// Rules the spec leaves open, decided here (docs/semantics.md collects them):
// - Each block runs on fresh storage (its own core): every byte garbage and poison again; an
//   addressless allocation keeps one address for the whole run.
// - An allocation executed again (inside a loop) is a fresh handle: its descriptor restarts at
//   its initial extents.
// - Empty-op covers load, store, every compute op (full included), copy, extract and matmul, and
//   any subview whose valid region is empty (static or dynamic).
// - Domain fit: a source operand's physical shape must contain the region the op reads
//   (elementwise: the destination's valid region; extract: the window at its offset; matmul:
//   K rows of R, the product inside ACC), else `hazard: valid`.
// - A reshape needs a dense source (ND: pitch == cols * esize, single-row sources included),
//   else `hazard: align`; its result's descriptor is its annotation's (dynamic axes start full).
// - A store of poison behaves as in the Tile interpreter: GM poison, status invalid-program, the
//   run goes on; the first problem in time gives the status.
#pragma once

#include "compiler/ir/IR.h"
#include "interp/Tensor.h"
#include "interp/TileInterpreter.h"

namespace ptodiff {

/// Runs `kernel` (a verified Buffer-stage function of `program`) on `args`. Program faults and
/// hazards are RunResult statuses (a hazard stops the run; RunResult::hazard says which);
/// throws DiagnosticError for arguments that do not fit the kernel and for a Buffer program the
/// machine cannot interpret (e.g. a subview that changes its parent's layout), std::logic_error
/// for harness bugs.
RunResult runBufferKernel(const Program& program, const Function& kernel, const KernelArgs& args,
                          const RunConfig& config = {});

/// How a function writes its allocations: `alloc((), ADDR)` (addressed) or `alloc(())`.
struct AllocForms {
  int addressed = 0, addressless = 0;
  bool mixed() const { return addressed > 0 && addressless > 0; }
};
AllocForms allocFormsOf(const Function& kernel);

}  // namespace ptodiff
