#include "interp/TileOps.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "interp/ProgramFault.h"
#include "interp/Symbolic.h"

namespace ptodiff {

// Element bits are little-endian everywhere (tensors, tiles, .npy files).
static_assert(std::endian::native == std::endian::little, "ptodiff assumes a little-endian host");

TileBuilder::TileBuilder(const TileMeta& meta, int64_t validRows, int64_t validCols, bool poisoned, ExprPool* pool)
    : value_{meta, validRows, validCols, nullptr}, elements_(std::make_shared<TileElements>()) {
  elements_->bits.assign(static_cast<size_t>(meta.count() * meta.esize()), 0);
  elements_->poison.assign(static_cast<size_t>(meta.count()), poisoned ? 1 : 0);
  if (pool) {
    elements_->pool = pool;
    elements_->sym.assign(static_cast<size_t>(meta.count()), poisoned ? ExprPool::kPoison : pool->constant(meta.dtype, 0));
  }
}

namespace {
void requireSameDomain(const TileBuilder& dst, const TileValue& src) {
  if ((dst.pool() != nullptr) != (src.pool() != nullptr))
    throw std::logic_error("TileBuilder: copying between a symbolic and a numeric tile");
}
}  // namespace

void TileBuilder::copyElement(int64_t r, int64_t c, const TileValue& src, int64_t sr, int64_t sc) {
  requireSameDomain(*this, src);
  std::memcpy(bitsAt(r, c), src.bitsAt(sr, sc), static_cast<size_t>(value_.esize()));
  poisonRow(r)[c] = src.poisonRow(sr)[sc];
  if (ExprId* sym = symAt(r, c)) *sym = *src.symAt(sr, sc);
}

void TileBuilder::copyWindow(int64_t r, int64_t c, const TileValue& src, int64_t sr, int64_t sc, int64_t nr,
                             int64_t nc) {
  if (nr <= 0 || nc <= 0) return;
  requireSameDomain(*this, src);
  for (int64_t i = 0; i < nr; ++i) {
    std::memcpy(bitsAt(r + i, c), src.bitsAt(sr + i, sc), static_cast<size_t>(nc * value_.esize()));
    std::memcpy(poisonRow(r + i) + c, src.poisonRow(sr + i) + sc, static_cast<size_t>(nc));
    if (ExprId* sym = symAt(r + i, c)) std::copy_n(src.symAt(sr + i, sc), nc, sym);
  }
}

namespace tileops {

namespace {

using arith::BinaryKind;
using arith::ReduceKind;
using arith::UnaryKind;

std::string pairText(int64_t a, int64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; }

/// A window [off, off + extent) on one axis must lie inside [0, physical).
void requireWindowInside(const char* axisName, int64_t off, int64_t extent, int64_t physical, const char* what) {
  if (off >= 0 && off + extent <= physical) return;
  throw ProgramFault::invalid(std::string(what) + " " + axisName + " [" + std::to_string(off) + ", " +
                              std::to_string(off + extent) + ") lie outside the source's " + std::to_string(physical) +
                              " " + axisName);
}

/// PyPTO's window-read rule: available = clamp(v_src - off, 0, extent); result = min(requested, available).
int64_t windowValid(int64_t sourceValid, int64_t off, int64_t extent, std::optional<int64_t> requested) {
  const int64_t available = std::clamp<int64_t>(sourceValid - off, 0, extent);
  return requested ? std::min(*requested, available) : available;
}

void orPoison(TileBuilder& out, const TileValue& a, const TileValue& b, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    uint8_t* dst = out.poisonRow(r);
    const uint8_t* pa = a.poisonRow(r);
    const uint8_t* pb = b.poisonRow(r);
    for (int64_t c = 0; c < cols; ++c) dst[c] = pa[c] | pb[c];
  }
}

void copyPoison(TileBuilder& out, const TileValue& a, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) std::memcpy(out.poisonRow(r), a.poisonRow(r), static_cast<size_t>(cols));
}

void requireSameShape(const TileValue& a, const TileValue& b, const char* what) {
  if (a.rows() != b.rows() || a.cols() != b.cols() || a.dtype() != b.dtype())
    throw std::invalid_argument(std::string(what) + ": operands differ in physical shape or dtype");
}

}  // namespace

