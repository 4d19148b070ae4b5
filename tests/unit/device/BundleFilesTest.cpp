// What a bundle holds (device/Bundle.h): manifest fields, inputs and initial bits, the oracle's
// values and bounds, the written mask, the lowered program; located errors for a broken manifest.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/verify/Verifier.h"
#include "device/Bundle.h"
#include "device/Judge.h"
#include "device/NpyFloat64.h"
#include "interp/CaseSetup.h"
#include "interp/Npy.h"
#include "tests/unit/device/DeviceTestSupport.h"

namespace ptodiff::device {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ptodiff::testing::TempDir;

class DeviceBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    c_ = ptodiff::testing::matrixCase(dir_);
    ExportOptions o;
    o.planner = Planner::DSA_RP;
    o.target = &targetA5();
    o.profile = *oracle::builtinProfile("a5");
    o.replay = "ptodiff device export matrix.py --planner DSA_RP --target a5 --out bundles";
    const ExportOutcome r = exportBundle(bundle(), c_, o);
    ASSERT_TRUE(r.written) << r.skipped;
  }
  std::filesystem::path bundle() const { return dir_.path() / "bundles" / "matrix"; }
  std::string file(const std::string& rel) const { return (bundle() / rel).string(); }

  TempDir dir_;
  ExportCase c_;
};

TEST_F(DeviceBundle, ManifestNamesEverythingARunnerNeeds) {
  const Manifest m = readManifest(bundle());
  EXPECT_EQ(m.format, "ptodiff-device-bundle/1");
  EXPECT_EQ(m.ptodiffVersion, ptodiffVersion());
  EXPECT_FALSE(m.ptodiffVersion.empty());
  EXPECT_EQ(m.bundle, "matrix");
  EXPECT_EQ(m.kernel, "kernel");
  EXPECT_EQ(m.planner, "DSA_RP");
  EXPECT_EQ(m.target, "a5");
  EXPECT_EQ(m.profile, "a5");
  EXPECT_TRUE(m.enableBufferIR);
  EXPECT_EQ(m.blockNum, 1);
  EXPECT_EQ(m.seed, 7u);
  EXPECT_EQ(m.origin["kind"], "program");
  EXPECT_EQ(m.replay, "ptodiff device export matrix.py --planner DSA_RP --target a5 --out bundles");
  ASSERT_EQ(m.tensors.size(), 2u);
  EXPECT_EQ(m.tensors[0].name, "a");
  EXPECT_EQ(m.tensors[0].direction, ParamDirection::In);
  EXPECT_EQ(m.tensors[1].name, "out");
  EXPECT_EQ(m.tensors[1].direction, ParamDirection::Out);
  EXPECT_EQ(m.tensors[1].rows, 112);
  ASSERT_EQ(m.subcases.size(), 5u);
  EXPECT_THAT(m.subcases[0].replay,
              StartsWith("ptodiff run " + file("program.py") + " --case " + file("case.json") +
                         " --planner DSA_RP --target a5 --tolerance-profile a5 --scalar f=true --scalar n=2"));
  // The raw JSON keeps the per-sub-case file names a runner reads and writes.
  const nlohmann::json j = nlohmann::json::parse(ptodiff::testing::readFileBytes(file("manifest.json")));
  EXPECT_EQ(j["subcases"][2]["files"]["out"]["expected"], "expected/s2/out.npy");
  EXPECT_EQ(j["subcases"][2]["files"]["out"]["output"], "s2/out.npy");
  EXPECT_EQ(j["tensors"][0]["input"], "inputs/a.npy");
  EXPECT_TRUE(j["tensors"][0]["initial"].is_null());
  EXPECT_EQ(j["tensors"][1]["initial"], "initial/out.npy");
  EXPECT_EQ(j["lowered_stage"], m.loweredStage);
}

TEST_F(DeviceBundle, InputsInitialBitsAndCaseReplayTheSameArguments) {
  const Tensor a = readNpy(file("inputs/a.npy"));
  const Tensor out = readNpy(file("initial/out.npy"));
  const KernelArgs original = buildKernelArgs(*c_.program.findFunction("kernel"), c_.spec, {});
  EXPECT_EQ(a.bytes, original.tensors.at("a").bytes);
  ASSERT_EQ(out.elements(), 112 * 32);
  for (int64_t i = 0; i < out.elements(); ++i) ASSERT_EQ(out.bitsAt(i), 0x7FC0DEADu) << "Out tensors start as sentinels";
  // case.json names the files, so `ptodiff run program.py --case case.json` needs no generator.
  const CaseSpec spec = parseCaseFilePath(file("case.json"));
  EXPECT_EQ(spec.tensors.at("a").kind, TensorInit::Kind::File);
  EXPECT_EQ(spec.tensors.at("out").file, file("initial/out.npy"));
  EXPECT_THAT(spec.planners, ElementsAre("DSA_RP"));
  EXPECT_EQ(spec.target, "a5");
}

