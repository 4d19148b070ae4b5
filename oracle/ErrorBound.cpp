#include "oracle/ErrorBound.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ptodiff::oracle {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// float64's own rounding (and libm's error) in computing a reference value: 2 ulps of binary64.
const double kFloat64Slack = std::ldexp(1.0, -52);

bool isNaN(const Approx& a) { return std::isnan(a.value); }
bool isSpecial(const Approx& a) { return !std::isfinite(a.value); }
/// The value is certainly exactly zero (so its sign is known as well).
bool isExactZero(const Approx& a) { return a.value == 0.0 && a.bound == 0.0; }
/// The interval [v - e, v + e] reaches zero.
bool mayBeZero(const Approx& a) { return std::fabs(a.value) <= a.bound; }

Approx certain(double value) { return {value, 0.0}; }
Approx notJudgeable(double value) { return {value, kInf}; }

}  // namespace

double unjudgeable() { return kInf; }
bool isUnjudgeable(const Approx& a) { return !(a.bound < kInf); }  // NaN bounds count as +Inf

FloatFormat floatFormat(DType dt) {
  FloatFormat f;
  f.dtype = dt;
  switch (dt) {
    case DType::FP32:
      f.unitRoundoff = std::ldexp(1.0, -24);
      f.denormMin = std::ldexp(1.0, -149);
      f.smallestNormal = std::ldexp(1.0, -126);
      f.largestFinite = std::ldexp(2.0 - std::ldexp(1.0, -23), 127);
      f.overflowThreshold = std::ldexp(2.0 - std::ldexp(1.0, -24), 127);
      return f;
    case DType::FP16:
      f.unitRoundoff = std::ldexp(1.0, -11);
      f.denormMin = std::ldexp(1.0, -24);
      f.smallestNormal = std::ldexp(1.0, -14);
      f.largestFinite = 65504.0;
      f.overflowThreshold = 65520.0;
      return f;
    case DType::BF16:
      f.unitRoundoff = std::ldexp(1.0, -8);
      f.denormMin = std::ldexp(1.0, -133);
      f.smallestNormal = std::ldexp(1.0, -126);
      f.largestFinite = std::ldexp(2.0 - std::ldexp(1.0, -7), 127);
      f.overflowThreshold = std::ldexp(2.0 - std::ldexp(1.0, -8), 127);
      return f;
    default: break;
  }
  throw std::invalid_argument("no float format for " + std::string(dtypeName(dt)));
}

bool isRepresentable(double v, DType dt) {
  if (!std::isfinite(v)) return false;
  const float f = static_cast<float>(v);  // round-to-nearest-even; exact iff v is a binary32 value
  if (static_cast<double>(f) != v) return false;
  switch (dt) {
    case DType::FP32: return true;
    case DType::FP16: return static_cast<float>(Eigen::half(f)) == f;
    case DType::BF16: return static_cast<float>(Eigen::bfloat16(f)) == f;
    default: break;
  }
  throw std::invalid_argument("isRepresentable: not a float dtype: " + std::string(dtypeName(dt)));
}

double ulpOf(double v, const FloatFormat& f) {
  if (!std::isfinite(v)) return kNaN;
  const double mag = std::fabs(v);
  if (mag < f.smallestNormal) return f.denormMin;
  int exponent = 0;
  std::frexp(mag, &exponent);  // mag = m * 2^exponent, m in [0.5, 1)
  return std::ldexp(f.unitRoundoff, exponent);  // 2u * 2^(exponent - 1)
}

Approx roundResult(double value, double propagated, const Rounding& rounding) {
  if (!std::isfinite(value)) return certain(value);  // the caller established that the special is certain
  if (!std::isfinite(propagated)) return notJudgeable(value);
  const FloatFormat& f = rounding.format;
  const double mag = std::fabs(value);
  const double r = rounding.ulps * (2.0 * f.unitRoundoff * (mag + propagated) + f.denormMin) + kFloat64Slack * mag;
  if (propagated == 0.0 && rounding.exactWhenRepresentable && rounding.ulps <= 0.5) {
    // A correctly rounded op on exact operands: by the double-rounding theorem, rounding the
    // float64 value gives the dtype's result, so representability and overflow are decided.
    if (mag >= f.overflowThreshold) return certain(std::copysign(kInf, value));
    if (isRepresentable(value, f.dtype)) return certain(value);
    return {value, r};
  }
  const double e = propagated + r;
  if (mag + e < f.overflowThreshold) return {value, e};
  if (mag - e >= f.overflowThreshold) return certain(std::copysign(kInf, value));
  return notJudgeable(value);  // may round to the largest finite value or overflow
}

