// Tests of interp/Arith: rounding, NaN rules, integer wrap, scalar arithmetic and kernels.
//
// Expected values are computed independently of Arith: by hand, with long double libm, or with
// the brute-force references below (nearest representable value found by search over decoded bit
// patterns, using only ldexp).
#include "interp/Arith.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace ptodiff::arith {
namespace {

// ---- independent references ----

/// Decodes binary16 by the textbook formula (no Eigen, no Arith).
long double decodeHalf(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1F, frac = h & 0x3FF;
  long double mag = exp == 0 ? std::ldexp(static_cast<long double>(frac), -24)
                             : std::ldexp(static_cast<long double>(frac + 1024), exp - 25);
  return sign ? -mag : mag;
}
long double decodeBf16(uint16_t b) {
  const int sign = b >> 15, exp = (b >> 7) & 0xFF, frac = b & 0x7F;
  long double mag = exp == 0 ? std::ldexp(static_cast<long double>(frac), -133)
                             : std::ldexp(static_cast<long double>(frac + 128), exp - 134);
  return sign ? -mag : mag;
}

/// Nearest representable value of a 16-bit format with ties to an even fraction, found by
/// binary search over the positive finite encodings [0, maxFinite] (monotonic in the bits).
template <class Decode>
uint16_t nearest16(long double v, Decode decode, uint16_t maxFinite, uint16_t inf) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const long double a = std::fabs(v);
  const long double maxV = decode(maxFinite);
  const long double ulpAtMax = maxV - decode(static_cast<uint16_t>(maxFinite - 1));
  if (a >= maxV + ulpAtMax / 2) return sign | inf;  // the tie at the top rounds to even = Inf
  uint16_t lo = 0, hi = maxFinite;
  while (hi - lo > 1) {
    const uint16_t mid = static_cast<uint16_t>((lo + hi) / 2);
    if (decode(mid) <= a) lo = mid; else hi = mid;
  }
  if (decode(hi) <= a) lo = hi;
  if (lo == maxFinite || decode(lo) == a) return sign | lo;
  const long double dLo = a - decode(lo), dHi = decode(static_cast<uint16_t>(lo + 1)) - a;
  if (dLo < dHi) return sign | lo;
  if (dHi < dLo) return sign | static_cast<uint16_t>(lo + 1);
  return sign | ((lo & 1) ? static_cast<uint16_t>(lo + 1) : lo);
}
uint16_t refFp16(long double v) { return nearest16(v, decodeHalf, 0x7BFF, 0x7C00); }
uint16_t refBf16(long double v) { return nearest16(v, decodeBf16, 0x7F7F, 0x7F80); }

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

// Small helpers running a kernel on one element.
uint64_t bin(BinaryKind k, DType dt, uint64_t a, uint64_t b) {
  uint64_t x = a, y = b, out = 0;
  binaryKernel(k, dt, {reinterpret_cast<uint8_t*>(&x), 1, 1, 1}, {reinterpret_cast<uint8_t*>(&y), 1, 1, 1},
               {reinterpret_cast<uint8_t*>(&out), 1, 1, 1});
  return out;
}
uint64_t un(UnaryKind k, DType dt, uint64_t a) {
  uint64_t x = a, out = 0;
  unaryKernel(k, dt, {reinterpret_cast<uint8_t*>(&x), 1, 1, 1}, {reinterpret_cast<uint8_t*>(&out), 1, 1, 1});
  return out;
}

// ---- conversions ----

TEST(ArithConvert, Fp16DecodeMatchesTextbookFormulaForEveryFiniteEncoding) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00) continue;
    ASSERT_EQ(static_cast<long double>(fp16ToFloat(static_cast<uint16_t>(h))), decodeHalf(static_cast<uint16_t>(h)))
        << std::hex << h;
  }
}

TEST(ArithConvert, Fp16RoundingTiesGoToEven) {
  // Halfway between 1 (0x3C00) and 1+2^-10 (0x3C01): even is 0x3C00.
  EXPECT_EQ(floatToFp16(1.0f + 0x1p-11f), 0x3C00);
  // Halfway between 0x3C01 and 0x3C02: even is 0x3C02.
  EXPECT_EQ(floatToFp16(1.0f + 3 * 0x1p-11f), 0x3C02);
  // Just above the tie rounds up.
  EXPECT_EQ(floatToFp16(1.0f + 0x1p-11f + 0x1p-20f), 0x3C01);
  // Subnormal ties: 2^-25 is halfway between 0 and the smallest subnormal 2^-24.
  EXPECT_EQ(doubleToFp16(0x1p-25), 0x0000);
  EXPECT_EQ(doubleToFp16(3 * 0x1p-25), 0x0002);
  EXPECT_EQ(doubleToFp16(-0x1p-25), 0x8000);
  // The top: 65504 is the largest finite; the tie 65520 rounds to even = Inf.
  EXPECT_EQ(doubleToFp16(65519.99), 0x7BFF);
  EXPECT_EQ(doubleToFp16(65520.0), 0x7C00);
  EXPECT_EQ(floatToFp16(-65520.0f), 0xFC00);
}

