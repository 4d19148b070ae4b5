// InitMemRef (spec/lowering.md step 2): gives every Tile value of each Tile-stage kernel its
// planned storage, before any planner runs.
//
// - Every allocation identity (a fresh producer: load, compute ops, full, create, move, extract,
//   matmul, reductions) gets a root of its own, `mem_<space>_<n>: pl.Ptr = pl.tile.alloc(SPACE,
//   BYTES)`, hoisted to the top of the function, and `pl.MemRef(root, 0, BYTES)`.
// - Views share their input's storage: slice at the byte offset of its window in the frame it cuts
//   (the parent's pitch and layout, through nested slices; a runtime offset prints as -1) with the
//   window's byte span as size; reshape, transpose_view, set_validshape and a rename `y = x` at the
//   input's offset.
// - In-place results follow their input (assemble its target, matmul_acc its accumulator) unless
//   the input's storage is still observable afterwards (read later, re-read by a later iteration of
//   an enclosing loop, or read by the same op through another operand): then the result gets fresh
//   storage and the planned semantics copy the input first (semantics.md §3), so no live value is
//   ever overwritten. (SelectBufferIRFunctions keeps a kernel on Tile when its matmul_acc did not
//   stay in place, M6.) An assemble whose source is its own target (`assemble(t, t, ...)`) or any
//   view of the target's storage never writes in place (W9).
// - Two copies are inserted first (`pl.tile.move` within Vec; the op then reads the copy): a
//   relabel (reshape, transpose_view) of a window with a wider row pitch or a runtime offset reads
//   a dense copy `<source>_dense` (P11, P14: a relabel reinterprets dense bytes from a static
//   base), and a row reduction whose `tmp_tile` storage is still observable (read later, by the
//   same op, or again in a later trip) gets a private scratch `<tmp>_scratch` (the reduction writes
//   poison over its tmp, semantics.md §2). Other spaces cannot be copied (M14) and are left as
//   they are, for VerifyTileStorage and the interpreters to reject.
// - Loop carries, loop results and branch results have no annotation slot in the text format: they
//   denote the storage of the value bound to them (the init on entry, the yielded value after a
//   trip, the taken arm's value); the planners' liveness treats them as aliases of all of those.
//
// Input: an unplanned Tile program (no tile.alloc, no MemRef); output: a planned one whose roots
// carry no address yet. Orchestration and Buffer-stage functions are left alone.
#pragma once

#include <memory>

#include "compiler/passes/Pass.h"

namespace ptodiff {

std::unique_ptr<Pass> createInitMemRefPass();

}  // namespace ptodiff