TileValue create(const TileMeta& meta, ExprPool* pool) {
  return TileBuilder(meta, meta.rows, meta.cols, /*poisoned=*/true, pool).finish();
}

TileValue full(const TileMeta& meta, uint64_t bits, ExprPool* pool) {
  TileBuilder out(meta, meta.rows, meta.cols, /*poisoned=*/false, pool);
  const int es = meta.esize();
  for (int64_t r = 0; r < meta.rows; ++r)
    for (int64_t c = 0; c < meta.cols; ++c) std::memcpy(out.bitsAt(r, c), &bits, static_cast<size_t>(es));  // little-endian
  if (pool) std::fill_n(out.symAt(0, 0), meta.count(), pool->constant(meta.dtype, bits));
  return std::move(out).finish();
}

TileValue binary(BinaryKind k, const TileValue& lhs, const TileValue& rhs) {
  requireSameShape(lhs, rhs, "binary op");
  const int64_t vr = lhs.validRows, vc = lhs.validCols;
  if (k == BinaryKind::Div && isInteger(lhs.dtype()) && vr > 0 && vc > 0) {
    const int64_t zero = arith::firstZeroDivisor(lhs.dtype(), rhs.window(0, 0, vr, vc), rhs.poisonRow(0), rhs.cols());
    if (zero >= 0)
      throw ProgramFault::invalid("integer division by zero at element " + pairText(zero / vc, zero % vc) +
                                  "; a zero divisor is outside the default contract");
  }
  TileBuilder out(lhs.meta, vr, vc, /*poisoned=*/true, lhs.pool());
  if (vr > 0 && vc > 0) {
    arith::binaryKernel(k, lhs.dtype(), lhs.window(0, 0, vr, vc), rhs.window(0, 0, vr, vc), out.window(0, 0, vr, vc));
    orPoison(out, lhs, rhs, vr, vc);
  }
  return std::move(out).finish();
}

TileValue binaryScalar(BinaryKind k, const TileValue& lhs, uint64_t scalarBits) {
  const int64_t vr = lhs.validRows, vc = lhs.validCols;
  if (k == BinaryKind::Div && isInteger(lhs.dtype()) && scalarBits == 0 && vr > 0 && vc > 0)
    throw ProgramFault::invalid("integer division by the scalar 0; a zero divisor is outside the default contract");
  TileBuilder out(lhs.meta, vr, vc, /*poisoned=*/true, lhs.pool());
  if (vr > 0 && vc > 0) {
    arith::binaryScalarKernel(k, lhs.dtype(), lhs.window(0, 0, vr, vc), scalarBits, out.window(0, 0, vr, vc));
    copyPoison(out, lhs, vr, vc);
  }
  return std::move(out).finish();
}

TileValue unary(UnaryKind k, const TileValue& src) {
  const int64_t vr = src.validRows, vc = src.validCols;
  TileBuilder out(src.meta, vr, vc, /*poisoned=*/true, src.pool());
  if (vr > 0 && vc > 0) {
    arith::unaryKernel(k, src.dtype(), src.window(0, 0, vr, vc), out.window(0, 0, vr, vc));
    copyPoison(out, src, vr, vc);
  }
  return std::move(out).finish();
}

std::array<int64_t, 2> sliceValid(int64_t srcRows, int64_t srcCols, int64_t srcValidRows, int64_t srcValidCols,
                                  const TileMeta& meta, int64_t r0, int64_t c0,
                                  const std::optional<std::array<int64_t, 2>>& requestedValid) {
  requireWindowInside("rows", r0, meta.rows, srcRows, "window");
  requireWindowInside("columns", c0, meta.cols, srcCols, "window");
  if (requestedValid && ((*requestedValid)[0] < 0 || (*requestedValid)[1] < 0))
    throw ProgramFault::invalid("valid_shape " + pairText((*requestedValid)[0], (*requestedValid)[1]) +
                                " has a negative extent");
  const auto requested = [&](int axis) -> std::optional<int64_t> {
    if (!requestedValid) return std::nullopt;
    return (*requestedValid)[static_cast<size_t>(axis)];
  };
  return {windowValid(srcValidRows, r0, meta.rows, requested(0)), windowValid(srcValidCols, c0, meta.cols, requested(1))};
}

