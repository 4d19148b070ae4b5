// The reducer's transformations (fuzz/reduce/Transforms.h), one small program each: the candidate a
// transformation builds is compared, printed, with the program written by hand (both printed by the
// canonical printer, so only the program text matters).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"
#include "fuzz/reduce/Reducer.h"
#include "fuzz/reduce/Transforms.h"

namespace ptodiff::fuzz {
namespace {

const std::string kHeader =
    "import pypto.language as pl\n\n\n@pl.program\nclass t:\n    @pl.function(type=pl.FunctionType.InCore)\n";

/// A one-kernel program: `signature` is the `def` line's parameter list and result, `body` its statements.
std::string kernel(const std::string& params, const std::string& body) {
  return kHeader + "    def kernel(self, " + params + ":\n" + body;
}

const std::string kInOut =
    "a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> "
    "pl.Tensor[[16, 32], pl.FP32]";

ReduceState stateOf(const std::string& text, CaseSpec spec = {}) {
  ReduceState s{parseProgramText(text, "t.py"), std::move(spec)};
  verifyOrThrow(s.program);
  return s;
}

std::string canonical(const std::string& text) { return printProgram(parseProgramText(text, "expected.py")); }

/// The printed candidates of `t` on `text`, each re-parsed and verified (invalid ones are marked).
std::vector<std::string> printedCandidates(Transform t, const ReduceState& state, std::vector<std::string>* what = nullptr) {
  std::vector<std::string> out;
  for (Candidate& c : candidatesOf(t, state)) {
    if (what) what->push_back(c.what);
    out.push_back(reparseAndVerify(c.state) ? printProgram(c.state.program) : "<invalid>");
  }
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(ReduceTransforms, DeleteStatementRenamesUsesToASameTypedOperand) {
  const ReduceState s = stateOf(kernel(kInOut,
                                       "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                       "        y = pl.tile.exp(x)\n"
                                       "        z = pl.tile.add(y, x)\n"
                                       "        o = pl.tile.store(z, [0, 0], out)\n"
                                       "        return o\n"));
  std::vector<std::string> what;
  const std::vector<std::string> c = printedCandidates(Transform::DeleteStatement, s, &what);
  ASSERT_FALSE(c.empty());
  // The load has no same-typed replacement (only tensors and a scalar are live before it), so the
  // first candidate deletes the exp, the second the add (z becomes its operand y).
  EXPECT_EQ(what[0], "delete-statement at 9:9 (y = tile.exp) y -> x");
  EXPECT_EQ(c[0], canonical(kernel(kInOut,
                                   "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                   "        z = pl.tile.add(x, x)\n"
                                   "        o = pl.tile.store(z, [0, 0], out)\n"
                                   "        return o\n")));
  EXPECT_EQ(c[1], canonical(kernel(kInOut,
                                   "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                   "        y = pl.tile.exp(x)\n"
                                   "        o = pl.tile.store(y, [0, 0], out)\n"
                                   "        return o\n")));
  // The store's result o (a tensor) can become `out`, the live tensor of its type.
  EXPECT_TRUE(contains(c, canonical(kernel(kInOut,
                                           "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                           "        y = pl.tile.exp(x)\n"
                                           "        z = pl.tile.add(y, x)\n"
                                           "        return out\n"))));
}

TEST(ReduceTransforms, DeleteStatementDropsAnUnusedValueAndNeverTheReturn) {
  const ReduceState s = stateOf(kernel(kInOut,
                                       "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                       "        w = pl.tile.muls(x, 2.0)\n"
                                       "        o = pl.tile.store(x, [0, 0], out)\n"
                                       "        return o\n"));
  std::vector<std::string> what;
  const std::vector<std::string> c = printedCandidates(Transform::DeleteStatement, s, &what);
  EXPECT_TRUE(contains(c, canonical(kernel(kInOut,
                                           "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                           "        o = pl.tile.store(x, [0, 0], out)\n"
                                           "        return o\n"))));
  for (const std::string& w : what) EXPECT_EQ(w.find("(return)"), std::string::npos) << w;
}

TEST(ReduceTransforms, DeleteStatementReplacesAScalarByTheLiteralZero) {
  const ReduceState s = stateOf(kernel(kInOut,
                                       "        r = n + 1\n"
                                       "        x = pl.tile.load(a, [r, 0], [16, 32])\n"
                                       "        o = pl.tile.store(x, [0, 0], out)\n"
                                       "        return o\n"));
  const std::vector<std::string> c = printedCandidates(Transform::DeleteStatement, s);
  EXPECT_TRUE(contains(c, canonical(kernel(kInOut,
                                           "        x = pl.tile.load(a, [n, 0], [16, 32])\n"
                                           "        o = pl.tile.store(x, [0, 0], out)\n"
                                           "        return o\n"))));
  EXPECT_TRUE(contains(c, canonical(kernel(kInOut,
                                           "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                           "        o = pl.tile.store(x, [0, 0], out)\n"
                                           "        return o\n"))));
}

const std::string kLoop =
    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        for i, (acc, f) in pl.range(0, n, 1, init_values=(x, 1.0)):\n"
    "            t = pl.tile.muls(acc, f)\n"
    "            f1 = f * 0.5\n"
    "            acc2, f2 = pl.yield_(t, f1)\n"
    "        fin = pl.tile.muls(acc2, f2)\n"
    "        o = pl.tile.store(fin, [0, 0], out)\n"
    "        return o\n";

TEST(ReduceTransforms, DeleteStatementDropsALoopByItsInitialValues) {
  const std::vector<std::string> c = printedCandidates(Transform::DeleteStatement, stateOf(kernel(kInOut, kLoop)));
  EXPECT_TRUE(contains(c, canonical(kernel(kInOut,
                                           "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                           "        fin = pl.tile.muls(x, 1.0)\n"
                                           "        o = pl.tile.store(fin, [0, 0], out)\n"
                                           "        return o\n"))));
}

TEST(ReduceTransforms, InlineControlPeelsOneTripOfAForLoop) {
  std::vector<std::string> what;
  const std::vector<std::string> c = printedCandidates(Transform::InlineControl, stateOf(kernel(kInOut, kLoop)), &what);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(what[0], "inline-control at 9:9 (for) one trip");
  EXPECT_EQ(c[0], canonical(kernel(kInOut,
                                   "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                   "        t = pl.tile.muls(x, 1.0)\n"
                                   "        f1 = 1.0 * 0.5\n"
                                   "        fin = pl.tile.muls(t, f1)\n"
                                   "        o = pl.tile.store(fin, [0, 0], out)\n"
                                   "        return o\n")));
}

TEST(ReduceTransforms, DropCarryReplacesTheIterArgByItsInitialValue) {
  const std::vector<std::string> c = printedCandidates(Transform::DropCarry, stateOf(kernel(kInOut, kLoop)));
  ASSERT_EQ(c.size(), 2u);  // one per carry
  EXPECT_EQ(c[1], canonical(kernel(kInOut,
                                   "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                   "        for i, (acc,) in pl.range(0, n, 1, init_values=(x,)):\n"
                                   "            t = pl.tile.muls(acc, 1.0)\n"
                                   "            f1 = 1.0 * 0.5\n"
                                   "            acc2 = pl.yield_(t)\n"
                                   "        fin = pl.tile.muls(acc2, 1.0)\n"
                                   "        o = pl.tile.store(fin, [0, 0], out)\n"
                                   "        return o\n")));
}

const std::string kBranch =
    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        if n > 0:\n"
    "            r1 = pl.tile.adds(x, 1.0)\n"
    "            r = pl.yield_(r1)\n"
    "        else:\n"
    "            r2 = pl.tile.muls(x, 2.0)\n"
    "            r = pl.yield_(r2)\n"
    "        o = pl.tile.store(r, [0, 0], out)\n"
    "        return o\n";

TEST(ReduceTransforms, InlineControlReplacesAnIfByEitherArm) {
  std::vector<std::string> what;
  const std::vector<std::string> c = printedCandidates(Transform::InlineControl, stateOf(kernel(kInOut, kBranch)), &what);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(what[0], "inline-control at 9:9 (if) then arm");
  EXPECT_EQ(what[1], "inline-control at 9:9 (if) else arm");
  EXPECT_EQ(c[0], canonical(kernel(kInOut,
                                   "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                   "        r1 = pl.tile.adds(x, 1.0)\n"
                                   "        o = pl.tile.store(r1, [0, 0], out)\n"
                                   "        return o\n")));
  EXPECT_EQ(c[1], canonical(kernel(kInOut,
                                   "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                   "        r2 = pl.tile.muls(x, 2.0)\n"
                                   "        o = pl.tile.store(r2, [0, 0], out)\n"
                                   "        return o\n")));
}

TEST(ReduceTransforms, ParamToConstantUsesTheCasesValueAndDropParamRemovesItsCaseEntry) {
  CaseSpec spec;
  spec.scalars["n"] = CaseScalar{CaseScalar::Kind::Int, 3, 0.0, false, {}};
  const ReduceState s = stateOf(kernel(kInOut, kBranch), spec);
  std::vector<Candidate> constants = candidatesOf(Transform::ParamToConstant, s);
  ASSERT_EQ(constants.size(), 1u);
  EXPECT_EQ(constants[0].what, "param-to-constant n -> 3");
  ASSERT_TRUE(reparseAndVerify(constants[0].state));
  std::string branch3 = kBranch;
  branch3.replace(branch3.find("n > 0"), 5, "3 > 0");
  EXPECT_EQ(printProgram(constants[0].state.program), canonical(kernel(kInOut, branch3)));

  std::vector<Candidate> dropped = candidatesOf(Transform::DropParam, constants[0].state);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].what, "drop-param n");
  EXPECT_EQ(dropped[0].state.spec.scalars.count("n"), 0u);
  ASSERT_TRUE(reparseAndVerify(dropped[0].state));
  EXPECT_EQ(printProgram(dropped[0].state.program),
            canonical(kernel("a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> "
                             "pl.Tensor[[16, 32], pl.FP32]",
                             branch3)));
  // A used parameter is never dropped.
  EXPECT_TRUE(candidatesOf(Transform::DropParam, s).empty());
}

TEST(ReduceTransforms, OpToFullReplacesATileOpByAFullOfItsType) {
  const ReduceState s = stateOf(kernel(kInOut,
                                       "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                       "        y = pl.tile.exp(x)\n"
                                       "        o = pl.tile.store(y, [0, 0], out)\n"
                                       "        return o\n"));
  const std::vector<std::string> c = printedCandidates(Transform::OpToFull, s);
  ASSERT_EQ(c.size(), 2u);  // the load and the exp; the store's result is a tensor
  EXPECT_EQ(c[1], canonical(kernel(kInOut,
                                   "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                   "        y = pl.tile.full([16, 32], pl.FP32, 1.0)\n"
                                   "        o = pl.tile.store(y, [0, 0], out)\n"
                                   "        return o\n")));
}

TEST(ReduceTransforms, SimplifyScalarKeepsOneOperandOrZero) {
  const ReduceState s = stateOf(kernel(kInOut,
                                       "        r = n + 1\n"
                                       "        x = pl.tile.load(a, [r, 0], [16, 32])\n"
                                       "        o = pl.tile.store(x, [0, 0], out)\n"
                                       "        return o\n"));
  std::vector<std::string> what;
  const std::vector<std::string> c = printedCandidates(Transform::SimplifyScalar, s, &what);
  ASSERT_GE(c.size(), 3u);
  EXPECT_EQ(what[0], "simplify-scalar at 8:13 (n + 1 -> n)");
  EXPECT_EQ(what[1], "simplify-scalar at 8:13 (n + 1 -> 1)");
  EXPECT_EQ(c[0], canonical(kernel(kInOut,
                                   "        r = n\n"
                                   "        x = pl.tile.load(a, [r, 0], [16, 32])\n"
                                   "        o = pl.tile.store(x, [0, 0], out)\n"
                                   "        return o\n")));
}

TEST(ReduceTransforms, DTypeToFp32RetypesEveryFp16TypeAndDtypeArgument) {
  const auto program = [](const std::string& dt) {
    return kernel("a: pl.Tensor[[16, 32], pl." + dt + "], out: pl.Out[pl.Tensor[[16, 32], pl." + dt +
                      "]]) -> pl.Tensor[[16, 32], pl." + dt + "]",
                  "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                  "        f = pl.tile.full([16, 32], pl." + dt + ", 1.0)\n"
                  "        y = pl.tile.add(x, f)\n"
                  "        o = pl.tile.store(y, [0, 0], out)\n"
                  "        return o\n");
  };
  const ReduceState s = stateOf(program("FP16"));
  std::vector<std::string> what;
  const std::vector<std::string> c = printedCandidates(Transform::DTypeToFp32, s, &what);
  ASSERT_EQ(c.size(), 1u);  // no BF16 in the program
  EXPECT_EQ(what[0], "dtype-to-fp32 FP16");
  EXPECT_EQ(c[0], canonical(program("FP32")));
  EXPECT_LT(measureProgram(stateOf(program("FP32")).program), measureProgram(s.program));
  EXPECT_TRUE(candidatesOf(Transform::DTypeToFp32, stateOf(program("FP32"))).empty());
}

TEST(ReduceTransforms, DropFunctionKeepsTheKernelAndNamesItInTheCase) {
  const std::string text = kHeader +
                           "    def kernel(self, " + kInOut + ":\n"
                           "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                           "        o = pl.tile.store(x, [0, 0], out)\n"
                           "        return o\n\n"
                           "    @pl.function(type=pl.FunctionType.InCore)\n"
                           "    def helper(self, " + kInOut + ":\n"
                           "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                           "        o = pl.tile.store(x, [0, 0], out)\n"
                           "        return o\n";
  std::vector<Candidate> c = candidatesOf(Transform::DropFunction, stateOf(text));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].what, "drop-function helper");
  EXPECT_EQ(c[0].state.spec.function, "kernel");
  ASSERT_EQ(c[0].state.program.functions.size(), 1u);
  EXPECT_EQ(c[0].state.program.functions[0].name, "kernel");
}

TEST(ReduceTransforms, ProgramSizeOrdersStatementsBeforeOpsBeforeNames) {
  const ProgramSize loop = measureProgram(stateOf(kernel(kInOut, kLoop)).program);
  EXPECT_EQ(loop.statements, 8);  // load, for (+3 inside), muls, store, return
  EXPECT_EQ(loop.ops, 4);         // load, muls, muls, store
  EXPECT_LT((ProgramSize{2, 9, 9, 9}), (ProgramSize{3, 0, 0, 0}));
  EXPECT_EQ(tensorElements(stateOf(kernel(kInOut, kLoop)).program), 2 * 16 * 32);
}

}  // namespace
}  // namespace ptodiff::fuzz
