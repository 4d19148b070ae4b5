#include "oracle/ReferenceTile.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "interp/KernelMemo.h"
#include "interp/ProgramFault.h"

namespace ptodiff::oracle::detail {

namespace {

std::string pairText(int64_t a, int64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; }

/// A window [off, off + extent) on one axis must lie inside [0, physical).
void requireWindowInside(const char* axis, int64_t off, int64_t extent, int64_t physical, const char* what) {
  if (off >= 0 && off + extent <= physical) return;
  throw ProgramFault::invalid(std::string(what) + " " + axis + " [" + std::to_string(off) + ", " +
                              std::to_string(off + extent) + ") lie outside the source's " + std::to_string(physical) +
                              " " + axis);
}

void requireSameShape(const RefTile& a, const RefTile& b, const char* what) {
  if (a.rows() != b.rows() || a.cols() != b.cols() || a.shape.dtype != b.shape.dtype)
    throw std::invalid_argument(std::string(what) + ": operands differ in physical shape or dtype");
}

bool supportsInteger(DType dt) { return dt == DType::INT32 || dt == DType::INT8; }

void requireElementDType(DType dt, const char* what) {
  if (!isFloat(dt) && !supportsInteger(dt))
    throw std::invalid_argument(std::string(what) + " is not defined on " + std::string(dtypeName(dt)));
}

RoundedOp roundedOpOf(ElemOp op) {
  switch (op) {
    case ElemOp::Add: return RoundedOp::Add;
    case ElemOp::Sub: return RoundedOp::Sub;
    case ElemOp::Div: return RoundedOp::Div;
    default: return RoundedOp::Mul;  // mul and lrelu's product; max/min do not round
  }
}

Approx floatElem(ElemOp op, Approx a, Approx b, const Rounding& rounding) {
  switch (op) {
    case ElemOp::Add: return boundAdd(a, b, rounding);
    case ElemOp::Sub: return boundSub(a, b, rounding);
    case ElemOp::Mul: return boundMul(a, b, rounding);
    case ElemOp::Div: return boundDiv(a, b, rounding);
    case ElemOp::Max: return boundMax(a, b);
    case ElemOp::Min: return boundMin(a, b);
    case ElemOp::Lrelu: return boundLrelu(a, b, rounding);
  }
  throw std::logic_error("floatElem: unknown op");
}

/// Exact integer arithmetic wrapped into the dtype; a zero divisor never reaches here (the
/// caller faults on a defined one and skips poison lanes).
int64_t integerElem(ElemOp op, int64_t a, int64_t b, DType dt) {
  switch (op) {
    case ElemOp::Add: return wrapInteger(a + b, dt);
    case ElemOp::Sub: return wrapInteger(a - b, dt);
    case ElemOp::Mul: return wrapInteger(a * b, dt);  // |a|, |b| < 2^31: no int64 overflow
    case ElemOp::Div: return b == 0 ? 0 : wrapInteger(a / b, dt);  // truncation; INT_MIN / -1 wraps
    case ElemOp::Max: return std::max(a, b);
    case ElemOp::Min: return std::min(a, b);
    case ElemOp::Lrelu: return a > 0 ? a : wrapInteger(a * b, dt);
  }
  throw std::logic_error("integerElem: unknown op");
}

RoundedOp roundedOpOf(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp: return RoundedOp::Exp;
    case UnaryOp::Sqrt: return RoundedOp::Sqrt;
    case UnaryOp::Log: return RoundedOp::Log;
    case UnaryOp::Recip: return RoundedOp::Recip;
    default: return RoundedOp::Mul;  // abs, neg, relu do not round
  }
}

Approx floatUnary(UnaryOp op, Approx a, const Rounding& rounding) {
  switch (op) {
    case UnaryOp::Abs: return boundAbs(a);
    case UnaryOp::Neg: return boundNeg(a);
    case UnaryOp::Relu: return boundRelu(a);
    case UnaryOp::Exp: return boundExp(a, rounding);
    case UnaryOp::Sqrt: return boundSqrt(a, rounding);
    case UnaryOp::Log: return boundLog(a, rounding);
    case UnaryOp::Recip: return boundRecip(a, rounding);
  }
  throw std::logic_error("floatUnary: unknown op");
}

const char* unaryName(UnaryOp op) {
  switch (op) {
    case UnaryOp::Abs: return "abs";
    case UnaryOp::Exp: return "exp";
    case UnaryOp::Sqrt: return "sqrt";
    case UnaryOp::Neg: return "neg";
    case UnaryOp::Relu: return "relu";
    case UnaryOp::Log: return "log";
    case UnaryOp::Recip: return "recip";
  }
  return "?";
}

/// The accumulator dtype of a matmul on `operand`.
DType accumulatorOf(DType operand) {
  switch (operand) {
    case DType::FP16: case DType::BF16: case DType::FP32: return DType::FP32;
    case DType::INT8: return DType::INT32;
    default: break;
  }
  throw std::invalid_argument("matmul is not defined on " + std::string(dtypeName(operand)));
}

/// One lane of a float matmul whose operands hold a special value or an unjudgeable bound:
/// the fold's class (NaN, +-Inf) when it is certain, else unjudgeable.
Approx specialMatmulLane(const RefTile& lhs, const RefTile& rhs, int64_t i, int64_t j, int64_t K) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double naive = 0.0;
  bool unsure = false, nan = false, posInf = false, negInf = false;
  for (int64_t k = 0; k < K; ++k) {
    const Approx l = lhs.approx(i, k), r = rhs.approx(k, j);
    naive += l.value * r.value;
    if (isUnjudgeable(l) || isUnjudgeable(r)) unsure = true;
    if (std::isnan(l.value) || std::isnan(r.value)) nan = true;
    if (!std::isinf(l.value) && !std::isinf(r.value)) continue;
    const Approx& other = std::isinf(l.value) ? r : l;
    if (!std::isinf(other.value)) {
      if (other.value == 0.0 && other.bound == 0.0) {
        nan = true;  // Inf * 0
        continue;
      }
      if (std::fabs(other.value) <= other.bound) unsure = true;  // the product's sign or class is uncertain
    }
    ((std::signbit(l.value) != std::signbit(r.value)) ? negInf : posInf) = true;
  }
  if (unsure) return {naive, kInf};
  if (nan || (posInf && negInf)) return {std::numeric_limits<double>::quiet_NaN(), 0.0};
  if (posInf) return {kInf, 0.0};
  if (negInf) return {-kInf, 0.0};
  return {naive, kInf};  // unreachable for a lane with specials; stay safe
}