TileValue slice(const TileValue& src, const TileMeta& meta, int64_t r0, int64_t c0,
                const std::optional<std::array<int64_t, 2>>& requestedValid) {
  const auto [vr, vc] = sliceValid(src.rows(), src.cols(), src.validRows, src.validCols, meta, r0, c0, requestedValid);
  // A view: every element of the window keeps its state, valid or not.
  TileBuilder out(meta, vr, vc, /*poisoned=*/true, src.pool());
  out.copyWindow(0, 0, src, r0, c0, meta.rows, meta.cols);
  return std::move(out).finish();
}

TileValue extract(const TileValue& src, const TileMeta& meta, int64_t r0, int64_t c0) {
  const auto [vr, vc] = sliceValid(src.rows(), src.cols(), src.validRows, src.validCols, meta, r0, c0, std::nullopt);
  TileBuilder out(meta, vr, vc, /*poisoned=*/true, src.pool());
  out.copyWindow(0, 0, src, r0, c0, vr, vc);
  return std::move(out).finish();
}

std::optional<std::array<int64_t, 2>> assembleValid(const TileValue& target, int64_t r0, int64_t c0,
                                                    int64_t srcValidRows, int64_t srcValidCols) {
  const int64_t vr = target.validRows, vc = target.validCols;
  if (target.fullyValid()) return std::array<int64_t, 2>{vr, vc};
  if (srcValidRows == 0 || srcValidCols == 0) return std::array<int64_t, 2>{vr, vc};  // nothing valid written
  const int64_t rEnd = r0 + srcValidRows, cEnd = c0 + srcValidCols;
  if (vr == 0 || vc == 0) {
    if (r0 == 0 && c0 == 0) return std::array<int64_t, 2>{srcValidRows, srcValidCols};
    return std::nullopt;
  }
  if (rEnd <= vr && cEnd <= vc) return std::array<int64_t, 2>{vr, vc};  // inside the valid region
  if (r0 == 0 && c0 == 0 && rEnd >= vr && cEnd >= vc) return std::array<int64_t, 2>{rEnd, cEnd};  // covers it
  if (r0 == 0 && rEnd == vr && c0 <= vc) return std::array<int64_t, 2>{vr, std::max(vc, cEnd)};  // grows columns
  if (c0 == 0 && cEnd == vc && r0 <= vr) return std::array<int64_t, 2>{std::max(vr, rEnd), vc};  // grows rows
  return std::nullopt;
}

TileValue assemble(const TileValue& target, const TileValue& src, int64_t r0, int64_t c0) {
  if (target.dtype() != src.dtype()) throw std::invalid_argument("assemble: operand dtypes differ");
  requireWindowInside("rows", r0, src.rows(), target.rows(), "source window");
  requireWindowInside("columns", c0, src.cols(), target.cols(), "source window");
  const auto valid = assembleValid(target, r0, c0, src.validRows, src.validCols);
  if (!valid)
    throw ProgramFault::invalid("the union of the target's valid region " + pairText(target.validRows, target.validCols) +
                                " and the source's valid region " + pairText(src.validRows, src.validCols) + " written at " +
                                pairText(r0, c0) + " is not a prefix rectangle");
  TileBuilder out(target, target.meta, (*valid)[0], (*valid)[1]);
  out.copyWindow(r0, c0, src, 0, 0, src.rows(), src.cols());  // the whole physical source, poison included
  return std::move(out).finish();
}

