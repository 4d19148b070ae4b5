// The pass manager and the pipeline (STYLE.md rule 3): order, printing with "(unchanged)",
// stop-after, verification after every pass, postconditions and the text round trip with
// verify-each, pass failures naming the pass and the pipeline, the input left untouched; the
// `buffer_ir_selected` attribute in the text format; `ptodiff compile`.
#include <array>
#include <cstdio>
#include <functional>
#include <optional>
#include <sstream>

#include <gtest/gtest.h>

#include "compiler/passes/PassManager.h"
#include "compiler/passes/SelectBufferIRFunctions.h"
#include "compiler/verify/Verifier.h"
#include "compiler/text/Printer.h"
#include "tests/unit/compiler/PassTestSupport.h"

namespace ptodiff {
namespace {

using namespace testsupport;

constexpr const char* kProgram = R"(@pl.program
class t:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        x = pl.tile.load(a, [0, 0], [16, 32])
        y = pl.tile.exp(x)
        r = pl.tile.store(y, [0, 0], out)
        return r
)";

/// Appends its name to a log; reports `changed`.
class RecordingPass final : public Pass {
 public:
  RecordingPass(std::string name, bool changed, std::vector<std::string>& log)
      : name_(std::move(name)), changed_(changed), log_(log) {}
  std::string_view name() const override { return name_; }
  std::string_view summary() const override { return "records that it ran"; }
  bool run(Program&, const PassContext&) override {
    log_.push_back(name_);
    return changed_;
  }

 private:
  std::string name_;
  bool changed_;
  std::vector<std::string>& log_;
};

/// A pass whose run is a lambda, with an optional postcondition problem.
class LambdaPass final : public Pass {
 public:
  LambdaPass(std::string name, std::function<bool(Program&)> run, bool postconditionFails = false)
      : name_(std::move(name)), run_(std::move(run)), postconditionFails_(postconditionFails) {}
  std::string_view name() const override { return name_; }
  std::string_view summary() const override { return "a test pass"; }
  bool run(Program& p, const PassContext&) override { return run_(p); }
  std::vector<Diagnostic> checkPostcondition(const Program&, const PassContext&) const override {
    if (!postconditionFails_) return {};
    return {Diagnostic{Severity::Error, "", {}, "the test postcondition does not hold", {}}};
  }

