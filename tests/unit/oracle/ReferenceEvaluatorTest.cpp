// The reference evaluator: values and bounds by hand, the Tile semantics' statuses, written and
// poison flags, control flow and argument errors, each next to the interpreter's own run.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "OracleTestSupport.h"

namespace ptodiff::oracle::testing {
namespace {

const double u32 = std::ldexp(1.0, -24), u16 = std::ldexp(1.0, -11);
const double denorm32 = std::ldexp(1.0, -149), denorm16 = std::ldexp(1.0, -24);
const double slack = std::ldexp(1.0, -52);

/// oracle.md's rounding r for one op (written out here independently of oracle/ErrorBound.cpp).
double rounding(double k, double u, double denorm, double v, double eProp) {
  return k * (2.0 * u * (std::fabs(v) + eProp) + denorm) + slack * std::fabs(v);
}

size_t at(const OracleTensor& t, int64_t r, int64_t c) { return t.index(r, c); }

const std::string kAddProgram = kernelProgram(
    "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],\n"
    "               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]",
    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
    "        s = pl.tile.add(x, y)\n"
    "        o = pl.tile.store(s, [8, 0], out)\n"
    "        return o\n");

KernelArgs addArgs() {
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c); });
  args.tensors["b"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c, 1) * 3.0f; });
  args.tensors["out"] = sentinelTensor(DType::FP32, 32, 32);
  return args;
}

TEST(ReferenceEvaluator, ExactSumsHaveZeroBoundAndTheWrittenFlagsOfTheTileSemantics) {
  const Program p = compileProgram(kAddProgram);
  const BothRuns both = runBoth(p, addArgs());
  ASSERT_EQ(both.oracle.status, RunStatus::Ok) << both.oracle.diagnostic.message;
  EXPECT_EQ(both.oracle.steps, both.run.steps);
  EXPECT_EQ(both.oracle.profile, "cpu");
  const OracleTensor& out = both.oracle.tensors.at("out");
  for (int64_t r = 0; r < 32; ++r)
    for (int64_t c = 0; c < 32; ++c) {
      const size_t i = at(out, r, c);
      const bool stored = r >= 8 && r < 24;
      EXPECT_EQ(out.written[i], stored ? 1 : 0);
      EXPECT_EQ(out.poison[i], 0);
      if (!stored) {
        EXPECT_TRUE(std::isnan(out.value[i]));  // the sentinel is a NaN pattern
        continue;
      }
      EXPECT_EQ(out.value[i], double(smallValue(r - 8, c)) + double(smallValue(r - 8, c, 1) * 3.0f));
      EXPECT_EQ(out.bound[i], 0.0);  // quarter-integers: the FP32 sum is exact
      EXPECT_EQ(out.chain[i], 1);
    }
  const OracleTensor& a = both.oracle.tensors.at("a");
  EXPECT_EQ(a.value[at(a, 3, 4)], double(smallValue(3, 4)));
  EXPECT_EQ(a.written[at(a, 3, 4)], 0);
}

TEST(ReferenceEvaluator, ExpThenMulsCarriesTheBoundThroughEachOp) {
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [8, 8])\n"
      "        y = pl.tile.exp(x)\n"
      "        z = pl.tile.muls(y, 0.1)\n"
      "        o = pl.tile.store(z, [0, 0], out)\n"
      "        return o\n"));
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(8, 8, [](int64_t r, int64_t c) { return 0.37f * float(r - c); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 8, 8);
  const BothRuns both = runBoth(p, args);
  const OracleTensor& out = both.oracle.tensors.at("out");
  const double s = double(0.1f);  // the literal is FP32; its conversion to the FP32 tile is exact
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 8; ++c) {
      const double vy = std::exp(double(0.37f * float(r - c)));
      const double ey = rounding(1.0, u32, denorm32, vy, 0.0);  // exp of an exact input: k = 1
      const double vz = vy * s, eProp = s * ey;
      const double ez = eProp + rounding(0.5, u32, denorm32, vz, eProp);
      const size_t i = at(out, r, c);
      EXPECT_EQ(out.value[i], vz);
      EXPECT_DOUBLE_EQ(out.bound[i], ez);
      EXPECT_EQ(out.chain[i], 2);
      EXPECT_LE(std::fabs(double(f32At(both.run.final.tensors.at("out"), r, c)) - vz), ez);
    }
}