TEST(ArithConvert, DoubleToFp16RoundsOnceNotThroughBinary32) {
  // 1 + 2^-11 + 2^-40: binary32 would first round it to the tie 1 + 2^-11 (then to even 1.0);
  // the correct single rounding goes up to 1 + 2^-10.
  const double x = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(refFp16(x), 0x3C01);
  EXPECT_EQ(doubleToFp16(x), 0x3C01);
  EXPECT_EQ(floatToFp16(static_cast<float>(x)), 0x3C00);  // the double rounding we avoid
}

TEST(ArithConvert, DoubleToFp16AgreesWithBruteForceOnASweep) {
  // Values spread over the whole range including subnormals and exact midpoints.
  std::vector<double> values = {0.0, 1e-8, 5.96e-8, 6.1e-5, 6.097e-5, 0.1, 0.3333333333, 1.0, 2.5, 1000.1, 65500.0};
  for (int i = 0; i < 4000; ++i) values.push_back(std::ldexp(1.0 + i * 0.000731, (i % 44) - 28));
  for (uint32_t h = 0; h < 0x7BFF; h += 37)  // midpoints between neighbours
    values.push_back(0.5 * (static_cast<double>(decodeHalf(static_cast<uint16_t>(h))) +
                            static_cast<double>(decodeHalf(static_cast<uint16_t>(h + 1)))));
  for (double v : values) {
    ASSERT_EQ(doubleToFp16(v), refFp16(v)) << v;
    ASSERT_EQ(doubleToFp16(-v), refFp16(-v)) << -v;
  }
}

TEST(ArithConvert, Bf16RoundingTiesGoToEven) {
  EXPECT_EQ(floatToBf16(1.0f + 0x1p-8f), 0x3F80);
  EXPECT_EQ(floatToBf16(1.0f + 3 * 0x1p-8f), 0x3F82);
  for (double v : {0.1, 3.14159, 1e-39, 3e38, 1.0 + 0x1p-8 + 0x1p-30})
    EXPECT_EQ(doubleToBf16(v), refBf16(v)) << v;
}

TEST(ArithConvert, IntegersRoundOnceToFloatFormats) {
  EXPECT_EQ(int64ToFloatBits((1 << 24) + 1, DType::FP32), bits(16777216.0f));  // tie -> even
  EXPECT_EQ(int64ToFloatBits((1 << 24) + 3, DType::FP32), bits(16777220.0f));
  EXPECT_EQ(int64ToFloatBits(std::numeric_limits<int64_t>::min(), DType::FP32), 0xDF000000u);  // -2^63
  EXPECT_EQ(int64ToFloatBits(2049, DType::FP16), 0x6800u);  // 2048: tie -> even
  EXPECT_EQ(int64ToFloatBits(2051, DType::FP16), 0x6802u);  // 2052
  EXPECT_EQ(int64ToFloatBits(70000, DType::FP16), 0x7C00u);
  EXPECT_EQ(int64ToFloatBits(-3, DType::BF16), 0xC040u);
  EXPECT_EQ(int64ToFloatBits(0, DType::FP16), 0x0000u);
}

// ---- NaN rules ----

TEST(ArithNaN, ResultNaNIsCanonicalWithTheOperandSignKept) {
  const uint32_t negPayload = 0xFFC01234u, posSignalling = 0x7F800001u;
  EXPECT_EQ(bin(BinaryKind::Add, DType::FP32, negPayload, bits(1.0f)), 0xFFC00000u);
  EXPECT_EQ(bin(BinaryKind::Mul, DType::FP32, bits(2.0f), negPayload), 0xFFC00000u);
  EXPECT_EQ(bin(BinaryKind::Sub, DType::FP32, posSignalling, bits(1.0f)), 0x7FC00000u);
  // First NaN operand decides the sign, whatever the host would propagate.
  EXPECT_EQ(bin(BinaryKind::Add, DType::FP32, posSignalling, negPayload), 0x7FC00000u);
  EXPECT_EQ(bin(BinaryKind::Add, DType::FP32, negPayload, posSignalling), 0xFFC00000u);
  // A NaN made from numbers is positive.
  EXPECT_EQ(bin(BinaryKind::Div, DType::FP32, bits(0.0f), bits(0.0f)), 0x7FC00000u);
  EXPECT_EQ(bin(BinaryKind::Sub, DType::FP32, bits(INFINITY), bits(INFINITY)), 0x7FC00000u);
  // FP16 and BF16 canonical NaNs.
  EXPECT_EQ(bin(BinaryKind::Add, DType::FP16, 0xFD01, 0x3C00), 0xFE00u);
  EXPECT_EQ(bin(BinaryKind::Add, DType::BF16, 0x7F81, 0x3F80), 0x7FC0u);
  EXPECT_EQ(un(UnaryKind::Exp, DType::FP16, 0xFC01), 0xFE00u);
  EXPECT_EQ(un(UnaryKind::Sqrt, DType::FP32, bits(-1.0f)), 0x7FC00000u);
  EXPECT_EQ(un(UnaryKind::Log, DType::FP32, 0xFFC00ABCu), 0xFFC00000u);
}