 private:
  std::string name_;
  std::function<bool(Program&)> run_;
  bool postconditionFails_;
};

PassManager recording(PassManagerOptions o, std::vector<std::string>& log) {
  PassManager pm(std::move(o));
  pm.add(std::make_unique<RecordingPass>("First", true, log));
  pm.add(std::make_unique<RecordingPass>("Second", false, log));
  pm.add(std::make_unique<RecordingPass>("Third", true, log));
  return pm;
}

TEST(PassManager, RunsThePassesInOrderOnACloneOfTheInput) {
  Program input = parseVerified(kProgram);
  const std::string before = printProgram(input);
  PassManager pm;
  pm.add(std::make_unique<LambdaPass>("Rename", [](Program& p) {
    p.functions[0].name = "renamed";
    return true;
  }));
  PassRunResult r = pm.run(input, contextFor());
  EXPECT_EQ(r.program.functions[0].name, "renamed");
  EXPECT_EQ(r.lastPass, "Rename");
  EXPECT_EQ(printProgram(input), before);
}

TEST(PassManager, PrintAfterAllPrintsEveryPassAndMarksThoseThatChangedNothing) {
  std::vector<std::string> log;
  std::ostringstream out;
  PassManagerOptions o;
  o.printAfterAll = true;
  o.printTo = &out;
  Program input = parseVerified(kProgram);
  PassRunResult r = recording(o, log).run(input, contextFor());
  const std::string text = printProgram(input);
  EXPECT_EQ(out.str(), "# IR after First\n" + text + "# IR after Second (unchanged)\n" + text + "# IR after Third\n" + text);
  EXPECT_TRUE(r.lastPassPrinted);
}

TEST(PassManager, PrintAfterPrintsOnlyTheNamedPasses) {
  std::vector<std::string> log;
  std::ostringstream out;
  PassManagerOptions o;
  o.printAfter = {"Second"};
  o.printTo = &out;
  PassRunResult r = recording(o, log).run(parseVerified(kProgram), contextFor());
  EXPECT_EQ(out.str().rfind("# IR after Second (unchanged)\n", 0), 0u);
  EXPECT_EQ(out.str().find("# IR after First"), std::string::npos);
  EXPECT_FALSE(r.lastPassPrinted);
}

TEST(PassManager, StopAfterEndsThePipelineAtThatPass) {
  std::vector<std::string> log;
  PassManagerOptions o;
  o.stopAfter = "Second";
  PassRunResult r = recording(o, log).run(parseVerified(kProgram), contextFor());
  EXPECT_EQ(log, (std::vector<std::string>{"First", "Second"}));
  EXPECT_EQ(r.lastPass, "Second");
}

TEST(PassManager, RejectsOptionsNamingNoPass) {
  std::vector<std::string> log;
  PassManagerOptions o;
  o.stopAfter = "Fourth";
  try {
    recording(o, log).run(parseVerified(kProgram), contextFor());
    FAIL() << "expected a diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message, "--stop-after Fourth: no pass of that name; expected one of: First, Second, Third");
  }
  EXPECT_TRUE(log.empty());
  PassManagerOptions p;
  p.printAfter = {"Zeroth"};
  std::ostringstream sink;
  p.printTo = &sink;
  EXPECT_THROW(recording(p, log).run(parseVerified(kProgram), contextFor()), DiagnosticError);
}

TEST(PassManager, RejectsAnInputThatDoesNotVerify) {
  std::string bad = kProgram;
  bad.replace(bad.find("pl.tile.exp(x)"), 14, "pl.tile.exp(q)");
  Program p = parseProgramText(bad, "bad.py");
  std::vector<std::string> log;
  try {
    recording({}, log).run(p, contextFor());
    FAIL() << "expected a diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message, "undefined name 'q'; expected a parameter or a value bound earlier");
  }
  EXPECT_TRUE(log.empty());
}

TEST(PassManager, APassRejectingTheProgramNamesThePassAndThePipelineAndLeavesTheInputAlone) {
  Program input = parseVerified(kProgram, "k.py");
  const std::string before = printProgram(input);
  PassManager pm;
  pm.add(std::make_unique<LambdaPass>("Mutate", [](Program& p) {
    p.functions[0].name = "mutated";
    return true;
  }));
  pm.add(std::make_unique<LambdaPass>("Reject", [](Program& p) -> bool {
    failPass("Reject", p, SourceLoc{6, 9}, "this kernel is not wanted");
  }));
  try {
    pm.run(input, contextFor());
    FAIL() << "expected a diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().file, "k.py");
    EXPECT_EQ(e.diagnostic().loc.line, 6u);
    EXPECT_EQ(e.diagnostic().message, "Reject: this kernel is not wanted");
    ASSERT_EQ(e.diagnostic().notes.size(), 1u);
    EXPECT_EQ(e.diagnostic().notes[0].message,
              "in pass Reject of the pipeline Mutate, Reject; its input is printed by `ptodiff compile ... "
              "--stop-after Mutate`");
  }
  EXPECT_EQ(printProgram(input), before);
}

TEST(PassManager, BrokenIRAfterAPassIsAnInternalErrorNamingThePass) {
  PassManager pm;
  pm.add(std::make_unique<LambdaPass>("DropDefinition", [](Program& p) {
    p.functions[0].body.erase(p.functions[0].body.begin());  // `x` is used but no longer defined
    return true;
  }));
  try {
    pm.run(parseVerified(kProgram), contextFor());
    FAIL() << "expected an internal error";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("the IR verifier fails after pass DropDefinition:", 0), 0u) << e.what();
  }
}

/// A manager of one pass, with verify-each from its options or not.
PassManager managerOf(bool verifyEach, std::unique_ptr<Pass> pass) {
  PassManagerOptions o;
  o.verifyEach = verifyEach;
  PassManager pm(o);
  pm.add(std::move(pass));
  return pm;
}

/// Runs kProgram through a one-pass manager with verify-each off in the context: no throw without
/// verify-each in the options, an internal error starting with `message` with it.
void expectOnlyVerifyEachThrows(const std::function<std::unique_ptr<Pass>()>& pass, const std::string& message) {
  PassContext quiet = contextFor();
  quiet.verifyEach = false;
  EXPECT_NO_THROW(managerOf(false, pass()).run(parseVerified(kProgram), quiet));
  try {
    managerOf(true, pass()).run(parseVerified(kProgram), quiet);
    FAIL() << "expected an internal error";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(message, 0), 0u) << e.what();
  }
}

