// The value semantics of each Tile op (semantics.md §2) on TileValues, independent of the IR and
// of GM (load and store live with the interpreter, which owns GM and the race map).
//
// Common rules: the iteration domain is the result's valid region; result elements outside it are
// poison (bits 0) unless an op says otherwise; any poison input lane makes its output lane poison.
// A runtime precondition that fails throws ProgramFault::invalid with a message that names the
// detail (the interpreter prefixes the op and adds the location). Unsupported dtype/op pairs throw
// std::invalid_argument (the verifier rejects them first).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "interp/Arith.h"
#include "interp/TileValue.h"

namespace ptodiff::tileops {

/// `create`: every element poison, fully valid. `pool`: the symbolic run's, or null.
TileValue create(const TileMeta& meta, ExprPool* pool);
/// `full`: every element `bits`, defined, fully valid (in a symbolic run the constant's formula).
TileValue full(const TileMeta& meta, uint64_t bits, ExprPool* pool);

/// add, sub, mul, div, maximum, minimum: valid = lhs valid; operands read at the same (r, c).
/// An integer division whose divisor lane in the domain is a defined zero is invalid-program.
TileValue binary(arith::BinaryKind k, const TileValue& lhs, const TileValue& rhs);
/// Tile-scalar ops: `scalarBits` is the scalar already converted to the tile dtype.
TileValue binaryScalar(arith::BinaryKind k, const TileValue& lhs, uint64_t scalarBits);
TileValue unary(arith::UnaryKind k, const TileValue& src);

/// `slice`: a view of the rows x cols window at (r0, c0) (every element keeps its state); valid
/// per axis = min(requested or extent, clamp(v_src - off, 0, extent)). The window must lie inside
/// the source's physical shape. `meta` is the result's (the source's layout and space).
TileValue slice(const TileValue& src, const TileMeta& meta, int64_t r0, int64_t c0,
                const std::optional<std::array<int64_t, 2>>& requestedValid);
/// `extract`: a copy of the window into meta's space; valid as for slice without a request;
/// elements outside valid are poison.
TileValue extract(const TileValue& src, const TileMeta& meta, int64_t r0, int64_t c0);
/// `assemble`: target with [off, off + shape(src)) replaced by src's whole physical window
/// (poison lanes included); valid = the write-union, which must be a prefix rectangle.
TileValue assemble(const TileValue& target, const TileValue& src, int64_t r0, int64_t c0);
/// `reshape`: same elements (shared), new shape; flat-prefix valid rule.
TileValue reshape(const TileValue& src, const TileMeta& meta);
/// `set_validshape`: same elements (shared), new valid extents within the physical shape.
TileValue setValidShape(const TileValue& src, int64_t validRows, int64_t validCols);
/// `move`: a copy of the valid region into meta's space; elements outside valid are poison.
TileValue move(const TileValue& src, const TileMeta& meta);
/// `transpose_view`: shape and valid swapped, element (c, r) = src(r, c); meta gives the swapped
/// layout.
TileValue transposeView(const TileValue& src, const TileMeta& meta);

/// `matmul`: Acc [M, N], valid (vr_L, vc_R), C = fma fold over k < vc_L from 0.
TileValue matmul(const TileValue& lhs, const TileValue& rhs, const TileMeta& meta);
/// `matmul_acc`: ACC's shape and valid. Product lanes = product (init) or ACC + product; lanes
/// outside the product keep ACC's state only if their 16 x 16 Acc box has no product lane.
TileValue matmulAcc(const TileValue& acc, const TileValue& lhs, const TileValue& rhs, bool init);
/// The Acc box edge of the untouched-box rule.
inline constexpr int64_t kAccBoxEdge = 16;

/// `row_sum/max/min`: [R, 1] valid (vr, 1), fold of the valid columns in increasing c. An empty
/// fold (vc = 0) yields poison. `meta` is the result's.
TileValue rowReduce(arith::ReduceKind k, const TileValue& src, const TileMeta& meta);
/// `col_sum/max/min`: [1, C] valid (1, vc), fold of the valid rows in increasing r.
TileValue colReduce(arith::ReduceKind k, const TileValue& src, const TileMeta& meta);

/// Runtime valid rules, exposed for tests and the planned interpreters.
/// The valid extents of a slice (with `requestedValid`) or extract (without) of the window `meta`
/// at (r0, c0) of a srcRows x srcCols source with the given valid extents; ProgramFault invalid
/// when the window leaves the source or a request is negative.
std::array<int64_t, 2> sliceValid(int64_t srcRows, int64_t srcCols, int64_t srcValidRows, int64_t srcValidCols,
                                  const TileMeta& meta, int64_t r0, int64_t c0,
                                  const std::optional<std::array<int64_t, 2>>& requestedValid);
/// The valid extents of `reshape` from `src` (valid extents given) to `meta`; ProgramFault invalid
/// when the flat-prefix rule has no answer.
std::array<int64_t, 2> reshapedValid(const TileMeta& src, int64_t validRows, int64_t validCols, const TileMeta& meta);
/// A load's valid_shape lies inside the tile's shape, else ProgramFault invalid.
void requireLoadValid(const TileMeta& meta, int64_t validRows, int64_t validCols);
/// 0 <= valid <= shape on both axes, else ProgramFault invalid (set_validshape's precondition).
void requireValidInside(int64_t rows, int64_t cols, int64_t validRows, int64_t validCols);
/// The write-union of assemble; nullopt when it is not a prefix rectangle.
std::optional<std::array<int64_t, 2>> assembleValid(const TileValue& target, int64_t r0, int64_t c0,
                                                    int64_t srcValidRows, int64_t srcValidCols);
/// The flat-prefix rule of reshape; nullopt when the source's valid region is not a row-major
/// prefix or the prefix does not map to a prefix rectangle of the new shape.
std::optional<std::array<int64_t, 2>> reshapeValid(int64_t rows, int64_t cols, int64_t validRows,
                                                   int64_t validCols, int64_t newRows, int64_t newCols);

}  // namespace ptodiff::tileops