TEST(ReferenceEvaluator, ScalarConvertedToFp16CountsAsAnInputConversion) {
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[16, 16], pl.FP16], s: pl.Scalar[pl.FP32],\n"
      "               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]",
      "        x = pl.tile.load(a, [0, 0], [16, 16])\n"
      "        y = pl.tile.muls(x, s)\n"
      "        o = pl.tile.store(y, [0, 0], out)\n"
      "        return o\n"));
  KernelArgs args;
  args.tensors["a"] = fp16Tensor(16, 16, [](int64_t r, int64_t c) { return float(r * 16 + c) - 100.0f; });
  args.tensors["out"] = sentinelTensor(DType::FP16, 16, 16);
  args.scalars["s"] = ScalarValue::fp32(0.1f);
  const BothRuns both = runBoth(p, args);
  const OracleTensor& out = both.oracle.tensors.at("out");
  const double s = double(0.1f);
  const double es = 0.5 * (2.0 * u16 * s + denorm16) + slack * s;  // e = u|s| (+ underflow, float64 terms)
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 16; ++c) {
      const double x = double(r * 16 + c) - 100.0;
      const double eProp = std::fabs(x) * es;
      const size_t i = at(out, r, c);
      EXPECT_EQ(out.value[i], x * s);
      // 0 * s is exactly 0 (the scalar's sign is certain); everything else rounds once more.
      EXPECT_DOUBLE_EQ(out.bound[i], x == 0.0 ? 0.0 : eProp + rounding(0.5, u16, denorm16, x * s, eProp));
      EXPECT_EQ(out.chain[i], 2);  // the scalar's conversion is one op: max(0, 1) + 1
      EXPECT_LE(std::fabs(double(Eigen::numext::bit_cast<Eigen::half>(static_cast<uint16_t>(
                              both.run.final.tensors.at("out").bitsAt(r * 16 + c)))) -
                          x * s),
                out.bound[i]);
    }
}

TEST(ReferenceEvaluator, ForLoopAccumulatesBoundsAndChain) {
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[8, 8], pl.FP32], n: pl.Scalar[pl.INDEX],\n"
      "               out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [8, 8])\n"
      "        for i, (acc,) in pl.range(0, n, 1, init_values=(x,)):\n"
      "            acc1 = pl.tile.add(acc, x)\n"
      "            acc2 = pl.yield_(acc1)\n"
      "        o = pl.tile.store(acc2, [0, 0], out)\n"
      "        return o\n"));
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(8, 8, [](int64_t r, int64_t c) { return 0.1f * float(r + 1) + 0.01f * float(c); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 8, 8);
  args.scalars["n"] = ScalarValue::index(37);
  const BothRuns both = runBoth(p, args);
  ASSERT_EQ(both.oracle.status, RunStatus::Ok);
  EXPECT_EQ(both.oracle.steps, both.run.steps);
  const OracleTensor& out = both.oracle.tensors.at("out");
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 8; ++c) {
      const double x = double(0.1f * float(r + 1) + 0.01f * float(c));
      // Hand recurrence: acc_{k+1} = acc_k + x, e_{k+1} = e_k + r(acc_{k+1}).
      double v = x, e = 0.0;
      for (int k = 0; k < 37; ++k) {
        v += x;
        e = (e == 0.0 && double(float(v)) == v) ? 0.0 : e + rounding(0.5, u32, denorm32, v, e);
      }
      const size_t i = at(out, r, c);
      EXPECT_NEAR(out.value[i], 38.0 * x, 1e-12);
      EXPECT_DOUBLE_EQ(out.bound[i], e);
      EXPECT_EQ(out.chain[i], 37);
      EXPECT_LE(std::fabs(double(f32At(both.run.final.tensors.at("out"), r, c)) - out.value[i]), out.bound[i]);
    }
}