TEST(ArithNaN, NegAndAbsAreBitOpsKeepingThePayload) {
  EXPECT_EQ(un(UnaryKind::Neg, DType::FP32, 0x7F800001u), 0xFF800001u);
  EXPECT_EQ(un(UnaryKind::Abs, DType::FP32, 0xFF800001u), 0x7F800001u);
  EXPECT_EQ(un(UnaryKind::Neg, DType::FP16, 0x7C01), 0xFC01u);
  EXPECT_EQ(un(UnaryKind::Neg, DType::FP32, bits(0.0f)), bits(-0.0f));
}

TEST(ArithNaN, MaximumAndMinimumReturnNaNIfEitherIsNaN) {
  const uint32_t nan = 0x7FC00001u, negNan = 0xFFC00000u;
  EXPECT_EQ(bin(BinaryKind::Max, DType::FP32, nan, bits(1.0f)), 0x7FC00000u);
  EXPECT_EQ(bin(BinaryKind::Max, DType::FP32, bits(1.0f), negNan), 0xFFC00000u);
  EXPECT_EQ(bin(BinaryKind::Min, DType::FP32, bits(1.0f), nan), 0x7FC00000u);
  EXPECT_EQ(bin(BinaryKind::Min, DType::FP32, negNan, bits(-INFINITY)), 0xFFC00000u);
  EXPECT_EQ(bin(BinaryKind::Max, DType::FP32, bits(-0.0f), bits(0.0f)), bits(0.0f));
  EXPECT_EQ(bin(BinaryKind::Max, DType::FP32, bits(0.0f), bits(-0.0f)), bits(0.0f));
  EXPECT_EQ(bin(BinaryKind::Min, DType::FP32, bits(0.0f), bits(-0.0f)), bits(-0.0f));
  EXPECT_EQ(bin(BinaryKind::Max, DType::FP32, bits(2.0f), bits(-3.0f)), bits(2.0f));
  EXPECT_EQ(bin(BinaryKind::Min, DType::FP16, 0x4000 /*2*/, 0xC200 /*-3*/), 0xC200u);
}

TEST(ArithNaN, ReluOfNegativeZeroAndNaNIsPositiveZero) {
  EXPECT_EQ(un(UnaryKind::Relu, DType::FP32, bits(-0.0f)), 0u);
  EXPECT_EQ(un(UnaryKind::Relu, DType::FP32, 0x7FC00000u), 0u);
  EXPECT_EQ(un(UnaryKind::Relu, DType::FP32, 0xFFC00000u), 0u);
  EXPECT_EQ(un(UnaryKind::Relu, DType::FP16, 0x8001), 0u);
  EXPECT_EQ(un(UnaryKind::Relu, DType::FP32, bits(3.5f)), bits(3.5f));
  EXPECT_EQ(un(UnaryKind::Relu, DType::INT32, 0xFFFFFFFFu), 0u);
}

TEST(ArithNaN, LreluUsesTheSlopeOnlyForNonPositiveInputs) {
  EXPECT_EQ(bin(BinaryKind::Lrelu, DType::FP32, bits(-2.0f), bits(0.25f)), bits(-0.5f));
  EXPECT_EQ(bin(BinaryKind::Lrelu, DType::FP32, bits(2.0f), bits(0.25f)), bits(2.0f));
  EXPECT_EQ(bin(BinaryKind::Lrelu, DType::FP32, 0xFFC00000u, bits(0.25f)), 0xFFC00000u);
}

// ---- integers ----

TEST(ArithInt, Int32AddSubMulWrapModulo2To32) {
  EXPECT_EQ(bin(BinaryKind::Add, DType::INT32, 0x7FFFFFFFu, 1), 0x80000000u);
  EXPECT_EQ(bin(BinaryKind::Sub, DType::INT32, 0x80000000u, 1), 0x7FFFFFFFu);
  EXPECT_EQ(bin(BinaryKind::Mul, DType::INT32, 65536, 65536), 0u);
  EXPECT_EQ(bin(BinaryKind::Mul, DType::INT32, 0xFFFFFFFFu /*-1*/, 0x80000000u), 0x80000000u);
  EXPECT_EQ(un(UnaryKind::Neg, DType::INT32, 0x80000000u), 0x80000000u);
  EXPECT_EQ(un(UnaryKind::Abs, DType::INT32, 0x80000000u), 0x80000000u);
  EXPECT_EQ(un(UnaryKind::Abs, DType::INT32, 0xFFFFFFF9u), 7u);
  EXPECT_EQ(bin(BinaryKind::Add, DType::INT8, 0x7F, 1), 0x80u);
  EXPECT_EQ(bin(BinaryKind::Mul, DType::INT8, 16, 16), 0u);
}

TEST(ArithInt, Int32DivisionTruncatesTowardZero) {
  EXPECT_EQ(bin(BinaryKind::Div, DType::INT32, static_cast<uint32_t>(-7), 2), static_cast<uint32_t>(-3));
  EXPECT_EQ(bin(BinaryKind::Div, DType::INT32, 7, static_cast<uint32_t>(-2)), static_cast<uint32_t>(-3));
  EXPECT_EQ(bin(BinaryKind::Div, DType::INT32, 0x80000000u, 0xFFFFFFFFu), 0x80000000u);
  EXPECT_EQ(bin(BinaryKind::Max, DType::INT32, 0xFFFFFFFFu, 1), 1u);  // signed compare
}