Approx boundAdd(Approx a, Approx b, const Rounding& rounding) {
  const double v = a.value + b.value;
  if (isUnjudgeable(a) || isUnjudgeable(b)) return notJudgeable(v);
  // A finite operand with a finite bound is computed finite, so Inf + x and NaN + x are certain.
  if (isSpecial(a) || isSpecial(b)) return certain(v);
  return roundResult(v, a.bound + b.bound, rounding);
}

Approx boundSub(Approx a, Approx b, const Rounding& rounding) { return boundAdd(a, boundNeg(b), rounding); }

Approx boundMul(Approx a, Approx b, const Rounding& rounding) {
  const double v = a.value * b.value;
  if (isUnjudgeable(a) || isUnjudgeable(b)) return notJudgeable(v);
  if (isNaN(a) || isNaN(b)) return certain(v);
  if (std::isinf(a.value) || std::isinf(b.value)) {
    const Approx& other = std::isinf(a.value) ? b : a;
    if (std::isinf(other.value) || isExactZero(other)) return certain(v);  // +-Inf, or Inf * 0 = NaN
    return mayBeZero(other) ? notJudgeable(v) : certain(v);
  }
  // 0 * x is exactly zero, but its sign follows x's, which is uncertain when x may be 0: keep the
  // zero from looking exact, so a later x / 0 cannot claim a certain Inf of one sign.
  const bool zeroOfUncertainSign = v == 0.0 && ((isExactZero(a) && b.bound > 0.0 && mayBeZero(b)) ||
                                                (isExactZero(b) && a.bound > 0.0 && mayBeZero(a)));
  if (zeroOfUncertainSign) return {v, rounding.format.denormMin};
  const double propagated = std::fabs(a.value) * b.bound + std::fabs(b.value) * a.bound + a.bound * b.bound;
  return roundResult(v, propagated, rounding);
}

Approx boundDiv(Approx a, Approx b, const Rounding& rounding) {
  const double v = a.value / b.value;
  if (isUnjudgeable(a) || isUnjudgeable(b)) return notJudgeable(v);
  if (isNaN(a) || isNaN(b)) return certain(v);
  if (std::isinf(a.value)) {
    if (std::isinf(b.value) || isExactZero(b) || !mayBeZero(b)) return certain(v);
    return notJudgeable(v);  // the divisor's sign is uncertain
  }
  if (std::isinf(b.value)) return certain(v);  // finite / Inf = +-0
  if (isExactZero(b)) {
    // x / +-0 is +-Inf with a known sign when x is certainly nonzero, NaN when x is exactly 0.
    if (isExactZero(a) || !mayBeZero(a)) return certain(v);
    return notJudgeable(v);
  }
  if (mayBeZero(b)) return notJudgeable(v);
  const double propagated = (a.bound + std::fabs(v) * b.bound) / (std::fabs(b.value) - b.bound);
  return roundResult(v, propagated, rounding);
}

Approx boundExp(Approx a, const Rounding& rounding) {
  const double v = std::exp(a.value);
  if (isUnjudgeable(a)) return notJudgeable(v);
  if (isSpecial(a)) return certain(v);  // exp(NaN) = NaN, exp(+Inf) = +Inf, exp(-Inf) = 0
  if (std::isinf(v)) {
    // float64 overflowed, far beyond every dtype's range: certain when even the lowest value the
    // operand may take overflows the dtype.
    return std::exp(a.value - a.bound) >= rounding.format.overflowThreshold ? certain(v) : notJudgeable(v);
  }
  return roundResult(v, v * std::expm1(a.bound), rounding);
}

Approx boundLog(Approx a, const Rounding& rounding) {
  const double v = std::log(a.value);
  if (isUnjudgeable(a)) return notJudgeable(v);
  if (isSpecial(a)) return certain(v);  // log(+Inf) = +Inf, log(-Inf) = NaN
  if (a.value + a.bound < 0.0) return certain(kNaN);  // certainly negative
  if (isExactZero(a)) return certain(-kInf);
  if (a.value - a.bound <= 0.0) return notJudgeable(v);
  return roundResult(v, -std::log1p(-a.bound / a.value), rounding);
}

Approx boundSqrt(Approx a, const Rounding& rounding) {
  const double v = std::sqrt(a.value);
  if (isUnjudgeable(a)) return notJudgeable(v);
  if (isSpecial(a)) return certain(v);  // sqrt(+Inf) = +Inf, sqrt(-Inf) = NaN
  if (a.value + a.bound < 0.0) return certain(kNaN);
  if (isExactZero(a)) return certain(a.value);  // sqrt(+-0) = +-0
  if (a.value - a.bound < 0.0) return notJudgeable(v);
  // |sqrt(x') - sqrt(x)| = |x' - x| / (sqrt(x') + sqrt(x)) <= e / sqrt(x), and <= sqrt(e) always.
  const double propagated = a.value > 0.0 ? std::min(a.bound / v, std::sqrt(a.bound)) : std::sqrt(a.bound);
  return roundResult(v, propagated, rounding);
}

