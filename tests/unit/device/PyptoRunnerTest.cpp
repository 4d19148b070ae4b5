// ci/device/pypto-runner: argument handling, bundle checks and .npy I/O without PyPTO (it cannot
// run here), its dry run judged by ptodiff, and its PyPTO path against a fake `pypto` package that
// records what the runner asked for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>

#include "device/Bundle.h"
#include "device/Judge.h"
#include "interp/Npy.h"
#include "tests/unit/device/DeviceTestSupport.h"

namespace ptodiff::device {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ptodiff::testing::CommandResult;
using ptodiff::testing::TempDir;

std::string runnerPath() { return std::string(PTODIFF_TESTS_DIR) + "/../ci/device/pypto-runner"; }

class PyptoRunner : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(ptodiff::testing::runShell("command -v python3").status, 0)
        << "these tests run ci/device/pypto-runner with python3 (ci/setup must install the python3 package)";
    ExportOptions o;
    o.profile = *oracle::builtinProfile("a2a3");
    o.planner = Planner::PTOAS;
    const ExportOutcome r = exportBundle(bundle(), ptodiff::testing::matrixCase(dir_), o);
    ASSERT_TRUE(r.written) << r.skipped;
  }
  fs::path bundle() const { return dir_.path() / "bundles" / "matrix"; }
  /// The runner with `args`, PyPTO absent (PYTHONPATH limited to `pythonPath`).
  CommandResult run(const std::string& args, const std::string& pythonPath = "") {
    return ptodiff::testing::runShell("env -u PTODIFF_PYPTO_EXECUTE PYTHONPATH='" + pythonPath + "' python3 " + runnerPath() +
                                      " " + args);
  }
  TempDir dir_;
};

