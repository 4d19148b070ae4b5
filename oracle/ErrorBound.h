// Running error analysis for the oracle (spec/oracle.md): every element carries a reference value
// `v` (float64) and a bound `e` on |computed - v| for any implementation that rounds each op in the
// element dtype within the profile's per-op allowance of k ulps.
//
// Conventions, in one place:
// - e = 0 means the exact value is known *and representable in the dtype*: inputs, exact ops
//   (abs, neg, max, min, relu) of such values, and results of correctly rounded ops (k <= 0.5) whose
//   float64 value is representable (by the double-rounding theorem the dtype's correctly rounded
//   result is then exactly v).
// - A rounding adds r = k * (2u * (|v| + e_prop) + denormMin) + 2^-52 |v|: one ulp of x is at most
//   2u|x| + denormMin (the second term covers gradual underflow), and 2^-52 |v| covers float64's
//   own rounding and libm's error in computing v. For a correctly rounded op on exact operands the
//   double-rounding theorem decides the result's fate exactly: representable means exact (e = 0),
//   at or beyond the overflow threshold means a certain Inf.
// - A non-finite v with e = 0 is *certain*: an implementation must produce the same class (NaN, or
//   Inf of the same sign). An ordinary op on certain specials gives a certain special.
// - e = +Inf means *not judgeable*: an operand's interval reaches a point where the op is singular
//   or may overflow (division by a value that may be 0, log of a value that may be <= 0, a result
//   that may or may not overflow), so any computed value, Inf and NaN included, is acceptable.
//   Unjudgeable propagates to everything computed from it.
#pragma once

#include <cstdint>

#include "compiler/ir/DType.h"

namespace ptodiff::oracle {

/// A reference value and its error bound (see the header comment for e = 0 and e = +Inf).
struct Approx {
  double value = 0.0;
  double bound = 0.0;
};

/// The bound of an element the oracle cannot judge.
double unjudgeable();
bool isUnjudgeable(const Approx& a);

/// What the bounds need to know about a float dtype.
struct FloatFormat {
  DType dtype = DType::FP32;
  double unitRoundoff = 0;       // u = 2^-p: 2^-24 FP32, 2^-11 FP16, 2^-8 BF16
  double denormMin = 0;          // the smallest subnormal: one ulp in the subnormal range
  double smallestNormal = 0;     // the comparison's absolute slack ("tiny")
  double largestFinite = 0;
  double overflowThreshold = 0;  // the smallest magnitude that rounds to Inf under round-to-nearest-even
};

/// FP32, FP16 and BF16; throws std::invalid_argument for other dtypes.
FloatFormat floatFormat(DType dt);
/// Whether `v` (finite) is exactly a value of the dtype.
bool isRepresentable(double v, DType dt);
/// The spacing of the dtype's values at |v| (the ulp of v; denormMin below the normal range).
double ulpOf(double v, const FloatFormat& f);

/// One rounding into `format` within `ulps` ulps. `exactWhenRepresentable` states that the op is
/// one of + - * / sqrt or a conversion, for which a float64 value that is representable in the
/// dtype is exactly what a correctly rounded implementation returns.
struct Rounding {
  FloatFormat format;
  double ulps = 0.5;
  bool exactWhenRepresentable = true;
};

/// The rounding step shared by every op: e = e_prop + r, then the dtype's range: a result that
/// certainly overflows becomes a certain Inf, one that may or may not overflow is unjudgeable.
Approx roundResult(double value, double propagated, const Rounding& rounding);

// ---- per-op bounds: finite operands use the formulas of oracle.md; specials as in the header ----

Approx boundAdd(Approx a, Approx b, const Rounding& rounding);
Approx boundSub(Approx a, Approx b, const Rounding& rounding);
/// e_prop = |a| e_b + |b| e_a + e_a e_b.
Approx boundMul(Approx a, Approx b, const Rounding& rounding);
/// e_prop = (e_a + |v| e_b) / (|b| - e_b), unjudgeable when |b| <= e_b (b may be 0).
Approx boundDiv(Approx a, Approx b, const Rounding& rounding);
/// e_prop = |v| (exp(e_a) - 1).
Approx boundExp(Approx a, const Rounding& rounding);
/// e_prop = log(a / (a - e_a)), unjudgeable when a - e_a <= 0.
Approx boundLog(Approx a, const Rounding& rounding);
/// e_prop = min(e_a / sqrt(a), sqrt(e_a)), unjudgeable when a - e_a < 0 < a + e_a.
Approx boundSqrt(Approx a, const Rounding& rounding);
/// e_prop = |v| e_a / (|a| - e_a), unjudgeable when |a| <= e_a.
Approx boundRecip(Approx a, const Rounding& rounding);
/// A narrowing conversion (Acc FP32 -> FP16 store, a scalar into the tile dtype): one rounding.
Approx boundConvert(Approx a, const Rounding& rounding);

/// No rounding. max/min: the chosen operand's bound when the operands' intervals are disjoint,
/// else the larger bound (max and min are 1-Lipschitz); NaN if either is NaN.
Approx boundMax(Approx a, Approx b);
Approx boundMin(Approx a, Approx b);
Approx boundAbs(Approx a);
Approx boundNeg(Approx a);
/// relu(x) = x > 0 ? x : +0 (relu(NaN) = +0, semantics.md).
Approx boundRelu(Approx a);
/// lrelu(x, s) = x > 0 ? x : x * s, with `multiply` the rounding of the product.
Approx boundLrelu(Approx x, Approx slope, const Rounding& multiply);

/// gamma_K = K u / (1 - K u) (Higham), +Inf when K u >= 1.
double gamma(int64_t k, double u);

}  // namespace ptodiff::oracle
