// Deliberately faulty runners get the right verdict (issue 9's acceptance): outputs one step beyond
// the oracle's bound, an overwritten sentinel, stale outputs of another sub-case, a non-zero exit,
// a timeout, missing and mistyped outputs. Each faulty runner is a shell script copying outputs the
// test prepared from the sim runner's, so the runner protocol itself is exercised too.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "device/Bundle.h"
#include "device/Judge.h"
#include "device/NpyFloat64.h"
#include "device/Runner.h"
#include "interp/Npy.h"
#include "tests/unit/device/DeviceTestSupport.h"

namespace ptodiff::device {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ptodiff::testing::TempDir;

class DeviceJudgeFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    ExportOptions o;
    o.profile = *oracle::builtinProfile("a2a3");
    const ExportOutcome r = exportBundle(bundles() / "matrix", ptodiff::testing::matrixCase(dir_), o);
    ASSERT_TRUE(r.written) << r.skipped;
    const std::vector<RunnerResult> sim = runBundles({bundles() / "matrix"}, prepared(), {});
    ASSERT_TRUE(sim[0].ok()) << sim[0].message;
    ptodiff::testing::writeScript(dir_.file("copy-runner"),
                                  "cp -R '" + prepared().string() + "'/\"$(basename \"$1\")\"/. \"$2\"/\n");
  }
  fs::path bundles() const { return dir_.path() / "bundles"; }
  fs::path prepared() const { return dir_.path() / "prepared"; }
  fs::path outputs() const { return dir_.path() / "outputs"; }
  std::string preparedFile(const std::string& sub) const { return (prepared() / "matrix" / sub / "out.npy").string(); }

  /// Runs `runner` (default: the copy runner) and judges.
  DeviceReport runAndJudge(const std::string& runner = "", double timeout = 60) {
    RunnerOptions o;
    o.runner = runner.empty() ? dir_.file("copy-runner") : runner;
    o.timeoutSeconds = timeout;
    runBundles(findBundles(bundles()), outputs(), o);
    return judgeBundles(findBundles(bundles()), outputs(), {});
  }
  const SubcaseJudgement& sub(const DeviceReport& r, const std::string& name) {
    for (const SubcaseJudgement& s : r.subcases)
      if (s.subcase == name) return s;
    throw std::logic_error("no sub-case " + name);
  }

  TempDir dir_;
};

/// The FP32 value one step outside (`outside`) or just inside the oracle's acceptance interval
/// [v - e - tiny, v + e + tiny] above v.
float edgeValue(double v, double e, bool outside) {
  const double limit = v + e + std::ldexp(1.0, -126);
  float f = static_cast<float>(limit);
  if (outside && static_cast<double>(f) <= limit) f = std::nextafter(f, INFINITY);
  if (!outside && static_cast<double>(f) > limit) f = std::nextafter(f, -INFINITY);
  return f;
}

void setFloat(Tensor& t, int64_t i, float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  t.setBitsAt(i, bits);
}

TEST_F(DeviceJudgeFaults, SimOutputsPass) {
  EXPECT_EQ(readManifest(bundles() / "matrix").loweredStage, "buffer") << "sim runs the Buffer interpreter";
  const DeviceReport r = runAndJudge();
  ASSERT_EQ(r.subcases.size(), 5u);
  for (const SubcaseJudgement& s : r.subcases) EXPECT_TRUE(s.pass()) << s.subcase << ": " << s.detail;
  EXPECT_GT(r.byDtype.at("FP32").total(), 0);
  EXPECT_EQ(r.byDtype.at("FP32").failing(), 0);
}

TEST_F(DeviceJudgeFaults, OneStepBeyondTheBoundFailsOneStepInsidePasses) {
  // s0 row 64 (exp of a sum): a rounded element with a positive bound.
  const int64_t index = 64 * 32 + 5;
  const Float64Array v = readNpyFloat64((bundles() / "matrix" / "expected/s0/out.npy").string());
  const Float64Array e = readNpyFloat64((bundles() / "matrix" / "bound/s0/out.npy").string());
  const double vi = v.values[static_cast<size_t>(index)], ei = e.values[static_cast<size_t>(index)];
  ASSERT_GT(ei, 0.0);
  Tensor out = readNpy(preparedFile("s0"));

  setFloat(out, index, edgeValue(vi, ei, /*outside=*/false));
  writeNpy(preparedFile("s0"), out);
  DeviceReport r = runAndJudge();
  EXPECT_TRUE(sub(r, "s0").pass()) << sub(r, "s0").detail;

  setFloat(out, index, edgeValue(vi, ei, /*outside=*/true));
  writeNpy(preparedFile("s0"), out);
  r = runAndJudge();
  const SubcaseJudgement& s0 = sub(r, "s0");
  EXPECT_EQ(s0.verdict, SubcaseVerdict::Oracle);
  EXPECT_THAT(s0.detail, HasSubstr("out: 1 of 2048 judged element(s) fail the oracle (FP32); first at (row 64, col 5): "
                                   "outside the bound"));
  EXPECT_EQ(r.failing(), 1u) << "only s0 was perturbed";
  EXPECT_GT(s0.tensors[0].worstRatio, 1.0);
  EXPECT_LE(s0.tensors[0].worstRatio, 2.0);
  EXPECT_EQ(r.byDtype.at("FP32").counts[kFirstFailingBucket], 1) << "just beyond: ratio in (1, 2]";
  EXPECT_EQ(r.byOp.at("tile.abs+tile.add+tile.exp+tile.muls").failing(), 1);
}

