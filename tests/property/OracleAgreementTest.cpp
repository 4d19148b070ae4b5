// The oracle's acceptance property: zero false alarms. Over randomly generated straight-line and
// control-flow Tile programs (OracleProgramGen.h: cancellation, long add chains, exp of large and
// small values, division, sqrt/log of positives, matmul with K up to 512 and mixed signs, FP32
// and FP16, For loops with carries, If), the Tile interpreter's results always lie within the
// oracle's `cpu` bound. A second, deterministic test checks the generator itself: every program
// verifies, its whole menu is drawn, and the oracle judges nearly every element (an oracle that
// declared everything unjudgeable would pass the property vacuously) with a useful bound.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "OracleProgramGen.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "interp/TileInterpreter.h"
#include "oracle/Oracle.h"

namespace ptodiff::oracle {
namespace {

struct CaseOutcome {
  RunResult run;
  OracleResult oracle;
  std::vector<TensorVerdict> verdicts;
};

/// Parses, verifies and runs a generated case on the interpreter and the oracle (cpu profile).
CaseOutcome runCase(const testgen::GeneratedCase& c) {
  Program p = parseProgramText(c.text, "generated.py");
  verifyOrThrow(p);
  const Function& kernel = *p.defaultKernel();
  CaseOutcome o;
  o.run = runTileKernel(p, kernel, c.args);
  o.oracle = evaluateOracle(p, kernel, c.args);
  if (o.run.status == RunStatus::Ok) o.verdicts = compareOutputs(kernel, o.run.final, o.oracle.tensors);
  return o;
}

RC_GTEST_PROP(OracleAgreement, InterpreterResultsLieWithinTheCpuBound, ()) {
  const testgen::OracleGenKnobs knobs = *testgen::genOracleKnobs();
  const testgen::GeneratedCase c = testgen::buildOracleCase(knobs);
  RC_LOG() << c.text;
  CaseOutcome o;
  try {
    o = runCase(c);
  } catch (const DiagnosticError& e) {
    RC_FAIL("the generator produced a program that does not verify: " + formatDiagnostic(e.diagnostic()));
  }
  RC_ASSERT(o.run.status == RunStatus::Ok);
  RC_ASSERT(o.oracle.status == o.run.status);
  for (const TensorVerdict& v : o.verdicts)
    if (!v.pass()) RC_FAIL("false alarm: " + describeVerdict(v));
  RC_TAG(knobs.fp16 ? "FP16" : "FP32");
  RC_CLASSIFY(knobs.matmulK > 0, "cube");
  RC_CLASSIFY(knobs.control, "control flow");
}

/// Deterministic knobs spread over the whole space (independent of RapidCheck's seed).
testgen::OracleGenKnobs knobsFor(uint64_t i) {
  testgen::OracleGenKnobs k;
  k.seed = 0x5EED0000 + i;
  k.ops = static_cast<int>(i % 15);
  k.fp16 = (i & 1) != 0;
  k.control = (i & 2) != 0;
  k.matmulK = i % 3 == 0 ? static_cast<int>(16 * (1 + (i / 3) % 32)) : 0;
  return k;
}

TEST(OracleAgreement, GeneratorCoversItsMenuAndTheOracleJudgesWithUsefulBounds) {
  const std::vector<std::string> menu = {
      "pl.tile.add(", "pl.tile.sub(", "pl.tile.mul(", "pl.tile.div(", "pl.tile.maximum(", "pl.tile.minimum(",
      "pl.tile.exp(", "pl.tile.log(", "pl.tile.sqrt(", "pl.tile.recip(", "pl.tile.abs(", "pl.tile.neg(",
      "pl.tile.relu(", "pl.tile.adds(", "pl.tile.subs(", "pl.tile.muls(", "pl.tile.divs(", "pl.tile.maximums(",
      "pl.tile.minimums(", "pl.tile.lrelu(", "pl.tile.matmul(", "pl.tile.matmul_acc(", "pl.tile.extract(",
      "pl.tile.col_sum(", "pl.tile.row_sum(", "for ", "if ", "pl.FP16", "lm: pl.Tensor[[16, 512]"};
  std::vector<int> seen(menu.size(), 0);
  int64_t judged = 0, unjudgeable = 0;
  std::vector<double> ulpBounds;  // e in ulps of v (e / (2u |v|)) of judged, finite elements with |v| > 1e-3
  for (uint64_t i = 0; i < 240; ++i) {
    const testgen::GeneratedCase c = testgen::buildOracleCase(knobsFor(i));
    for (size_t m = 0; m < menu.size(); ++m) seen[m] += c.text.find(menu[m]) != std::string::npos;
    CaseOutcome o;
    try {
      o = runCase(c);
    } catch (const DiagnosticError& e) {
      FAIL() << "case " << i << " does not verify: " << formatDiagnostic(e.diagnostic()) << c.text;
    }
    ASSERT_EQ(o.run.status, RunStatus::Ok) << o.run.diagnostic.message << "\n" << c.text;
    ASSERT_EQ(o.oracle.status, RunStatus::Ok);
    for (const TensorVerdict& v : o.verdicts) {
      EXPECT_TRUE(v.pass()) << "case " << i << " " << testgen::buildOracleCase(knobsFor(i)).knobs << ": "
                            << describeVerdict(v) << "\n" << c.text;
      judged += v.judged;
      unjudgeable += v.unjudgeable;
      const OracleTensor& ref = o.oracle.tensors.at(v.name);
      for (int64_t e = 0; e < ref.elements(); ++e) {
        const auto at = static_cast<size_t>(e);
        const double value = std::fabs(ref.value[at]), bound = ref.bound[at];
        if (ref.written[at] && !ref.poison[at] && std::isfinite(value) && value > 1e-3 && std::isfinite(bound))
          ulpBounds.push_back(bound / (2.0 * floatFormat(ref.dtype).unitRoundoff * value));
      }
    }
  }
  for (size_t m = 0; m < menu.size(); ++m) EXPECT_GT(seen[m], 0) << "the generator never drew " << menu[m];
  ASSERT_GT(judged, 0);
  const double judgedShare = double(judged) / double(judged + unjudgeable);
  EXPECT_GE(judgedShare, 0.95) << judged << " judged, " << unjudgeable << " not judgeable";
  ASSERT_FALSE(ulpBounds.empty());
  std::sort(ulpBounds.begin(), ulpBounds.end());
  const double median = ulpBounds[ulpBounds.size() / 2];
  const double p90 = ulpBounds[ulpBounds.size() * 9 / 10];
  std::cout << "[oracle agreement] " << judged << " elements judged, " << unjudgeable << " not judgeable; bound in ulps "
            << "of v: median " << median << ", 90th percentile " << p90 << "\n";
  // Useful bounds: a few ulps typically (chains of ops, cancellation and long matmuls widen them).
  EXPECT_LT(median, 16.0) << "median bound in ulps";
  EXPECT_LT(p90, 16384.0) << "90th percentile bound in ulps";
}

}  // namespace
}  // namespace ptodiff::oracle