TEST(ReferenceEvaluator, RowSumIsAChainOfRoundedAddsAndColMaxDoesNotRound) {
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[8, 16], pl.FP32], rows: pl.Out[pl.Tensor[[8, 1], pl.FP32]],\n"
      "               cols: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> tuple[pl.Tensor[[8, 1], pl.FP32], "
      "pl.Tensor[[1, 16], pl.FP32]]",
      "        x = pl.tile.load(a, [0, 0], [8, 16])\n"
      "        tmp = pl.tile.create([8, 16], dtype=pl.FP32)\n"
      "        rs = pl.tile.row_sum(x, tmp)\n"
      "        cm = pl.tile.col_max(x)\n"
      "        o = pl.tile.store(rs, [0, 0], rows)\n"
      "        q = pl.tile.store(cm, [0, 0], cols)\n"
      "        return o, q\n"));
  const auto value = [](int64_t r, int64_t c) { return 0.1f * float(c + 1) + float(r) * (c % 2 ? 1.0f : -1.0f); };
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(8, 16, value);
  args.tensors["rows"] = sentinelTensor(DType::FP32, 8, 1);
  args.tensors["cols"] = sentinelTensor(DType::FP32, 1, 16);
  const BothRuns both = runBoth(p, args);
  const OracleTensor& rows = both.oracle.tensors.at("rows");
  for (int64_t r = 0; r < 8; ++r) {
    double v = value(r, 0), e = 0.0;
    for (int64_t c = 1; c < 16; ++c) {
      v += double(value(r, c));
      e = (e == 0.0 && double(float(v)) == v) ? 0.0 : e + rounding(0.5, u32, denorm32, v, e);
    }
    EXPECT_EQ(rows.value[at(rows, r, 0)], v) << r;
    EXPECT_DOUBLE_EQ(rows.bound[at(rows, r, 0)], e) << r;
    EXPECT_EQ(rows.chain[at(rows, r, 0)], 15);
  }
  const OracleTensor& cols = both.oracle.tensors.at("cols");
  for (int64_t c = 0; c < 16; ++c) {
    double m = value(0, c);
    for (int64_t r = 1; r < 8; ++r) m = std::max(m, double(value(r, c)));
    EXPECT_EQ(cols.value[at(cols, 0, c)], m);
    EXPECT_EQ(cols.bound[at(cols, 0, c)], 0.0);
    EXPECT_EQ(cols.chain[at(cols, 0, c)], 7);
  }
  for (const TensorVerdict& v : compareOutputs(*p.defaultKernel(), both.run.final, both.oracle.tensors))
    EXPECT_TRUE(v.pass()) << describeVerdict(v);
}

TEST(ReferenceEvaluator, MatmulValueIsTheExactSumAndTheBoundIsGammaK) {
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 16], pl.FP16],\n"
      "               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]",
      "        am = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)\n"
      "        bm = pl.tile.load(b, [0, 0], [64, 16], target_memory=pl.Mem.Mat)\n"
      "        l = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
      "        r = pl.tile.move(bm, target_memory=pl.Mem.Right)\n"
      "        c = pl.tile.matmul(l, r)\n"
      "        o = pl.tile.store(c, [0, 0], out)\n"
      "        return o\n"));
  const auto av = [](int64_t r, int64_t c) { return float(Eigen::half(std::sin(float(r * 64 + c)) * 3.0f)); };
  const auto bv = [](int64_t r, int64_t c) { return float(Eigen::half(std::cos(float(r * 16 + c)) * 2.0f)); };
  KernelArgs args;
  args.tensors["a"] = fp16Tensor(16, 64, av);
  args.tensors["b"] = fp16Tensor(64, 16, bv);
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 16);
  const BothRuns both = runBoth(p, args);
  const OracleTensor& out = both.oracle.tensors.at("out");
  const double gamma64 = 64 * u32 / (1 - 64 * u32);
  for (int64_t i = 0; i < 16; ++i)
    for (int64_t j = 0; j < 16; ++j) {
      double sum = 0.0, abs = 0.0;
      for (int64_t k = 0; k < 64; ++k) {
        sum += double(av(i, k)) * double(bv(k, j));  // FP16 products are exact in float64
        abs += std::fabs(double(av(i, k)) * double(bv(k, j)));
      }
      const size_t at = out.index(i, j);
      EXPECT_NEAR(out.value[at], sum, 1e-12 * abs);
      EXPECT_GE(out.bound[at], gamma64 * abs);
      EXPECT_LE(out.bound[at], gamma64 * abs * 1.001 + 64 * denorm32);
      EXPECT_EQ(out.chain[at], 64);
      EXPECT_LE(std::fabs(double(f32At(both.run.final.tensors.at("out"), i, j)) - out.value[at]), out.bound[at]);
    }
}