TEST_F(DeviceJudgeFaults, OverwrittenSentinelIsCaught) {
  Tensor out = readNpy(preparedFile("s2"));
  setFloat(out, 50 * 32 + 3, 0.0f);  // rows 48..63 are never written
  writeNpy(preparedFile("s2"), out);
  const DeviceReport r = runAndJudge();
  EXPECT_EQ(sub(r, "s2").verdict, SubcaseVerdict::Sentinel);
  EXPECT_EQ(sub(r, "s2").detail, "out: 1 element(s) the program does not write changed; first at (row 50, col 3): "
                                 "initial nan (0x7fc0dead), got 0 (0x00000000)");
  EXPECT_EQ(r.failing(), 1u);
}

TEST_F(DeviceJudgeFaults, StaleOutputsOfAnotherSubcaseAreCaught) {
  // s1 (n = 0, f = false, vr = 0) writes rows 64..79; s3 (n = 2, f = false, vr = 16) also rows 0..31
  // and 96..111. Swapping their outputs fails both.
  fs::copy_file(preparedFile("s1"), dir_.file("s1.npy"));
  fs::copy_file(preparedFile("s3"), preparedFile("s1"), fs::copy_options::overwrite_existing);
  fs::copy_file(dir_.file("s1.npy"), preparedFile("s3"), fs::copy_options::overwrite_existing);
  const DeviceReport r = runAndJudge();
  EXPECT_EQ(sub(r, "s1").verdict, SubcaseVerdict::Sentinel);
  EXPECT_THAT(sub(r, "s1").detail, HasSubstr("out: 1536 element(s) the program does not write changed; first at (row 0, col 0)"));
  EXPECT_EQ(sub(r, "s3").verdict, SubcaseVerdict::Oracle);
  EXPECT_THAT(sub(r, "s3").detail, HasSubstr("out: 2048 of 2048 judged element(s) fail the oracle (FP32); first at (row 0, "
                                             "col 0): NaN where the reference is finite"));
  EXPECT_GT(sub(r, "s3").tensors[0].worstRatio, 1.0) << "rows 64..79 hold s1's finite values, far outside";
  // s0 and s2 (f differs, same n) are not interchangeable either; untouched here, they pass.
  EXPECT_TRUE(sub(r, "s0").pass());
  EXPECT_TRUE(sub(r, "s2").pass());
}

TEST_F(DeviceJudgeFaults, NonZeroExitIsARunnerFailureNotJudged) {
  ptodiff::testing::writeScript(dir_.file("failing-runner"),
                                "cp -R '" + prepared().string() + "'/matrix/. \"$2\"/\necho 'device 0: AICORE exception' >&2\nexit 3\n");
  const DeviceReport r = runAndJudge(dir_.file("failing-runner"));
  ASSERT_EQ(r.subcases.size(), 5u);
  for (const SubcaseJudgement& s : r.subcases) {
    EXPECT_EQ(s.verdict, SubcaseVerdict::RunnerFailure);
    EXPECT_EQ(s.detail, "the runner exited with status 3 (device 0: AICORE exception); outputs not judged");
    EXPECT_TRUE(s.tensors.empty()) << "outputs of a failed runner are not judged";
  }
  EXPECT_EQ(ptodiff::testing::readFileBytes((outputs() / "matrix.log").string()), "device 0: AICORE exception\n");
}

TEST_F(DeviceJudgeFaults, ARunnerKilledByASignalIsARunnerFailure) {
  ptodiff::testing::writeScript(dir_.file("crashing-runner"), "kill -SEGV $$\n");
  const DeviceReport r = runAndJudge(dir_.file("crashing-runner"));
  EXPECT_EQ(sub(r, "s4").verdict, SubcaseVerdict::RunnerFailure);
  EXPECT_EQ(sub(r, "s4").detail, "the runner was killed by signal 11 (Segmentation fault); outputs not judged");
}