/// The float product lanes [0, M) x [0, N): values by an Eigen matmul in float64, bounds by
/// gamma_K sum (|l| + e_l)(|r| + e_r) + sum (|l| e_r + e_l (|r| + e_r)).
void floatProduct(const RefTile& lhs, const RefTile& rhs, int64_t M, int64_t N, int64_t K,
                  const ToleranceProfile& profile, RefTile& out) {
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  // Lanes reading a non-finite value or bound are handled one by one; elsewhere zeros stand in.
  std::vector<uint8_t> rowClean(static_cast<size_t>(M), 1), colClean(static_cast<size_t>(N), 1);
  Grid<double> lv = lhs.value.block(0, 0, M, K), le = lhs.bound.block(0, 0, M, K);
  Grid<double> rv = rhs.value.block(0, 0, K, N), re = rhs.bound.block(0, 0, K, N);
  const auto sanitize = [](Grid<double>& v, Grid<double>& e, std::vector<uint8_t>& clean, bool byRow) {
    for (Eigen::Index r = 0; r < v.rows(); ++r)
      for (Eigen::Index c = 0; c < v.cols(); ++c) {
        if (std::isfinite(v(r, c)) && std::isfinite(e(r, c))) continue;
        clean[static_cast<size_t>(byRow ? r : c)] = 0;
        v(r, c) = 0.0;
        e(r, c) = 0.0;
      }
  };
  sanitize(lv, le, rowClean, true);
  sanitize(rv, re, colClean, false);

  const Grid<double> la = lv.abs() + le, ra = rv.abs() + re;
  const Matrix value = lv.matrix() * rv.matrix();
  const Matrix absSum = la.matrix() * ra.matrix();
  const Matrix propagated = lv.abs().matrix() * re.matrix() + le.matrix() * ra.matrix();

  const Rounding rounding = profile.rounding(RoundedOp::Matmul, DType::FP32);
  const FloatFormat& f = rounding.format;
  // u_eff = 2 k u per accumulation step; float64's own error in `value` is a gamma_K at 2^-53.
  const double g = gamma(K, 2.0 * rounding.ulps * f.unitRoundoff) + gamma(K, std::ldexp(1.0, -53));
  const double underflow = static_cast<double>(K) * rounding.ulps * f.denormMin;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      if (!rowClean[static_cast<size_t>(i)] || !colClean[static_cast<size_t>(j)]) {
        out.set(i, j, specialMatmulLane(lhs, rhs, i, j, K));
        continue;
      }
      const double e = g * absSum(i, j) + propagated(i, j) + underflow;
      // No partial sum can reach the overflow threshold unless sum |l'||r'| (1 + g) can.
      const bool mayOverflow = !(absSum(i, j) * (1.0 + g) + e < f.overflowThreshold);
      out.set(i, j, {value(i, j), mayOverflow ? unjudgeable() : e});
    }
}