// A pass that reports no change is taken at its word (its input was verified, so the verifier is
// skipped); verify-each holds it to that word by comparing with its input.
TEST(PassManager, AnUnchangedReportSkipsTheVerifierAndVerifyEachChecksIt) {
  expectOnlyVerifyEachThrows(
      [] {
        return std::make_unique<LambdaPass>("Sneaky", [](Program& p) {
          p.functions[0].body.erase(p.functions[0].body.begin());  // breaks the IR, then says it did nothing
          return false;
        });
      },
      "pass Sneaky reported no change but changed the program (");
}

/// A pass that declares its changes to be function verdicts only (changesOnlyFunctionVerdicts).
class VerdictOnlyPass final : public Pass {
 public:
  explicit VerdictOnlyPass(std::function<void(Program&)> run) : run_(std::move(run)) {}
  std::string_view name() const override { return "Verdicts"; }
  std::string_view summary() const override { return "a test pass recording verdicts"; }
  bool run(Program& p, const PassContext&) override {
    run_(p);
    return true;
  }
  bool changesOnlyFunctionVerdicts() const override { return true; }

 private:
  std::function<void(Program&)> run_;
};

// A pass whose changes are verdicts the verifier does not read is taken at its word without
// verify-each (the verifier would pass the program again); verify-each runs the verifier anyway.
TEST(PassManager, AVerdictOnlyChangeSkipsTheVerifierUnlessVerifyEach) {
  expectOnlyVerifyEachThrows(
      [] {
        return std::make_unique<VerdictOnlyPass>([](Program& p) {
          p.functions[0].bufferIRSelected = true;
          p.functions[0].body.erase(p.functions[0].body.begin());  // and, against its word, breaks the IR
        });
      },
      "the IR verifier fails after pass Verdicts:");
}

// What makes SelectBufferIRFunctions' declaration true: the verifier's verdict on a program does not
// depend on buffer_ir_selected (the same diagnostics with it absent, True or False).
TEST(PassManager, TheVerifierDoesNotReadBufferIRSelected) {
  const std::unique_ptr<Pass> select = createSelectBufferIRFunctionsPass();
  EXPECT_TRUE(select->changesOnlyFunctionVerdicts());
  std::string broken = kProgram;
  broken.replace(broken.find("pl.tile.exp(x)"), 14, "pl.tile.exp(z)");  // an undefined name
  for (const char* text : {kProgram, broken.c_str()}) {
    std::vector<std::string> verdicts;
    for (std::optional<bool> selected : {std::optional<bool>(), std::optional<bool>(true), std::optional<bool>(false)}) {
      Program p = parseProgramText(text);
      p.functions[0].bufferIRSelected = selected;
      std::string all;
      for (const Diagnostic& d : verifyProgram(p)) all += d.message + "\n";
      verdicts.push_back(all);
    }
    EXPECT_EQ(verdicts[0].empty(), text == kProgram) << verdicts[0];
    EXPECT_EQ(verdicts[0], verdicts[1]);
    EXPECT_EQ(verdicts[0], verdicts[2]);
  }
}

TEST(PassManager, ChecksPostconditionsOnlyWithVerifyEachFromTheOptionsOrTheContext) {
  auto claims = [] {
    return std::make_unique<LambdaPass>("Claims", [](Program&) { return false; }, /*postconditionFails=*/true);
  };
  expectOnlyVerifyEachThrows(claims, "the postcondition of pass Claims fails:");
  // The context's verify-each turns the checks on as well.
  EXPECT_THROW(managerOf(false, claims()).run(parseVerified(kProgram), contextFor()), std::logic_error);
}

// A loop whose yield has several targets: a MemRef annotation on one of them has no place in the
// text, so a program carrying one does not read back.
constexpr const char* kTwoCarryLoop = R"(@pl.program
class t:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (a, b) in pl.range(2, init_values=(0, 1)):
            a1, b1 = pl.yield_(b, a)
        return a1
)";

void annotateFirstYieldTarget(Program& p) {
  p.functions[0].body[0]->as<ForStmt>().body.back()->as<YieldStmt>().targets[0].annotation = Type::scalar(DType::INDEX);
}

void expectReadBackFailureAfter(const PassManager& pm, const Program& input, const std::string& pass) {
  try {
    pm.run(input, contextFor());
    FAIL() << "expected an internal error";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("the program printed after pass " + pass + " does not read back to the same IR", 0),
              0u)
        << e.what();
  }
}