TEST_F(DeviceJudgeFaults, ABundleExportedWithAProfileFileNeedsItToBeJudged) {
  ptodiff::testing::writeFileBytes(dir_.file("mine.json"), R"({"profile": "mine", "ulps": {"exp": 4}})");
  ExportOptions o;
  o.profile = oracle::loadToleranceProfile(dir_.file("mine.json"));
  ASSERT_TRUE(exportBundle(bundles() / "matrix", ptodiff::testing::matrixCase(dir_), o).written);
  EXPECT_EQ(readManifest(bundles() / "matrix").profile, "mine");
  runBundles(findBundles(bundles()), outputs(), {});
  try {
    judgeBundles(findBundles(bundles()), outputs(), {});
    FAIL() << "judged without the profile";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(std::string(e.what()), (bundles() / "matrix" / "manifest.json").string() +
                                         ": error: the bundle was exported with tolerance profile \"mine\", which is "
                                         "not built in: judge it with --tolerance-profile FILE\n");
  }
  JudgeOptions withFile;
  withFile.toleranceProfile = dir_.file("mine.json");
  const DeviceReport r = judgeBundles(findBundles(bundles()), outputs(), withFile);
  EXPECT_TRUE(r.pass());
  EXPECT_EQ(r.subcases[0].profile, "mine");
}

TEST_F(DeviceJudgeFaults, TimeoutKillsTheRunnersProcessGroup) {
  ptodiff::testing::writeScript(dir_.file("slow-runner"), "sleep 30 &\nsleep 30\n");
  RunnerOptions o;
  o.runner = dir_.file("slow-runner");
  o.timeoutSeconds = 0.3;
  const std::vector<RunnerResult> results = runBundles(findBundles(bundles()), outputs(), o);
  EXPECT_EQ(results[0].status, "timeout");
  EXPECT_EQ(results[0].message, "the runner did not finish within 0.3 s (killed)");
  const DeviceReport r = judgeBundles(findBundles(bundles()), outputs(), {});
  EXPECT_EQ(sub(r, "s0").verdict, SubcaseVerdict::RunnerFailure);
  EXPECT_EQ(sub(r, "s0").detail, "the runner timed out (the runner did not finish within 0.3 s (killed)); outputs not judged");
}

TEST_F(DeviceJudgeFaults, MissingAndMistypedOutputs) {
  fs::remove(preparedFile("s3"));
  writeNpy(preparedFile("s4"), Tensor(DType::INT32, 112, 32));
  const DeviceReport r = runAndJudge();
  EXPECT_EQ(sub(r, "s3").verdict, SubcaseVerdict::MissingOutput);
  EXPECT_EQ(sub(r, "s3").detail, "out: the runner wrote no " + (outputs() / "matrix/s3/out.npy").string());
  EXPECT_EQ(sub(r, "s4").verdict, SubcaseVerdict::BadOutput);
  EXPECT_EQ(sub(r, "s4").detail, "out: " + (outputs() / "matrix/s4/out.npy").string() +
                                     " holds INT32 [112, 32]; the tensor is FP32 [112, 32]");
  EXPECT_EQ(r.count(SubcaseVerdict::Pass), 3u);
}

TEST_F(DeviceJudgeFaults, JudgingUnderAnotherProfileRecomputesTheBounds) {
  // The cpu profile allows 1 ulp for exp instead of a2a3's 839: a correctly rounded exp still
  // passes, a result 100 ulps away fails only under cpu.
  const int64_t index = 64 * 32 + 7;
  Tensor out = readNpy(preparedFile("s0"));
  float f;
  const uint32_t bits = static_cast<uint32_t>(out.bitsAt(index));
  std::memcpy(&f, &bits, 4);
  for (int k = 0; k < 100; ++k) f = std::nextafter(f, INFINITY);
  setFloat(out, index, f);
  writeNpy(preparedFile("s0"), out);
  EXPECT_TRUE(sub(runAndJudge(), "s0").pass());
  JudgeOptions cpu;
  cpu.toleranceProfile = "cpu";
  const DeviceReport r = judgeBundles(findBundles(bundles()), outputs(), cpu);
  EXPECT_EQ(sub(r, "s0").verdict, SubcaseVerdict::Oracle);
  EXPECT_EQ(sub(r, "s0").profile, "cpu");
}

}  // namespace
}  // namespace ptodiff::device
