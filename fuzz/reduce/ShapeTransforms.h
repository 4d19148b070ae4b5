// The reducer's size transformations (issue 7): shrink physical shapes, shrink valid extents, run
// fewer blocks. A shape is changed everywhere it flows at once — every tile, window, offset, tensor
// parameter and the case's inputs for an axis halved together, or all tensors of one shape — because
// one op at a time would break the equalities the verifier checks (elementwise operands, load
// shapes, loop carries). Candidates that would break an alignment rule that held before (S6
// 32-byte Vec rows, P14 32-byte MemRef offsets, W16 aligned window offsets, M3 whole fractal boxes)
// are not made; the reducer verifies the others.
#pragma once

#include <vector>

#include "fuzz/reduce/Transforms.h"

namespace ptodiff::fuzz {

/// ShrinkShape: "rows/2 cols/2", "rows/2", "cols/2" over the whole program, then per tensor shape
/// (in parameter order) that shape's rows and columns halved in every tensor type.
void shrinkShapeCandidates(const ReduceState& state, std::vector<Candidate>& out);

/// ShrinkValid: per constant valid extent value (axis, v >= 2) written in the program, in order of
/// first appearance, that value replaced by v/2 and by 1 wherever a valid extent on that axis is v.
void shrinkValidCandidates(const ReduceState& state, std::vector<Candidate>& out);

/// DropBlocks: with block_num n > 1, one block: for k = 0..n-1 `get_block_idx()` becomes k and
/// `get_block_num()` becomes n (block k alone); then block 0 with the program unchanged; then n/2
/// blocks (a failure between blocks may need several).
void dropBlockCandidates(const ReduceState& state, std::vector<Candidate>& out);

}  // namespace ptodiff::fuzz