TEST_F(PyptoRunner, UsageErrors) {
  CommandResult r = run("");
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("pypto-runner: error: the following arguments are required: BUNDLE, OUTDIR"));
  r = run("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_THAT(r.output, HasSubstr("usage: pypto-runner [-h] [--subcase NAME]"));
  EXPECT_THAT(r.output, HasSubstr("docs/device.md"));
  r = run("--platform a3 " + bundle().string() + " " + dir_.file("o"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("argument --platform: invalid choice: 'a3'"));
  r = run(dir_.file("nowhere") + " " + dir_.file("o"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("pypto-runner: error: " + dir_.file("nowhere") +
                                  ": cannot read manifest.json (No such file or directory): is BUNDLE a folder written "
                                  "by `ptodiff device export`?"));
  r = run("--subcase s9 " + bundle().string() + " " + dir_.file("o"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("pypto-runner: error: --subcase s9: the bundle has sub-cases s0, s1, s2, s3, s4"));
}

TEST_F(PyptoRunner, WithoutPyptoItIsAMissingDependency) {
  CommandResult r = run(bundle().string() + " " + dir_.file("o"));
  EXPECT_EQ(r.status, 3);
  EXPECT_THAT(r.output, HasSubstr("pypto-runner: error: no execution function: pass --execute MODULE:FUNC or set "
                                  "PTODIFF_PYPTO_EXECUTE"));
  ptodiff::testing::writeFileBytes(dir_.file("myexec.py"), "def run(**kw):\n    return None\n");
  r = run("--execute myexec:run " + bundle().string() + " " + dir_.file("o"), dir_.path().string());
  EXPECT_EQ(r.status, 3);
  EXPECT_THAT(r.output, HasSubstr("pypto-runner: error: PyPTO is not importable (No module named 'pypto')"));
  r = run("--execute myexec:nothere " + bundle().string() + " " + dir_.file("o"), dir_.path().string());
  EXPECT_EQ(r.status, 3);
  EXPECT_THAT(r.output, HasSubstr("--execute myexec:nothere: myexec has no function nothere"));
}

TEST_F(PyptoRunner, CorruptInputIsABadBundle) {
  ptodiff::testing::writeFileBytes((bundle() / "inputs/a.npy").string(), "\x93NUMPY\x01\x00garbage");
  const CommandResult r = run("--dry-run " + bundle().string() + " " + dir_.file("o"));
  EXPECT_EQ(r.status, 2);
  EXPECT_THAT(r.output, HasSubstr("pypto-runner: error: " + (bundle() / "inputs/a.npy").string()));
}

TEST_F(PyptoRunner, DryRunReadsEveryFileAndWritesTheInitialBits) {
  const CommandResult r = run("--dry-run " + bundle().string() + " " + dir_.file("o/matrix"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("pypto-runner: dry run of matrix: 5 sub-case(s), files checked"));
  const std::string initial = ptodiff::testing::readFileBytes((bundle() / "initial/out.npy").string());
  for (const char* sub : {"s0", "s1", "s2", "s3", "s4"}) {
    const std::string written = ptodiff::testing::readFileBytes(dir_.file(std::string("o/matrix/") + sub + "/out.npy"));
    // Python's writer produces what interp/Npy reads, byte for byte the same as ptodiff's own.
    EXPECT_EQ(written, initial) << sub;
    EXPECT_EQ(readNpy(dir_.file(std::string("o/matrix/") + sub + "/out.npy")).bytes, readNpy((bundle() / "initial/out.npy").string()).bytes);
  }
  // Judged: a device that ran nothing fails every sub-case (each writes at least rows 64..79).
  const DeviceReport report = judgeBundles({bundle()}, dir_.path() / "o", {});
  ASSERT_EQ(report.subcases.size(), 5u);
  for (const SubcaseJudgement& s : report.subcases) {
    EXPECT_EQ(s.verdict, SubcaseVerdict::Oracle) << s.subcase;
    EXPECT_THAT(s.detail, HasSubstr("NaN where the reference is finite"));
    EXPECT_TRUE(std::isinf(s.tensors[0].worstRatio)) << "only NaNs against finite references: no finite ratio";
  }
}

TEST_F(PyptoRunner, DryRunOfOneSubcase) {
  const CommandResult r = run("--dry-run --subcase s3 " + bundle().string() + " " + dir_.file("o"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir_.path() / "o/s3/out.npy"));
  EXPECT_FALSE(fs::exists(dir_.path() / "o/s0"));
}

/// A stand-in for PyPTO with the entry points the runner uses, recording how it was called.
void writeFakePypto(const TempDir& dir) {
  fs::create_directories(dir.path() / "fake/pypto/ir");
  ptodiff::testing::writeFileBytes(dir.file("fake/pypto/__init__.py"), "");
  ptodiff::testing::writeFileBytes(dir.file("fake/pypto/language.py"),
                                   "def loads(path):\n    return {'loaded': path}\n");
  ptodiff::testing::writeFileBytes(dir.file("fake/pypto/passes.py"), R"(import json, os
class MemoryPlanner:
    PYPTO, DSA_RP, PTOAS = 'pypto', 'dsa_rp', 'ptoas'
class PassContext:
    def __init__(self, passes, **kw):
        self.kw = kw
    def __enter__(self):
        with open(os.environ['FAKE_LOG'], 'a') as f:
            f.write(json.dumps({'context': self.kw}) + '\n')
    def __exit__(self, *a):
        return False
)");
  ptodiff::testing::writeFileBytes(dir.file("fake/pypto/ir/__init__.py"), "");
  ptodiff::testing::writeFileBytes(dir.file("fake/pypto/ir/pass_manager.py"), R"(class OptimizationStrategy:
    Default = 'default'
class PassManager:
    def __init__(self, strategy):
        self.strategy = strategy
    def run_passes(self, program):
        return {'compiled': program, 'strategy': self.strategy}
)");
  // The execution function: records its arguments; leaves Out tensors as they came (initial bits).
  ptodiff::testing::writeFileBytes(dir.file("fake/fakeexec.py"), R"(import json, os
def run(compiled, program, kernel, tensors, dtypes, scalars, block_num, platform, device_id):
    with open(os.environ['FAKE_LOG'], 'a') as f:
        f.write(json.dumps({'compiled': compiled, 'kernel': kernel, 'tensors': sorted(tensors),
                            'shapes': {k: list(v.shape) for k, v in tensors.items()}, 'dtypes': dtypes,
                            'scalars': scalars, 'block_num': block_num, 'platform': platform,
                            'device_id': device_id}) + '\n')
    if scalars.get('n') == 3:
        raise RuntimeError('aicore timeout')
    return {'out': tensors['out']}
)");
}

TEST_F(PyptoRunner, PyptoPathWithAFakePypto) {
  writeFakePypto(dir_);
  const std::string env = "FAKE_LOG=" + dir_.file("log.jsonl") + " ";
  CommandResult r = ptodiff::testing::runShell(
      env + "PYTHONPATH=" + dir_.file("fake") + " python3 " + runnerPath() + " --execute fakeexec:run --device-id 2 " +
      "--subcase s0 --subcase s2 " + bundle().string() + " " + dir_.file("o"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("pypto-runner: matrix/s0 ran"));
  std::vector<nlohmann::json> log;
  std::istringstream lines(ptodiff::testing::readFileBytes(dir_.file("log.jsonl")));
  for (std::string line; std::getline(lines, line);) log.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(log.size(), 3u) << "compiled once, run per sub-case";
  EXPECT_EQ(log[0]["context"], nlohmann::json({{"enable_buffer_ir", true}, {"memory_planner", "ptoas"}}));
  EXPECT_EQ(log[1]["compiled"]["compiled"]["loaded"], (bundle() / "program.py").string());
  EXPECT_EQ(log[1]["compiled"]["strategy"], "default");
  EXPECT_EQ(log[1]["kernel"], "kernel");
  EXPECT_EQ(log[1]["tensors"], nlohmann::json({"a", "out"}));
  EXPECT_EQ(log[1]["shapes"]["out"], nlohmann::json({112, 32}));
  EXPECT_EQ(log[1]["dtypes"]["out"], "FP32");
  EXPECT_EQ(log[1]["scalars"], nlohmann::json({{"f", true}, {"n", 2}, {"vr", 16}}));
  EXPECT_EQ(log[2]["scalars"], nlohmann::json({{"f", true}, {"n", 1}, {"vr", 8}}));
  EXPECT_EQ(log[1]["platform"], "a2a3");
  EXPECT_EQ(log[1]["device_id"], 2);
  EXPECT_EQ(ptodiff::testing::readFileBytes(dir_.file("o/s0/out.npy")),
            ptodiff::testing::readFileBytes((bundle() / "initial/out.npy").string()));

  // An exception in the device run is a runner failure (exit 1), reported with the sub-case.
  r = ptodiff::testing::runShell(env + "PYTHONPATH=" + dir_.file("fake") + " PTODIFF_PYPTO_EXECUTE=fakeexec:run python3 " +
                                 runnerPath() + " " + bundle().string() + " " + dir_.file("o2"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("pypto-runner: error: sub-case s4: the device run failed: RuntimeError: aicore timeout"));
}

}  // namespace
}  // namespace ptodiff::device