std::optional<std::array<int64_t, 2>> reshapeValid(int64_t rows, int64_t cols, int64_t validRows,
                                                   int64_t validCols, int64_t newRows, int64_t newCols) {
  (void)rows;
  const int64_t prefix = validRows * validCols;
  const bool rowMajorPrefix = prefix == 0 || validCols == cols || validRows == 1;
  if (!rowMajorPrefix) return std::nullopt;
  if (prefix % newCols == 0 && prefix / newCols <= newRows) return std::array<int64_t, 2>{prefix / newCols, newCols};
  if (prefix <= newCols) return std::array<int64_t, 2>{1, prefix};
  return std::nullopt;
}

std::array<int64_t, 2> reshapedValid(const TileMeta& src, int64_t validRows, int64_t validCols, const TileMeta& meta) {
  if (meta.count() != src.count() || meta.dtype != src.dtype)
    throw std::invalid_argument("reshape: element count or dtype changes");
  const auto valid = reshapeValid(src.rows, src.cols, validRows, validCols, meta.rows, meta.cols);
  if (!valid)
    throw ProgramFault::invalid("valid region " + pairText(validRows, validCols) + " of the " +
                                pairText(src.rows, src.cols) + " source does not map to a prefix rectangle of " +
                                pairText(meta.rows, meta.cols) + " (flat-prefix rule)");
  return *valid;
}

TileValue reshape(const TileValue& src, const TileMeta& meta) {
  const auto [vr, vc] = reshapedValid(src.meta, src.validRows, src.validCols, meta);
  // Row-major elements reinterpreted: the new tile shares the source's elements.
  return TileValue{meta, vr, vc, src.elements};
}

void requireLoadValid(const TileMeta& meta, int64_t vr, int64_t vc) {
  if (vr < 0 || vr > meta.rows || vc < 0 || vc > meta.cols)
    throw ProgramFault::invalid("valid_shape " + pairText(vr, vc) + " lies outside the tile shape " +
                                pairText(meta.rows, meta.cols));
}

void requireValidInside(int64_t rows, int64_t cols, int64_t validRows, int64_t validCols) {
  if (validRows < 0 || validRows > rows || validCols < 0 || validCols > cols)
    throw ProgramFault::invalid("valid extents " + pairText(validRows, validCols) + " lie outside the physical shape " +
                                pairText(rows, cols));
}

TileValue setValidShape(const TileValue& src, int64_t validRows, int64_t validCols) {
  requireValidInside(src.rows(), src.cols(), validRows, validCols);
  return TileValue{src.meta, validRows, validCols, src.elements};
}

TileValue move(const TileValue& src, const TileMeta& meta) {
  if (meta.rows != src.rows() || meta.cols != src.cols() || meta.dtype != src.dtype())
    throw std::invalid_argument("move: shape or dtype changes");
  TileBuilder out(meta, src.validRows, src.validCols, /*poisoned=*/true, src.pool());
  out.copyWindow(0, 0, src, 0, 0, src.validRows, src.validCols);
  return std::move(out).finish();
}

TileValue transposeView(const TileValue& src, const TileMeta& meta) {
  if (meta.rows != src.cols() || meta.cols != src.rows()) throw std::invalid_argument("transpose_view: shape not swapped");
  TileBuilder out(meta, src.validCols, src.validRows, /*poisoned=*/true, src.pool());
  for (int64_t r = 0; r < src.rows(); ++r)
    for (int64_t c = 0; c < src.cols(); ++c) out.copyElement(c, r, src, r, c);
  return std::move(out).finish();
}

