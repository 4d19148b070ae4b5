// The storage hazard suite of tests/hazards/ (see its README.md): every NAME.py there — a
// Buffer-stage program, or a planned Tile program (planned_*.py, every tile carrying a MemRef) —
// holds one deliberate storage bug and states, in its `# expect:` header, the exact first line
// ptodiff prints for it (`LINE:COL: hazard: KIND: details`), or, for a bug no checker of that run
// can see, `mismatch: TENSOR[r, c]` (the first element that differs from the `# expected-outputs:`
// folder). tests/hazards/clean/ holds correct programs (`# expect: pass`: hand-lowered Buffer
// programs and reference-planned Tile programs) whose outputs must equal the independently
// computed expected outputs of the Tile programs they come from.
//
// Each program runs in-process on the interpreter `ptodiff interp` picks for it (interp/
// Interpreters.h) under its NAME.case.json, with the run configuration `ptodiff interp` derives
// from the case; one more test runs the ptodiff binary on every hazard program and compares its
// first stderr line with the header, character for character.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/passes/Pass.h"
#include "compiler/text/CaseFile.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "interp/CaseSetup.h"
#include "interp/Hazard.h"
#include "interp/Interpreters.h"
#include "interp/Npy.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;

fs::path hazardsDir() { return fs::path(PTODIFF_TESTS_DIR) / "hazards"; }