TEST(ArithInt, FirstZeroDivisorSkipsPoisonLanes) {
  const int32_t divisor[6] = {3, 0, 5, 0, 1, 2};
  const uint8_t poison[6] = {0, 1, 0, 0, 0, 0};
  ConstElems view{reinterpret_cast<const uint8_t*>(divisor), 2, 3, 3};
  EXPECT_EQ(firstZeroDivisor(DType::INT32, view, poison, 3), 3);
  EXPECT_EQ(firstZeroDivisor(DType::INT32, view, nullptr, 0), 1);
  const float fdiv[2] = {0.0f, 0.0f};
  EXPECT_EQ(firstZeroDivisor(DType::FP32, {reinterpret_cast<const uint8_t*>(fdiv), 1, 2, 2}, nullptr, 0), -1);
}

// ---- binary64-then-round transcendental ops ----

TEST(ArithTranscendental, Fp32OpsAreBinary64RoundedOnce) {
  for (float x : {0.5f, 1.0f, 1.25f, 2.0f, 3.14159f, 10.0f, 0.001f, 77.7f, 1e-30f}) {
    const long double lx = x;
    EXPECT_EQ(un(UnaryKind::Exp, DType::FP32, bits(x)), bits(static_cast<float>(std::exp(lx)))) << x;
    EXPECT_EQ(un(UnaryKind::Log, DType::FP32, bits(x)), bits(static_cast<float>(std::log(lx)))) << x;
    EXPECT_EQ(un(UnaryKind::Sqrt, DType::FP32, bits(x)), bits(static_cast<float>(std::sqrt(lx)))) << x;
    EXPECT_EQ(un(UnaryKind::Recip, DType::FP32, bits(x)), bits(static_cast<float>(1.0L / lx))) << x;
  }
  EXPECT_EQ(un(UnaryKind::Log, DType::FP32, bits(0.0f)), bits(-INFINITY));
  EXPECT_EQ(un(UnaryKind::Recip, DType::FP32, bits(-0.0f)), bits(-INFINITY));
  EXPECT_EQ(un(UnaryKind::Exp, DType::FP32, bits(-INFINITY)), 0u);
  EXPECT_EQ(un(UnaryKind::Exp, DType::FP32, bits(100.0f)), bits(INFINITY));
}

TEST(ArithTranscendental, Fp16OpsMatchLongDoubleRoundedOnceForEveryInput) {
  // Every finite FP16 input; the reference rounds the long double result once to binary16.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00) continue;
    const long double x = decodeHalf(static_cast<uint16_t>(h));
    ASSERT_EQ(un(UnaryKind::Exp, DType::FP16, h), refFp16(std::exp(x))) << std::hex << h;
    ASSERT_EQ(un(UnaryKind::Recip, DType::FP16, h), refFp16(1.0L / x)) << std::hex << h;
    if (x > 0) {
      ASSERT_EQ(un(UnaryKind::Log, DType::FP16, h), refFp16(std::log(x))) << std::hex << h;
      ASSERT_EQ(un(UnaryKind::Sqrt, DType::FP16, h), refFp16(std::sqrt(x))) << std::hex << h;
    }
  }
}

TEST(ArithTranscendental, Fp16ArithmeticRoundsOnceFromBinary32) {
  // 1 + 2^-10 (0x3C01) squared = 1 + 2^-9 + 2^-20: rounds to 1 + 2^-9 (0x3C02).
  EXPECT_EQ(bin(BinaryKind::Mul, DType::FP16, 0x3C01, 0x3C01), 0x3C02u);
  // 2048 + 1 = 2049 is a tie between 2048 and 2050: even is 2048.
  EXPECT_EQ(bin(BinaryKind::Add, DType::FP16, 0x6800, 0x3C00), 0x6800u);
  // 1 / 3 in FP16.
  EXPECT_EQ(bin(BinaryKind::Div, DType::FP16, 0x3C00, 0x4200), refFp16(1.0L / 3.0L));
}

// ---- kernels on 2-D views ----

TEST(ArithKernels, BinaryKernelHonoursRowStridesAndTouchesOnlyTheExtent) {
  float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {10, 20, 30, 40, 50, 60, 70, 80};
  float out[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  binaryKernel(BinaryKind::Add, DType::FP32, {reinterpret_cast<uint8_t*>(a), 2, 3, 4},
               {reinterpret_cast<uint8_t*>(b), 2, 3, 4}, {reinterpret_cast<uint8_t*>(out), 2, 3, 4});
  const float expected[8] = {11, 22, 33, -1, 55, 66, 77, -1};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], expected[i]) << i;
}

