// `ptodiff run` through the binary: the verdict table, --json, exit statuses, bad input, saved
// outputs, and the program suite under every planner on both targets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/unit/tools/RunPtodiff.h"
#include "tests/unit/tools/TempDir.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::TempDir;
using testing::writeFileBytes;

using testing::Outcome;
using testing::runPtodiff;
Outcome runIn(const TempDir& dir, const std::string& args) { return runPtodiff(dir, args); }

constexpr const char* kHeader = "import pypto.language as pl\n\n\n@pl.program\nclass t:\n";
constexpr const char* kSignature =
    "    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],\n"
    "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n";

std::string tileProgram(const std::string& body) {
  return std::string(kHeader) + "    @pl.function(type=pl.FunctionType.InCore)\n" + kSignature + body;
}
std::string bufferProgram(const std::string& body) {
  return std::string(kHeader) + "    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)\n" +
         kSignature + body;
}

const std::string kAdd = tileProgram(
    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
    "        s = pl.tile.add(x, y)\n"
    "        r = pl.tile.store(s, [0, 0], out)\n"
    "        return r\n");

// The Buffer program computes a - b where its reference computes a + b.
const std::string kWrongSub = bufferProgram(
    "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
    "        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)\n"
    "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
    "        pl.buffer.load(b, [0, 0], [16, 32], y)\n"
    "        pl.buffer.sub(x, y, x)\n"
    "        pl.buffer.store(x, [0, 0], [16, 32], out)\n"
    "        return out\n");

// Line 9: a Vec buffer at byte 8200.
const std::string kMisaligned = bufferProgram(
    "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 8200)\n"
    "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
    "        pl.buffer.store(x, [0, 0], [16, 32], out)\n"
    "        return out\n");

// Line 9 creates an all-poison tile, line 10 stores it.
const std::string kPoisonStore = tileProgram(
    "        c = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
    "        r = pl.tile.store(c, [0, 0], out)\n"
    "        return r\n");

TEST(RunCommand, PassingProgramPrintsTheVerdictTable) {
  TempDir dir;
  writeFileBytes(dir.file("add.py"), kAdd);
  const Outcome o = runIn(dir, "run add.py --planner PYPTO");
  EXPECT_EQ(o.exitCode, 0) << o.out << o.err;
  EXPECT_EQ(o.err, "");
  EXPECT_THAT(o.out, StartsWith("program: add.py\nkernel: kernel\ncase: none (defaults)\n"
                                "target: a2a3, planners: PYPTO, buffer IR: on, profile: cpu\n"
                                "planner  stage    verdict              detail\n"));
  EXPECT_THAT(o.out, HasSubstr("\n-        tile     pass                 "));
  EXPECT_THAT(o.out, HasSubstr("\n-        oracle   pass                 512 element(s) within the cpu bound\n"));
  EXPECT_THAT(o.out, HasSubstr("\nPYPTO    planned  pass                 "));
  EXPECT_THAT(o.out, HasSubstr("\nPYPTO    buffer   pass                 "));
  EXPECT_THAT(o.out, HasSubstr("\nresult: pass\n"));
}

TEST(RunCommand, JsonHoldsTheSameVerdicts) {
  TempDir dir;
  writeFileBytes(dir.file("add.py"), kAdd);
  const Outcome o = runIn(dir, "run add.py --planner all --target a5 --json");
  ASSERT_EQ(o.exitCode, 0) << o.out << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["program"], "add.py");
  EXPECT_EQ(j["target"], "a5");
  EXPECT_EQ(j["planners"], "PYPTO,DSA_RP,PTOAS");
  EXPECT_EQ(j["profile"], "cpu");
  EXPECT_EQ(j["result"], "pass");
  ASSERT_EQ(j["verdicts"].size(), 8u);
  EXPECT_TRUE(j["verdicts"][0]["planner"].is_null());
  EXPECT_EQ(j["verdicts"][0]["stage"], "tile");
  EXPECT_EQ(j["verdicts"][1]["stage"], "oracle");
  EXPECT_EQ(j["verdicts"][6]["planner"], "PTOAS");
  EXPECT_EQ(j["verdicts"][6]["stage"], "planned");
  EXPECT_EQ(j["verdicts"][6]["verdict"], "pass");
  EXPECT_TRUE(j["verdicts"][6]["signature"].is_null());
  EXPECT_EQ(j["verdicts"][6]["replay"], "ptodiff run add.py --planner PTOAS --target a5");
}