TEST(ReferenceEvaluator, PoisonStoreIsInvalidProgramLikeTheInterpreter) {
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [8, 8], valid_shape=[4, 8])\n"
      "        y = pl.tile.set_validshape(x, 8, 8)\n"
      "        o = pl.tile.store(y, [0, 0], out)\n"
      "        return o\n"));
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(8, 8, [](int64_t r, int64_t c) { return smallValue(r, c); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 8, 8);
  const BothRuns both = runBoth(p, args);
  EXPECT_EQ(both.oracle.status, RunStatus::InvalidProgram);
  EXPECT_EQ(both.oracle.status, both.run.status);
  EXPECT_EQ(both.oracle.diagnostic.loc, both.run.diagnostic.loc);
  EXPECT_EQ(both.oracle.diagnostic.message, both.run.diagnostic.message);
  const OracleTensor& out = both.oracle.tensors.at("out");
  EXPECT_EQ(out.poison, both.run.final.tensors.at("out").poison);
  EXPECT_EQ(out.poison[at(out, 3, 7)], 0);
  EXPECT_EQ(out.poison[at(out, 4, 0)], 1);
  const TensorVerdict v = compareWithOracle(both.run.final.tensors.at("out"), out);
  EXPECT_TRUE(v.invalidProgram());
  EXPECT_EQ(v.poisonWritten, 32);
}

TEST(ReferenceEvaluator, FaultsMatchTheInterpreterStatusAndLocation) {
  struct Case {
    const char* what;
    std::string signature, body;
    RunStatus expected;
    int64_t blocks = 1;
    uint64_t budget = 1'000'000;
  };
  const std::string sig8 = "a: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> "
                           "pl.Tensor[[8, 8], pl.FP32]";
  const Case cases[] = {
      {"out-of-bounds load", sig8,
       "        x = pl.tile.load(a, [4, 0], [8, 8])\n        o = pl.tile.store(x, [0, 0], out)\n        return o\n",
       RunStatus::InvalidProgram},
      {"race between blocks", sig8,
       "        x = pl.tile.load(a, [0, 0], [8, 8])\n        o = pl.tile.store(x, [0, 0], out)\n        return o\n",
       RunStatus::Race, 2},
      {"step budget", sig8,
       "        x = pl.tile.load(a, [0, 0], [8, 8])\n"
       "        for (t, k) in pl.while_(init_values=(x, 0)):\n"
       "            pl.cond(k >= 0)\n"
       "            k1 = k + 1\n"
       "            t1, k2 = pl.yield_(t, k1)\n"
       "        o = pl.tile.store(t1, [0, 0], out)\n        return o\n",
       RunStatus::Timeout, 1, 500},
      {"INDEX overflow", sig8,
       "        big = pl.const(9223372036854775807, pl.INT64)\n        one = pl.const(1, pl.INT64)\n"
       "        z = big + one\n        x = pl.tile.load(a, [0, 0], [8, 8])\n"
       "        o = pl.tile.store(x, [0, 0], out)\n        return o\n",
       RunStatus::InvalidProgram},
  };
  for (const Case& c : cases) {
    const Program p = compileProgram(kernelProgram(c.signature, c.body));
    KernelArgs args;
    args.tensors["a"] = fp32Tensor(8, 8, [](int64_t r, int64_t col) { return smallValue(r, col); });
    args.tensors["out"] = sentinelTensor(DType::FP32, 8, 8);
    RunConfig config;
    config.blockNum = c.blocks;
    config.stepBudget = c.budget;
    const BothRuns both = runBoth(p, args, config);
    EXPECT_EQ(both.oracle.status, c.expected) << c.what << ": " << both.oracle.diagnostic.message;
    EXPECT_EQ(both.oracle.status, both.run.status) << c.what;
    EXPECT_EQ(both.oracle.diagnostic.loc, both.run.diagnostic.loc) << c.what;
    EXPECT_EQ(both.oracle.diagnostic.message, both.run.diagnostic.message) << c.what;
    EXPECT_EQ(both.oracle.steps, both.run.steps) << c.what;
  }
}