TEST(ArithKernels, MatmulFoldsWithFmaInIncreasingK) {
  // L = [1, a], R = [-1; a] with a = 1 + 2^-12: acc = fma(1, -1, 0) = -1, then fma(a, a, -1)
  // = 2^-11 + 2^-24 exactly (a multiply then add would give 2^-11).
  const float a = 1.0f + 0x1p-12f;
  float lhs[2] = {1.0f, a}, rhs[2] = {-1.0f, a}, out[1] = {0};
  matmulKernel(DType::FP32, {reinterpret_cast<uint8_t*>(lhs), 1, 2, 2}, {reinterpret_cast<uint8_t*>(rhs), 2, 1, 1},
               {reinterpret_cast<uint8_t*>(out), 1, 1, 1});
  EXPECT_EQ(out[0], 0x1p-11f + 0x1p-24f);
  // Order matters in FP32: 2^24 + 1 rounds back to 2^24, then - 2^24 gives 0 (exact sum is 1).
  float l2[3] = {1, 1, 1}, r2[3] = {16777216.0f, 1.0f, -16777216.0f};
  matmulKernel(DType::FP32, {reinterpret_cast<uint8_t*>(l2), 1, 3, 3}, {reinterpret_cast<uint8_t*>(r2), 3, 1, 1},
               {reinterpret_cast<uint8_t*>(out), 1, 1, 1});
  EXPECT_EQ(out[0], 0.0f);
}

// A NaN step yields the quiet NaN with the sign of the first NaN among lhs, rhs and the running
// sum, whatever the host's fma propagates; 0 * inf makes a positive one. Rows wider than a vector
// check that the wide loop applies the rule per column.
TEST(ArithKernels, MatmulNaNStepsFollowTheRuleInEveryColumn) {
  const float negNaN = std::bit_cast<float>(0xFFC00001u), inf = std::numeric_limits<float>::infinity();
  constexpr int N = 19;
  float lhs[2] = {negNaN, 1.0f}, rhs[2 * N], out[N];
  for (int j = 0; j < N; ++j) {
    rhs[j] = static_cast<float>(j);
    rhs[N + j] = j % 3 == 0 ? std::bit_cast<float>(0x7FC00002u) : 1.0f;
  }
  matmulKernel(DType::FP32, {reinterpret_cast<uint8_t*>(lhs), 1, 2, 2}, {reinterpret_cast<uint8_t*>(rhs), 2, N, N},
               {reinterpret_cast<uint8_t*>(out), 1, N, N});
  // Step 0 takes lhs's negative NaN everywhere; in step 1 a positive NaN of rhs comes before the sum's.
  for (int j = 0; j < N; ++j) EXPECT_EQ(std::bit_cast<uint32_t>(out[j]), j % 3 == 0 ? 0x7FC00000u : 0xFFC00000u) << j;
  float l2[2] = {0.0f, 1.0f}, r2[2 * N];
  for (int j = 0; j < N; ++j) {
    r2[j] = j == 7 ? inf : 1.0f;
    r2[N + j] = j == 7 ? -2.0f : std::bit_cast<float>(0xFFC00003u);
  }
  matmulKernel(DType::FP32, {reinterpret_cast<uint8_t*>(l2), 1, 2, 2}, {reinterpret_cast<uint8_t*>(r2), 2, N, N},
               {reinterpret_cast<uint8_t*>(out), 1, N, N});
  for (int j = 0; j < N; ++j)
    EXPECT_EQ(std::bit_cast<uint32_t>(out[j]), j == 7 ? 0x7FC00000u : 0xFFC00000u) << j;
}

/// Element (i, j) of L * R as the per-element definition: the scalar fma fold over k in order from
/// +0.0, with the NaN rule.
uint32_t scalarFmaFold(const std::vector<float>& a, const std::vector<float>& b, int K, int N, int i, int j) {
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) {
    const float l = a[static_cast<size_t>(i * K + k)], r = b[static_cast<size_t>(k * N + j)];
    const float next = std::fma(l, r, acc);
    if (next == next) {
      acc = next;
      continue;
    }
    const float source = l != l ? l : r != r ? r : acc != acc ? acc : 0.0f;
    acc = std::bit_cast<float>(0x7FC00000u | (source != source && std::signbit(source) ? 0x80000000u : 0u));
  }
  return std::bit_cast<uint32_t>(acc);
}

rc::Gen<float> matmulValue() {
  return rc::gen::oneOf(rc::gen::map(rc::gen::inRange(-1000, 1000), [](int v) { return v / 7.0f; }),
                        rc::gen::element(0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                                         -std::numeric_limits<float>::infinity(), 1e30f, -1e-30f));
}

// The product is, element by element, the scalar fma fold over k in order (the kernel advances a
// whole row of sums per step; this law pins it to the per-element definition).
RC_GTEST_PROP(ArithKernels, MatmulEqualsTheScalarFmaFold, ()) {
  const int M = *rc::gen::inRange(1, 5), K = *rc::gen::inRange(1, 9), N = *rc::gen::inRange(1, 41);
  const std::vector<float> a = *rc::gen::container<std::vector<float>>(M * K, matmulValue());
  const std::vector<float> b = *rc::gen::container<std::vector<float>>(K * N, matmulValue());
  std::vector<float> out(static_cast<size_t>(M * N));
  matmulKernel(DType::FP32, {reinterpret_cast<const uint8_t*>(a.data()), M, K, K},
               {reinterpret_cast<const uint8_t*>(b.data()), K, N, N}, {reinterpret_cast<uint8_t*>(out.data()), M, N, N});
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      RC_ASSERT(std::bit_cast<uint32_t>(out[static_cast<size_t>(i * N + j)]) == scalarFmaFold(a, b, K, N, i, j));
}