TEST(RunCommand, WrongBufferProgramAgainstItsReferenceIsAMismatchExit1) {
  TempDir dir;
  writeFileBytes(dir.file("add.py"), kAdd);
  writeFileBytes(dir.file("sub_buffer.py"), kWrongSub);
  const Outcome table = runIn(dir, "run sub_buffer.py --reference add.py");
  EXPECT_EQ(table.exitCode, 1) << table.out << table.err;
  EXPECT_THAT(table.out, HasSubstr("\nreference: add.py\n"));
  EXPECT_THAT(table.out, HasSubstr("\n-        buffer   mismatch             out[0, 0]: expected "));
  EXPECT_THAT(table.out, HasSubstr("    signature: mismatch/-/buffer/-/-\n"
                                   "    replay: ptodiff run sub_buffer.py --reference add.py --target a2a3\n"));
  EXPECT_THAT(table.out, HasSubstr("\nresult: mismatch\n"));

  const Outcome json = runIn(dir, "run sub_buffer.py --reference add.py --json");
  EXPECT_EQ(json.exitCode, 1);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["verdicts"].size(), 3u);
  const nlohmann::json& v = j["verdicts"][2];
  EXPECT_EQ(v["verdict"], "mismatch");
  EXPECT_EQ(v["difference"]["tensor"], "out");
  EXPECT_EQ(v["difference"]["row"], 0);
  EXPECT_EQ(v["difference"]["col"], 0);
  EXPECT_EQ(v["difference"]["count"], 512);  // the default b (uniform in [-1, 1]) has no zero, so a - b != a + b
  EXPECT_TRUE(v["difference"]["ulps"].is_number());
}

// Issue 11: the Buffer program adds a to itself where its reference adds a and b. With a == b (both
// iota) the numbers agree; --symbolic (or the case's "symbolic": true) finds it and prints both
// formulas, and the replay command keeps the flag.
TEST(RunCommand, SymbolicFindsAStorageBugTheNumbersCannotSee) {
  TempDir dir;
  writeFileBytes(dir.file("add.py"), kAdd);
  writeFileBytes(dir.file("confused.py"), bufferProgram("        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
                                                        "        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)\n"
                                                        "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
                                                        "        pl.buffer.load(b, [0, 0], [16, 32], y)\n"
                                                        "        pl.buffer.add(x, x, y)\n"
                                                        "        pl.buffer.store(y, [0, 0], [16, 32], out)\n"
                                                        "        return out\n"));
  writeFileBytes(dir.file("same.case.json"), R"({"tensors": {"a": {"init": "iota"}, "b": {"init": "iota"}}})");
  const Outcome numeric = runIn(dir, "run confused.py --reference add.py --case same.case.json");
  EXPECT_EQ(numeric.exitCode, 0) << numeric.out << numeric.err;

  const Outcome symbolic = runIn(dir, "run confused.py --reference add.py --case same.case.json --symbolic");
  EXPECT_EQ(symbolic.exitCode, 1) << symbolic.out << symbolic.err;
  EXPECT_THAT(symbolic.out, HasSubstr("\n-        buffer   symbolic-mismatch    out[0, 0]: Tile a[0, 0] + b[0, 0]  vs  "
                                      "Buffer a[0, 0] + a[0, 0]; both 0 (0x00000000); 512 element(s) of out "
                                      "differ symbolically\n"));
  EXPECT_THAT(symbolic.out, HasSubstr("    signature: symbolic-mismatch/-/buffer/-/-\n"
                                      "    replay: ptodiff run confused.py --case same.case.json --reference add.py "
                                      "--symbolic --target a2a3\n"));
  EXPECT_THAT(symbolic.out, HasSubstr("\nresult: symbolic-mismatch\n"));

  writeFileBytes(dir.file("same-symbolic.case.json"),
                 R"({"symbolic": true, "tensors": {"a": {"init": "iota"}, "b": {"init": "iota"}}})");
  const Outcome json = runIn(dir, "run confused.py --reference add.py --case same-symbolic.case.json --json");
  EXPECT_EQ(json.exitCode, 1) << json.out << json.err;
  const nlohmann::json v = nlohmann::json::parse(json.out)["verdicts"][2];
  EXPECT_EQ(v["verdict"], "symbolic-mismatch");
  EXPECT_EQ(v["difference"]["expected_formula"], "a[0, 0] + b[0, 0]");
  EXPECT_EQ(v["difference"]["actual_formula"], "a[0, 0] + a[0, 0]");
}

TEST(RunCommand, HazardInABufferFilePrintsItsLocationAndExits1) {
  TempDir dir;
  writeFileBytes(dir.file("mis.py"), kMisaligned);
  const Outcome o = runIn(dir, "run mis.py");
  EXPECT_EQ(o.exitCode, 1) << o.out << o.err;
  EXPECT_THAT(o.err, StartsWith("mis.py:9:9: hazard: align: buffer.alloc: x: base address 8200 is not 32-byte "
                                "aligned [buffer]\n"));
  EXPECT_THAT(o.out, HasSubstr("    signature: hazard/align/buffer/buffer.alloc/-\n"));
}