TEST(ReferenceEvaluator, IntegersAreExactAndWrap) {
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[8, 8], pl.INT32], b: pl.Tensor[[8, 8], pl.INT32],\n"
      "               out: pl.Out[pl.Tensor[[8, 8], pl.INT32]]) -> pl.Tensor[[8, 8], pl.INT32]",
      "        x = pl.tile.load(a, [0, 0], [8, 8])\n"
      "        y = pl.tile.load(b, [0, 0], [8, 8])\n"
      "        m = pl.tile.mul(x, y)\n"
      "        s = pl.tile.add(m, x)\n"
      "        t = pl.tile.maximum(s, y)\n"
      "        o = pl.tile.store(t, [0, 0], out)\n"
      "        return o\n"));
  KernelArgs args;
  args.tensors["a"] = bitsTensor(DType::INT32, 8, 8, [](int64_t r, int64_t c) {
    return uint64_t{static_cast<uint32_t>(int32_t(r * 300000000 - c))};
  });
  args.tensors["b"] = bitsTensor(DType::INT32, 8, 8, [](int64_t r, int64_t c) { return uint64_t(r + c + 3); });
  args.tensors["out"] = sentinelTensor(DType::INT32, 8, 8);
  const BothRuns both = runBoth(p, args);
  const OracleTensor& out = both.oracle.tensors.at("out");
  const auto wrap = [](int64_t v) { return int64_t{static_cast<int32_t>(static_cast<uint32_t>(v))}; };
  int wrapped = 0;
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 8; ++c) {
      const int64_t x = wrap(r * 300000000 - c), y = r + c + 3;
      const int64_t sum = wrap(wrap(x * y) + x);
      wrapped += sum != x * y + x;
      EXPECT_EQ(out.integer[at(out, r, c)], std::max(sum, y)) << r << "," << c;
      EXPECT_EQ(out.bound[at(out, r, c)], 0.0);
    }
  EXPECT_GT(wrapped, 0) << "the test values must exercise wrapping";
  EXPECT_TRUE(compareWithOracle(both.run.final.tensors.at("out"), out).pass());
}

TEST(ReferenceEvaluator, TheProfileSetsTheAllowance) {
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [8, 8])\n"
      "        y = pl.tile.exp(x)\n"
      "        o = pl.tile.store(y, [0, 0], out)\n"
      "        return o\n"));
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(8, 8, [](int64_t r, int64_t c) { return 0.5f * float(r) - 0.25f * float(c); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 8, 8);
  const ToleranceProfile a2a3 = *builtinProfile("a2a3");
  const BothRuns loose = runBoth(p, args, {}, a2a3);
  EXPECT_EQ(loose.oracle.profile, "a2a3");
  const OracleTensor& out = loose.oracle.tensors.at("out");
  const double v = std::exp(1.5 - 0.5);  // element (3, 2)
  EXPECT_DOUBLE_EQ(out.bound[at(out, 3, 2)], rounding(839.0, u32, denorm32, v, 0.0));
}

TEST(ReferenceEvaluator, ArgumentAndStageErrorsAreDiagnostics) {
  const Program p = compileProgram(kAddProgram);
  KernelArgs args = addArgs();
  args.tensors.erase("b");
  try {
    evaluateOracle(p, *p.defaultKernel(), args);
    FAIL() << "expected a DiagnosticError";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message, "missing tensor argument 'b'; expected FP32 [16, 32]");
    EXPECT_EQ(e.diagnostic().file, "test.py");
  }
  KernelArgs wrong = addArgs();
  wrong.tensors["a"] = fp32Tensor(8, 32, [](int64_t, int64_t) { return 0.0f; });
  EXPECT_THROW(evaluateOracle(p, *p.defaultKernel(), wrong), DiagnosticError);
  RunConfig noBlocks;
  noBlocks.blockNum = 0;
  EXPECT_THROW(evaluateOracle(p, *p.defaultKernel(), addArgs(), noBlocks), DiagnosticError);
}

}  // namespace
}  // namespace ptodiff::oracle::testing