namespace {

/// The product lanes [0, vr_L) x [0, vc_R) folded over k < vc_L, as a standalone tile of the
/// result's meta (the caller decides what lies outside them).
TileValue product(const TileValue& lhs, const TileValue& rhs, const TileMeta& meta) {
  if (lhs.dtype() != rhs.dtype() || lhs.cols() != rhs.rows())
    throw std::invalid_argument("matmul: operands differ in dtype or contraction extent");
  if (meta.dtype != arith::accumulatorDType(lhs.dtype()) || meta.rows != lhs.rows() || meta.cols != rhs.cols())
    throw std::invalid_argument("matmul: result type is not the accumulator of the operands");
  const int64_t M = lhs.validRows, N = rhs.validCols, K = lhs.validCols;
  TileBuilder out(meta, M, N, /*poisoned=*/true, lhs.pool());
  if (M == 0 || N == 0) return std::move(out).finish();
  arith::matmulKernel(lhs.dtype(), lhs.window(0, 0, M, K), rhs.window(0, 0, K, N), out.window(0, 0, M, N));
  // A product lane is poison when any lane it reads is: a row of L or a column of R.
  std::vector<uint8_t> rowPoison(static_cast<size_t>(M), 0), colPoison(static_cast<size_t>(N), 0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) rowPoison[static_cast<size_t>(i)] |= lhs.poisonRow(i)[k];
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) colPoison[static_cast<size_t>(j)] |= rhs.poisonRow(k)[j];
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      out.setPoison(i, j, rowPoison[static_cast<size_t>(i)] || colPoison[static_cast<size_t>(j)]);
  return std::move(out).finish();
}

}  // namespace

TileValue matmul(const TileValue& lhs, const TileValue& rhs, const TileMeta& meta) { return product(lhs, rhs, meta); }

TileValue matmulAcc(const TileValue& acc, const TileValue& lhs, const TileValue& rhs, bool init) {
  const TileValue prod = product(lhs, rhs, acc.meta);
  const int64_t M = prod.validRows, N = prod.validCols;
  TileBuilder out(acc, acc.meta, acc.validRows, acc.validCols);
  if (M == 0 || N == 0) return std::move(out).finish();  // no product lane: ACC unchanged
  if (init) {
    out.copyWindow(0, 0, prod, 0, 0, M, N);
  } else {
    arith::binaryKernel(BinaryKind::Add, acc.dtype(), acc.window(0, 0, M, N), prod.window(0, 0, M, N),
                        out.window(0, 0, M, N));
    orPoison(out, acc, prod, M, N);
  }
  // Lanes outside the product inside a touched 16 x 16 box: the hardware writes whole boxes, so
  // their contents are unspecified.
  const int64_t lastBoxRow = (M - 1) / kAccBoxEdge, lastBoxCol = (N - 1) / kAccBoxEdge;
  const int64_t rowEnd = std::min(acc.rows(), (lastBoxRow + 1) * kAccBoxEdge);
  const int64_t colEnd = std::min(acc.cols(), (lastBoxCol + 1) * kAccBoxEdge);
  for (int64_t r = 0; r < rowEnd; ++r)
    for (int64_t c = 0; c < colEnd; ++c)
      if (r >= M || c >= N) out.setPoison(r, c, true);
  return std::move(out).finish();
}

TileValue rowReduce(ReduceKind k, const TileValue& src, const TileMeta& meta) {
  const int64_t vr = src.validRows, vc = src.validCols;
  TileBuilder out(meta, vr, 1, /*poisoned=*/true, src.pool());
  if (vr == 0 || vc == 0) return std::move(out).finish();  // an empty fold defines nothing
  arith::rowReduceKernel(k, src.dtype(), src.window(0, 0, vr, vc), out.window(0, 0, vr, 1));
  for (int64_t r = 0; r < vr; ++r) {
    const uint8_t* p = src.poisonRow(r);
    out.setPoison(r, 0, std::any_of(p, p + vc, [](uint8_t x) { return x != 0; }));
  }
  return std::move(out).finish();
}

TileValue colReduce(ReduceKind k, const TileValue& src, const TileMeta& meta) {
  const int64_t vr = src.validRows, vc = src.validCols;
  TileBuilder out(meta, 1, vc, /*poisoned=*/true, src.pool());
  if (vr == 0 || vc == 0) return std::move(out).finish();
  arith::colReduceKernel(k, src.dtype(), src.window(0, 0, vr, vc), out.window(0, 0, 1, vc));
  for (int64_t c = 0; c < vc; ++c) {
    bool poisoned = false;
    for (int64_t r = 0; r < vr; ++r) poisoned = poisoned || src.poisonAt(r, c);
    out.setPoison(0, c, poisoned);
  }
  return std::move(out).finish();
}

}  // namespace tileops
}  // namespace ptodiff
