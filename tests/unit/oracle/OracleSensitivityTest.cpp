// Issue 5's sensitivity acceptance, the cases OracleProgramsTest does not already show: a result
// 4 ulps beyond its bound, two swapped elements, and one op rounding toward zero instead of to
// nearest even are all caught (the one-ulp, 2^-10 relative and sign-flip cases are in
// OracleProgramsTest.cpp). Wrong results are built with host arithmetic, never interp/Arith.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "oracle/Compare.h"
#include "tests/unit/oracle/OracleTestSupport.h"

namespace ptodiff::oracle {
namespace {

using testing::compileProgram;
using testing::f32At;
using testing::fp32Bits;
using testing::fp32Tensor;
using testing::kernelProgram;
using testing::runBoth;
using testing::sentinelTensor;

constexpr const char* kSignature =
    "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],\n"
    "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]";

/// Deterministic values in (-1, 1) with full 24-bit mantissas (so sums and products round).
float mixed(int64_t r, int64_t c, int salt) {
  const uint32_t h = static_cast<uint32_t>((r * 131 + c * 17 + salt * 7919) * 2654435761u);
  return (static_cast<float>(h >> 8) / 16777216.0f) * 2.0f - 1.0f + std::ldexp(1.0f, -24) * float(h & 1u);
}

KernelArgs mixedArgs() {
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return mixed(r, c, 1); });
  args.tensors["b"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return mixed(r, c, 2); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  return args;
}

// exp(a) * b + a: three rounded ops, so every element carries a nonzero bound.
const std::string kChain = kernelProgram(kSignature,
                                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                         "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                                         "        e = pl.tile.exp(x)\n"
                                         "        p = pl.tile.mul(e, y)\n"
                                         "        s = pl.tile.add(p, x)\n"
                                         "        o = pl.tile.store(s, [0, 0], out)\n"
                                         "        return o\n");

double ulpOfFloat(double v) {
  int exp = 0;
  std::frexp(v, &exp);  // v = m 2^exp, 0.5 <= |m| < 1
  return std::ldexp(1.0, std::max(exp - 24, -149));
}

TEST(OracleSensitivity, FourUlpsBeyondTheBoundIsCaughtOnEveryElement) {
  const Program p = compileProgram(kChain);
  const auto both = runBoth(p, mixedArgs());
  const OracleTensor& ref = both.oracle.tensors.at("out");
  const Tensor& y0 = both.run.final.tensors.at("out");
  ASSERT_TRUE(compareWithOracle(y0, ref).pass());
  int64_t tried = 0;
  for (int64_t i = 0; i < ref.elements(); ++i) {
    const auto k = static_cast<size_t>(i);
    const double v = ref.value[k], e = ref.bound[k];
    ASSERT_GT(e, 0.0);
    ASSERT_TRUE(std::isfinite(e));
    for (double side : {-1.0, 1.0}) {
      // The float nearest to v + side (e + 4 ulp(v)) is at least e + 3.5 ulps away from v.
      const float wrong = static_cast<float>(v + side * (e + 4.0 * ulpOfFloat(v)));
      Tensor y = y0;
      y.setBitsAt(i, fp32Bits(wrong));
      const TensorVerdict verdict = compareWithOracle(y, ref);
      ASSERT_EQ(verdict.failing, 1) << "element " << i << " side " << side << ": " << describeVerdict(verdict);
      EXPECT_EQ(verdict.firstFailure->row, i / 32);
      EXPECT_EQ(verdict.firstFailure->col, i % 32);
      EXPECT_GE(verdict.firstFailure->ulps, 3.5);
      ++tried;
    }
  }
  EXPECT_EQ(tried, 2 * 512);
}

TEST(OracleSensitivity, TwoSwappedElementsAreBothCaught) {
  const Program p = compileProgram(kChain);
  const auto both = runBoth(p, mixedArgs());
  const OracleTensor& ref = both.oracle.tensors.at("out");
  Tensor y = both.run.final.tensors.at("out");
  // Swap (1, 2) with (9, 30): values far apart compared with their bounds.
  const int64_t i = 1 * 32 + 2, j = 9 * 32 + 30;
  const double gap = std::fabs(ref.value[size_t(i)] - ref.value[size_t(j)]);
  ASSERT_GT(gap, 100.0 * (ref.bound[size_t(i)] + ref.bound[size_t(j)]));
  const uint64_t bi = y.bitsAt(i), bj = y.bitsAt(j);
  y.setBitsAt(i, bj);
  y.setBitsAt(j, bi);
  const TensorVerdict verdict = compareWithOracle(y, ref);
  EXPECT_EQ(verdict.failing, 2);
  ASSERT_TRUE(verdict.firstFailure);
  EXPECT_EQ(verdict.firstFailure->row, 1);
  EXPECT_EQ(verdict.firstFailure->col, 2);
}

/// a + b computed exactly in double (exact for two floats of similar magnitude) and rounded
/// toward zero to FP32: the correctly rounded float, stepped back when it rounded away from zero.
float addTowardZero(float a, float b) {
  const double exact = double(a) + double(b);
  const float nearest = static_cast<float>(exact);
  if (std::fabs(double(nearest)) > std::fabs(exact)) return std::nextafter(nearest, 0.0f);
  return nearest;
}

TEST(OracleSensitivity, RoundTowardZeroInOneOpIsCaught) {
  // out = a + b, then the same sum computed with round-toward-zero in its one op.
  const Program p = compileProgram(kernelProgram(kSignature,
                                                 "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                                 "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                                                 "        s = pl.tile.add(x, y)\n"
                                                 "        o = pl.tile.store(s, [0, 0], out)\n"
                                                 "        return o\n"));
  KernelArgs args = mixedArgs();
  // Element (0, 0): 1 + 0.75 ulp(1) rounds to nearest up to 1 + ulp, toward zero down to 1.
  args.tensors["a"].setBitsAt(0, fp32Bits(1.0f));
  args.tensors["b"].setBitsAt(0, fp32Bits(0.75f * std::ldexp(1.0f, -23)));
  const auto both = runBoth(p, args);
  const OracleTensor& ref = both.oracle.tensors.at("out");
  Tensor y = both.run.final.tensors.at("out");
  ASSERT_TRUE(compareWithOracle(y, ref).pass());
  int64_t differ = 0;
  for (int64_t i = 0; i < y.elements(); ++i) {
    const float a = f32At(args.tensors["a"], i / 32, i % 32), b = f32At(args.tensors["b"], i / 32, i % 32);
    const float rtz = addTowardZero(a, b);
    differ += fp32Bits(rtz) != y.bitsAt(i) ? 1 : 0;
    y.setBitsAt(i, fp32Bits(rtz));
  }
  ASSERT_GT(differ, 50);  // the inexact sums whose nearest float lies away from zero (72 of 512 here)
  const TensorVerdict verdict = compareWithOracle(y, ref);
  ASSERT_GT(verdict.failing, 0) << describeVerdict(verdict);
  EXPECT_LE(verdict.failing, differ);
  ASSERT_TRUE(verdict.firstFailure);
  EXPECT_EQ(verdict.firstFailure->row, 0);
  EXPECT_EQ(verdict.firstFailure->col, 0);
  EXPECT_EQ(verdict.firstFailure->y, 1.0);
  EXPECT_EQ(verdict.firstFailure->ulps, 0.75);
}

}  // namespace
}  // namespace ptodiff::oracle
