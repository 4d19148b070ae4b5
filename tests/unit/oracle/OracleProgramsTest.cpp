// The oracle against the program suite of tests/programs/ and against wrong results.
//
// 1. Zero false alarms: every program's interpreter outputs lie within the oracle's bound under
//    the `cpu` profile, the oracle reaches the interpreter's status, and its written and poison
//    flags equal the interpreter's (the valid-region and poison rules are implemented twice).
// 2. Wrong results are caught: an interpreter output perturbed by one ulp on an exact result, by a
//    relative 2^-10 on an FP32 value, or given the wrong sign fails, with the verdict detail filled.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "OracleTestSupport.h"
#include "compiler/text/CaseFile.h"
#include "interp/CaseSetup.h"

namespace ptodiff::oracle::testing {
namespace {

namespace fs = std::filesystem;

fs::path programsDir() { return fs::path(PTODIFF_TESTS_DIR) / "programs"; }

std::vector<std::string> programNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(programsDir(), ec)) {
    const fs::path& p = entry.path();
    if (p.extension() == ".py" && p.filename() != "make_expected.py") names.push_back(p.stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// A suite program with its case's arguments, run on the interpreter and the oracle.
struct SuiteRun {
  Program program;
  const Function* kernel = nullptr;
  BothRuns both;
};

SuiteRun runSuiteProgram(const std::string& name, const ToleranceProfile& profile = cpuProfile()) {
  SuiteRun s;
  s.program = parseProgramFile((programsDir() / (name + ".py")).string());
  verifyOrThrow(s.program);
  const CaseSpec spec = parseCaseFilePath((programsDir() / (name + ".case.json")).string());
  s.kernel = spec.function.empty() ? s.program.defaultKernel() : s.program.findFunction(spec.function);
  if (!s.kernel) throw std::runtime_error("no kernel in " + name);
  const KernelArgs args = buildKernelArgs(*s.kernel, spec, {});
  RunConfig config;
  config.blockNum = spec.blockNum;
  s.both = {runTileKernel(s.program, *s.kernel, args, config), evaluateOracle(s.program, *s.kernel, args, config, profile)};
  return s;
}

class OracleProgramTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OracleProgramTest, InterpreterOutputsLieWithinTheCpuBound) {
  SuiteRun s;
  try {
    s = runSuiteProgram(GetParam());
  } catch (const DiagnosticError& e) {
    FAIL() << formatDiagnostic(e.diagnostic());
  }
  const RunResult& run = s.both.run;
  const OracleResult& ref = s.both.oracle;
  ASSERT_EQ(run.status, RunStatus::Ok) << run.diagnostic.message;
  ASSERT_EQ(ref.status, RunStatus::Ok) << ref.diagnostic.message;
  EXPECT_EQ(ref.steps, run.steps);
  int64_t judged = 0;
  for (const Param& p : s.kernel->params) {
    if (!p.type.isTensor()) continue;
    const Tensor& y = run.final.tensors.at(p.name);
    const OracleTensor& t = ref.tensors.at(p.name);
    EXPECT_EQ(t.written, y.written) << p.name;
    EXPECT_EQ(t.poison, y.poison) << p.name;
    if (p.direction == ParamDirection::In) continue;
    const TensorVerdict v = compareWithOracle(y, t);
    EXPECT_TRUE(v.pass()) << GetParam() << ": " << describeVerdict(v);
    EXPECT_EQ(v.unjudgeable, 0) << GetParam() << ": " << describeVerdict(v);
    judged += v.judged;
  }
  EXPECT_GT(judged, 0) << "no element of " << GetParam() << " was judged";
}

INSTANTIATE_TEST_SUITE_P(Suite, OracleProgramTest, ::testing::ValuesIn(programNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(OracleProgramSuite, IsPresent) { EXPECT_GE(programNames().size(), 29u); }

// ---- wrong results are caught ----

/// The first written, defined element of `t` satisfying `pick`, row-major.
int64_t firstElement(const OracleTensor& t, const std::function<bool(double v, double e)>& pick) {
  for (int64_t i = 0; i < t.elements(); ++i) {
    const auto at = static_cast<size_t>(i);
    if (t.written[at] && !t.poison[at] && pick(t.value[at], t.bound[at])) return i;
  }
  return -1;
}

void expectDetail(const TensorVerdict& v, int64_t index, int64_t cols, float y, const OracleTensor& ref) {
  ASSERT_FALSE(v.pass());
  EXPECT_EQ(v.failing, 1);
  ASSERT_TRUE(v.firstFailure.has_value());
  const ElementFailure& f = *v.firstFailure;
  EXPECT_EQ(f.row, index / cols);
  EXPECT_EQ(f.col, index % cols);
  EXPECT_EQ(f.y, double(y));
  EXPECT_EQ(f.v, ref.value[static_cast<size_t>(index)]);
  EXPECT_EQ(f.e, ref.bound[static_cast<size_t>(index)]);
  EXPECT_EQ(f.chain, ref.chain[static_cast<size_t>(index)]);
  EXPECT_GT(f.ratio, 1.0);
  EXPECT_EQ(f.reason, "outside the bound");
  EXPECT_NE(describeVerdict(v).find("first at (row " + std::to_string(f.row) + ", col " + std::to_string(f.col) + ")"),
            std::string::npos);
}

TEST(OracleCatchesWrongResults, OneUlpOnAnExactResult) {
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],\n"
      "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
      "        s = pl.tile.add(x, y)\n"
      "        o = pl.tile.store(s, [0, 0], out)\n"
      "        return o\n"));
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c); });
  args.tensors["b"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c, 2) * 3.0f; });
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  const BothRuns both = runBoth(p, args);
  const OracleTensor& ref = both.oracle.tensors.at("out");
  Tensor y = both.run.final.tensors.at("out");
  ASSERT_TRUE(compareWithOracle(y, ref).pass());
  // Every element is exact (e = 0); take one in the middle of the tile with a nonzero value and
  // move it one ulp away from zero (the next encoding).
  const int64_t index = 5 * 32 + 7;
  ASSERT_NE(ref.value[static_cast<size_t>(index)], 0.0);
  ASSERT_EQ(ref.bound[static_cast<size_t>(index)], 0.0);
  y.setBitsAt(index, y.bitsAt(index) + 1);
  const TensorVerdict v = compareWithOracle(y, ref);
  expectDetail(v, index, 32, f32At(y, 5, 7), ref);
  EXPECT_EQ(v.firstFailure->ulps, 1.0);
  EXPECT_EQ(v.firstFailure->chain, 1);
  EXPECT_EQ(v.firstFailure->ratio, std::numeric_limits<double>::infinity());  // e = 0
}

