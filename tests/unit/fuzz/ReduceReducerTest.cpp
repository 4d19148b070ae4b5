// The reducer's greedy loop (fuzz/reduce/Reducer.h) with interestingness tests of the test's own:
// it reaches a fixpoint, runs only verified candidates, honours the time cap, and gives the same
// result with several jobs as with one.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <mutex>
#include <string>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"
#include "compiler/target/Target.h"
#include "fuzz/reduce/CaseInputs.h"
#include "fuzz/reduce/Interestingness.h"
#include "fuzz/reduce/Reducer.h"
#include "interp/CaseSetup.h"
#include "interp/Interpreters.h"
#include "interp/Npy.h"
#include "tests/unit/HazardSuiteFiles.h"

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
  EXPECT_EQ(r.stats.after, measureState(r.best));
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

// ---- shapes and blocks ----

constexpr uint64_t kOne = 0x3F800000, kMinusOne = 0xBF800000;  // FP32 1.0, -1.0

/// An FP32 input of ones with -1 at [row, col], written as a .npy file the case names.
CaseSpec caseWithNegativeAt(const std::string& file, int64_t rows, int64_t cols, int64_t row, int64_t col) {
  Tensor a(DType::FP32, rows, cols);
  a.fillBits(kOne);
  a.setBitsAt(row * cols + col, kMinusOne);
  const std::string path = ::testing::TempDir() + "/" + file;
  writeNpy(path, a);
  CaseSpec spec;
  spec.tensors["a"].kind = TensorInit::Kind::File;
  spec.tensors["a"].file = path;
  return spec;
}

/// The failure kept: the kernel's Tile run stores a NaN (not the sentinel) into out[row, col].
/// Only one lane of one input decides it.
Interestingness storesNanAt(int64_t row, int64_t col) {
  return [row, col](const ReduceState& s) {
    const Function* kernel = s.program.defaultKernel();
    if (!kernel) return false;
    RunConfig config;
    config.blockNum = s.spec.blockNum;
    try {
      const KernelArgs args = buildKernelArgs(*kernel, s.spec, {});
      const RunResult r = runKernel(defaultInterpreter(*kernel), s.program, *kernel, args, config);
      const auto it = r.final.tensors.find("out");
      if (r.status != RunStatus::Ok || it == r.final.tensors.end()) return false;
      const Tensor& out = it->second;
      if (row >= out.rows || col >= out.cols) return false;
      const int64_t i = row * out.cols + col;
      const uint64_t bits = out.bitsAt(i);
      return out.written[static_cast<size_t>(i)] && !out.poison[static_cast<size_t>(i)] &&
             bits != sentinelBits(DType::FP32) && (bits & 0x7F800000) == 0x7F800000 && (bits & 0x7FFFFF) != 0;
    } catch (const std::exception&) {
      return false;
    }
  };
}

const std::string kHeader =
    "import pypto.language as pl\n\n\n@pl.program\nclass t:\n    @pl.function(type=pl.FunctionType.InCore)\n";

