// The storage hazard suite of tests/hazards/ (see its README.md): every NAME.py there — a
// Buffer-stage program, or a planned Tile program (planned_*.py, every tile carrying a MemRef) —
// holds one deliberate storage bug and states, in its `# expect:` header, the exact first line
// ptodiff prints for it (`LINE:COL: hazard: KIND: details`), or, for a bug no checker of that run
// can see, `mismatch: TENSOR[r, c]` (the first element that differs from the `# expected-outputs:`
// folder), or a verdict only the comparison with the Tile program it was lowered from (its
// `# reference:`) gives, semantics.md §7: `sentinel: TENSOR[r, c]` (an element the Tile run never
// wrote changed) or `hazard: uninit: TENSOR[r, c]` (poison where the Tile run defines the element). tests/hazards/clean/ holds correct programs (`# expect: pass`: hand-lowered Buffer
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
#include "interp/PlannedTileInterpreter.h"
#include "tests/unit/HazardSuiteFiles.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;

using hazardsuite::hazardsDir;
using hazardsuite::headerValue;
using hazardsuite::readText;
using hazardsuite::suitePrograms;

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

/// The §7 verdict of `actual` against the Tile run `tile` (both from `initial`), over every Out/InOut
/// tensor in parameter order and row-major order, as the verdict's first element: "hazard: uninit:
/// T[r, c]" (a written element poison), else "sentinel: T[r, c]" (an unwritten element whose bits
/// or poison state changed), else "mismatch: T[r, c]" (a written element's bits differ), else "pass".
/// DESIGN.md's order (hazard < sentinel < mismatch) picks among them. Written here, independently
/// of oracle/Differential, from the spec's three rules.
std::string comparisonVerdict(const Function& kernel, const KernelArgs& initial, const KernelArgs& tile,
                              const KernelArgs& actual) {
  std::string uninit, sentinel, mismatch;
  for (const Param& p : kernel.params) {
    if (!(p.type.isTensor() && (p.direction == ParamDirection::Out || p.direction == ParamDirection::InOut))) continue;
    const Tensor &t0 = initial.tensors.at(p.name), &tt = tile.tensors.at(p.name), &ta = actual.tensors.at(p.name);
    for (int64_t i = 0; i < tt.elements(); ++i) {
      const auto k = static_cast<size_t>(i);
      const std::string at = p.name + "[" + std::to_string(i / tt.cols) + ", " + std::to_string(i % tt.cols) + "]";
      const bool poison = ta.poison[k] != 0;
      if (!tt.written[k]) {
        if (sentinel.empty() && (ta.bitsAt(i) != t0.bitsAt(i) || poison != (t0.poison[k] != 0))) sentinel = at;
      } else if (poison) {
        if (uninit.empty()) uninit = at;
      } else if (mismatch.empty() && ta.bitsAt(i) != tt.bitsAt(i)) {
        mismatch = at;
      }
    }
  }
  if (!uninit.empty()) return "hazard: uninit: " + uninit;
  if (!sentinel.empty()) return "sentinel: " + sentinel;
  if (!mismatch.empty()) return "mismatch: " + mismatch;
  return "pass";
}

/// The case of a suite program (its NAME.case.json, or the defaults).
CaseSpec caseOf(const std::string& relative) {
  fs::path casePath = hazardsDir() / relative;
  casePath.replace_extension(".case.json");
  return fs::exists(casePath) ? parseCaseFilePath(casePath.string()) : CaseSpec{};
}

// ---- hazard programs ----

class HazardProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(HazardProgram, ReportsItsExpectedFirstLine) {
  const std::string text = readText(hazardsDir() / GetParam());
  const std::optional<std::string> expect = headerValue(text, "expect");
  ASSERT_TRUE(expect) << GetParam() << " has no '# expect:' header";
  const SuiteRun run = runSuiteProgram(GetParam());
  const RunResult& r = run.result;

