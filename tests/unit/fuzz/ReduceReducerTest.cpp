// The reducer's greedy loop (fuzz/reduce/Reducer.h) with interestingness tests of the test's own:
// it reaches a fixpoint, runs only verified candidates, honours the time cap, and gives the same
// result with several jobs as with one.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"
#include "fuzz/reduce/Interestingness.h"
#include "fuzz/reduce/Reducer.h"

namespace ptodiff::fuzz {
namespace {

const std::string kProgram =
    "import pypto.language as pl\n\n\n@pl.program\nclass t:\n    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],\n"
    "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n"
    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        for i, (acc, f) in pl.range(0, n, 1, init_values=(x, 1.0)):\n"
    "            t = pl.tile.muls(acc, f)\n"
    "            if i > 1:\n"
    "                e = pl.tile.exp(t)\n"
    "                r = pl.yield_(e)\n"
    "            else:\n"
    "                r2 = pl.tile.adds(t, 1.0)\n"
    "                r = pl.yield_(r2)\n"
    "            f1 = f * 0.5\n"
    "            acc2, f2 = pl.yield_(r, f1)\n"
    "        fin = pl.tile.muls(acc2, f2)\n"
    "        o = pl.tile.store(fin, [0, 0], out)\n"
    "        return o\n";

ReduceState start() {
  ReduceState s{parseProgramText(kProgram, "t.py"), {}};
  s.spec.scalars["n"] = CaseScalar{CaseScalar::Kind::Int, 3, 0.0, false, {}};
  return s;
}

bool containsOp(const ReduceState& s, const std::string& op) {
  return printProgram(s.program).find("pl." + op + "(") != std::string::npos;
}

TEST(ReduceReducer, ReducesToTheSmallestProgramKeepingAnExpAndRunsOnlyVerifiedCandidates) {
  std::atomic<int> calls{0};
  std::atomic<int> unverified{0};
  const Interestingness keepsExp = [&](const ReduceState& s) {
    ++calls;
    Program copy = s.program.clone();
    if (!verifyProgram(copy).empty()) ++unverified;
    return containsOp(s, "tile.exp");
  };
  std::vector<std::string> steps;
  ReduceOptions options;
  options.onImproved = [&](const ReduceState& best, const ReduceProgress& p) {
    EXPECT_TRUE(containsOp(best, "tile.exp"));
    EXPECT_LT(p.now, p.start);
    steps.push_back(p.lastChange);
  };
  const ReduceResult r = reduceProgram(start(), keepsExp, options);
  EXPECT_EQ(unverified.load(), 0);
  EXPECT_EQ(r.stats.candidatesTried, calls.load());
  EXPECT_EQ(r.stats.accepted, static_cast<int64_t>(steps.size()));
  EXPECT_FALSE(r.stats.timedOut);
  EXPECT_EQ(r.stats.before.statements, 13);
  // The exp needs a tile operand (the load: nothing else makes a tile from the inputs) and the
  // function still returns: load, exp, return.
  EXPECT_EQ(r.stats.after.statements, 3) << printProgram(r.best.program);
  EXPECT_TRUE(containsOp(r.best, "tile.exp"));
  EXPECT_EQ(r.stats.after, measureProgram(r.best.program));
  // A fixpoint: reducing the result again changes nothing.
  const ReduceResult again = reduceProgram(r.best, keepsExp, options);
  EXPECT_EQ(again.stats.accepted, 0);
  EXPECT_EQ(printProgram(again.best.program), printProgram(r.best.program));
}

TEST(ReduceReducer, SeveralJobsGiveTheSameResultAsOne) {
  const Interestingness keepsExpAndLoop = [](const ReduceState& s) {
    const std::string text = printProgram(s.program);
    return text.find("pl.tile.exp(") != std::string::npos && text.find("pl.range(") != std::string::npos;
  };
  ReduceOptions one, four;
  four.jobs = 4;
  const ReduceResult a = reduceProgram(start(), keepsExpAndLoop, one);
  const ReduceResult b = reduceProgram(start(), keepsExpAndLoop, four);
  EXPECT_EQ(printProgram(a.best.program), printProgram(b.best.program));
  EXPECT_EQ(a.stats.after, b.stats.after);
  EXPECT_LT(a.stats.after.statements, a.stats.before.statements);
}

TEST(ReduceReducer, AZeroTimeCapReturnsTheInputUnchanged) {
  ReduceOptions options;
  options.seconds = 0;
  const ReduceResult r = reduceProgram(start(), [](const ReduceState&) { return true; }, options);
  EXPECT_TRUE(r.stats.timedOut);
  EXPECT_EQ(r.stats.candidatesTried, 0);
  EXPECT_EQ(r.stats.after, r.stats.before);
}

TEST(ReduceReducer, AnUnverifiableInputIsADiagnostic) {
  ReduceState bad{parseProgramText(kProgram.substr(0, kProgram.find("        return o")) + "        return zz\n", "bad.py"),
                  {}};
  EXPECT_THROW(reduceProgram(bad, [](const ReduceState&) { return true; }, {}), DiagnosticError);
}

TEST(ReduceReducer, TheTestCommandGetsTheCandidatePathAndATimeoutCountsAsNotInteresting) {
  EXPECT_EQ(runShellCommand("test", "hello", 10.0), 0);  // sh -c 'test "$1"': a non-empty argument
  EXPECT_EQ(runShellCommand("test x =", "hello", 10.0), 1);
  EXPECT_EQ(runShellCommand("exit 3; true", "", 10.0), 3);
  const auto before = std::chrono::steady_clock::now();
  // The shell's child (sleep) is killed with it: the call returns at the timeout, not after 30 s.
  EXPECT_EQ(runShellCommand("sleep 30; true", "", 0.3), -1);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count(), 5.0);
}

}  // namespace
}  // namespace ptodiff::fuzz