// The kernel remembers its last products (interp/KernelMemo.h). A repeat through strided views of
// equal elements gives the same bits and writes only its own lanes; a product with one operand
// element changed is computed afresh, never served from the memo.
RC_GTEST_PROP(ArithKernels, MatmulRepeatsGiveTheFirstProductAndAChangedOperandIsNoRepeat, ()) {
  const int M = *rc::gen::inRange(1, 5), K = *rc::gen::inRange(1, 9), N = *rc::gen::inRange(1, 21);
  std::vector<float> a = *rc::gen::container<std::vector<float>>(M * K, matmulValue());
  const std::vector<float> b = *rc::gen::container<std::vector<float>>(K * N, matmulValue());
  std::vector<float> dense(static_cast<size_t>(M * N));
  matmulKernel(DType::FP32, {reinterpret_cast<const uint8_t*>(a.data()), M, K, K},
               {reinterpret_cast<const uint8_t*>(b.data()), K, N, N}, {reinterpret_cast<uint8_t*>(dense.data()), M, N, N});

  const float junk = 12345.0f, sentinel = -7.0f;
  std::vector<float> aWide(static_cast<size_t>(M * (K + 3)), junk), bWide(static_cast<size_t>(K * (N + 2)), junk);
  std::vector<float> outWide(static_cast<size_t>(M * (N + 1)), sentinel);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) aWide[static_cast<size_t>(i * (K + 3) + k)] = a[static_cast<size_t>(i * K + k)];
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) bWide[static_cast<size_t>(k * (N + 2) + j)] = b[static_cast<size_t>(k * N + j)];
  matmulKernel(DType::FP32, {reinterpret_cast<const uint8_t*>(aWide.data()), M, K, K + 3},
               {reinterpret_cast<const uint8_t*>(bWide.data()), K, N, N + 2},
               {reinterpret_cast<uint8_t*>(outWide.data()), M, N, N + 1});
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j)
      RC_ASSERT(std::bit_cast<uint32_t>(outWide[static_cast<size_t>(i * (N + 1) + j)]) ==
                std::bit_cast<uint32_t>(dense[static_cast<size_t>(i * N + j)]));
    RC_ASSERT(outWide[static_cast<size_t>(i * (N + 1) + N)] == sentinel);
  }

  const auto changed = static_cast<size_t>(*rc::gen::inRange(0, M * K));
  const float before = a[changed];
  a[changed] = *rc::gen::suchThat(matmulValue(), [&](float v) { return std::bit_cast<uint32_t>(v) != std::bit_cast<uint32_t>(before); });
  matmulKernel(DType::FP32, {reinterpret_cast<const uint8_t*>(a.data()), M, K, K},
               {reinterpret_cast<const uint8_t*>(b.data()), K, N, N}, {reinterpret_cast<uint8_t*>(dense.data()), M, N, N});
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      RC_ASSERT(std::bit_cast<uint32_t>(dense[static_cast<size_t>(i * N + j)]) == scalarFmaFold(a, b, K, N, i, j));
}

// Equal operand bits in another dtype are another product: FP16 0x3C00 is 1, BF16 0x3C00 is 2^-7.
TEST(ArithKernels, MatmulOfEqualBitsInAnotherDtypeIsNoRepeat) {
  uint16_t l[1] = {0x3C00}, r[1] = {0x3C00};
  float out[1] = {0};
  matmulKernel(DType::FP16, {reinterpret_cast<uint8_t*>(l), 1, 1, 1}, {reinterpret_cast<uint8_t*>(r), 1, 1, 1},
               {reinterpret_cast<uint8_t*>(out), 1, 1, 1});
  EXPECT_EQ(out[0], 1.0f);
  matmulKernel(DType::BF16, {reinterpret_cast<uint8_t*>(l), 1, 1, 1}, {reinterpret_cast<uint8_t*>(r), 1, 1, 1},
               {reinterpret_cast<uint8_t*>(out), 1, 1, 1});
  EXPECT_EQ(out[0], 0x1p-14f);
}

TEST(ArithKernels, MatmulConvertsFp16AndInt8OperandsExactly) {
  // FP16 (1 + 2^-10)^2 accumulated in FP32 keeps the 2^-20 term.
  uint16_t l[1] = {0x3C01}, r[1] = {0x3C01};
  float out[1] = {0};
  matmulKernel(DType::FP16, {reinterpret_cast<uint8_t*>(l), 1, 1, 1}, {reinterpret_cast<uint8_t*>(r), 1, 1, 1},
               {reinterpret_cast<uint8_t*>(out), 1, 1, 1});
  EXPECT_EQ(out[0], 1.0f + 0x1p-9f + 0x1p-20f);
  // INT8: -128 * 127 + 127 * 127 = -127 (sign extension, INT32 accumulation).
  int8_t li[2] = {-128, 127}, ri[2] = {127, 127};
  int32_t oi[1] = {0};
  EXPECT_EQ(accumulatorDType(DType::INT8), DType::INT32);
  matmulKernel(DType::INT8, {reinterpret_cast<uint8_t*>(li), 1, 2, 2}, {reinterpret_cast<uint8_t*>(ri), 2, 1, 1},
               {reinterpret_cast<uint8_t*>(oi), 1, 1, 1});
  EXPECT_EQ(oi[0], -127);
}