  if (const std::optional<std::string> reference = headerValue(text, "reference")) {
    // A bug only the comparison with the Tile program sees: no checker of the run fires (the run
    // is clean, or, when it stores poison, invalid on its own), and the Tile reference's value run
    // under the same case gives the expected §7 verdict.
    ASSERT_TRUE(r.status == RunStatus::Ok ||
                (r.status == RunStatus::InvalidProgram && r.diagnostic.message.find("poison") != std::string::npos))
        << GetParam() << ": " << runStatusName(r.status) << ": " << r.diagnostic.message;
    Program tileProgram = parseProgramFile((hazardsDir() / *reference).string());
    verifyOrThrow(tileProgram);
    ASSERT_FALSE(isPlannedTileKernel(*tileProgram.defaultKernel())) << *reference << " is not a plain Tile program";
    const CaseSpec spec = caseOf(GetParam());
    RunConfig config;
    config.seed = spec.seed;
    const RunResult tile = runKernel(InterpreterKind::Value, tileProgram, *tileProgram.defaultKernel(),
                                     buildKernelArgs(*tileProgram.defaultKernel(), spec, {}), config);
    ASSERT_EQ(tile.status, RunStatus::Ok) << tile.diagnostic.message;
    EXPECT_EQ(comparisonVerdict(*run.kernel, buildKernelArgs(*run.kernel, spec, {}), tile.final, r.final), *expect);
    if (const std::optional<std::string> outputs = headerValue(text, "expected-outputs")) {
      // The independently computed outputs agree on where the run first differs.
      const std::string wanted = expect->substr(expect->rfind(": ") + 2);
      const std::string tensor = wanted.substr(0, wanted.find('['));
      EXPECT_EQ(firstDifference(tensor, r.final.tensors.at(tensor), hazardsDir() / *outputs), wanted);
    }
    return;
  }

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

// branch_arm_missing_transfer's bug is the missing copy and nothing else: with the else arm's
// `tile.move` into the branch destination restored, or with the then arm taken (its product
// writes the destination directly), the planned run is clean and gives the value run's bits.
TEST(HazardSuite, BranchArmMissingTransferIsCleanWithTheTransferOrOnTheOtherArm) {
  const std::string text = readText(hazardsDir() / "branch_arm_missing_transfer.py");
  const std::string missing = "            chosen = pl.yield_(x)\n";
  ASSERT_NE(text.find(missing), std::string::npos);
  std::string fixed = text;
  fixed.replace(fixed.find(missing), missing.size(),
                "            chosen_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 4096, 2048), pl.Mem.Vec] = "
                "pl.tile.move(x, target_memory=pl.Mem.Vec)\n"
                "            chosen = pl.yield_(chosen_next)\n");
  const CaseSpec spec = caseOf("branch_arm_missing_transfer.py");
  for (const auto& [program, flag] : {std::pair{fixed, "0"}, std::pair{text, "1"}, std::pair{fixed, "1"}}) {
    Program p = parseProgramText(program, "branch_arm_missing_transfer.py");
    verifyOrThrow(p);
    ArgOverrides overrides;
    overrides.scalars["flag"] = flag;
    const KernelArgs args = buildKernelArgs(*p.defaultKernel(), spec, overrides);
    RunConfig config;
    config.addressedPlanner = true;
    const RunResult planned = runKernel(InterpreterKind::Planned, p, *p.defaultKernel(), args, config);
    ASSERT_EQ(planned.status, RunStatus::Ok) << "flag " << flag << ": " << planned.diagnostic.message;
    const RunResult value = runKernel(InterpreterKind::Value, p, *p.defaultKernel(), args, config);
    ASSERT_EQ(value.status, RunStatus::Ok);
    const Tensor &a = planned.final.tensors.at("out"), &b = value.final.tensors.at("out");
    for (int64_t i = 0; i < b.elements(); ++i) ASSERT_EQ(a.bitsAt(i), b.bitsAt(i)) << "flag " << flag << ", element " << i;
  }
}

// The comparison verdicts of the `# reference:` programs, as `ptodiff run PROGRAM --reference TILE`
// prints them: the buffer row's verdict and first element, and the overall result.
TEST(HazardSuite, TheCliGivesEachReferenceVerdictAgainstItsTileProgram) {
  int checked = 0;
  for (const std::string& name : suitePrograms("")) {
    const std::string text = readText(hazardsDir() / name);
    const std::optional<std::string> reference = headerValue(text, "reference");
    if (!reference) continue;
    const std::string expect = *headerValue(text, "expect");
    const std::string verdict = expect.substr(0, expect.rfind(": "));   // "sentinel", "hazard: uninit"
    const std::string element = expect.substr(expect.rfind(": ") + 2);  // "out[15, 8]"
    fs::path casePath = fs::path(name).replace_extension(".case.json");
    const fs::path out = fs::temp_directory_path() / ("ptodiff_hazard_ref_" + std::to_string(::getpid()) + ".out");
    const std::string command = "cd '" + hazardsDir().string() + "' && '" PTODIFF_BINARY "' run '" + name + "'" +
                                (fs::exists(hazardsDir() / casePath) ? " --case '" + casePath.string() + "'" : "") +
                                " --reference '" + *reference + "' >'" + out.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    const std::string stdoutText = readText(out);
    fs::remove(out);
    ASSERT_TRUE(WIFEXITED(status)) << name;
    EXPECT_EQ(WEXITSTATUS(status), 1) << name << ":\n" << stdoutText;
    std::istringstream lines(stdoutText);
    std::string row;
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("-", 0) == 0 && line.find(" buffer ") != std::string::npos) row = line;
    ASSERT_FALSE(row.empty()) << name << ": no buffer row in\n" << stdoutText;
    // "-        buffer   sentinel             out[15, 8]: not written by the Tile run, ..."
    const size_t at = row.find(" buffer ") + std::string(" buffer ").size();
    const std::string rest = row.substr(row.find_first_not_of(' ', at));
    EXPECT_EQ(rest.rfind(verdict + " ", 0), 0u) << name << ": " << row;
    EXPECT_NE(rest.find(" " + element + ": "), std::string::npos) << name << ": " << row;
    EXPECT_NE(stdoutText.find("\nresult: " + verdict.substr(0, verdict.find(':')) + "\n"), std::string::npos)
        << name << ":\n" << stdoutText;
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

}  // namespace
}  // namespace ptodiff
