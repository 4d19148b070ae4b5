// docs/oracle.md's table "Oracle bounds against fixed tolerances": five programs judged by the
// oracle (cpu profile) and by PyPTO's fixed pairs (rtol = atol = 1e-5 FP32, 1e-3 FP16) applied
// against the same float64 reference value v. A correct result (the interpreter's, correctly
// rounded per op) must pass the oracle everywhere; a result 4 ulps beyond the oracle's bound must
// fail it everywhere. The test asserts where fixed pairs false-alarm (cancellation) and where they
// miss (large values), and prints the numbers the table quotes:
//   build-X/tests/test_oracle --gtest_filter='FixedTolerance*'
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <iostream>

#include "oracle/Compare.h"
#include "oracle/ElementDecode.h"
#include "tests/unit/oracle/OracleTestSupport.h"

namespace ptodiff::oracle {
namespace {

using testing::compileProgram;
using testing::fp16Tensor;
using testing::fp32Tensor;
using testing::kernelProgram;
using testing::runBoth;
using testing::sentinelTensor;

/// Deterministic uniform value in [lo, hi) for element (r, c) of input `salt`.
float uniform(int64_t r, int64_t c, int salt, float lo, float hi) {
  const uint32_t h = static_cast<uint32_t>((r * 131 + c * 17 + salt * 7919 + 1) * 2654435761u);
  return lo + (hi - lo) * (static_cast<float>(h >> 8) / 16777216.0f);
}

double ulpOf(DType dt, double v) {
  const int precision = dt == DType::FP32 ? 24 : 11;
  const int minExp = dt == DType::FP32 ? -149 : -24;
  int exp = 0;
  std::frexp(v, &exp);
  return std::ldexp(1.0, std::max(exp - precision, minExp));
}

uint64_t encode(DType dt, double v) {
  if (dt == DType::FP32) return std::bit_cast<uint32_t>(static_cast<float>(v));
  return Eigen::numext::bit_cast<uint16_t>(Eigen::half(static_cast<float>(v)));
}

struct Row {
  std::string name;
  DType dtype;
  int64_t elements = 0;
  double medianBoundUlps = 0, maxBoundUlps = 0;
  int64_t oracleFalseAlarms = 0, fixedFalseAlarms = 0;  // on the correct result
  int64_t oracleMisses = 0, fixedMisses = 0;            // on results 4 ulps beyond the bound
};

Row judge(const std::string& name, const Program& p, const KernelArgs& args) {
  const auto both = runBoth(p, args);
  const OracleTensor& ref = both.oracle.tensors.at("out");
  const Tensor& y = both.run.final.tensors.at("out");
  const double tol = ref.dtype == DType::FP32 ? 1e-5 : 1e-3;
  Row row{name, ref.dtype};
  std::vector<double> boundUlps;
  Tensor wrong = y;
  for (int64_t i = 0; i < ref.elements(); ++i) {
    const auto k = static_cast<size_t>(i);
    if (!ref.written[k] || ref.poison[k]) continue;
    ++row.elements;
    const double v = ref.value[k], e = ref.bound[k];
    boundUlps.push_back(e / ulpOf(ref.dtype, v));
    const double yi = decodeFloatBits(y.dtype, y.bitsAt(i));
    row.fixedFalseAlarms += std::fabs(yi - v) > tol + tol * std::fabs(v) ? 1 : 0;
    // Beyond e + tiny (the comparison's underflow slack, the dtype's smallest normal) by 4 ulps.
    const double tiny = ref.dtype == DType::FP32 ? std::ldexp(1.0, -126) : std::ldexp(1.0, -14);
    // Ulps at the wrong value's own magnitude, so rounding it into the dtype keeps >= 3.5 of them.
    const double edge = v + e + tiny;
    const double w = decodeFloatBits(y.dtype, encode(y.dtype, edge + 4.0 * ulpOf(ref.dtype, edge)));
    wrong.setBitsAt(i, encode(y.dtype, w));
    row.fixedMisses += std::fabs(w - v) <= tol + tol * std::fabs(v) ? 1 : 0;
  }
  const TensorVerdict good = compareWithOracle(y, ref);
  const TensorVerdict bad = compareWithOracle(wrong, ref);
  row.oracleFalseAlarms = good.failing;
  row.oracleMisses = bad.judged - bad.failing;
  std::sort(boundUlps.begin(), boundUlps.end());
  row.medianBoundUlps = boundUlps[boundUlps.size() / 2];
  row.maxBoundUlps = boundUlps.back();
  std::cout << "| " << row.name << " | " << dtypeName(row.dtype) << " | " << row.elements << " | "
            << row.medianBoundUlps << " / " << row.maxBoundUlps << " | " << row.oracleFalseAlarms << " | "
            << row.fixedFalseAlarms << " | " << row.oracleMisses << " | " << row.fixedMisses << " |\n";
  return row;
}

std::string signature(const std::string& dt, int rows, int cols) {
  const std::string t = "pl.Tensor[[" + std::to_string(rows) + ", " + std::to_string(cols) + "], pl." + dt + "]";
  return "a: " + t + ", b: " + t + ", out: pl.Out[" + t + "]) -> " + t;
}

KernelArgs args32(float alo, float ahi, float blo, float bhi, int rows = 16, int cols = 32) {
  KernelArgs a;
  a.tensors["a"] = fp32Tensor(rows, cols, [&](int64_t r, int64_t c) { return uniform(r, c, 1, alo, ahi); });
  a.tensors["b"] = fp32Tensor(rows, cols, [&](int64_t r, int64_t c) { return uniform(r, c, 2, blo, bhi); });
  a.tensors["out"] = sentinelTensor(DType::FP32, rows, cols);
  return a;
}

const char* kCancelBody =
    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
    "        s = pl.tile.add(x, y)\n"
    "        d = pl.tile.sub(s, x)\n"
    "        o = pl.tile.store(d, [0, 0], out)\n"
    "        return o\n";

TEST(FixedToleranceTable, FivePrograms) {
  std::cout << "| program | dtype | judged | oracle bound, ulps (median / max) | oracle false alarms | fixed false "
               "alarms | oracle misses | fixed misses |\n";
  // 1. (a + b) - a, a in [100, 1000), b in [-1e-3, 1e-3): catastrophic cancellation.
  const Row cancel = judge("cancel_fp32: (a + b) - a", compileProgram(kernelProgram(signature("FP32", 16, 32), kCancelBody)),
                           args32(100.0f, 1000.0f, -1e-3f, 1e-3f));
  // 2. a * b with a, b in [1e3, 1e4): large products, one rounding each.
  const Row large = judge("large_mul_fp32: a * b",
                          compileProgram(kernelProgram(signature("FP32", 16, 32),
                                                       "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                                       "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                                                       "        p = pl.tile.mul(x, y)\n"
                                                       "        o = pl.tile.store(p, [0, 0], out)\n"
                                                       "        return o\n")),
                          args32(1e3f, 1e4f, 1e3f, 1e4f));
  // 3. exp(a) * b + a with a, b in [-1, 1): a three-op chain of moderate values.
  const Row chain = judge("exp_chain_fp32: exp(a) * b + a",
                          compileProgram(kernelProgram(signature("FP32", 16, 32),
                                                       "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                                       "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                                                       "        e = pl.tile.exp(x)\n"
                                                       "        p = pl.tile.mul(e, y)\n"
                                                       "        s = pl.tile.add(p, x)\n"
                                                       "        o = pl.tile.store(s, [0, 0], out)\n"
                                                       "        return o\n")),
                          args32(-1.0f, 1.0f, -1.0f, 1.0f));
  // 4. col_sum over 256 rows of a - b, a, b in [0, 1): long accumulations that cancel.
  KernelArgs sumArgs = args32(0.0f, 1.0f, 0.0f, 1.0f, 256, 32);
  sumArgs.tensors["out"] = sentinelTensor(DType::FP32, 1, 32);
  const Row sum = judge("col_sum_fp32: sum of 256 (a - b)",
                        compileProgram(kernelProgram(
                            "a: pl.Tensor[[256, 32], pl.FP32], b: pl.Tensor[[256, 32], pl.FP32], "
                            "out: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]",
                            "        x = pl.tile.load(a, [0, 0], [256, 32])\n"
                            "        y = pl.tile.load(b, [0, 0], [256, 32])\n"
                            "        d = pl.tile.sub(x, y)\n"
                            "        s = pl.tile.col_sum(d)\n"
                            "        o = pl.tile.store(s, [0, 0], out)\n"
                            "        return o\n")),
                        sumArgs);
  // 5. FP16 (a + b) - a, a in [10, 100), b in [-1e-2, 1e-2).
  KernelArgs halfArgs;
  halfArgs.tensors["a"] = fp16Tensor(16, 32, [](int64_t r, int64_t c) { return uniform(r, c, 1, 10.0f, 100.0f); });
  halfArgs.tensors["b"] = fp16Tensor(16, 32, [](int64_t r, int64_t c) { return uniform(r, c, 2, -1e-2f, 1e-2f); });
  halfArgs.tensors["out"] = sentinelTensor(DType::FP16, 16, 32);
  const Row half = judge("cancel_fp16: (a + b) - a",
                         compileProgram(kernelProgram(signature("FP16", 16, 32), kCancelBody)), halfArgs);

  for (const Row* r : {&cancel, &large, &chain, &sum, &half}) {
    SCOPED_TRACE(r->name);
    EXPECT_EQ(r->oracleFalseAlarms, 0);  // a correctly rounded result is always inside the bound
    EXPECT_EQ(r->oracleMisses, 0);       // 4 ulps beyond the bound is always caught
  }
  // Cancellation: the correctly rounded result is a false alarm for the fixed pair.
  EXPECT_GT(cancel.fixedFalseAlarms, cancel.elements / 4);
  EXPECT_GT(half.fixedFalseAlarms, half.elements / 2);
  // Large values: rtol 1e-5 is ~84 ulps of FP32, so errors of a few ulps beyond a 0.5-ulp bound pass.
  EXPECT_EQ(large.fixedMisses, large.elements);
  EXPECT_EQ(large.fixedFalseAlarms, 0);
}

}  // namespace
}  // namespace ptodiff::oracle
