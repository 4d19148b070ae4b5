// Each op's bound formula against values computed by hand from spec/oracle.md:
//   rounding r = k * (2u (|v| + e_prop) + denormMin) + 2^-52 |v|, e = e_prop + r,
// plus the special cases (exact results, certain specials, unjudgeable guards, overflow).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "oracle/ErrorBound.h"
#include "oracle/ToleranceProfile.h"

namespace ptodiff::oracle {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double u32 = std::ldexp(1.0, -24), u16 = std::ldexp(1.0, -11);
const double denorm32 = std::ldexp(1.0, -149), denorm16 = std::ldexp(1.0, -24);
const double slack = std::ldexp(1.0, -52);

Rounding fp32(double k = 0.5, bool exactRule = true) { return {floatFormat(DType::FP32), k, exactRule}; }
Rounding fp16(double k = 0.5) { return {floatFormat(DType::FP16), k, true}; }

/// r of oracle.md for one rounding (the hand formula, written out independently of the code).
double rounding32(double k, double v, double eProp) {
  return k * (2.0 * u32 * (std::fabs(v) + eProp) + denorm32) + slack * std::fabs(v);
}

bool isCertainNaN(const Approx& a) { return std::isnan(a.value) && a.bound == 0.0; }

TEST(BoundFloatFormat, ConstantsOfEachDType) {
  const FloatFormat f32 = floatFormat(DType::FP32), f16 = floatFormat(DType::FP16), b16 = floatFormat(DType::BF16);
  EXPECT_EQ(f32.unitRoundoff, u32);
  EXPECT_EQ(f16.unitRoundoff, u16);
  EXPECT_EQ(b16.unitRoundoff, std::ldexp(1.0, -8));
  EXPECT_EQ(f32.smallestNormal, static_cast<double>(std::numeric_limits<float>::min()));
  EXPECT_EQ(f32.largestFinite, static_cast<double>(std::numeric_limits<float>::max()));
  EXPECT_EQ(f16.largestFinite, 65504.0);
  EXPECT_EQ(f16.overflowThreshold, 65520.0);
  EXPECT_EQ(f16.smallestNormal, std::ldexp(1.0, -14));
  EXPECT_EQ(f16.denormMin, denorm16);
  EXPECT_THROW(floatFormat(DType::INT32), std::invalid_argument);
}

TEST(BoundFloatFormat, RepresentabilityAndUlps) {
  EXPECT_FALSE(isRepresentable(0.1, DType::FP32));
  EXPECT_TRUE(isRepresentable(static_cast<double>(0.1f), DType::FP32));
  EXPECT_FALSE(isRepresentable(static_cast<double>(0.1f), DType::FP16));
  EXPECT_TRUE(isRepresentable(65504.0, DType::FP16));
  EXPECT_FALSE(isRepresentable(65505.0, DType::FP16));
  EXPECT_TRUE(isRepresentable(std::ldexp(1.0, -24), DType::FP16));   // the smallest FP16 subnormal
  EXPECT_FALSE(isRepresentable(std::ldexp(1.0, -25), DType::FP16));
  EXPECT_TRUE(isRepresentable(1.0 + std::ldexp(1.0, -7), DType::BF16));
  EXPECT_FALSE(isRepresentable(1.0 + std::ldexp(1.0, -8), DType::BF16));
  EXPECT_FALSE(isRepresentable(kInf, DType::FP32));

  const FloatFormat f32 = floatFormat(DType::FP32), f16 = floatFormat(DType::FP16);
  EXPECT_EQ(ulpOf(1.0, f32), std::ldexp(1.0, -23));
  EXPECT_EQ(ulpOf(1.99, f32), std::ldexp(1.0, -23));
  EXPECT_EQ(ulpOf(-2.0, f32), std::ldexp(1.0, -22));
  EXPECT_EQ(ulpOf(std::ldexp(1.0, -130), f32), denorm32);
  EXPECT_EQ(ulpOf(1000.0, f16), 0.5);
}

TEST(BoundRoundResult, ExactWhenRepresentableAndCorrectlyRounded) {
  // 1.5 + 2.25 = 3.75 is an FP32 value: a correctly rounded add returns it exactly.
  EXPECT_EQ(boundAdd({1.5, 0}, {2.25, 0}, fp32()).bound, 0.0);
  // The same sum under a 1-ulp allowance may be off by an ulp.
  EXPECT_DOUBLE_EQ(boundAdd({1.5, 0}, {2.25, 0}, fp32(1.0)).bound, rounding32(1.0, 3.75, 0.0));
  // exp is not a correctly rounded float64 primitive: no exactness claim even for k = 0.5.
  EXPECT_GT(roundResult(1.0, 0.0, fp32(0.5, /*exactRule=*/false)).bound, 0.0);
}

TEST(BoundRoundResult, OverflowIsCertainInfOrUnjudgeable) {
  const Approx big = roundResult(3.5e38, 0.0, fp32());
  EXPECT_EQ(big.value, kInf);
  EXPECT_EQ(big.bound, 0.0);
  EXPECT_EQ(roundResult(-1e39, 0.0, fp32()).value, -kInf);
  // A correctly rounded op on exact operands decides overflow exactly: 65519 rounds to 65504.
  const Approx below = roundResult(65519.0, 0.0, fp16());
  EXPECT_EQ(below.value, 65519.0);
  EXPECT_DOUBLE_EQ(below.bound, 0.5 * (2.0 * u16 * 65519.0 + denorm16) + slack * 65519.0);
  EXPECT_EQ(roundResult(65520.0, 0.0, fp16()).value, kInf);
  // With an uncertain operand, a bound straddling the threshold 65520 is unjudgeable.
  EXPECT_TRUE(isUnjudgeable(roundResult(65519.0, 1.0, fp16())));
  EXPECT_EQ(roundResult(65000.0, 0.0, fp16()).value, 65000.0);
}

TEST(BoundAdd, InexactSumAddsHalfAnUlpOfTheResult) {
  const double v = 1.0 + std::ldexp(1.0, -30);
  const Approx r = boundAdd({1.0, 0}, {std::ldexp(1.0, -30), 0}, fp32());
  EXPECT_EQ(r.value, v);
  EXPECT_DOUBLE_EQ(r.bound, u32 * v + 0.5 * denorm32 + slack * v);
}

TEST(BoundAdd, PropagatesTheSumOfTheOperandBounds) {
  const Approx r = boundAdd({1.0, 1e-7}, {2.0, 2e-7}, fp32());
  EXPECT_EQ(r.value, 3.0);
  EXPECT_DOUBLE_EQ(r.bound, 3e-7 + rounding32(0.5, 3.0, 3e-7));
}

TEST(BoundSub, CancellationKeepsTheOperandsBound) {
  // (a + b) - a with a = 1e8, b = 1: the sum's rounding error survives the cancellation.
  const Approx sum = boundAdd({1e8, 0}, {1.0, 0}, fp32());
  EXPECT_DOUBLE_EQ(sum.bound, rounding32(0.5, 1e8 + 1.0, 0.0));
  const Approx diff = boundSub(sum, {1e8, 0}, fp32());
  EXPECT_EQ(diff.value, 1.0);
  EXPECT_DOUBLE_EQ(diff.bound, sum.bound + rounding32(0.5, 1.0, sum.bound));
  // FP32 really computes 0 here (1e8 + 1 rounds to 1e8), which the bound admits.
  EXPECT_LE(std::fabs(0.0 - diff.value), diff.bound);
}

TEST(BoundMul, FirstOrderPlusSecondOrderTerm) {
  const Approx r = boundMul({3.0, 1e-6}, {-2.0, 1e-6}, fp32());
  const double eProp = 3.0 * 1e-6 + 2.0 * 1e-6 + 1e-12;
  EXPECT_EQ(r.value, -6.0);
  EXPECT_DOUBLE_EQ(r.bound, eProp + rounding32(0.5, 6.0, eProp));
}

TEST(BoundDiv, BoundAndGuards) {
  const Approx r = boundDiv({1.0, 1e-6}, {4.0, 1e-6}, fp32());
  const double eProp = (1e-6 + 0.25 * 1e-6) / (4.0 - 1e-6);
  EXPECT_EQ(r.value, 0.25);
  EXPECT_DOUBLE_EQ(r.bound, eProp + rounding32(0.5, 0.25, eProp));
  EXPECT_TRUE(isUnjudgeable(boundDiv({1.0, 0}, {1e-7, 2e-7}, fp32())));  // the divisor may be 0
  const Approx inf = boundDiv({1.0, 0}, {-0.0, 0}, fp32());
  EXPECT_EQ(inf.value, -kInf);
  EXPECT_EQ(inf.bound, 0.0);
  EXPECT_TRUE(isCertainNaN(boundDiv({0.0, 0}, {0.0, 0}, fp32())));
  EXPECT_TRUE(isUnjudgeable(boundDiv({1e-9, 1e-8}, {0.0, 0}, fp32())));  // 0/0 or x/0: class unknown
  EXPECT_EQ(boundDiv({5.0, 0.1}, {kInf, 0}, fp32()).value, 0.0);
}

TEST(BoundExp, BoundAndOverflow) {
  const double v = std::exp(1.0), eProp = v * std::expm1(1e-3);
  const Approx r = boundExp({1.0, 1e-3}, fp32(1.0, false));
  EXPECT_EQ(r.value, v);
  EXPECT_DOUBLE_EQ(r.bound, eProp + rounding32(1.0, v, eProp));
  const Approx over = boundExp({100.0, 0}, fp32(1.0, false));
  EXPECT_EQ(over.value, kInf);
  EXPECT_EQ(over.bound, 0.0);
  EXPECT_EQ(boundExp({1000.0, 0}, fp32(1.0, false)).value, kInf);  // float64 overflows too
  EXPECT_TRUE(isUnjudgeable(boundExp({88.72, 0.01}, fp32(1.0, false))));  // ln(FP32 max) ~ 88.7228
  EXPECT_EQ(boundExp({-kInf, 0}, fp32(1.0, false)).value, 0.0);
}

TEST(BoundLog, BoundAndGuards) {
  const double eProp = std::log(2.0 / 1.9);
  const Approx r = boundLog({2.0, 0.1}, fp32(1.0, false));
  const double expected = eProp + rounding32(1.0, std::log(2.0), eProp);
  EXPECT_NEAR(r.bound, expected, 1e-14 * expected);  // log(a / (a - e)) vs -log1p(-e / a): a few float64 ulps
  EXPECT_TRUE(isUnjudgeable(boundLog({0.05, 0.1}, fp32(1.0, false))));
  EXPECT_TRUE(isCertainNaN(boundLog({-1.0, 0.5}, fp32(1.0, false))));
  EXPECT_EQ(boundLog({0.0, 0}, fp32(1.0, false)).value, -kInf);
}

TEST(BoundSqrt, BoundAndGuards) {
  const Approx r = boundSqrt({4.0, 0.01}, fp32());
  EXPECT_DOUBLE_EQ(r.bound, 0.005 + rounding32(0.5, 2.0, 0.005));  // min(0.01 / 2, sqrt(0.01))
  // Near zero the Hoelder bound sqrt(e) is the smaller one.
  const Approx small = boundSqrt({1e-8, 1e-8}, fp32());
  EXPECT_DOUBLE_EQ(small.bound, 1e-4 + rounding32(0.5, 1e-4, 1e-4));
  EXPECT_TRUE(isUnjudgeable(boundSqrt({1e-6, 1e-4}, fp32())));
  EXPECT_TRUE(isCertainNaN(boundSqrt({-1.0, 0.5}, fp32())));
  EXPECT_EQ(boundSqrt({4.0, 0}, fp32()).bound, 0.0);  // sqrt(4) = 2 exactly
}

TEST(BoundRecip, BoundAndGuards) {
  const double eProp = 0.25 * 0.5 / 3.5;
  EXPECT_DOUBLE_EQ(boundRecip({4.0, 0.5}, fp32(1.0)).bound, eProp + rounding32(1.0, 0.25, eProp));
  EXPECT_TRUE(isUnjudgeable(boundRecip({0.1, 0.2}, fp32(1.0))));
  EXPECT_EQ(boundRecip({-0.0, 0}, fp32(1.0)).value, -kInf);
}

TEST(BoundConvert, Fp32ToFp16IsOneRounding) {
  const Approx r = boundConvert({0.1, 0}, fp16());
  EXPECT_DOUBLE_EQ(r.bound, 0.5 * (2.0 * u16 * 0.1 + denorm16) + slack * 0.1);  // e = u|v| (+ underflow, f64)
  const Approx carried = boundConvert({0.1, 1e-6}, fp16());
  EXPECT_DOUBLE_EQ(carried.bound, 1e-6 + 0.5 * (2.0 * u16 * (0.1 + 1e-6) + denorm16) + slack * 0.1);
  EXPECT_EQ(boundConvert({0.5, 0}, fp16()).bound, 0.0);
  EXPECT_EQ(boundConvert({1e5, 0}, fp16()).value, kInf);
}

TEST(BoundMaxMin, ChosenBoundWhenDisjointLargerWhenOverlapping) {
  const Approx disjoint = boundMax({3.0, 0.1}, {1.0, 0.2});
  EXPECT_EQ(disjoint.value, 3.0);
  EXPECT_EQ(disjoint.bound, 0.1);
  const Approx overlap = boundMax({1.05, 0.1}, {1.0, 0.2});
  EXPECT_EQ(overlap.value, 1.05);
  EXPECT_EQ(overlap.bound, 0.2);
  EXPECT_EQ(boundMin({3.0, 0.1}, {1.0, 0.2}).bound, 0.2);
  EXPECT_EQ(boundMin({1.0, 0.05}, {3.0, 0.3}).bound, 0.05);
  EXPECT_TRUE(isCertainNaN(boundMax({std::nan(""), 0}, {1.0, 0})));
  EXPECT_TRUE(isUnjudgeable(boundMin({1.0, kInf}, {1.0, 0})));
}

TEST(BoundMaxMin, SignedZerosFollowIeee754_2019) {
  EXPECT_FALSE(std::signbit(boundMax({-0.0, 0}, {0.0, 0}).value));
  EXPECT_FALSE(std::signbit(boundMax({0.0, 0}, {-0.0, 0}).value));
  EXPECT_TRUE(std::signbit(boundMin({0.0, 0}, {-0.0, 0}).value));
  EXPECT_TRUE(std::signbit(boundMin({-0.0, 0}, {0.0, 0}).value));
}

TEST(BoundMul, ZeroOfUncertainSignIsNotExact) {
  // 0 * x' has the sign of x', and x' may be either side of 0: the zero must not look exact, or
  // a later division by it would claim an Inf of a certain sign.
  const Approx zero = boundMul({0.0, 0}, {1e-7, 1e-6}, fp32());
  EXPECT_EQ(zero.value, 0.0);
  EXPECT_GT(zero.bound, 0.0);
  EXPECT_TRUE(isUnjudgeable(boundDiv({1.0, 0}, zero, fp32())));
  // With a certain sign the zero is exact.
  EXPECT_EQ(boundMul({0.0, 0}, {2.0, 1e-6}, fp32()).bound, 0.0);
}

TEST(BoundExactOps, AbsNegReluCarryTheBound) {
  EXPECT_EQ(boundAbs({-2.0, 0.25}).value, 2.0);
  EXPECT_EQ(boundAbs({-2.0, 0.25}).bound, 0.25);
  EXPECT_EQ(boundNeg({2.0, 0.25}).value, -2.0);
  EXPECT_EQ(boundRelu({-1.0, 0.5}).bound, 0.0);  // certainly <= 0: exactly +0
  EXPECT_EQ(boundRelu({-0.1, 0.5}).bound, 0.5);
  EXPECT_EQ(boundRelu({2.0, 0.5}).value, 2.0);
  const Approx nan = boundRelu({std::nan(""), 0});
  EXPECT_EQ(nan.value, 0.0);  // relu(NaN) = +0
  EXPECT_EQ(nan.bound, 0.0);
}

TEST(BoundLrelu, BranchesAndTheUncertainBranch) {
  EXPECT_EQ(boundLrelu({2.0, 0.1}, {0.5, 0}, fp32()).bound, 0.1);
  const Approx neg = boundLrelu({-2.0, 0.1}, {0.5, 0}, fp32());
  EXPECT_EQ(neg.value, -1.0);
  EXPECT_DOUBLE_EQ(neg.bound, 0.05 + rounding32(0.5, 1.0, 0.05));
  const Approx unsure = boundLrelu({0.01, 0.1}, {0.5, 0}, fp32());
  EXPECT_DOUBLE_EQ(unsure.bound, 3.0 * 0.1 + 0.5 * denorm32);  // 3 e_x max(1, |s|...) + k denormMin
}

TEST(BoundSpecials, CertainClassesAndUnjudgeablePropagation) {
  const Approx inf = boundAdd({kInf, 0}, {1.0, 0.1}, fp32());
  EXPECT_EQ(inf.value, kInf);
  EXPECT_EQ(inf.bound, 0.0);
  EXPECT_TRUE(isCertainNaN(boundAdd({kInf, 0}, {-kInf, 0}, fp32())));
  EXPECT_TRUE(isCertainNaN(boundMul({kInf, 0}, {0.0, 0}, fp32())));
  EXPECT_TRUE(isUnjudgeable(boundMul({kInf, 0}, {1e-3, 1e-2}, fp32())));
  EXPECT_EQ(boundMul({kInf, 0}, {-2.0, 0.1}, fp32()).value, -kInf);
  EXPECT_TRUE(isUnjudgeable(boundAdd({1.0, kInf}, {2.0, 0}, fp32())));
  EXPECT_TRUE(isUnjudgeable(boundExp({1.0, kInf}, fp32())));
}

TEST(BoundGamma, HighamsGamma) {
  EXPECT_DOUBLE_EQ(gamma(512, u32), 512.0 * u32 / (1.0 - 512.0 * u32));
  EXPECT_EQ(gamma(0, u32), 0.0);
  EXPECT_EQ(gamma(1 << 24, u32), kInf);
}

TEST(BoundProfile, CpuRoundingOfEachOp) {
  const ToleranceProfile& cpu = cpuProfile();
  EXPECT_EQ(cpu.rounding(RoundedOp::Add, DType::FP16).format.unitRoundoff, u16);
  EXPECT_EQ(cpu.rounding(RoundedOp::Exp, DType::FP32).ulps, 1.0);
  EXPECT_FALSE(cpu.rounding(RoundedOp::Exp, DType::FP32).exactWhenRepresentable);
  EXPECT_TRUE(cpu.rounding(RoundedOp::Div, DType::FP32).exactWhenRepresentable);
}

}  // namespace
}  // namespace ptodiff::oracle