/// A suite program: its path relative to tests/hazards/ ("recip_in_place.py", "clean/cube_fp16.py").
std::vector<std::string> suitePrograms(const std::string& subdir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(hazardsDir() / subdir, ec))
    if (entry.path().extension() == ".py")
      names.push_back((subdir.empty() ? fs::path() : fs::path(subdir)) / entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The value of the header comment `# KEY: value` (first occurrence), or nullopt.
std::optional<std::string> headerValue(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  const std::string prefix = "# " + key + ": ";
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
  return std::nullopt;
}

/// One program run the way `ptodiff interp` runs it.
struct SuiteRun {
  Program program;
  const Function* kernel = nullptr;
  InterpreterKind interpreter = InterpreterKind::Buffer;
  RunResult result;
};

SuiteRun runSuiteProgram(const std::string& relative) {
  const fs::path path = hazardsDir() / relative;
  SuiteRun run;
  run.program = parseProgramFile(path.string());
  verifyOrThrow(run.program);
  fs::path casePath = path;
  casePath.replace_extension(".case.json");
  CaseSpec spec;
  if (fs::exists(casePath)) spec = parseCaseFilePath(casePath.string());
  run.kernel = spec.function.empty() ? run.program.defaultKernel() : run.program.findFunction(spec.function);
  if (!run.kernel) throw std::runtime_error("no kernel in " + relative);
  RunConfig config;
  config.blockNum = spec.blockNum;
  config.seed = spec.seed;
  config.target = findTarget(spec.target)->kind;
  // The CLI's rules: the interpreter follows the function (Buffer stage: Buffer; Tile with MemRefs:
  // planned Tile), and only a program mixing both address forms is judged by the case's first planner.
  const std::optional<Planner> first = parsePlanner(spec.planners.front());
  config.addressedPlanner = mixesAddressForms(*run.kernel) && first && plannerAssignsAddresses(*first);
  run.interpreter = defaultInterpreter(*run.kernel);
  run.result = runKernel(run.interpreter, run.program, *run.kernel, buildKernelArgs(*run.kernel, spec, {}), config);
  return run;
}

/// The first element (row-major) where `actual` differs from the expected bits or poison mask,
/// as "T[r, c]"; empty when they agree. A shape or dtype difference is reported as such.
std::string firstDifference(const std::string& name, const Tensor& actual, const fs::path& expectedDir) {
  const Tensor expected = readNpy((expectedDir / (name + ".npy")).string());
  if (expected.dtype != actual.dtype || expected.rows != actual.rows || expected.cols != actual.cols)
    return name + ": expected dtype/shape differ";
  std::vector<uint8_t> expectedPoison(static_cast<size_t>(expected.elements()), 0);
  const fs::path poisonFile = expectedDir / (name + ".poison.npy");
  if (fs::exists(poisonFile)) {
    const Tensor p = readNpy(poisonFile.string());
    for (int64_t i = 0; i < p.elements(); ++i) expectedPoison[static_cast<size_t>(i)] = p.bytes[static_cast<size_t>(i)];
  }
  for (int64_t i = 0; i < actual.elements(); ++i)
    if (actual.bitsAt(i) != expected.bitsAt(i) || (actual.poison[static_cast<size_t>(i)] != 0) !=
                                                      (expectedPoison[static_cast<size_t>(i)] != 0))
      return name + "[" + std::to_string(i / actual.cols) + ", " + std::to_string(i % actual.cols) + "]";
  return "";
}

bool isOutput(const Param& p) {
  return p.type.isTensor() && (p.direction == ParamDirection::Out || p.direction == ParamDirection::InOut);
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

// ---- hazard programs ----

class HazardProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(HazardProgram, ReportsItsExpectedFirstLine) {
  const std::string text = readText(hazardsDir() / GetParam());
  const std::optional<std::string> expect = headerValue(text, "expect");
  ASSERT_TRUE(expect) << GetParam() << " has no '# expect:' header";
  const SuiteRun run = runSuiteProgram(GetParam());
  const RunResult& r = run.result;

  if (expect->rfind("mismatch: ", 0) == 0) {
    // A bug only a comparison can see: the run itself is clean.
    ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
    const std::optional<std::string> outputs = headerValue(text, "expected-outputs");
    ASSERT_TRUE(outputs) << "a mismatch case names its '# expected-outputs:' folder";
    const std::string wanted = expect->substr(std::string("mismatch: ").size());
    const std::string tensor = wanted.substr(0, wanted.find('['));
    EXPECT_EQ(firstDifference(tensor, r.final.tensors.at(tensor), hazardsDir() / *outputs), wanted);
    return;
  }

  ASSERT_EQ(r.status, RunStatus::Hazard) << GetParam() << ": " << runStatusName(r.status) << ": "
                                         << r.diagnostic.message;
  ASSERT_TRUE(r.hazard.has_value());
  const std::string actual = std::to_string(r.hazard->loc.line) + ":" + std::to_string(r.hazard->loc.col) +
                             ": hazard: " + r.hazard->message();
  EXPECT_EQ(actual, *expect);
  // The diagnostic carries the same facts for the CLI to print.
  EXPECT_EQ(r.diagnostic.severity, Severity::Hazard);
  EXPECT_EQ(r.diagnostic.loc, r.hazard->loc);
  EXPECT_EQ(r.diagnostic.message, r.hazard->message());
  EXPECT_EQ(parseHazardKind(hazardKindName(r.hazard->kind)), r.hazard->kind);
}

INSTANTIATE_TEST_SUITE_P(Suite, HazardProgram, ::testing::ValuesIn(suitePrograms("")), testName);

// ---- correct programs ----

class CleanProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(CleanProgram, RunsCleanAndMatchesTheTileProgramsExpectedOutputs) {
  const std::string text = readText(hazardsDir() / GetParam());
  ASSERT_EQ(headerValue(text, "expect"), std::optional<std::string>("pass"));
  const std::optional<std::string> outputs = headerValue(text, "expected-outputs");
  ASSERT_TRUE(outputs) << GetParam() << " names no '# expected-outputs:' folder";
  const SuiteRun run = runSuiteProgram(GetParam());
  ASSERT_EQ(run.result.status, RunStatus::Ok) << run.result.diagnostic.message;
  const fs::path expectedDir = (hazardsDir() / GetParam()).parent_path() / *outputs;
  int outputsChecked = 0;
  for (const Param& p : run.kernel->params) {
    if (!isOutput(p)) continue;
    EXPECT_EQ(firstDifference(p.name, run.result.final.tensors.at(p.name), expectedDir), "") << GetParam();
    ++outputsChecked;
  }
  EXPECT_GT(outputsChecked, 0);
}

INSTANTIATE_TEST_SUITE_P(Suite, CleanProgram, ::testing::ValuesIn(suitePrograms("clean")), testName);

// ---- the suite as a whole ----

TEST(HazardSuite, CoversEveryStorageCheckerOnBothPhysicalInterpretersWithAtLeastTwentyPrograms) {
  std::map<InterpreterKind, std::set<std::string>> kinds;
  int programs = 0;
  for (const std::string& name : suitePrograms("")) {
    const std::optional<std::string> expect = headerValue(readText(hazardsDir() / name), "expect");
    ASSERT_TRUE(expect) << name;
    ++programs;
    const size_t at = expect->find(": hazard: ");
    if (at == std::string::npos) continue;
    const std::string rest = expect->substr(at + std::string(": hazard: ").size());
    Program program = parseProgramFile((hazardsDir() / name).string());
    verifyOrThrow(program);
    kinds[defaultInterpreter(*program.defaultKernel())].insert(rest.substr(0, rest.find(':')));
  }
  EXPECT_GE(programs, 20);
  for (const char* kind : {"bounds", "align", "reserved", "overlap", "capacity", "valid", "empty-op", "addressless"})
    EXPECT_TRUE(kinds[InterpreterKind::Buffer].count(kind)) << "no Buffer program expects '" << kind << "'";
  for (const char* kind : {"bounds", "align", "reserved", "overlap", "live-clobber", "capacity", "valid", "addressless"})
    EXPECT_TRUE(kinds[InterpreterKind::Planned].count(kind)) << "no planned-Tile program expects '" << kind << "'";
  EXPECT_GE(suitePrograms("clean").size(), 5u);
}

TEST(HazardSuite, TheCliPrintsEachExpectedLineFirst) {
  for (const std::string& name : suitePrograms("")) {
    const std::optional<std::string> expect = headerValue(readText(hazardsDir() / name), "expect");
    ASSERT_TRUE(expect) << name;
    if (expect->find(": hazard: ") == std::string::npos) continue;
    const fs::path err = fs::temp_directory_path() / ("ptodiff_hazard_suite_" + std::to_string(::getpid()) + ".err");
    const std::string command = "cd '" + hazardsDir().string() + "' && '" PTODIFF_BINARY "' interp '" + name +
                                "' >/dev/null 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << name;
    EXPECT_EQ(WEXITSTATUS(status), 1) << name << ": a hazard is a failing verdict";
    const std::string stderrText = readText(err);
    fs::remove(err);
    EXPECT_EQ(stderrText.substr(0, stderrText.find('\n')), name + ":" + *expect);
  }
}

}  // namespace
}  // namespace ptodiff