TEST(PassManager, ChecksThatThePrintedProgramReadsBackWithVerifyEach) {
  // The annotation is lost when printed: the round trip catches it.
  PassManagerOptions o;
  o.verifyEach = true;
  PassManager pm(o);
  pm.add(std::make_unique<LambdaPass>("Annotate", [](Program& p) {
    annotateFirstYieldTarget(p);
    return true;
  }));
  expectReadBackFailureAfter(pm, parseVerified(kTwoCarryLoop), "Annotate");
}

TEST(PassManager, ReadsBackOnlyWhatAPassChanged) {
  // An input that cannot read back (built in memory) is not a pass's output:
  // a pass that leaves it unchanged adds nothing to read back, one that reports a change must.
  Program input = parseVerified(kTwoCarryLoop);
  annotateFirstYieldTarget(input);
  PassManagerOptions o;
  o.verifyEach = true;
  for (const bool reportsChange : {false, true}) {
    PassManager pm(o);
    pm.add(std::make_unique<LambdaPass>("Touch", [reportsChange](Program&) { return reportsChange; }));
    if (reportsChange)
      expectReadBackFailureAfter(pm, input, "Touch");
    else
      EXPECT_NO_THROW(pm.run(input, contextFor()));
  }
}

TEST(PassManager, AnUnavailablePassFailsOnlyWhenItRuns) {
  PassManagerOptions o;
  o.stopAfter = "First";
  std::vector<std::string> log;
  PassManager pm(o);
  pm.add(std::make_unique<RecordingPass>("First", false, log));
  pm.add(makeUnavailablePass("Later", "not written yet"));
  EXPECT_NO_THROW(pm.run(parseVerified(kProgram), contextFor()));
  PassManager all;
  all.add(makeUnavailablePass("Later", "not written yet"));
  try {
    all.run(parseVerified(kProgram), contextFor());
    FAIL() << "expected an internal error";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "pass Later is not available: not written yet");
  }
}

TEST(PassPipeline, IsTheStraightListOfSpecLowering) {
  EXPECT_EQ(loweringPassNames(),
            (std::vector<std::string>{"InitMemRef", "SelectBufferIRFunctions", "MaterializeSemanticAliases",
                                      "PlanMemory", "VerifyTileStorage", "LowerTileToBuffer"}));
}

// ---- the buffer_ir_selected attribute in the text format ----

TEST(PassAttribute, BufferIRSelectedPrintsAndReadsBack) {
  for (const char* verdict : {"True", "False"}) {
    std::string text = kProgram;
    text.replace(text.find("type=pl.FunctionType.InCore"), 27,
                 std::string("type=pl.FunctionType.InCore, buffer_ir_selected=") + verdict);
    Program p = parseVerified(text);
    ASSERT_TRUE(p.functions[0].bufferIRSelected.has_value());
    EXPECT_EQ(*p.functions[0].bufferIRSelected, std::string(verdict) == "True");
    Program again = parseProgramText(printProgram(p));
    EXPECT_TRUE(structurallyEqual(p, again)) << firstDifference(p, again);
    EXPECT_NE(printProgram(p).find(std::string("buffer_ir_selected=") + verdict), std::string::npos);
  }
  Program none = parseVerified(kProgram);
  EXPECT_FALSE(none.functions[0].bufferIRSelected.has_value());
  EXPECT_EQ(printProgram(none).find("buffer_ir_selected"), std::string::npos);
}

TEST(PassAttribute, BufferIRSelectedTakesOnlyTrueOrFalse) {
  std::string text = kProgram;
  text.replace(text.find("type=pl.FunctionType.InCore"), 27, "type=pl.FunctionType.InCore, buffer_ir_selected=1");
  try {
    parseProgramText(text, "attr.py");
    FAIL() << "expected a parse error";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message, "buffer_ir_selected must be True or False, found '1'");
  }
}

// ---- ptodiff compile ----

struct RunOutput {
  int status = -1;
  std::string out, err;
};

// CTest runs test cases in parallel processes that share testing::TempDir(): every file name
// carries the running test's name so two cases never write the same file.
std::string perTestPath(const std::string& name) {
  return testing::TempDir() + "/" + testing::UnitTest::GetInstance()->current_test_info()->name() + "." + name;
}

RunOutput runPtodiff(const std::string& args) {
  const std::string outPath = perTestPath("compile.out"), errPath = perTestPath("compile.err");
  const std::string command = std::string(PTODIFF_BINARY) + " " + args + " > " + outPath + " 2> " + errPath;
  RunOutput r;
  int raw = std::system(command.c_str());
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = readText(outPath);
  r.err = readText(errPath);
  return r;
}

