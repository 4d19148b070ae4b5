// Issue 7's acceptance test for the reducer: every tests/hazards/ program, padded with 33
// irrelevant statements (scalar assignments, For loops with carries, Ifs with results: three copies,
// at the start, the middle and the end of the kernel), reduces to at most 8 statements that still
// fail the same way. A hazard program must keep its signature (kind/hazard/stage/op/planner, run as
// `ptodiff run` runs it, or against its `# reference:` Tile program as `ptodiff run --reference`
// does); a `# expect: mismatch: T[r, c]` program, which no checker sees, must keep
// its first difference from its `# expected-outputs:` folder (judged as HazardSuiteTest judges it),
// which exercises the reducer with an interestingness test of the caller's own.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "compiler/passes/Pass.h"
#include "compiler/target/Target.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "fuzz/campaign/CaseRunner.h"
#include "fuzz/reduce/Interestingness.h"
#include "fuzz/reduce/Reducer.h"
#include "interp/CaseSetup.h"
#include "interp/Interpreters.h"
#include "interp/Npy.h"
#include "tests/unit/HazardSuiteFiles.h"

namespace ptodiff::fuzz {
namespace {

namespace fs = std::filesystem;

using hazardsuite::hazardsDir;
using hazardsuite::headerValue;
using hazardsuite::readText;

std::vector<std::string> hazardPrograms() { return hazardsuite::suitePrograms(); }

/// One padding unit (11 statements): nothing of it reaches a tensor.
std::string paddingUnit(int k) {
  const std::string s = std::to_string(k);
  return "        pa" + s + " = 3 + " + s + "\n" +
         "        for pi" + s + ", (pb" + s + ", pc" + s + ") in pl.range(0, 2, 1, init_values=(pa" + s + ", 1)):\n" +
         "            pd" + s + " = pb" + s + " + pi" + s + "\n" +
         "            pe" + s + " = pc" + s + " * 2\n" +
         "            pf" + s + ", pg" + s + " = pl.yield_(pd" + s + ", pe" + s + ")\n" +
         "        if pf" + s + " > 4:\n" +
         "            ph" + s + " = pf" + s + " + pg" + s + "\n" +
         "            pj" + s + " = pl.yield_(ph" + s + ")\n" +
         "        else:\n" +
         "            pk" + s + " = pf" + s + " - 1\n" +
         "            pj" + s + " = pl.yield_(pk" + s + ")\n" +
         "        pm" + s + " = pj" + s + " // 2\n";
}

/// The statements of padding unit k, parsed from a program of their own.
Block paddingStatements(int k) {
  const std::string text =
      "import pypto.language as pl\n\n\n@pl.program\nclass pad:\n    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def kernel(self, out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n" +
      paddingUnit(k) + "        return out\n";
  Program p = parseProgramText(text, "pad.py");
  Block body = std::move(p.functions.at(0).body);
  body.pop_back();  // the return
  return body;
}

void insertAt(Block& body, size_t index, Block stmts) {
  for (size_t i = 0; i < stmts.size(); ++i)
    body.insert(body.begin() + static_cast<std::ptrdiff_t>(index + i), std::move(stmts[i]));
}

ReduceState paddedProgram(const std::string& name) {
  ReduceState s;
  s.program = parseProgramFile((hazardsDir() / name).string());
  fs::path casePath = hazardsDir() / name;
  casePath.replace_extension(".case.json");
  if (fs::exists(casePath)) s.spec = parseCaseFilePath(casePath.string());
  Function* kernel = const_cast<Function*>(s.spec.function.empty() ? s.program.defaultKernel()
                                                                    : s.program.findFunction(s.spec.function));
  if (!kernel) throw std::runtime_error("no kernel in " + name);
  Block& body = kernel->body;
  insertAt(body, body.size() - 1, paddingStatements(2));  // before the return
  insertAt(body, body.size() / 2, paddingStatements(1));
  insertAt(body, 0, paddingStatements(0));
  verifyOrThrow(s.program);
  return s;
}

/// HazardSuiteTest's judgement of a `mismatch:` program: the run is clean and `tensor` first
/// differs from the expected outputs at `wanted` ("T[r, c]").
Interestingness sameFirstDifference(const fs::path& expectedDir, const std::string& wanted) {
  const std::string tensor = wanted.substr(0, wanted.find('['));
  return [expectedDir, wanted, tensor](const ReduceState& state) {
    const Function* kernel = state.spec.function.empty() ? state.program.defaultKernel()
                                                         : state.program.findFunction(state.spec.function);
    if (!kernel) return false;
    RunConfig config;
    config.blockNum = state.spec.blockNum;
    config.seed = state.spec.seed;
    config.target = findTarget(state.spec.target)->kind;
    const std::optional<Planner> first = parsePlanner(state.spec.planners.front());
    config.addressedPlanner = mixesAddressForms(*kernel) && first && plannerAssignsAddresses(*first);
    RunResult r;
    KernelArgs args;
    try {
      args = buildKernelArgs(*kernel, state.spec, {});
      r = runKernel(defaultInterpreter(*kernel), state.program, *kernel, args, config);
    } catch (const std::exception&) {
      return false;
    }
    if (r.status != RunStatus::Ok || !r.final.tensors.count(tensor) || !args.tensors.count(tensor)) return false;
    const Tensor& actual = r.final.tensors.at(tensor);
    const Tensor& initial = args.tensors.at(tensor);
    const Tensor expected = readNpy((expectedDir / (tensor + ".npy")).string());
    if (expected.dtype != actual.dtype || expected.rows != actual.rows || expected.cols != actual.cols) return false;
    for (int64_t i = 0; i < actual.elements(); ++i)
      if (actual.bitsAt(i) != expected.bitsAt(i) || actual.poison[static_cast<size_t>(i)] != 0)
        // The bug is a wrong value written there, not an element the reduced program stopped writing
        // (a program that stores nothing also differs first at [0, 0]).
        return tensor + "[" + std::to_string(i / actual.cols) + ", " + std::to_string(i % actual.cols) + "]" == wanted &&
               actual.bitsAt(i) != initial.bitsAt(i);
    return false;
  };
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

class ReduceHazard : public ::testing::TestWithParam<std::string> {};

TEST_P(ReduceHazard, PaddedProgramReducesToAtMostEightStatementsWithTheSameFailure) {
  const std::string text = readText(hazardsDir() / GetParam());
  const std::optional<std::string> expect = headerValue(text, "expect");
  ASSERT_TRUE(expect);
  const ReduceState original = [&] {
    ReduceState s{parseProgramFile((hazardsDir() / GetParam()).string()), {}};
    verifyOrThrow(s.program);
    return s;
  }();
  const ReduceState padded = paddedProgram(GetParam());
  const int64_t originalStatements = countStatements(original.program);
  ASSERT_EQ(countStatements(padded.program), originalStatements + 33);

  Interestingness interesting;
  std::string keeps;
  if (expect->rfind("mismatch: ", 0) == 0) {
    const std::optional<std::string> outputs = headerValue(text, "expected-outputs");
    ASSERT_TRUE(outputs);
    keeps = expect->substr(std::string("mismatch: ").size());
    interesting = sameFirstDifference(hazardsDir() / *outputs, keeps);
  } else if (const std::optional<std::string> ref = headerValue(text, "reference")) {
    auto reference = std::make_shared<Program>(parseProgramFile((hazardsDir() / *ref).string()));
    verifyOrThrow(*reference);
    const std::vector<std::string> signatures = failureSignatures(padded, 1'000'000, reference);
    ASSERT_FALSE(signatures.empty()) << GetParam() << " passes against its reference when padded";
    keeps = signatures.front();
    interesting = sameSignature(keeps, 1'000'000, reference);
  } else {
    const std::vector<std::string> signatures = failureSignatures(padded, 1'000'000);
    ASSERT_FALSE(signatures.empty()) << GetParam() << " passes when padded";
    keeps = signatures.front();
    // Padding changes nothing the run sees: the unpadded program fails first the same way.
    ReduceState unpadded{original.program.clone(), padded.spec};
    ASSERT_EQ(failureSignatures(unpadded, 1'000'000).front(), keeps);
    interesting = sameSignature(keeps, 1'000'000);
  }
  ASSERT_TRUE(interesting(padded)) << GetParam();

  ReduceOptions options;
  options.seconds = 60;
  const ReduceResult result = reduceProgram(padded, interesting, options);
  std::cout << "reduce-hazard " << GetParam() << ": statements " << result.stats.before.statements << " -> "
            << result.stats.after.statements << " (unpadded " << originalStatements << "), ops "
            << result.stats.before.ops << " -> " << result.stats.after.ops << ", tensor elements "
            << result.stats.tensorElementsBefore << " -> " << result.stats.tensorElementsAfter << ", "
            << result.stats.candidatesTried << " candidates, " << result.stats.seconds << " s, keeps " << keeps
            << "\n";
  EXPECT_FALSE(result.stats.timedOut);
  EXPECT_LE(result.stats.after.statements, 8) << GetParam();
  EXPECT_EQ(result.stats.after.statements, countStatements(result.best.program));
  EXPECT_LE(result.stats.tensorElementsAfter, result.stats.tensorElementsBefore);
  // The result is a valid program that still fails the same way.
  ReduceState check = result.best.clone();
  ASSERT_TRUE(reparseAndVerify(check));
  EXPECT_TRUE(interesting(check)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Suite, ReduceHazard, ::testing::ValuesIn(hazardPrograms()), testName);

}  // namespace
}  // namespace ptodiff::fuzz
