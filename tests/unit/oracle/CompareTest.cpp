// Judging computed tensors against hand-built references: the pass rule, NaN/Inf classes, integer
// exactness, which elements are judged, invalid-program on written poison, and the verdict detail.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "OracleTestSupport.h"
#include "oracle/Compare.h"

namespace ptodiff::oracle::testing {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A 2 x 3 FP32 reference, every element written and defined, v = 1.5, e = 0, chain 4.
OracleTensor reference(DType dt = DType::FP32) {
  OracleTensor t;
  t.name = "out";
  t.dtype = dt;
  t.rows = 2;
  t.cols = 3;
  t.value.assign(6, 1.5);
  if (!isFloat(dt)) {
    t.integer.assign(6, 7);
    t.value.assign(6, 7.0);
  }
  t.bound.assign(6, 0.0);
  t.poison.assign(6, 0);
  t.written.assign(6, 1);
  t.chain.assign(6, 4);
  return t;
}

Tensor computed(float v) { return fp32Tensor(2, 3, [&](int64_t, int64_t) { return v; }); }

TEST(OracleCompare, ExactMatchPasses) {
  const TensorVerdict v = compareWithOracle(computed(1.5f), reference());
  EXPECT_TRUE(v.pass());
  EXPECT_EQ(v.judged, 6);
  EXPECT_EQ(v.failing, 0);
  EXPECT_EQ(v.worstRatio, 0.0);
  EXPECT_EQ(describeVerdict(v), "out: pass (6 judged, worst |y - v|/(e + tiny) = 0)");
}

TEST(OracleCompare, WithinTheBoundPassesOutsideFailsWithDetail) {
  OracleTensor ref = reference();
  ref.bound.assign(6, 0.25);
  Tensor y = computed(1.75f);  // |y - v| = 0.25 = e
  EXPECT_TRUE(compareWithOracle(y, ref).pass());
  y.setBitsAt(4, fp32Bits(2.0f));  // (row 1, col 1): |y - v| = 0.5 = 2e
  y.setBitsAt(5, fp32Bits(2.0f));
  const TensorVerdict v = compareWithOracle(y, ref);
  EXPECT_FALSE(v.pass());
  EXPECT_EQ(v.failing, 2);
  ASSERT_TRUE(v.firstFailure.has_value());
  const ElementFailure& f = *v.firstFailure;
  EXPECT_EQ(f.row, 1);
  EXPECT_EQ(f.col, 1);
  EXPECT_EQ(f.y, 2.0);
  EXPECT_EQ(f.v, 1.5);
  EXPECT_EQ(f.e, 0.25);
  EXPECT_EQ(f.ulps, 0.5 / std::ldexp(1.0, -23));  // ulps of FP32 at 1.5
  EXPECT_EQ(f.ratio, 2.0);
  EXPECT_EQ(f.chain, 4);
  EXPECT_EQ(f.reason, "outside the bound");
  EXPECT_EQ(describeVerdict(v),
            "out: 2 of 6 judged element(s) fail the oracle (FP32); first at (row 1, col 1): outside the bound: y = 2, "
            "v = 1.5, e = 0.25, 4.19e+06 ulps, |y - v|/e = 2, op chain 4");
}

TEST(OracleCompare, TinyAbsorbsUnderflow) {
  OracleTensor ref = reference();
  ref.value.assign(6, 0.0);
  const float smallestNormal = std::numeric_limits<float>::min();
  EXPECT_TRUE(compareWithOracle(computed(smallestNormal), ref).pass());
  EXPECT_TRUE(compareWithOracle(computed(std::numeric_limits<float>::denorm_min()), ref).pass());
  EXPECT_FALSE(compareWithOracle(computed(2.0f * smallestNormal), ref).pass());
}

TEST(OracleCompare, NaNAndInfAreClasses) {
  OracleTensor nanRef = reference();
  nanRef.value.assign(6, kNaN);
  EXPECT_TRUE(compareWithOracle(computed(std::nanf("")), nanRef).pass());
  const TensorVerdict numberForNaN = compareWithOracle(computed(1.5f), nanRef);
  EXPECT_FALSE(numberForNaN.pass());
  EXPECT_EQ(numberForNaN.firstFailure->reason, "a number where the reference is NaN");

  // NaN against a finite reference fails even with an enormous bound.
  OracleTensor wide = reference();
  wide.bound.assign(6, 1e30);
  const TensorVerdict nanForNumber = compareWithOracle(computed(std::nanf("")), wide);
  EXPECT_EQ(nanForNumber.failing, 6);
  EXPECT_EQ(nanForNumber.firstFailure->reason, "NaN where the reference is finite");
  EXPECT_EQ(nanForNumber.firstFailure->ratio, kInf);
  EXPECT_EQ(compareWithOracle(computed(INFINITY), wide).firstFailure->reason, "Inf where the reference is finite");

  OracleTensor infRef = reference();
  infRef.value.assign(6, -kInf);
  EXPECT_TRUE(compareWithOracle(computed(-INFINITY), infRef).pass());
  EXPECT_EQ(compareWithOracle(computed(INFINITY), infRef).firstFailure->reason, "Inf of the wrong sign");
  EXPECT_EQ(compareWithOracle(computed(3.4e38f), infRef).firstFailure->reason,
            "a finite number where the reference is Inf");
}

TEST(OracleCompare, IntegersAreExact) {
  const OracleTensor ref = reference(DType::INT32);
  Tensor y = bitsTensor(DType::INT32, 2, 3, [](int64_t, int64_t) { return uint64_t{7}; });
  EXPECT_TRUE(compareWithOracle(y, ref).pass());
  y.setBitsAt(2, static_cast<uint32_t>(-8));
  const TensorVerdict v = compareWithOracle(y, ref);
  EXPECT_EQ(v.failing, 1);
  EXPECT_EQ(v.firstFailure->row, 0);
  EXPECT_EQ(v.firstFailure->col, 2);
  EXPECT_EQ(v.firstFailure->y, -8.0);
  EXPECT_EQ(v.firstFailure->v, 7.0);
  EXPECT_EQ(v.firstFailure->ulps, 15.0);
  EXPECT_EQ(v.firstFailure->reason, "integer results must be exact");
}

TEST(OracleCompare, OnlyWrittenDefinedJudgeableElementsCount) {
  OracleTensor ref = reference();
  ref.written[0] = 0;          // unwritten: the sentinel check's business
  ref.bound[1] = kInf;         // not judgeable
  ref.poison[2] = 1;           // written poison: the case is invalid
  ref.poison[3] = 1;
  Tensor y = computed(1.5f);
  y.setBitsAt(0, fp32Bits(-100.0f));
  y.setBitsAt(1, fp32Bits(-100.0f));
  y.setBitsAt(2, fp32Bits(-100.0f));
  const TensorVerdict v = compareWithOracle(y, ref);
  EXPECT_EQ(v.judged, 2);
  EXPECT_EQ(v.failing, 0);
  EXPECT_EQ(v.unjudgeable, 1);
  EXPECT_EQ(v.poisonWritten, 2);
  EXPECT_TRUE(v.invalidProgram());
  EXPECT_FALSE(v.pass());
  EXPECT_EQ((*v.firstPoison)[0], 0);
  EXPECT_EQ((*v.firstPoison)[1], 2);
  EXPECT_EQ(describeVerdict(v),
            "out: invalid-program: 2 written element(s) are poison under the Tile semantics; first at (row 0, col 2)");
}

TEST(OracleCompare, ShapeMismatchIsAHarnessBug) {
  EXPECT_THROW(compareWithOracle(fp32Tensor(3, 2, [](int64_t, int64_t) { return 0.0f; }), reference()), std::logic_error);
  EXPECT_THROW(compareWithOracle(computed(1.5f), reference(DType::FP16)), std::logic_error);
}

TEST(OracleCompare, OutputsAreTheOutAndInOutParameters) {
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[8, 8], pl.FP32], io: pl.InOut[pl.Tensor[[8, 8], pl.FP32]],\n"
      "               out: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> tuple[pl.Tensor[[8, 8], pl.FP32], "
      "pl.Tensor[[8, 8], pl.FP32]]",
      "        x = pl.tile.load(a, [0, 0], [8, 8])\n"
      "        o = pl.tile.store(x, [0, 0], out)\n"
      "        q = pl.tile.store(x, [0, 0], io)\n"
      "        return o, q\n"));
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(8, 8, [](int64_t r, int64_t c) { return smallValue(r, c); });
  args.tensors["io"] = fp32Tensor(8, 8, [](int64_t, int64_t) { return 0.0f; });
  args.tensors["out"] = sentinelTensor(DType::FP32, 8, 8);
  const BothRuns both = runBoth(p, args);
  const std::vector<TensorVerdict> verdicts = compareOutputs(*p.defaultKernel(), both.run.final, both.oracle.tensors);
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(verdicts[0].name, "io");
  EXPECT_EQ(verdicts[1].name, "out");
  for (const TensorVerdict& v : verdicts) {
    EXPECT_TRUE(v.pass()) << describeVerdict(v);
    EXPECT_EQ(v.judged, 64);
  }
  KernelArgs missing = both.run.final;
  missing.tensors.erase("out");
  EXPECT_THROW(compareOutputs(*p.defaultKernel(), missing, both.oracle.tensors), std::logic_error);
}

}  // namespace
}  // namespace ptodiff::oracle::testing