TEST(ReduceReducer, AFailureOfOneLaneIsReducedToASmallerShapeWithItsInputCut) {
  const std::string text = kHeader +
                           "    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],\n"
                           "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n"
                           "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                           "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                           "        m = pl.tile.maximum(y, y)\n"
                           "        s = pl.tile.sqrt(x)\n"
                           "        z = pl.tile.add(s, m)\n"
                           "        o = pl.tile.store(z, [0, 0], out)\n"
                           "        return o\n";
  ReduceState s{parseProgramText(text, "t.py"), caseWithNegativeAt("lane_a.npy", 16, 32, 0, 0)};
  verifyOrThrow(s.program);
  const Interestingness interesting = storesNanAt(0, 0);
  ASSERT_TRUE(interesting(s));
  const ReduceResult r = reduceProgram(s, interesting, {});
  EXPECT_FALSE(r.stats.timedOut);
  EXPECT_EQ(r.stats.tensorElementsBefore, 3 * 16 * 32);
  // load, sqrt, store, return on the smallest shape the alignment rules allow: one row of eight
  // FP32 columns (32 bytes, S6), the input cut to the lane that matters.
  EXPECT_EQ(printProgram(r.best.program),
            printProgram(parseProgramText(
                kHeader +
                    "    def kernel(self, a: pl.Tensor[[1, 8], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> "
                    "pl.Tensor[[1, 8], pl.FP32]:\n"
                    "        x = pl.tile.load(a, [0, 0], [1, 8])\n"
                    "        s = pl.tile.sqrt(x)\n"
                    "        o = pl.tile.store(s, [0, 0], out)\n"
                    "        return o\n",
                "expected.py")));
  EXPECT_EQ(r.stats.tensorElementsAfter, 2 * 8);
  EXPECT_LT(r.stats.tensorElementsAfter, r.stats.tensorElementsBefore);
  EXPECT_TRUE(interesting(r.best));
  const Tensor cut = readNpy(r.best.spec.tensors.at("a").file);
  ASSERT_EQ(cut.elements(), 8);
  EXPECT_EQ(cut.bitsAt(0), kMinusOne);
}

TEST(ReduceReducer, AHazardKeepsItsSignatureOnSmallerTensors) {
  // recip_in_place (a Buffer program): the overlap hazard does not depend on the shape.
  ReduceState s{parseProgramFile((hazardsuite::hazardsDir() / "recip_in_place.py").string()), {}};
  verifyOrThrow(s.program);
  const std::vector<std::string> before = failureSignatures(s, 1'000'000);
  ASSERT_FALSE(before.empty());
  const ReduceResult r = reduceProgram(s, sameSignature(before.front(), 1'000'000), {});
  EXPECT_LT(r.stats.tensorElementsAfter, r.stats.tensorElementsBefore);
  EXPECT_LT(r.stats.after.elements, r.stats.before.elements);
  const std::vector<std::string> after = failureSignatures(r.best, 1'000'000);
  EXPECT_NE(std::find(after.begin(), after.end(), before.front()), after.end()) << printProgram(r.best.program);
  std::cout << "recip_in_place: " << before.front() << ", tensor elements " << r.stats.tensorElementsBefore << " -> "
            << r.stats.tensorElementsAfter << "\n";
}

TEST(ReduceReducer, AMultiBlockFailureIsReducedToTheOneBlockThatShowsIt) {
  const std::string text = kHeader +
                           "    def kernel(self, a: pl.Tensor[[64, 32], pl.FP32],\n"
                           "               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:\n"
                           "        blk = pl.tile.get_block_idx()\n"
                           "        row = blk * 16\n"
                           "        x = pl.tile.load(a, [row, 0], [16, 32])\n"
                           "        y = pl.tile.sqrt(x)\n"
                           "        o = pl.tile.store(y, [row, 0], out)\n"
                           "        return o\n";
  // Block 2 reads the -1 at row 32.
  CaseSpec spec = caseWithNegativeAt("block_a.npy", 64, 32, 32, 0);
  spec.blockNum = 4;
  ReduceState s{parseProgramText(text, "t.py"), spec};
  verifyOrThrow(s.program);
  const Interestingness interesting = storesNanAt(32, 0);
  ASSERT_TRUE(interesting(s));
  const ReduceResult r = reduceProgram(s, interesting, {});
  EXPECT_EQ(r.stats.before.blocks, 4);
  EXPECT_EQ(r.stats.after.blocks, 1);
  EXPECT_EQ(r.best.spec.blockNum, 1);
  const std::string reduced = printProgram(r.best.program);
  EXPECT_EQ(reduced.find("get_block_idx"), std::string::npos) << reduced;
  EXPECT_TRUE(interesting(r.best));
  EXPECT_LT(r.stats.after.elements, r.stats.before.elements);
}

}  // namespace
}  // namespace ptodiff::fuzz