void integerProduct(const RefTile& lhs, const RefTile& rhs, int64_t M, int64_t N, int64_t K, RefTile& out) {
  using Matrix = Eigen::Matrix<int64_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  // |l r| <= 2^14 and K < 2^20: the exact sum fits int64; wrapping the sum once equals wrapping
  // every step.
  const Matrix sum = lhs.integer.block(0, 0, M, K).matrix() * rhs.integer.block(0, 0, K, N).matrix();
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) out.integer(i, j) = wrapInteger(sum(i, j), DType::INT32);
}

/// The product lanes of `out` (values and bounds, or integers) as floatProduct or integerProduct
/// computes them, remembered per thread (interp/KernelMemo.h): a case's scalar sets run the
/// oracle on equal inputs. The key is everything they read: the extents, the rounding the bounds
/// use, and the operands' values and bounds (integers).
void memoizedProduct(const RefTile& lhs, const RefTile& rhs, int64_t M, int64_t N, int64_t K,
                     const ToleranceProfile& profile, RefTile& out) {
  thread_local KernelMemo memo;
  const bool floats = out.holdsFloats();
  const auto bits = [](double d) { return std::bit_cast<int64_t>(d); };
  const Rounding rounding = floats ? profile.rounding(RoundedOp::Matmul, DType::FP32) : Rounding{};
  const auto operand = [](const auto& grid, int64_t rows, int64_t cols) {
    return KernelMemo::Matrix{grid.data(), rows, cols, grid.cols(), sizeof(*grid.data())};
  };
  KernelMemo::Key key = floats ? KernelMemo::Key({1, M, N, K, bits(rounding.ulps), bits(rounding.format.unitRoundoff),
                                                  bits(rounding.format.denormMin),
                                                  bits(rounding.format.overflowThreshold)},
                                                 {operand(lhs.value, M, K), operand(lhs.bound, M, K),
                                                  operand(rhs.value, K, N), operand(rhs.bound, K, N)})
                               : KernelMemo::Key({0, M, N, K}, {operand(lhs.integer, M, K), operand(rhs.integer, K, N)});
  const auto target = [](auto& grid, int64_t rows, int64_t cols) {
    return KernelMemo::Target{grid.data(), rows, cols, grid.cols(), sizeof(*grid.data())};
  };
  if (floats ? memo.recall(key, {target(out.value, M, N), target(out.bound, M, N)})
             : memo.recall(key, {target(out.integer, M, N)}))
    return;
  if (floats) {
    floatProduct(lhs, rhs, M, N, K, profile, out);
    memo.store(std::move(key), {operand(out.value, M, N), operand(out.bound, M, N)});
  } else {
    integerProduct(lhs, rhs, M, N, K, out);
    memo.store(std::move(key), {operand(out.integer, M, N)});
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Tiles
// ---------------------------------------------------------------------------------------------

RefTile RefTile::poisoned(const TileShape& shape, int64_t validRows, int64_t validCols) {
  RefTile t;
  t.shape = shape;
  t.validRows = validRows;
  t.validCols = validCols;
  if (isFloat(shape.dtype)) t.value = Grid<double>::Zero(shape.rows, shape.cols);
  else t.integer = Grid<int64_t>::Zero(shape.rows, shape.cols);
  t.bound = Grid<double>::Zero(shape.rows, shape.cols);
  t.poison = Grid<uint8_t>::Ones(shape.rows, shape.cols);
  t.chain = Grid<int32_t>::Zero(shape.rows, shape.cols);
  return t;
}

void RefTile::copyElement(int64_t r, int64_t c, const RefTile& src, int64_t sr, int64_t sc) {
  if (holdsFloats()) value(r, c) = src.value(sr, sc);
  else integer(r, c) = src.integer(sr, sc);
  bound(r, c) = src.bound(sr, sc);
  poison(r, c) = src.poison(sr, sc);
  chain(r, c) = src.chain(sr, sc);
}

void RefTile::copyWindow(int64_t r, int64_t c, const RefTile& src, int64_t sr, int64_t sc, int64_t nr, int64_t nc) {
  if (nr <= 0 || nc <= 0) return;
  if (holdsFloats()) value.block(r, c, nr, nc) = src.value.block(sr, sc, nr, nc);
  else integer.block(r, c, nr, nc) = src.integer.block(sr, sc, nr, nc);
  bound.block(r, c, nr, nc) = src.bound.block(sr, sc, nr, nc);
  poison.block(r, c, nr, nc) = src.poison.block(sr, sc, nr, nc);
  chain.block(r, c, nr, nc) = src.chain.block(sr, sc, nr, nc);
}

ScalarOperand scalarOperand(const ScalarElement& s, DType dt, const ToleranceProfile& profile) {
  ScalarOperand out;
  if (!isFloat(dt)) {
    out.integer = s.integer;
    return out;
  }
  if (!std::isfinite(s.real) || isRepresentable(s.real, dt)) {
    out.real = {s.real, 0.0};
    return out;
  }
  out.real = boundConvert({s.real, 0.0}, profile.rounding(RoundedOp::Convert, dt));
  out.chain = 1;
  return out;
}

RefTile refCreate(const TileShape& shape) { return RefTile::poisoned(shape, shape.rows, shape.cols); }

RefTile refFull(const TileShape& shape, const ScalarOperand& s) {
  RefTile out = RefTile::poisoned(shape, shape.rows, shape.cols);
  out.poison.setZero();
  out.chain.setConstant(s.chain);
  if (out.holdsFloats()) {
    out.value.setConstant(s.real.value);
    out.bound.setConstant(s.real.bound);
  } else {
    out.integer.setConstant(s.integer);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Element-wise ops
// ---------------------------------------------------------------------------------------------

RefTile refBinary(ElemOp op, const RefTile& lhs, const RefTile& rhs, const ToleranceProfile& profile) {
  requireSameShape(lhs, rhs, "binary op");
  const DType dt = lhs.shape.dtype;
  requireElementDType(dt, "a binary op");
  const int64_t vr = lhs.validRows, vc = lhs.validCols;
  if (op == ElemOp::Div && !isFloat(dt))
    for (int64_t r = 0; r < vr; ++r)
      for (int64_t c = 0; c < vc; ++c)
        if (!rhs.poison(r, c) && rhs.integer(r, c) == 0)
          throw ProgramFault::invalid("integer division by zero at element " + pairText(r, c) +
                                      "; a zero divisor is outside the default contract");
  RefTile out = RefTile::poisoned(lhs.shape, vr, vc);
  const Rounding rounding = isFloat(dt) ? profile.rounding(roundedOpOf(op), dt) : Rounding{};
  for (int64_t r = 0; r < vr; ++r)
    for (int64_t c = 0; c < vc; ++c) {
      if (lhs.poison(r, c) || rhs.poison(r, c)) continue;
      out.poison(r, c) = 0;
      out.chain(r, c) = std::max(lhs.chain(r, c), rhs.chain(r, c)) + 1;
      if (isFloat(dt)) out.set(r, c, floatElem(op, lhs.approx(r, c), rhs.approx(r, c), rounding));
      else out.integer(r, c) = integerElem(op, lhs.integer(r, c), rhs.integer(r, c), dt);
    }
  return out;
}

RefTile refBinaryScalar(ElemOp op, const RefTile& lhs, const ScalarOperand& rhs, const ToleranceProfile& profile) {
  const DType dt = lhs.shape.dtype;
  requireElementDType(dt, "a tile-scalar op");
  const int64_t vr = lhs.validRows, vc = lhs.validCols;
  if (op == ElemOp::Div && !isFloat(dt) && rhs.integer == 0 && vr > 0 && vc > 0)
    throw ProgramFault::invalid("integer division by the scalar 0; a zero divisor is outside the default contract");
  RefTile out = RefTile::poisoned(lhs.shape, vr, vc);
  const Rounding rounding = isFloat(dt) ? profile.rounding(roundedOpOf(op), dt) : Rounding{};
  for (int64_t r = 0; r < vr; ++r)
    for (int64_t c = 0; c < vc; ++c) {
      if (lhs.poison(r, c)) continue;
      out.poison(r, c) = 0;
      out.chain(r, c) = std::max(lhs.chain(r, c), rhs.chain) + 1;
      if (isFloat(dt)) out.set(r, c, floatElem(op, lhs.approx(r, c), rhs.real, rounding));
      else out.integer(r, c) = integerElem(op, lhs.integer(r, c), rhs.integer, dt);
    }
  return out;
}

RefTile refUnary(UnaryOp op, const RefTile& src, const ToleranceProfile& profile) {
  const DType dt = src.shape.dtype;
  requireElementDType(dt, unaryName(op));
  const bool integerOk = op == UnaryOp::Abs || op == UnaryOp::Neg || op == UnaryOp::Relu;
  if (!isFloat(dt) && !integerOk)
    throw std::invalid_argument(std::string(unaryName(op)) + " is not defined on " + std::string(dtypeName(dt)));
  const int64_t vr = src.validRows, vc = src.validCols;
  RefTile out = RefTile::poisoned(src.shape, vr, vc);
  const Rounding rounding = isFloat(dt) ? profile.rounding(roundedOpOf(op), dt) : Rounding{};
  for (int64_t r = 0; r < vr; ++r)
    for (int64_t c = 0; c < vc; ++c) {
      if (src.poison(r, c)) continue;
      out.poison(r, c) = 0;
      out.chain(r, c) = src.chain(r, c) + 1;
      if (isFloat(dt)) {
        out.set(r, c, floatUnary(op, src.approx(r, c), rounding));
        continue;
      }
      const int64_t x = src.integer(r, c);
      switch (op) {
        case UnaryOp::Abs: out.integer(r, c) = wrapInteger(x < 0 ? -x : x, dt); break;
        case UnaryOp::Neg: out.integer(r, c) = wrapInteger(-x, dt); break;
        default: out.integer(r, c) = x > 0 ? x : 0; break;  // relu
      }
    }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Views and copies
// ---------------------------------------------------------------------------------------------

int64_t windowValid(int64_t sourceValid, int64_t offset, int64_t extent, std::optional<int64_t> requested) {
  const int64_t available = std::clamp<int64_t>(sourceValid - offset, 0, extent);
  return requested ? std::min(*requested, available) : available;
}

RefTile refSlice(const RefTile& src, const TileShape& shape, int64_t r0, int64_t c0,
                 const std::optional<std::array<int64_t, 2>>& requestedValid) {
  requireWindowInside("rows", r0, shape.rows, src.rows(), "window");
  requireWindowInside("columns", c0, shape.cols, src.cols(), "window");
  std::optional<int64_t> wantRows, wantCols;
  if (requestedValid) {
    if ((*requestedValid)[0] < 0 || (*requestedValid)[1] < 0)
      throw ProgramFault::invalid("valid_shape " + pairText((*requestedValid)[0], (*requestedValid)[1]) +
                                  " has a negative extent");
    wantRows = (*requestedValid)[0];
    wantCols = (*requestedValid)[1];
  }
  RefTile out = RefTile::poisoned(shape, windowValid(src.validRows, r0, shape.rows, wantRows),
                                  windowValid(src.validCols, c0, shape.cols, wantCols));
  out.copyWindow(0, 0, src, r0, c0, shape.rows, shape.cols);  // a view: every element keeps its state
  return out;
}

RefTile refExtract(const RefTile& src, const TileShape& shape, int64_t r0, int64_t c0) {
  requireWindowInside("rows", r0, shape.rows, src.rows(), "window");
  requireWindowInside("columns", c0, shape.cols, src.cols(), "window");
  const int64_t vr = windowValid(src.validRows, r0, shape.rows, std::nullopt);
  const int64_t vc = windowValid(src.validCols, c0, shape.cols, std::nullopt);
  RefTile out = RefTile::poisoned(shape, vr, vc);
  out.copyWindow(0, 0, src, r0, c0, vr, vc);
  return out;
}

std::optional<std::array<int64_t, 2>> assembleValid(const RefTile& target, int64_t r0, int64_t c0,
                                                    int64_t srcValidRows, int64_t srcValidCols) {
  using Valid = std::array<int64_t, 2>;
  const int64_t vr = target.validRows, vc = target.validCols;
  if (vr == target.rows() && vc == target.cols()) return Valid{vr, vc};  // a full target stays full
  if (srcValidRows == 0 || srcValidCols == 0) return Valid{vr, vc};    // nothing valid is written
  const int64_t rowEnd = r0 + srcValidRows, colEnd = c0 + srcValidCols;
  if (vr == 0 || vc == 0) {
    if (r0 == 0 && c0 == 0) return Valid{srcValidRows, srcValidCols};
    return std::nullopt;
  }
  if (rowEnd <= vr && colEnd <= vc) return Valid{vr, vc};
  if (r0 == 0 && c0 == 0 && rowEnd >= vr && colEnd >= vc) return Valid{rowEnd, colEnd};
  if (r0 == 0 && rowEnd == vr && c0 <= vc) return Valid{vr, std::max(vc, colEnd)};  // columns grow
  if (c0 == 0 && colEnd == vc && r0 <= vr) return Valid{std::max(vr, rowEnd), vc};  // rows grow
  return std::nullopt;
}

RefTile refAssemble(const RefTile& target, const RefTile& src, int64_t r0, int64_t c0) {
  if (target.shape.dtype != src.shape.dtype) throw std::invalid_argument("assemble: operand dtypes differ");
  requireWindowInside("rows", r0, src.rows(), target.rows(), "source window");
  requireWindowInside("columns", c0, src.cols(), target.cols(), "source window");
  const auto valid = assembleValid(target, r0, c0, src.validRows, src.validCols);
  if (!valid)
    throw ProgramFault::invalid("the union of the target's valid region " + pairText(target.validRows, target.validCols) +
                                " and the source's valid region " + pairText(src.validRows, src.validCols) +
                                " written at " + pairText(r0, c0) + " is not a prefix rectangle");
  RefTile out = target;
  out.validRows = (*valid)[0];
  out.validCols = (*valid)[1];
  out.copyWindow(r0, c0, src, 0, 0, src.rows(), src.cols());  // the whole physical source, poison included
  return out;
}

std::optional<std::array<int64_t, 2>> reshapeValid(int64_t cols, int64_t validRows, int64_t validCols,
                                                   int64_t newRows, int64_t newCols) {
  const int64_t prefix = validRows * validCols;
  const bool rowMajorPrefix = prefix == 0 || validCols == cols || validRows == 1;
  if (!rowMajorPrefix) return std::nullopt;
  if (prefix % newCols == 0 && prefix / newCols <= newRows) return std::array<int64_t, 2>{prefix / newCols, newCols};
  if (prefix <= newCols) return std::array<int64_t, 2>{1, prefix};
  return std::nullopt;
}

RefTile refReshape(const RefTile& src, const TileShape& shape) {
  if (shape.rows * shape.cols != src.rows() * src.cols() || shape.dtype != src.shape.dtype)
    throw std::invalid_argument("reshape: element count or dtype changes");
  const auto valid = reshapeValid(src.cols(), src.validRows, src.validCols, shape.rows, shape.cols);
  if (!valid)
    throw ProgramFault::invalid("valid region " + pairText(src.validRows, src.validCols) + " of the " +
                                pairText(src.rows(), src.cols()) + " source does not map to a prefix rectangle of " +
                                pairText(shape.rows, shape.cols) + " (flat-prefix rule)");
  RefTile out;
  out.shape = shape;
  out.validRows = (*valid)[0];
  out.validCols = (*valid)[1];
  // Row-major storage: the same flat sequence under the new shape.
  const auto remap = [&](const auto& grid) {
    using G = std::decay_t<decltype(grid)>;
    if (grid.size() == 0) return G();
    return G(Eigen::Map<const G>(grid.data(), shape.rows, shape.cols));
  };
  out.value = remap(src.value);
  out.integer = remap(src.integer);
  out.bound = remap(src.bound);
  out.poison = remap(src.poison);
  out.chain = remap(src.chain);
  return out;
}

RefTile refSetValidShape(const RefTile& src, int64_t validRows, int64_t validCols) {
  if (validRows < 0 || validRows > src.rows() || validCols < 0 || validCols > src.cols())
    throw ProgramFault::invalid("valid extents " + pairText(validRows, validCols) + " lie outside the physical shape " +
                                pairText(src.rows(), src.cols()));
  RefTile out = src;  // lanes exposed by growing keep their state
  out.validRows = validRows;
  out.validCols = validCols;
  return out;
}

RefTile refMove(const RefTile& src, const TileShape& shape) {
  if (shape.rows != src.rows() || shape.cols != src.cols() || shape.dtype != src.shape.dtype)
    throw std::invalid_argument("move: shape or dtype changes");
  RefTile out = RefTile::poisoned(shape, src.validRows, src.validCols);
  out.copyWindow(0, 0, src, 0, 0, src.validRows, src.validCols);
  return out;
}

RefTile refTransposeView(const RefTile& src, const TileShape& shape) {
  if (shape.rows != src.cols() || shape.cols != src.rows())
    throw std::invalid_argument("transpose_view: shape not swapped");
  RefTile out;
  out.shape = shape;
  out.validRows = src.validCols;
  out.validCols = src.validRows;
  out.value = src.value.transpose();
  out.integer = src.integer.transpose();
  out.bound = src.bound.transpose();
  out.poison = src.poison.transpose();
  out.chain = src.chain.transpose();
  return out;
}

// ---------------------------------------------------------------------------------------------
// Matmul
// ---------------------------------------------------------------------------------------------

RefTile refMatmul(const RefTile& lhs, const RefTile& rhs, const TileShape& shape, const ToleranceProfile& profile) {
  if (lhs.shape.dtype != rhs.shape.dtype || lhs.cols() != rhs.rows())
    throw std::invalid_argument("matmul: operands differ in dtype or contraction extent");
  if (shape.dtype != accumulatorOf(lhs.shape.dtype) || shape.rows != lhs.rows() || shape.cols != rhs.cols())
    throw std::invalid_argument("matmul: result type is not the accumulator of the operands");
  const int64_t M = lhs.validRows, N = rhs.validCols, K = lhs.validCols;
  RefTile out = RefTile::poisoned(shape, M, N);
  if (M == 0 || N == 0) return out;
  memoizedProduct(lhs, rhs, M, N, K, profile, out);
  // A product lane is poison when any lane it reads is: its row of L or its column of R. Its
  // chain is K steps after the longest chain it reads.
  std::vector<uint8_t> rowPoison(static_cast<size_t>(M), 0), colPoison(static_cast<size_t>(N), 0);
  std::vector<int32_t> rowChain(static_cast<size_t>(M), 0), colChain(static_cast<size_t>(N), 0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) {
      rowPoison[static_cast<size_t>(i)] |= lhs.poison(i, k);
      rowChain[static_cast<size_t>(i)] = std::max(rowChain[static_cast<size_t>(i)], lhs.chain(i, k));
    }
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) {
      colPoison[static_cast<size_t>(j)] |= rhs.poison(k, j);
      colChain[static_cast<size_t>(j)] = std::max(colChain[static_cast<size_t>(j)], rhs.chain(k, j));
    }
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      out.poison(i, j) = rowPoison[static_cast<size_t>(i)] | colPoison[static_cast<size_t>(j)];
      out.chain(i, j) = std::max(rowChain[static_cast<size_t>(i)], colChain[static_cast<size_t>(j)]) +
                        static_cast<int32_t>(K);
    }
  return out;
}

RefTile refMatmulAcc(const RefTile& acc, const RefTile& lhs, const RefTile& rhs, bool init,
                     const ToleranceProfile& profile) {
  const RefTile prod = refMatmul(lhs, rhs, acc.shape, profile);
  const int64_t M = prod.validRows, N = prod.validCols;
  RefTile out = acc;
  if (M == 0 || N == 0) return out;  // no product lane: ACC unchanged
  if (init) {
    out.copyWindow(0, 0, prod, 0, 0, M, N);
  } else {
    const DType dt = acc.shape.dtype;
    const Rounding rounding = isFloat(dt) ? profile.rounding(RoundedOp::Add, dt) : Rounding{};
    for (int64_t r = 0; r < M; ++r)
      for (int64_t c = 0; c < N; ++c) {
        out.poison(r, c) = acc.poison(r, c) | prod.poison(r, c);
        out.chain(r, c) = std::max(acc.chain(r, c), prod.chain(r, c)) + 1;
        if (isFloat(dt)) out.set(r, c, boundAdd(acc.approx(r, c), prod.approx(r, c), rounding));
        else out.integer(r, c) = wrapInteger(acc.integer(r, c) + prod.integer(r, c), dt);
      }
  }
  // The hardware writes whole 16 x 16 Acc boxes: lanes outside the product in a touched box are
  // unspecified.
  const int64_t rowEnd = std::min(acc.rows(), ((M - 1) / kAccBoxEdge + 1) * kAccBoxEdge);
  const int64_t colEnd = std::min(acc.cols(), ((N - 1) / kAccBoxEdge + 1) * kAccBoxEdge);
  for (int64_t r = 0; r < rowEnd; ++r)
    for (int64_t c = 0; c < colEnd; ++c)
      if (r >= M || c >= N) out.poison(r, c) = 1;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------------------------

namespace {

/// Folds `count` elements of `src` reached by `at(i)` -> (r, c), in order, into one element of
/// `out` at (orow, ocol): a chain of rounded adds for sums, exact selections for max/min.
template <class At>
void foldInto(ReduceOp op, const RefTile& src, int64_t count, At at, const Rounding& rounding, RefTile& out,
              int64_t orow, int64_t ocol) {
  const DType dt = src.shape.dtype;
  auto [r0, c0] = at(0);
  bool poisoned = src.poison(r0, c0) != 0;
  int32_t chain = src.chain(r0, c0);
  Approx acc = isFloat(dt) ? src.approx(r0, c0) : Approx{};
  int64_t iacc = isFloat(dt) ? 0 : src.integer(r0, c0);
  for (int64_t i = 1; i < count; ++i) {
    auto [r, c] = at(i);
    poisoned = poisoned || src.poison(r, c);
    chain = std::max(chain, src.chain(r, c)) + 1;
    if (isFloat(dt)) {
      const Approx x = src.approx(r, c);
      acc = op == ReduceOp::Sum ? boundAdd(acc, x, rounding) : op == ReduceOp::Max ? boundMax(acc, x) : boundMin(acc, x);
    } else {
      const int64_t x = src.integer(r, c);
      iacc = op == ReduceOp::Sum ? wrapInteger(iacc + x, dt) : op == ReduceOp::Max ? std::max(iacc, x) : std::min(iacc, x);
    }
  }
  if (poisoned) return;  // stays poison
  out.poison(orow, ocol) = 0;
  out.chain(orow, ocol) = chain;
  if (isFloat(dt)) out.set(orow, ocol, acc);
  else out.integer(orow, ocol) = iacc;
}

Rounding sumRounding(ReduceOp op, DType dt, const ToleranceProfile& profile) {
  return isFloat(dt) && op == ReduceOp::Sum ? profile.rounding(RoundedOp::Add, dt) : Rounding{};
}

}  // namespace

RefTile refRowReduce(ReduceOp op, const RefTile& src, const TileShape& shape, const ToleranceProfile& profile) {
  requireElementDType(src.shape.dtype, "a row reduction");
  const int64_t vr = src.validRows, vc = src.validCols;
  RefTile out = RefTile::poisoned(shape, vr, 1);
  if (vr == 0 || vc == 0) return out;  // an empty fold defines nothing
  const Rounding rounding = sumRounding(op, src.shape.dtype, profile);
  for (int64_t r = 0; r < vr; ++r)
    foldInto(op, src, vc, [r](int64_t i) { return std::pair<int64_t, int64_t>{r, i}; }, rounding, out, r, 0);
  return out;
}

RefTile refColReduce(ReduceOp op, const RefTile& src, const TileShape& shape, const ToleranceProfile& profile) {
  requireElementDType(src.shape.dtype, "a column reduction");
  const int64_t vr = src.validRows, vc = src.validCols;
  RefTile out = RefTile::poisoned(shape, 1, vc);
  if (vr == 0 || vc == 0) return out;
  const Rounding rounding = sumRounding(op, src.shape.dtype, profile);
  for (int64_t c = 0; c < vc; ++c)
    foldInto(op, src, vr, [c](int64_t i) { return std::pair<int64_t, int64_t>{i, c}; }, rounding, out, 0, c);
  return out;
}

}  // namespace ptodiff::oracle::detail