TEST(RunCommand, InvalidProgramExits2AndStillSavesOutputs) {
  TempDir dir;
  writeFileBytes(dir.file("poison.py"), kPoisonStore);
  const Outcome o = runIn(dir, "run poison.py --planner PTOAS --save-outputs saved");
  EXPECT_EQ(o.exitCode, 2) << o.out << o.err;
  EXPECT_THAT(o.err, StartsWith("poison.py:10:9: error: invalid-program: tile.store: stores 512 poison element(s) into 'out' "
                                "(first at [0, 0]); the program's result depends on uninitialised data [tile]\n"));
  EXPECT_THAT(o.out, HasSubstr("\n-        tile     invalid-program      10:9: tile.store: "));
  EXPECT_THAT(o.out, HasSubstr("\nPTOAS    planned  skipped              not run: the Tile run did not pass\n"));
  EXPECT_TRUE(fs::exists(dir.file("saved/tile/out.npy")));
  EXPECT_TRUE(fs::exists(dir.file("saved/tile/out.poison.npy")));
}

TEST(RunCommand, SaveOutputsWritesOneFolderPerRun) {
  TempDir dir;
  writeFileBytes(dir.file("add.py"), kAdd);
  const Outcome o = runIn(dir, "run add.py --planner DSA_RP --save-outputs out/dir");
  ASSERT_EQ(o.exitCode, 0) << o.out << o.err;
  for (const char* run : {"tile", "DSA_RP-planned", "DSA_RP-buffer"}) {
    EXPECT_TRUE(fs::exists(dir.file(std::string("out/dir/") + run + "/out.npy"))) << run;
    EXPECT_FALSE(fs::exists(dir.file(std::string("out/dir/") + run + "/out.poison.npy"))) << run;
  }
  EXPECT_THAT(o.out, HasSubstr("saved: out/dir/DSA_RP-buffer/out.npy\n"));
}

TEST(RunCommand, BadInputExits2WithALocatedMessage) {
  TempDir dir;
  writeFileBytes(dir.file("add.py"), kAdd);
  writeFileBytes(dir.file("sub_buffer.py"), kWrongSub);

  Outcome o = runIn(dir, "run missing.py");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_EQ(o.err, "missing.py: error: cannot read program file: No such file or directory\n");

  o = runIn(dir, "run add.py --planner XYZ");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, HasSubstr("--planner: XYZ not in {PYPTO,DSA_RP,PTOAS,all}"));

  o = runIn(dir, "run add.py --reference add.py");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_EQ(o.err, "ptodiff: error: --reference add.py: PROGRAM's kernel \"kernel\" is a Tile-stage function; "
                   "--reference judges a Buffer program\n");

  o = runIn(dir, "run add.py --tolerance-profile nope.json");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_THAT(o.err, StartsWith("nope.json: error: "));

  o = runIn(dir, "run add.py --scalar s");
  EXPECT_EQ(o.exitCode, 2);
  EXPECT_EQ(o.err, "ptodiff: error: --scalar s: expected NAME=VALUE\n");
}

// ---- the program suite: every program passes under every planner on both targets ----------------

std::vector<std::string> suitePrograms() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(PTODIFF_TESTS_DIR) / "programs"))
    if (e.path().extension() == ".py" && e.path().stem() != "make_expected") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class RunSuite : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(RunSuite, PassesEveryPlanner) {
  const auto& [name, target] = GetParam();
  TempDir scratch;
  const fs::path programs = fs::path(PTODIFF_TESTS_DIR) / "programs";
  // --symbolic: formula for formula too (issue 11); the numbers are those of a numeric run.
  const Outcome o = runPtodiff(programs, "run " + name + ".py --planner all --symbolic --target " + target, scratch.path());
  EXPECT_EQ(o.exitCode, 0) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("\nresult: pass\n"));
}

INSTANTIATE_TEST_SUITE_P(Programs, RunSuite,
                         ::testing::Combine(::testing::ValuesIn(suitePrograms()), ::testing::Values("a2a3", "a5")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

// ---- fuzz regressions: each campaign finding, once fixed, runs clean under every planner --------

std::vector<std::string> fuzzRegressions() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(fs::path(PTODIFF_TESTS_DIR) / "fuzz-regressions"))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class FuzzRegression : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzRegression, RunsCleanUnderEveryPlanner) {
  TempDir scratch;
  const fs::path folder = fs::path(PTODIFF_TESTS_DIR) / "fuzz-regressions" / GetParam();
  const Outcome o = runPtodiff(folder, "run program.py --case case.json --planner all --symbolic", scratch.path());
  EXPECT_EQ(o.exitCode, 0) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("\nresult: pass\n"));
}

INSTANTIATE_TEST_SUITE_P(Campaign, FuzzRegression, ::testing::ValuesIn(fuzzRegressions()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace ptodiff