TEST(OracleCatchesWrongResults, RelativeTwoToTheMinusTenOnAnFp32Value) {
  for (const char* profileName : {"cpu", "a2a3", "a5"}) {
    const ToleranceProfile profile = *builtinProfile(profileName);
    for (const char* program : {"unary_fp32", "elementwise_fp32", "cube_fp32_transpose", "for_accumulate"}) {
      const SuiteRun s = runSuiteProgram(program, profile);
      const OracleTensor& ref = s.both.oracle.tensors.at("out");
      Tensor y = s.both.run.final.tensors.at("out");
      ASSERT_TRUE(compareWithOracle(y, ref).pass()) << program << " under " << profileName;
      const int64_t index = firstElement(ref, [](double v, double e) {
        // A rounded result whose bound is below 2^-12 relative (e.g. not after heavy cancellation).
        return std::isfinite(v) && std::fabs(v) > 1e-3 && e > 0.0 && e < std::ldexp(std::fabs(v), -12);
      });
      ASSERT_GE(index, 0) << program;
      const float perturbed = float(double(f32At(y, index / y.cols, index % y.cols)) * (1.0 + std::ldexp(1.0, -10)));
      y.setBitsAt(index, std::bit_cast<uint32_t>(perturbed));
      const TensorVerdict v = compareWithOracle(y, ref);
      SCOPED_TRACE(std::string(program) + " under " + profileName + ": " + describeVerdict(v));
      expectDetail(v, index, y.cols, perturbed, ref);
      // |v| 2^-10 over ulp(v) = 2^(floor(log2 |v|) - 23) lies in [2^13, 2^14).
      EXPECT_GT(v.firstFailure->ulps, 8000.0);
      EXPECT_LT(v.firstFailure->ulps, 16400.0);
    }
  }
}

TEST(OracleCatchesWrongResults, WrongSign) {
  for (const char* program : {"elementwise_fp32", "fp16_arith", "cube_fp16", "reductions", "scalar_ops_fp32"}) {
    const SuiteRun s = runSuiteProgram(program);
    for (const Param& p : s.kernel->params) {
      if (!p.type.isTensor() || p.direction == ParamDirection::In) continue;
      const OracleTensor& ref = s.both.oracle.tensors.at(p.name);
      Tensor y = s.both.run.final.tensors.at(p.name);
      const int64_t index = firstElement(ref, [](double v, double) { return std::isfinite(v) && std::fabs(v) > 1e-2; });
      ASSERT_GE(index, 0) << program << " " << p.name;
      const uint64_t signBit = y.dtype == DType::FP32 ? 0x80000000u : 0x8000u;
      y.setBitsAt(index, y.bitsAt(index) ^ signBit);
      const TensorVerdict v = compareWithOracle(y, ref);
      SCOPED_TRACE(std::string(program) + " " + p.name + ": " + describeVerdict(v));
      ASSERT_FALSE(v.pass());
      EXPECT_EQ(v.failing, 1);
      EXPECT_EQ(v.firstFailure->row, index / y.cols);
      EXPECT_EQ(v.firstFailure->col, index % y.cols);
      EXPECT_LT(v.firstFailure->y * v.firstFailure->v, 0.0);
      EXPECT_GT(v.firstFailure->ratio, 1.0);
      EXPECT_GT(v.firstFailure->ulps, 1.0);
    }
  }
}

}  // namespace
}  // namespace ptodiff::oracle::testing