TEST(ArithKernels, RowSumRoundsEveryStepToTheDtype) {
  // FP16 [2048, 1, 1]: 2048 + 1 ties back to 2048 twice; the exact 2050 is never reached.
  uint16_t src[3] = {0x6800, 0x3C00, 0x3C00}, dst[1] = {0};
  rowReduceKernel(ReduceKind::Sum, DType::FP16, {reinterpret_cast<uint8_t*>(src), 1, 3, 3},
                  {reinterpret_cast<uint8_t*>(dst), 1, 1, 1});
  EXPECT_EQ(dst[0], 0x6800);
  // A single -0 stays -0 (the fold starts from the first element, not from +0).
  float z[1] = {-0.0f}, zo[1] = {1.0f};
  rowReduceKernel(ReduceKind::Sum, DType::FP32, {reinterpret_cast<uint8_t*>(z), 1, 1, 1},
                  {reinterpret_cast<uint8_t*>(zo), 1, 1, 1});
  EXPECT_TRUE(std::signbit(zo[0]));
  // Column max over 2 rows with a stride.
  float m[6] = {1, 9, 3, 4, 5, 6}, mo[3] = {0, 0, 0};
  colReduceKernel(ReduceKind::Max, DType::FP32, {reinterpret_cast<uint8_t*>(m), 2, 3, 3},
                  {reinterpret_cast<uint8_t*>(mo), 1, 3, 3});
  EXPECT_EQ(mo[0], 4.0f);
  EXPECT_EQ(mo[1], 9.0f);
  EXPECT_EQ(mo[2], 6.0f);
}

TEST(ArithKernels, ConvertKernelRoundsFp32ToFp16OnceAndCanonicalizesNaN) {
  uint32_t src[3] = {bits(1.0f + 0x1p-11f), 0xFFC01234u, bits(1e6f)};
  uint16_t dst[3] = {0, 0, 0};
  convertKernel(DType::FP32, DType::FP16, {reinterpret_cast<uint8_t*>(src), 1, 3, 3},
                {reinterpret_cast<uint8_t*>(dst), 1, 3, 3});
  EXPECT_EQ(dst[0], 0x3C00);
  EXPECT_EQ(dst[1], 0xFE00);
  EXPECT_EQ(dst[2], 0x7C00);
  uint16_t bdst[1] = {0};
  convertKernel(DType::FP32, DType::BF16, {reinterpret_cast<uint8_t*>(src), 1, 1, 1},
                {reinterpret_cast<uint8_t*>(bdst), 1, 1, 1});
  EXPECT_EQ(bdst[0], 0x3F80);
}

TEST(ArithKernels, UnsupportedOpDtypePairsThrow) {
  EXPECT_FALSE(supportsUnary(UnaryKind::Exp, DType::INT32));
  EXPECT_THROW(un(UnaryKind::Exp, DType::INT32, 1), std::invalid_argument);
  EXPECT_THROW(bin(BinaryKind::Add, DType::INT64, 1, 1), std::invalid_argument);
}

// ---- scalars ----

ScalarValue idx(int64_t v) { return ScalarValue::index(v); }
ScalarValue i32(int32_t v) { return ScalarValue{DType::INT32, v, 0.0f}; }

TEST(ArithScalar, IndexArithmeticIsExactAndFaultsOnOverflow) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(scalarBinary(BinOp::Add, idx(big), idx(1)).fault, ScalarFault::Overflow);
  EXPECT_EQ(scalarBinary(BinOp::Mul, idx(big / 2 + 1), idx(2)).fault, ScalarFault::Overflow);
  EXPECT_EQ(scalarBinary(BinOp::Sub, idx(-big - 1), idx(1)).fault, ScalarFault::Overflow);
  EXPECT_EQ(scalarUnary(UnOp::Neg, idx(-big - 1)).fault, ScalarFault::Overflow);
  EXPECT_EQ(scalarBinary(BinOp::FloorDiv, idx(-big - 1), idx(-1)).fault, ScalarFault::Overflow);
  EXPECT_EQ(scalarBinary(BinOp::Mod, idx(-big - 1), idx(-1)).value.i, 0);
  EXPECT_EQ(scalarBinary(BinOp::Add, idx(40), idx(2)).value, idx(42));
}