Approx boundRecip(Approx a, const Rounding& rounding) {
  const double v = 1.0 / a.value;
  if (isUnjudgeable(a)) return notJudgeable(v);
  if (isSpecial(a) || isExactZero(a)) return certain(v);  // 1/+-Inf = +-0, 1/+-0 = +-Inf
  if (mayBeZero(a)) return notJudgeable(v);
  return roundResult(v, std::fabs(v) * a.bound / (std::fabs(a.value) - a.bound), rounding);
}

Approx boundConvert(Approx a, const Rounding& rounding) {
  if (isUnjudgeable(a)) return a;
  if (isSpecial(a)) return certain(a.value);
  return roundResult(a.value, a.bound, rounding);
}

namespace {

/// max or min: `chosen` is the operand the exact values select.
Approx selectBound(const Approx& chosen, const Approx& other, bool chosenIsLarger) {
  const bool disjoint = chosenIsLarger ? chosen.value - chosen.bound > other.value + other.bound
                                       : chosen.value + chosen.bound < other.value - other.bound;
  // With overlapping intervals the computed operands may select the other one; max and min are
  // 1-Lipschitz in the sup norm, so the larger bound holds either way.
  return {chosen.value, disjoint ? chosen.bound : std::max(chosen.bound, other.bound)};
}

/// IEEE 754-2019 maximum/minimum on equal values: max(-0, +0) = +0, min(-0, +0) = -0.
bool preferFirstOnTie(double a, double b, bool larger) {
  if (a != b) return larger ? a > b : a < b;
  return larger ? !std::signbit(a) || std::signbit(b) : std::signbit(a) || !std::signbit(b);
}

}  // namespace

Approx boundMax(Approx a, Approx b) {
  const bool pickA = preferFirstOnTie(a.value, b.value, true);
  if (isUnjudgeable(a) || isUnjudgeable(b)) return notJudgeable(pickA ? a.value : b.value);
  if (isNaN(a) || isNaN(b)) return certain(kNaN);
  return pickA ? selectBound(a, b, true) : selectBound(b, a, true);
}

Approx boundMin(Approx a, Approx b) {
  const bool pickA = preferFirstOnTie(a.value, b.value, false);
  if (isUnjudgeable(a) || isUnjudgeable(b)) return notJudgeable(pickA ? a.value : b.value);
  if (isNaN(a) || isNaN(b)) return certain(kNaN);
  return pickA ? selectBound(a, b, false) : selectBound(b, a, false);
}

Approx boundAbs(Approx a) { return {std::fabs(a.value), a.bound}; }
Approx boundNeg(Approx a) { return {-a.value, a.bound}; }

Approx boundRelu(Approx a) {
  const double v = a.value > 0.0 ? a.value : 0.0;  // NaN > 0 is false: relu(NaN) = +0
  if (isUnjudgeable(a)) return notJudgeable(v);
  if (isNaN(a)) return certain(0.0);
  // Certainly <= 0: exactly +0. Otherwise relu is 1-Lipschitz.
  return {v, a.value + a.bound <= 0.0 ? 0.0 : a.bound};
}

Approx boundLrelu(Approx x, Approx slope, const Rounding& multiply) {
  const double v = x.value > 0.0 ? x.value : x.value * slope.value;
  if (isUnjudgeable(x) || isUnjudgeable(slope)) return notJudgeable(v);
  if (isNaN(x)) return certain(v);
  if (x.value - x.bound > 0.0) return x;  // certainly the positive branch: no rounding
  if (x.value + x.bound <= 0.0) return boundMul(x, slope, multiply);
  // The branch is uncertain, so |x| <= e_x: every candidate (x', fl(x' s'), x, x s) is small.
  if (!std::isfinite(slope.value)) return notJudgeable(v);
  const FloatFormat& f = multiply.format;
  const double slopeMag = (std::fabs(slope.value) + slope.bound) * (1.0 + 2.0 * multiply.ulps * f.unitRoundoff);
  const double e = 3.0 * x.bound * std::max(1.0, slopeMag) + multiply.ulps * f.denormMin;
  return {v, e};
}

double gamma(int64_t k, double u) {
  const double ku = static_cast<double>(k) * u;
  if (ku >= 1.0) return kInf;
  return ku / (1.0 - ku);
}

}  // namespace ptodiff::oracle