std::string writeProgram(const std::string& name, const std::string& text) {
  const std::string path = perTestPath(name);
  std::ofstream(path) << text;
  return path;
}

TEST(PassCompileCommand, PrintsTheProgramAfterTheStopPass) {
  const std::string path = writeProgram("k.py", kProgram);
  RunOutput r = runPtodiff("compile " + path + " --stop-after PlanMemory --planner DSA_RP --verify-each");
  EXPECT_EQ(r.status, 0) << r.err;
  Program expected = lowerUpTo(parseVerified(kProgram, path), contextFor(Planner::DSA_RP), "PlanMemory");
  EXPECT_EQ(r.out, printProgram(expected));
  EXPECT_EQ(r.err, "");
}

TEST(PassCompileCommand, PrintAfterAllMarksUnchangedPasses) {
  const std::string path = writeProgram("k.py", kProgram);
  RunOutput r = runPtodiff("compile " + path + " --planner PTOAS --print-after-all --stop-after VerifyTileStorage");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("# IR after InitMemRef\n"), std::string::npos);
  EXPECT_NE(r.out.find("# IR after SelectBufferIRFunctions\n"), std::string::npos);
  EXPECT_NE(r.out.find("# IR after PlanMemory (unchanged)\n"), std::string::npos);  // PTOAS places nothing
  EXPECT_NE(r.out.find("# IR after VerifyTileStorage (unchanged)\n"), std::string::npos);
  EXPECT_EQ(r.out.find("# IR after LowerTileToBuffer"), std::string::npos);
}

TEST(PassCompileCommand, NoBufferIRKeepsTheKernelOnTile) {
  const std::string path = writeProgram("k.py", kProgram);
  RunOutput r = runPtodiff("compile " + path + " --no-buffer-ir --stop-after SelectBufferIRFunctions --explain-selection");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("buffer_ir_selected=False"), std::string::npos);
  EXPECT_NE(r.err.find("S1: enable_buffer_ir is False"), std::string::npos) << r.err;
}

TEST(PassCompileCommand, RejectsAnUnknownPassWithExitStatus2) {
  const std::string path = writeProgram("k.py", kProgram);
  RunOutput r = runPtodiff("compile " + path + " --stop-after Nothing");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err,
            "ptodiff: error: --stop-after Nothing: no pass of that name; expected one of: InitMemRef, "
            "SelectBufferIRFunctions, MaterializeSemanticAliases, PlanMemory, VerifyTileStorage, LowerTileToBuffer\n");
}

TEST(PassCompileCommand, ReportsAPassRejectingTheProgramWithExitStatus2) {
  std::string body;
  std::string o = "out";
  for (int i = 0; i < 12; ++i) body += "        x" + std::to_string(i) + " = pl.tile.load(a, [0, 0], [64, 64])\n";
  for (int i = 0; i < 12; ++i) {
    body += "        o" + std::to_string(i) + " = pl.tile.store(x" + std::to_string(i) + ", [0, 0], " + o + ")\n";
    o = "o" + std::to_string(i);
  }
  const std::string text = kernelProgram("a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
                                         body + "        return " + o + "\n", "pl.Tensor[[64, 64], pl.FP32]");
  const std::string path = writeProgram("big.py", text);
  RunOutput r = runPtodiff("compile " + path);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind(path + ":16:9: error: PlanMemory: PYPTO: [P1] tile.alloc: Vec storage needs 196608 bytes after reuse", 0), 0u)
      << r.err;
  EXPECT_NE(r.err.find("note: in pass PlanMemory of the pipeline"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(runPtodiff("compile " + path + " --target a5 --stop-after VerifyTileStorage").status, 0);
}

TEST(PassCompileCommand, RejectsAnUnverifiableProgramWithExitStatus2) {
  std::string bad = kProgram;
  bad.replace(bad.find("pl.tile.exp(x)"), 14, "pl.tile.exp(q)");
  const std::string path = writeProgram("bad.py", bad);
  RunOutput r = runPtodiff("compile " + path);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind(path + ":6:25: error: undefined name 'q'", 0), 0u) << r.err;
}

TEST(PassCompileCommand, RejectsAnUnknownPlannerWithExitStatus2) {
  const std::string path = writeProgram("k.py", kProgram);
  EXPECT_EQ(runPtodiff("compile " + path + " --planner FAST").status, 2);
}

}  // namespace
}  // namespace ptodiff