TEST(ArithScalar, FloorDivisionAndModuloFollowPython) {
  EXPECT_EQ(scalarBinary(BinOp::FloorDiv, idx(-7), idx(2)).value.i, -4);
  EXPECT_EQ(scalarBinary(BinOp::Mod, idx(-7), idx(2)).value.i, 1);
  EXPECT_EQ(scalarBinary(BinOp::FloorDiv, idx(7), idx(-2)).value.i, -4);
  EXPECT_EQ(scalarBinary(BinOp::Mod, idx(7), idx(-2)).value.i, -1);
  EXPECT_EQ(scalarBinary(BinOp::FloorDiv, idx(6), idx(3)).value.i, 2);
  EXPECT_EQ(scalarBinary(BinOp::Mod, idx(1), idx(0)).fault, ScalarFault::DivisionByZero);
  EXPECT_EQ(scalarBinary(BinOp::FloorDiv, i32(1), i32(0)).fault, ScalarFault::DivisionByZero);
  // Python: -7.5 // 2 == -4.0, -7.5 % 2 == 0.5
  EXPECT_EQ(scalarBinary(BinOp::FloorDiv, ScalarValue::fp32(-7.5f), ScalarValue::fp32(2.0f)).value.f, -4.0f);
  EXPECT_EQ(scalarBinary(BinOp::Mod, ScalarValue::fp32(-7.5f), ScalarValue::fp32(2.0f)).value.f, 0.5f);
}

TEST(ArithScalar, Int32ScalarArithmeticWraps) {
  EXPECT_EQ(scalarBinary(BinOp::Add, i32(std::numeric_limits<int32_t>::max()), i32(1)).value,
            i32(std::numeric_limits<int32_t>::min()));
  EXPECT_EQ(scalarBinary(BinOp::FloorDiv, i32(std::numeric_limits<int32_t>::min()), i32(-1)).value,
            i32(std::numeric_limits<int32_t>::min()));
  EXPECT_EQ(scalarUnary(UnOp::Neg, i32(std::numeric_limits<int32_t>::min())).value,
            i32(std::numeric_limits<int32_t>::min()));
  EXPECT_EQ(scalarBinary(BinOp::Mul, i32(65536), i32(65536)).value, i32(0));
  EXPECT_EQ(convertScalar(idx(0x1'0000'0005), DType::INT32).value, i32(5));
}

TEST(ArithScalar, ComparisonsAndLogic) {
  EXPECT_EQ(scalarBinary(BinOp::Lt, idx(1), idx(2)).value, ScalarValue::boolean(true));
  EXPECT_EQ(scalarBinary(BinOp::Ne, ScalarValue::fp32(NAN), ScalarValue::fp32(NAN)).value,
            ScalarValue::boolean(true));
  EXPECT_EQ(scalarBinary(BinOp::Eq, ScalarValue::fp32(NAN), ScalarValue::fp32(NAN)).value,
            ScalarValue::boolean(false));
  EXPECT_EQ(scalarBinary(BinOp::And, ScalarValue::boolean(true), ScalarValue::boolean(false)).value,
            ScalarValue::boolean(false));
  EXPECT_EQ(scalarUnary(UnOp::Not, ScalarValue::boolean(false)).value, ScalarValue::boolean(true));
  EXPECT_THROW(scalarBinary(BinOp::Add, idx(1), i32(1)), std::invalid_argument);
}

TEST(ArithScalar, ScalarToElementRoundsOnceToTheTileDtype) {
  // 0.1f to FP16: the reference rounds the exact binary32 value once.
  EXPECT_EQ(scalarToElement(ScalarValue::fp32(0.1f), DType::FP16).bits, refFp16(0.1f));
  EXPECT_EQ(scalarToElement(ScalarValue::fp32(1.0f + 0x1p-11f), DType::FP16).bits, 0x3C00u);
  EXPECT_EQ(scalarToElement(idx(2049), DType::FP16).bits, 0x6800u);
  EXPECT_EQ(scalarToElement(idx(-1), DType::INT32).bits, 0xFFFFFFFFu);
  EXPECT_EQ(scalarToElement(ScalarValue::fp32(-2.75f), DType::INT32).bits, static_cast<uint32_t>(-2));
  EXPECT_EQ(scalarToElement(ScalarValue::fp32(NAN), DType::INT32).fault, ScalarFault::NotRepresentable);
  EXPECT_EQ(scalarToElement(ScalarValue::fp32(3e9f), DType::INT32).fault, ScalarFault::NotRepresentable);
  EXPECT_EQ(scalarToElement(ScalarValue::fp32(-0.0f), DType::FP32).bits, 0x80000000u);
}

TEST(ArithScalar, FloatLiteralsAreBinary32) {
  EXPECT_EQ(floatLiteral(0.1).f, 0.1f);
  EXPECT_EQ(floatLiteral(1e39).f, INFINITY);
  EXPECT_EQ(convertScalar(ScalarValue::fp32(-2.5f), DType::INDEX).value.i, -2);
  EXPECT_EQ(convertScalar(ScalarValue::fp32(INFINITY), DType::INDEX).fault, ScalarFault::NotRepresentable);
  // 2^63 is one past INT64's range (its double image rounds to 2^63): rejected, not cast.
  EXPECT_EQ(convertScalar(ScalarValue::fp32(0x1p63f), DType::INDEX).fault, ScalarFault::NotRepresentable);
  EXPECT_EQ(convertScalar(ScalarValue::fp32(-0x1p63f), DType::INDEX).value.i, INT64_MIN);
  EXPECT_EQ(convertScalar(ScalarValue::fp32(0x1p31f), DType::INT32).fault, ScalarFault::NotRepresentable);
  EXPECT_EQ(convertScalar(idx(16777217), DType::FP32).value.f, 16777216.0f);
}

}  // namespace
}  // namespace ptodiff::arith