TEST_F(DeviceBundle, ExpectedBoundAndWrittenAreTheOraclesPerSubcase) {
  const Tensor a = readNpy(file("inputs/a.npy"));
  const Float64Array v = readNpyFloat64(file("expected/s0/out.npy"));
  const Float64Array e = readNpyFloat64(file("bound/s0/out.npy"));
  const Tensor w = readNpy(file("written/s0/out.npy"));
  ASSERT_EQ(v.rows, 112);
  ASSERT_EQ(v.cols, 32);
  ASSERT_EQ(e.values.size(), v.values.size());
  // s0: n = 2, f = true, vr = 16. Rows 0..15 hold the first trip's x + x: representable, so the
  // bound is at most the a5 profile's one ulp for add; rows 96..111 hold |x|: no rounding, bound 0.
  for (int64_t i = 0; i < 16 * 32; ++i) {
    float x;
    const uint32_t bits = static_cast<uint32_t>(a.bitsAt(i));
    std::memcpy(&x, &bits, 4);
    const size_t k = static_cast<size_t>(i);
    ASSERT_EQ(v.values[k], 2.0 * x);
    ASSERT_LE(e.values[k], std::ldexp(std::fabs(2.0 * x), -22) + 1e-44);
    ASSERT_EQ(w.bitsAt(i), 1u);
    ASSERT_EQ(v.values[k + 96 * 32], std::fabs(static_cast<double>(x)));
    ASSERT_EQ(e.values[k + 96 * 32], 0.0);
  }
  // Rows 64..79 hold exp(x + x + x): rounded, so a positive bound.
  EXPECT_GT(e.values[64 * 32], 0.0);
  EXPECT_EQ(v.values[64 * 32], std::exp(3.0 * static_cast<double>([&] {
                                 float x;
                                 const uint32_t bits = static_cast<uint32_t>(a.bitsAt(0));
                                 std::memcpy(&x, &bits, 4);
                                 return x;
                               }())));
  for (int64_t i = 48 * 32; i < 64 * 32; ++i) ASSERT_EQ(w.bitsAt(i), 0u);
  for (int64_t i = 80 * 32; i < 96 * 32; ++i) ASSERT_EQ(w.bitsAt(i), 0u);
}

TEST_F(DeviceBundle, LoweredProgramIsTheReferenceLowering) {
  Program lowered = parseProgramFile(file("lowered.py"));
  verifyOrThrow(lowered);
  const Manifest m = readManifest(bundle());
  const Function* k = lowered.findFunction("kernel");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(m.loweredStage, k->stage == FunctionStage::Buffer ? "buffer" : "tile");
  // contract-rules.md S21: on a5 every kernel stays on the Tile path (lowered.py is the planned
  // Tile program); on a2a3 the same program becomes a Buffer kernel (DeviceJudgeFaults.SimOutputsPass).
  EXPECT_EQ(m.loweredStage, "tile");
}

TEST_F(DeviceBundle, BrokenManifestIsALocatedError) {
  std::string text = ptodiff::testing::readFileBytes(file("manifest.json"));
  const size_t at = text.find("\"planner\": \"DSA_RP\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"planner\": \"DSA_RP\"").size(), "\"planner\": 3");
  ptodiff::testing::writeFileBytes(file("manifest.json"), text);
  size_t line = 1, col = 1;
  for (size_t i = 0; i < at + std::string("\"planner\": ").size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  try {
    readManifest(bundle());
    FAIL() << "accepted";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(std::string(e.what()), file("manifest.json") + ":" + std::to_string(line) + ":" + std::to_string(col) +
                                         ": error: \"planner\" must be a string, not a number\n");
  }
}

TEST_F(DeviceBundle, StaleWrittenMaskIsBadInput) {
  std::filesystem::copy_file(file("written/s1/out.npy"), file("written/s0/out.npy"),
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::create_directories(dir_.path() / "outputs");
  try {
    judgeBundles({bundle()}, dir_.path() / "outputs", {});
    FAIL() << "accepted";
  } catch (const DiagnosticError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("written/s0/out.npy: error: the bundle's written mask differs from what "
                                                 "program.py writes in sub-case s0 (a stale or edited bundle: export it again)"));
  }
}

TEST(DeviceNpyFloat64, RoundTripsAndRejectsOtherDtypes) {
  TempDir dir;
  const Float64Array a{2, 3, {0.1, -2.5, 1e300, std::numeric_limits<double>::infinity(), 0.0, -0.0}};
  writeNpyFloat64(dir.file("a.npy"), a);
  const std::string bytes = ptodiff::testing::readFileBytes(dir.file("a.npy"));
  EXPECT_EQ(bytes.size(), 128u + 6 * 8) << "NumPy pads magic, length and header to a multiple of 64 bytes";
  EXPECT_EQ(bytes.substr(10, 59), "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }");
  const Float64Array b = readNpyFloat64(dir.file("a.npy"));
  EXPECT_EQ(b.rows, 2);
  EXPECT_EQ(b.cols, 3);
  EXPECT_EQ(b.values, a.values);
  Tensor t(DType::FP32, 2, 3);
  writeNpy(dir.file("f.npy"), t);
  try {
    readNpyFloat64(dir.file("f.npy"));
    FAIL() << "accepted a <f4 array";
  } catch (const DiagnosticError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("f.npy: error: expected a C-order '<f8' array of rank 1 or 2"));
  }
}

}  // namespace
}  // namespace ptodiff::device
