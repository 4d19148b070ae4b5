// Tile values of the oracle's reference evaluator and the value semantics of each Tile op on them
// (semantics.md §2), written independently of interp/TileOps: elements are float64 values with
// error bounds (int64 for integer dtypes) in Eigen arrays, plus per-element poison flags and op
// chain lengths. Valid regions and poison follow the same rules as the interpreters; poison is
// tracked, never computed (a poison element's value is meaningless).
//
// Runtime preconditions that fail throw ProgramFault (invalid-program) with a message naming the
// detail; unsupported dtype/op pairs throw std::invalid_argument (the verifier rejects them first).
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <optional>

#include "compiler/ir/DType.h"
#include "oracle/ErrorBound.h"
#include "oracle/ReferenceScalar.h"
#include "oracle/ToleranceProfile.h"

namespace ptodiff::oracle::detail {

template <class T>
using Grid = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// What a result's static type fixes: dtype, space, physical shape.
struct TileShape {
  DType dtype = DType::FP32;
  MemSpace space = MemSpace::Vec;
  int64_t rows = 0, cols = 0;
};

struct RefTile {
  TileShape shape;
  int64_t validRows = 0, validCols = 0;
  Grid<double> value;     // float dtypes (empty for integer dtypes)
  Grid<int64_t> integer;  // integer dtypes, wrapped (empty for float dtypes)
  Grid<double> bound;     // error bounds (0 for integer dtypes)
  Grid<uint8_t> poison;   // 1 = poison
  Grid<int32_t> chain;    // op chain length

  /// Every element poison (value 0, bound 0, chain 0), with the given valid extents.
  static RefTile poisoned(const TileShape& shape, int64_t validRows, int64_t validCols);
  bool holdsFloats() const { return isFloat(shape.dtype); }
  int64_t rows() const { return shape.rows; }
  int64_t cols() const { return shape.cols; }
  Approx approx(int64_t r, int64_t c) const { return {value(r, c), bound(r, c)}; }
  void set(int64_t r, int64_t c, const Approx& a) {
    value(r, c) = a.value;
    bound(r, c) = a.bound;
  }
  /// Copies element (sr, sc) of `src` (value, bound, poison, chain) to (r, c).
  void copyElement(int64_t r, int64_t c, const RefTile& src, int64_t sr, int64_t sc);
  /// Copies the nr x nc window of `src` at (sr, sc) to (r, c).
  void copyWindow(int64_t r, int64_t c, const RefTile& src, int64_t sr, int64_t sc, int64_t nr, int64_t nc);
};

enum class ElemOp : uint8_t { Add, Sub, Mul, Div, Max, Min, Lrelu };
enum class UnaryOp : uint8_t { Abs, Exp, Sqrt, Neg, Relu, Log, Recip };
enum class ReduceOp : uint8_t { Sum, Max, Min };

/// A tile op's scalar operand already in the tile's element dtype, with its conversion bound.
struct ScalarOperand {
  Approx real;          // float dtypes: the scalar and the bound of its rounding into the dtype
  int64_t integer = 0;  // integer dtypes
  int32_t chain = 0;    // 1 when the conversion into the dtype rounds
};
/// Converts a scalar element into the tile dtype `dt` (float dtypes: one rounding, exact when
/// representable; the profile's `convert` allowance).
ScalarOperand scalarOperand(const ScalarElement& s, DType dt, const ToleranceProfile& profile);

RefTile refCreate(const TileShape& shape);
RefTile refFull(const TileShape& shape, const ScalarOperand& s);

RefTile refBinary(ElemOp op, const RefTile& lhs, const RefTile& rhs, const ToleranceProfile& profile);
RefTile refBinaryScalar(ElemOp op, const RefTile& lhs, const ScalarOperand& rhs, const ToleranceProfile& profile);
RefTile refUnary(UnaryOp op, const RefTile& src, const ToleranceProfile& profile);

RefTile refSlice(const RefTile& src, const TileShape& shape, int64_t r0, int64_t c0,
                 const std::optional<std::array<int64_t, 2>>& requestedValid);
RefTile refExtract(const RefTile& src, const TileShape& shape, int64_t r0, int64_t c0);
RefTile refAssemble(const RefTile& target, const RefTile& src, int64_t r0, int64_t c0);
RefTile refReshape(const RefTile& src, const TileShape& shape);
RefTile refSetValidShape(const RefTile& src, int64_t validRows, int64_t validCols);
RefTile refMove(const RefTile& src, const TileShape& shape);
RefTile refTransposeView(const RefTile& src, const TileShape& shape);

/// Acc [M, N] = fold over k < vc_L (FP32 accumulator, bound gamma_K; INT32 exact for INT8).
RefTile refMatmul(const RefTile& lhs, const RefTile& rhs, const TileShape& shape, const ToleranceProfile& profile);
RefTile refMatmulAcc(const RefTile& acc, const RefTile& lhs, const RefTile& rhs, bool init,
                     const ToleranceProfile& profile);
/// The Acc box edge of matmul_acc's untouched-box rule.
inline constexpr int64_t kAccBoxEdge = 16;

RefTile refRowReduce(ReduceOp op, const RefTile& src, const TileShape& shape, const ToleranceProfile& profile);
RefTile refColReduce(ReduceOp op, const RefTile& src, const TileShape& shape, const ToleranceProfile& profile);

/// The valid-region rules (own implementations of semantics.md §2).
int64_t windowValid(int64_t sourceValid, int64_t offset, int64_t extent, std::optional<int64_t> requested);
std::optional<std::array<int64_t, 2>> assembleValid(const RefTile& target, int64_t r0, int64_t c0,
                                                    int64_t srcValidRows, int64_t srcValidCols);
std::optional<std::array<int64_t, 2>> reshapeValid(int64_t cols, int64_t validRows, int64_t validCols,
                                                   int64_t newRows, int64_t newCols);

}  // namespace ptodiff::oracle::detail
