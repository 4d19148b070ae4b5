// MaterializeSemanticAliases (seed 003): its diagnostics, its place in the pipeline, and
// properties over every program of tests/programs and every golden input of tests/golden/lower x 3
// planners x 2 targets: the pass is idempotent, its output passes the verifier, its postcondition
// and VerifyTileStorage (no L9 rejection is left), and every selected kernel lowers to Buffer IR.
// The goldens tests/golden/lower/msa_*.py show its output on seed 003's examples.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "compiler/passes/MaterializeSemanticAliases.h"
#include "compiler/passes/PassManager.h"
#include "compiler/passes/SelectBufferIRFunctions.h"
#include "compiler/text/Printer.h"
#include "tests/unit/compiler/PassTestSupport.h"
#include "tests/unit/compiler/PlannerStorageOracle.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;
using namespace testsupport;

std::string errorOf(const Program& p, const PassContext& c, const std::string& stopAfter) {
  try {
    lowerUpTo(p, c, stopAfter);
  } catch (const DiagnosticError& e) {
    return e.diagnostic().message;
  }
  return "";
}

const Function& kernelOf(const Program& p) { return *p.findFunction("kernel"); }

// ---- pipeline place (A2, S2) ----

TEST(MaterializeSemanticAliases, RunsBetweenSelectionAndPlanning) {
  std::vector<std::string> names = loweringPassNames();
  auto at = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  EXPECT_EQ(at("MaterializeSemanticAliases"), at("SelectBufferIRFunctions") + 1);
  EXPECT_EQ(at("PlanMemory"), at("MaterializeSemanticAliases") + 1);
}

// ---- diagnostics (L11, M11, M14, B13) ----

// Two Acc carries swapped on every trip: the transfers need Acc -> Acc copies (a snapshot and a
// move each), which no target performs. Selection keeps the kernel on Tile (L11) ...
constexpr const char* kAccCarryParams =
    "a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], n: pl.Scalar[pl.INDEX], "
    "out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]";
std::string accCarryBody(bool preselected) {
  std::string body =
      "        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        bm = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        l = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
      "        r = pl.tile.move(bm, target_memory=pl.Mem.Right)\n"
      "        c0 = pl.tile.matmul(l, r)\n"
      "        d0 = pl.tile.matmul(l, r)\n"
      "        for i, (c, d) in pl.range(n, init_values=(c0, d0)):\n"
      "            c1, d1 = pl.yield_(d, c)\n"
      "        o0 = pl.tile.store(c1, [0, 0], out)\n"
      "        o1 = pl.tile.store(d1, [16, 0], o0)\n"
      "        return o1\n";
  std::string program = kernelProgram(kAccCarryParams, body, "pl.Tensor[[32, 16], pl.FP32]");
  if (preselected) {
    size_t at = program.find("type=pl.FunctionType.InCore");
    program.insert(at + std::string("type=pl.FunctionType.InCore").size(), ", buffer_ir_selected=True");
  }
  return program;
}

TEST(MaterializeSemanticAliases, SelectionKeepsAKernelNeedingAnAccCopyOnTile) {
  Program p = parseVerified(accCarryBody(false));
  Program planned = lowerUpTo(p, contextFor(), "InitMemRef");
  SelectionVerdict v = decideBufferIRSelection(kernelOf(planned), contextFor());
  ASSERT_FALSE(v.selected);
  ASSERT_EQ(v.reasons.size(), 1u) << describeReasons(v);
  EXPECT_EQ(v.reasons[0].rule, "L11");
  EXPECT_EQ(v.reasons[0].loc.line, 12u);  // the yield operand `d`
}

// ... and on the Tile path the loop is left as it was (VerifyTileStorage's L9 check stays the net;
// here the carries are only rebound, nothing is rewritten, so the plan is sound and accepted).
TEST(MaterializeSemanticAliases, LeavesAnUnselectedLoopNeedingAnAccCopyAsItWas) {
  Program p = parseVerified(accCarryBody(false));
  PassContext c = contextFor();
  Program before = lowerUpTo(p, c, "SelectBufferIRFunctions");
  Program after = lowerUpTo(p, c, "MaterializeSemanticAliases");
  EXPECT_TRUE(structurallyEqual(before, after)) << firstDifference(before, after);
  EXPECT_EQ(errorOf(p, c, "VerifyTileStorage"), "");
}

// A kernel already marked selected (an existing verdict is kept, S2) is rejected before any copy.
TEST(MaterializeSemanticAliases, RejectsANeededAccCopyOnASelectedKernelBeforeCopying) {
  Program p = parseVerified(accCarryBody(true));
  EXPECT_EQ(errorOf(p, contextFor(), "MaterializeSemanticAliases"),
            "MaterializeSemanticAliases: [L11]: the backedge value 'd' of carry 'c' lives in other storage, so a "
            "transfer into the carry (L9) needs a Acc -> Acc copy, which the target cannot perform (M11, M14: only "
            "Vec tiles are copied by tile.move); expected the carried storage to stay one alias");
}

// B13: an Acc branch result whose arms yield different storage needs an Acc -> Acc move.
TEST(MaterializeSemanticAliases, RejectsADivergentAccBranchOnASelectedKernel) {
  std::string body =
      "        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        bm = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        l = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
      "        r = pl.tile.move(bm, target_memory=pl.Mem.Right)\n"
      "        c0 = pl.tile.matmul(l, r)\n"
      "        c1 = pl.tile.matmul(l, r)\n"
      "        if n > 0:\n"
      "            h = pl.yield_(c0)\n"
      "        else:\n"
      "            h = pl.yield_(c1)\n"
      "        o0 = pl.tile.store(h, [0, 0], out)\n"
      "        return o0\n";
  std::string program = kernelProgram(kAccCarryParams, body, "pl.Tensor[[32, 16], pl.FP32]");
  Program unselected = parseVerified(program);
  Program planned = lowerUpTo(unselected, contextFor(), "InitMemRef");
  SelectionVerdict v = decideBufferIRSelection(kernelOf(planned), contextFor());
  ASSERT_FALSE(v.selected);
  EXPECT_EQ(v.reasons.at(0).rule, "B13");
  size_t at = program.find("type=pl.FunctionType.InCore");
  program.insert(at + std::string("type=pl.FunctionType.InCore").size(), ", buffer_ir_selected=True");
  Program selected = parseVerified(program);
  EXPECT_EQ(errorOf(selected, contextFor(), "MaterializeSemanticAliases"),
            "MaterializeSemanticAliases: [B13]: the arms of the if yield 'c0' and 'c1' for result 'h' in different "
            "storage; one destination needs a Acc copy, which the target cannot perform (L11, M14)");
}

// The postcondition (verify-each): a Vec carry whose initializer and backedge value name different
// storage is reported, naming the carry.
TEST(MaterializeSemanticAliases, PostconditionReportsACarryWithoutOneStorage) {
  const std::string text =
      "@pl.program\nclass t:\n    @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=True)\n"
      "    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], "
      "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n"
      "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)\n"
      "        m1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)\n"
      "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        for i, (c,) in pl.range(n, init_values=(x,)):\n"
      "            x1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m1, 0, 2048), pl.Mem.Vec] = pl.tile.adds(c, 1.0)\n"
      "            c1 = pl.yield_(x1)\n"
      "        o = pl.tile.store(c1, [0, 0], out)\n        return o\n";
  Program p = parseVerified(text);
  std::vector<Diagnostic> d = checkSemanticAliases(p);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message,
            "MaterializeSemanticAliases left loop carry 'c' without one storage shared by everything bound to it");
  EXPECT_EQ(d[0].loc.line, 8u);
  // Running the pass legalizes it: x1 writes the carry storage (A3) and the postcondition holds.
  std::unique_ptr<Pass> msa = createMaterializeSemanticAliasesPass();
  EXPECT_TRUE(msa->run(p, contextFor()));
  verifyOrThrow(p);
  EXPECT_TRUE(checkSemanticAliases(p).empty()) << printProgram(p);
}

// ---- behaviour on small kernels ----

constexpr const char* kVecParams =
    "a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]";

/// `body` with its placeholder `hole` replaced by `text`.
std::string filled(std::string body, const std::string& hole, const std::string& text) {
  body.replace(body.find(hole), hole.size(), text);
  return body;
}

/// The statement lines of the kernel after MaterializeSemanticAliases, printed.
std::string afterMsa(const std::string& body) {
  Program p = parseVerified(kernelProgram(kVecParams, body));
  return printProgram(lowerUpTo(p, contextFor(), "MaterializeSemanticAliases"));
}

// A3: an accumulator whose input nothing else reads is updated in place: no copy at all.
TEST(MaterializeSemanticAliases, AccumulatorWritesTheCarryStorageInPlace) {
  std::string out = afterMsa(
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        for i, (acc,) in pl.range(n, init_values=(x,)):\n"
      "            acc1 = pl.tile.adds(acc, 1.0)\n"
      "            acc2 = pl.yield_(acc1)\n"
      "        o = pl.tile.store(acc2, [0, 0], out)\n"
      "        return o\n");
  EXPECT_EQ(out.find("pl.tile.move"), std::string::npos) << out;
  EXPECT_NE(out.find("acc1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048)"), std::string::npos) << out;
  EXPECT_EQ(out.find("mem_vec_1"), std::string::npos) << out;  // acc1's own allocation was deleted
}

// A3 safety: a read of the carry after the producer forbids retargeting (the read would see the
// new value): the producer keeps its storage and a transfer writes the carry before the yield.
TEST(MaterializeSemanticAliases, ReadOfTheCarryAfterTheProducerForcesATransfer) {
  std::string out = afterMsa(
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        for i, (acc,) in pl.range(n, init_values=(x,)):\n"
      "            acc1 = pl.tile.adds(acc, 1.0)\n"
      "            acc3 = pl.tile.sub(acc1, acc)\n"
      "            acc2 = pl.yield_(acc3)\n"
      "        o = pl.tile.store(acc2, [0, 0], out)\n"
      "        return o\n");
  // acc3 reads acc after acc1, so acc1 may not write the carry; acc3 is the backedge value and is
  // retargeted (sub is in-place safe, reading the carry storage exactly).
  EXPECT_NE(out.find("acc3: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048)"), std::string::npos) << out;
  EXPECT_NE(out.find("acc1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048)"), std::string::npos) << out;
}

// recip never writes over its input (S13): reading the carry, it cannot be retargeted onto it.
TEST(MaterializeSemanticAliases, RecipReadingTheCarryIsNotRetargetedOntoIt) {
  std::string out = afterMsa(
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        for i, (acc,) in pl.range(n, init_values=(x,)):\n"
      "            acc1 = pl.tile.recip(acc)\n"
      "            acc2 = pl.yield_(acc1)\n"
      "        o = pl.tile.store(acc2, [0, 0], out)\n"
      "        return o\n");
  EXPECT_NE(out.find("acc1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048)"), std::string::npos) << out;
  size_t move = out.find("acc_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.move(");
  ASSERT_NE(move, std::string::npos) << out;
  // The transfer copies acc1 (the printer may wrap the call's arguments onto the next line).
  EXPECT_NE(out.find("acc1, target_memory=pl.Mem.Vec", move), std::string::npos) << out;
  EXPECT_NE(out.find("acc2 = pl.yield_(acc_next)"), std::string::npos) << out;
}

// W13: a slice is a window even when it covers the whole carry, and an arithmetic result may not
// take the storage of a window it reads, so abs of the slice keeps its own storage and a transfer
// writes the carry (5-minute campaign of 2026-12-01, seed 2, case 22430: VerifyTileStorage [L9]).
TEST(MaterializeSemanticAliases, ElementwiseOfAWholeCarrySliceIsNotRetargetedOntoIt) {
  std::string out = afterMsa(
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        for i, (acc,) in pl.range(n, init_values=(x,)):\n"
      "            w = pl.tile.slice(acc, [16, 32], [0, 0])\n"
      "            acc1 = pl.tile.abs(w)\n"
      "            acc2 = pl.yield_(acc1)\n"
      "        o = pl.tile.store(acc2, [0, 0], out)\n"
      "        return o\n");
  EXPECT_NE(out.find("w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048)"), std::string::npos) << out;
  EXPECT_NE(out.find("acc1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048)"), std::string::npos) << out;
  EXPECT_NE(out.find("acc2 = pl.yield_(acc_next)"), std::string::npos) << out;
}

// L3 with A8's "later iteration": `v` only forwards `x`'s storage, but the While binds it again on
// its next trip, after the For loop rewrote that storage, and hands it to the For loop as its input:
// the input needs an entry copy (20-minute campaign of 2026-12-01, seed 4, case 27491: a yield
// transfer overwrote the tile the next trip re-read, hazard live-clobber under every planner).
TEST(MaterializeSemanticAliases, AViewReboundByAnEnclosingLoopGetsAnEntryCopy) {
  std::string out = afterMsa(
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        o = pl.tile.store(x, [0, 0], out)\n"
      "        for (k,) in pl.while_(init_values=(0,)):\n"
      "            pl.cond(k < 2)\n"
      "            v = pl.tile.set_validshape(x, 16, 32)\n"
      "            for i, (acc,) in pl.range(n, init_values=(v,)):\n"
      "                acc1 = pl.tile.adds(acc, 1.0)\n"
      "                acc2 = pl.yield_(acc1)\n"
      "            k1 = k + 1\n"
      "            r = pl.yield_(k1)\n"
      "        return o\n");
  EXPECT_NE(out.find("for i, (acc,) in pl.range(n, init_values=(v_in,))"), std::string::npos) << out;
  EXPECT_NE(out.find("x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048)"), std::string::npos) << out;
  EXPECT_EQ(out.find("acc1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0,"), std::string::npos) << out;
}

// A3 refused through a relabel too: `t17` has the carry's own type after a reshape round trip, but
// VerifyTileStorage reads it as an earlier version of the carry storage, so the add keeps its own
// storage and a transfer writes the carry (15-minute campaign of 2026-12-01 evening, seed 9, case
// 92997: VerifyTileStorage [L9] under every planner).
TEST(MaterializeSemanticAliases, ElementwiseOfAReshapeRoundTripOfTheCarryIsNotRetargetedOntoIt) {
  std::string out = afterMsa(
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        for i, (acc,) in pl.range(n, init_values=(x,)):\n"
      "            w = pl.tile.reshape(acc, [32, 16])\n"
      "            v = pl.tile.reshape(w, [16, 32])\n"
      "            acc1 = pl.tile.add(v, v)\n"
      "            acc2 = pl.yield_(acc1)\n"
      "        o = pl.tile.store(acc2, [0, 0], out)\n"
      "        return o\n");
  EXPECT_NE(out.find("acc1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048)"), std::string::npos) << out;
  EXPECT_NE(out.find("acc2 = pl.yield_(acc_next)"), std::string::npos) << out;
}

/// afterMsa for a kernel on the Tile path (buffer IR off, S1).
std::string afterMsaOnTile(const std::string& body) {
  Program p = parseVerified(kernelProgram(kVecParams, body));
  return printProgram(lowerUpTo(p, contextFor(Planner::PYPTO, targetA2A3(), false), "MaterializeSemanticAliases"));
}

// C13 holds while every arm is a whole allocation of the result's type: the result keeps the then
// arm's storage and the arms yield as written. A window arm (here the upper half of a 32-row tile:
// a part of its root) has an offset and span no one MemRef states for both arms, so the result
// gets a root of its own and each arm a transfer (2026-12-02, seed 20: a setter of the result left
// its MemRef window when the window arm ran).
TEST(MaterializeSemanticAliases, ATilePathBranchResultOfAWindowArmGetsARootOfItsOwn) {
  const std::string body =
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y = pl.tile.exp(x)\n"
      "        b = pl.tile.full([32, 32], dtype=pl.FP32, value=1.0)\n"
      "        w = pl.tile.slice(b, [16, 32], [16, 0])\n"
      "        if n > 0:\n"
      "            r = pl.yield_(y)\n"
      "        else:\n"
      "            r = pl.yield_(ELSE)\n"
      "        v = pl.tile.set_validshape(r, 8, 32)\n"
      "        o = pl.tile.store(v, [0, 0], out)\n"
      "        return o\n";
  auto with = [&](const std::string& elseValue) { return afterMsaOnTile(filled(body, "ELSE", elseValue)); };
  const std::string wholeArms = with("x");
  EXPECT_EQ(wholeArms.find("_next"), std::string::npos) << wholeArms;
  EXPECT_NE(wholeArms.find("r = pl.yield_(x)"), std::string::npos) << wholeArms;
  const std::string windowArm = with("w");
  EXPECT_NE(windowArm.find("r = pl.yield_(r_next)"), std::string::npos) << windowArm;
  EXPECT_EQ(windowArm.find("r = pl.yield_(w)"), std::string::npos) << windowArm;
}

// A carry bound to a window of a wider tile (24 of 32 columns) gets a dense entry copy: a setter
// of the loop result shares the copy's MemRef (288 bytes), a slice of it sits at the copy's
// 96-byte pitch; both kept the window's 352-byte span and 128-byte pitch before (2026-12-02,
// seed 20: VerifyTileStorage [P14] "outside root").
TEST(MaterializeSemanticAliases, ViewsOfAWindowCarryFollowItsDenseEntryCopy) {
  const std::string out = afterMsaOnTile(
      "        b = pl.tile.full([32, 32], dtype=pl.FP32, value=0.5)\n"
      "        t = pl.tile.slice(b, [3, 24], [0, 0])\n"
      "        for i, (c,) in pl.range(n, init_values=(t,)):\n"
      "            d = pl.tile.adds(c, 1.0)\n"
      "            r = pl.yield_(d)\n"
      "        v = pl.tile.set_validshape(r, 1, 8)\n"
      "        s = pl.tile.slice(r, [1, 8], [1, 8])\n"
      "        o = pl.tile.store(s, [0, 0], out)\n"
      "        o2 = pl.tile.store(v, [8, 0], o)\n"
      "        return o2\n");
  std::smatch copy;
  ASSERT_TRUE(std::regex_search(out, copy, std::regex(R"(t_in: pl.Tile\[\[3, 24\], pl.FP32, pl.MemRef\((mem_vec_\d+), 0, 288\))")))
      << out;
  const std::string root = copy[1];
  EXPECT_NE(out.find("v: pl.Tile[[3, 24], pl.FP32, pl.MemRef(" + root + ", 0, 288)"), std::string::npos) << out;
  EXPECT_NE(out.find("s: pl.Tile[[1, 8], pl.FP32, pl.MemRef(" + root + ", 128, 32)"), std::string::npos) << out;
}

// A slice of such a slice (directly, and through a setter) sits in the same dense frame at the sum of
// the offsets: the inner slice kept its place relative to the outer one at the window's pitch, 32
// elements a row, and left the outer slice's MemRef (VerifyTileStorage [P18] under every planner;
// 5-minute campaign of 2026-12-02, seed 27, once loops of kernels outside the contract carried windows).
TEST(MaterializeSemanticAliases, SlicesOfSlicesOfAWindowCarryFollowItsDenseEntryCopy) {
  const std::string out = afterMsaOnTile(
      "        b = pl.tile.full([32, 32], dtype=pl.FP32, value=0.5)\n"
      "        t = pl.tile.slice(b, [3, 24], [0, 0])\n"
      "        for i, (c,) in pl.range(n, init_values=(t,)):\n"
      "            d = pl.tile.adds(c, 1.0)\n"
      "            r = pl.yield_(d)\n"
      "        s = pl.tile.slice(r, [3, 16], [0, 8])\n"
      "        s2 = pl.tile.slice(s, [1, 8], [2, 8])\n"
      "        v = pl.tile.set_validshape(s, 2, 8)\n"
      "        s3 = pl.tile.slice(v, [2, 8], [1, 0])\n"
      "        o = pl.tile.store(s2, [0, 0], out)\n"
      "        o2 = pl.tile.store(s3, [8, 0], o)\n"
      "        return o2\n");
  std::smatch copy;
  ASSERT_TRUE(std::regex_search(out, copy, std::regex(R"(t_in: pl.Tile\[\[3, 24\], pl.FP32, pl.MemRef\((mem_vec_\d+), 0, 288\))")))
      << out;
  const std::string root = copy[1];
  // s at (0, 8) of the dense [3, 24] copy: 32 bytes in, 2 rows of 96 bytes and 16 elements.
  EXPECT_NE(out.find("s: pl.Tile[[3, 16], pl.FP32, pl.MemRef(" + root + ", 32, 256)"), std::string::npos) << out;
  // s2 at (2, 16) of the copy: 2 * 96 + 16 * 4 = 256.
  EXPECT_NE(out.find("s2: pl.Tile[[1, 8], pl.FP32, pl.MemRef(" + root + ", 256, 32)"), std::string::npos) << out;
  EXPECT_NE(out.find("v: pl.Tile[[3, 16], pl.FP32, pl.MemRef(" + root + ", 32, 256)"), std::string::npos) << out;
  // s3 at (1, 8) of the copy: 96 + 32 = 128, two rows of 8 at pitch 24: 96 + 32 bytes.
  EXPECT_NE(out.find("s3: pl.Tile[[2, 8], pl.FP32, pl.MemRef(" + root + ", 128, 128)"), std::string::npos) << out;
}

// A backedge slice covering the whole carry names the carry storage exactly, which on the Tile path
// needs no transfer; a selected kernel's Buffer lowering yields no window (S19), so there it is
// transferred like other storage, snapshot first (6-minute campaign of 2026-12-02, seed 29, once
// in-contract loops carried windows: LowerTileToBuffer rejected the selected kernel, [S19]).
TEST(MaterializeSemanticAliases, ASelectedKernelTransfersAWholeCarrySliceItYields) {
  const std::string body =
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        for i, (c,) in pl.range(n, init_values=(x,)):\n"
      "            w = pl.tile.slice(c, [16, 32], [0, 0])\n"
      "            r = pl.yield_(w)\n"
      "        o = pl.tile.store(r, [0, 0], out)\n"
      "        return o\n";
  const std::string selected = afterMsa(body);
  EXPECT_NE(selected.find("buffer_ir_selected=True"), std::string::npos) << selected;
  // The slice is the destination's bytes: a snapshot in a root of its own comes first.
  EXPECT_NE(selected.find("w_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = "
                          "pl.tile.move("),
            std::string::npos)
      << selected;
  EXPECT_NE(selected.find("r = pl.yield_(c_next)"), std::string::npos) << selected;
  const std::string onTile = afterMsaOnTile(body);
  EXPECT_NE(onTile.find("r = pl.yield_(w)"), std::string::npos) << onTile;
  EXPECT_EQ(onTile.find("pl.tile.move"), std::string::npos) << onTile;
}

// A3 refused onto a window bound to the carry through a branch result: both arms yield the slice
// `t` (one exact window, B1), the loop carries it without an entry copy, and `abs` of the carry
// would write the slice's storage, which VerifyTileStorage sees as the slice's identity ([L9];
// 2026-12-02, seed 20). In a selected kernel the arms copy the window instead (the Buffer path
// yields no window, S19).
TEST(MaterializeSemanticAliases, NoRetargetOntoAWindowABranchResultCarries) {
  const std::string body =
      "        b = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)\n"
      "        t = pl.tile.slice(b, [16, 32], [0, 0])\n"
      "        if n > 0:\n"
      "            r = pl.yield_(t)\n"
      "        else:\n"
      "            r = pl.yield_(t)\n"
      "        for i, (c,) in pl.range(1, init_values=(r,)):\n"
      "            d = pl.tile.abs(c)\n"
      "            e = pl.yield_(d)\n"
      "        o = pl.tile.store(e, [0, 0], out)\n"
      "        return o\n";
  const std::string onTile = afterMsaOnTile(body);
  EXPECT_NE(onTile.find("e = pl.yield_(c_next)"), std::string::npos) << onTile;
  EXPECT_NE(onTile.find("r = pl.yield_(t)"), std::string::npos) << onTile;
  const std::string selected = afterMsa(body);
  EXPECT_NE(selected.find("buffer_ir_selected=True"), std::string::npos) << selected;
  EXPECT_EQ(selected.find("r = pl.yield_(t)"), std::string::npos) << selected;
}

// A15 beyond accumulators: a loop in one arm of an If carries its input in place when only the
// other arm reads it (no run does both); a read after the If still needs the entry copy (L3).
TEST(MaterializeSemanticAliases, TheOtherArmsReadNeedsNoEntryCopy) {
  const std::string body =
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        if n > 0:\n"
      "            for i, (c,) in pl.range(n, init_values=(x,)):\n"
      "                c1 = pl.tile.adds(c, 1.0)\n"
      "                c2 = pl.yield_(c1)\n"
      "            r = pl.yield_(c2)\n"
      "        else:\n"
      "            y = pl.tile.exp(x)\n"
      "            r = pl.yield_(y)\n"
      "        USE\n"
      "        o = pl.tile.store(w, [0, 0], out)\n"
      "        return o\n";
  auto with = [&](const std::string& use) { return afterMsa(filled(body, "USE", use)); };
  const std::string inPlace = with("w = pl.tile.abs(r)");
  EXPECT_NE(inPlace.find("buffer_ir_selected=True"), std::string::npos) << inPlace;
  EXPECT_EQ(inPlace.find("x_in"), std::string::npos) << inPlace;
  const std::string copied = with("w = pl.tile.add(r, x)");
  EXPECT_NE(copied.find("x_in"), std::string::npos) << copied;
}

// InitMemRef ran the assemble in place on `r`, whose arms were both `x`'s storage then; the entry
// copy the loop in the then arm needs (that arm reads `x` after the loop) moves that arm, so the arms
// meet in a root of their own, which the assemble updates (10-minute campaign of 2026-12-02, seed
// 22: kept on entry, the assemble started from a valid-region copy when the else arm ran, and a
// growing setter read poison). Without the in-place update the result keeps the storage on entry.
TEST(MaterializeSemanticAliases, ABranchResultUpdatedInPlaceWhoseArmsPartGetsARootOfItsOwn) {
  const std::string body =
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        if n > 0:\n"
      "            for i, (c,) in pl.range(2, init_values=(x,)):\n"
      "                c1 = pl.yield_(c)\n"
      "            z = pl.tile.add(x, x)\n"
      "            r = pl.yield_(c1)\n"
      "        else:\n"
      "            r = pl.yield_(x)\n"
      "        v = pl.tile.set_validshape(r, 1, 2)\n"
      "        s = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)\n"
      "        g = USE\n"
      "        w = pl.tile.set_validshape(g, 2, 1)\n"
      "        o = pl.tile.store(w, [0, 0], out)\n"
      "        return o\n";
  auto with = [&](const std::string& use) { return afterMsaOnTile(filled(body, "USE", use)); };
  const std::string updated = with("pl.tile.assemble(v, s, [0, 0])");
  EXPECT_NE(updated.find("x_in"), std::string::npos) << updated;
  EXPECT_NE(updated.find("r = pl.yield_(r_next)"), std::string::npos) << updated;
  const std::string read = with("pl.tile.add(v, v)");
  EXPECT_NE(read.find("x_in"), std::string::npos) << read;
  EXPECT_EQ(read.find("r_next"), std::string::npos) << read;
}

// L2: an observable input is copied before the loop, so zero trips still see it.
TEST(MaterializeSemanticAliases, EntryCopyPrecedesTheLoop) {
  std::string out = afterMsa(
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        for i, (acc,) in pl.range(n, init_values=(x,)):\n"
      "            acc1 = pl.tile.adds(acc, 1.0)\n"
      "            acc2 = pl.yield_(acc1)\n"
      "        d = pl.tile.sub(acc2, x)\n"
      "        o = pl.tile.store(d, [0, 0], out)\n"
      "        return o\n");
  size_t copy = out.find("x_in: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_");
  size_t loop = out.find("for i, (acc,) in pl.range(n, init_values=(x_in,))");
  ASSERT_NE(copy, std::string::npos) << out;
  ASSERT_NE(loop, std::string::npos) << out;
  EXPECT_LT(copy, loop);
}

// ---- copies keep the lanes a later point can read (semantics.md §2: move copies the valid region) ----

/// The statement lines of the kernel from the line starting with `from` up to (excluding) the line
/// starting with `to`, with the printer's line wrapping undone.
std::string linesBetween(const std::string& printed, const std::string& from, const std::string& to) {
  std::string joined;
  for (size_t at = 0; at < printed.size();) {
    size_t end = printed.find('\n', at);
    if (end == std::string::npos) end = printed.size();
    std::string line = printed.substr(at, end - at);
    at = end + 1;
    size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    line = line.substr(first);
    const bool continuation = !joined.empty() && joined.back() != '\n' && (line == ")" || joined.back() == '(');
    if (!joined.empty() && !continuation) joined += '\n';
    joined += line;
  }
  joined += '\n';
  size_t begin = joined.find("\n" + from);
  size_t stop = begin == std::string::npos ? begin : joined.find("\n" + to, begin + 1);
  if (stop == std::string::npos) return "<no lines from '" + from + "' to '" + to + "' in>\n" + printed;
  return joined.substr(begin + 1, stop - begin);
}

// A narrowed init copied before the loop, grown again after it: the Tile run stores the loaded
// columns 23..31 of row 0 (the setter's exposed lanes keep their state), so the entry copy must
// carry them too (the fuzz campaign's seed 3 case 189, minimized).
constexpr const char* kGrowAfterLoop =
    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        t = pl.tile.set_validshape(x, 1, 23)\n"
    "        for i, (c,) in pl.range(n, init_values=(t,)):\n"
    "            r = pl.yield_(c)\n"
    "        o0 = pl.tile.store(t, [0, 0], out)\n"
    "        g = pl.tile.set_validshape(r, 16, 32)\n"
    "        o1 = pl.tile.store(g, [0, 0], o0)\n"
    "        return o1\n";

TEST(MaterializeSemanticAliases, EntryCopyOfANarrowedTileCopiesTheWholeTileWhenASetterMayGrowIt) {
  EXPECT_EQ(linesBetween(afterMsa(kGrowAfterLoop), "t_in_whole_src", "for i"),
            "t_in_whole_src: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = "
            "pl.tile.set_validshape(t, 16, 32)\n"
            "t_in_whole: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = "
            "pl.tile.move(t_in_whole_src, target_memory=pl.Mem.Vec)\n"
            "t_in: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec, "
            "pl.TileView(valid_shape=[1, 23])] = pl.tile.set_validshape(t_in_whole, 1, 23)\n");
}

/// `ptodiff run` of `programText` with `scalars` (JSON members): every planner's planned-Tile run
/// must be clean and equal the Tile run (semantics.md §3); before the whole-tile copy it was
/// hazard/uninit.
void expectEveryPlannerAgrees(const std::string& programText, const std::string& scalars) {
  std::string stem = testing::UnitTest::GetInstance()->current_test_info()->name() + std::string("_") + scalars;
  for (char& ch : stem)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  const std::string dir = testing::TempDir() + "/" + stem;
  fs::create_directories(dir);
  const std::string program = dir + "/k.py", out = dir + "/run.out";
  std::ofstream(program) << programText;
  std::ofstream(dir + "/k.case.json") << "{\"scalars\": {" << scalars << "}}\n";
  const std::string command = std::string(PTODIFF_BINARY) + " run " + program + " --planner all > " + out + " 2>&1";
  const int raw = std::system(command.c_str());
  const std::string text = readText(out);
  ASSERT_TRUE(WIFEXITED(raw)) << text;
  EXPECT_EQ(WEXITSTATUS(raw), 0) << text;
  for (const char* planner : {"PYPTO ", "DSA_RP", "PTOAS "})
    EXPECT_NE(text.find(std::string(planner) + "   planned  pass"), std::string::npos) << planner << "\n" << text;
  EXPECT_NE(text.find("result: pass"), std::string::npos) << text;
}

TEST(MaterializeSemanticAliases, GrowingAnEntryCopiedCarryAgreesWithTheTileRunUnderEveryPlanner) {
  const std::string program = "import pypto.language as pl\n\n" + kernelProgram(kVecParams, kGrowAfterLoop);
  expectEveryPlannerAgrees(program, "\"n\": 0");
  expectEveryPlannerAgrees(program, "\"n\": 1");
}

// The golden's swapped carries (snapshots and transfers of whole tiles) and runtime valid rows.
TEST(MaterializeSemanticAliases, TheWholeCopiesGoldenAgreesWithTheTileRunUnderEveryPlanner) {
  const std::string program = goldenInput(readText(fs::path(PTODIFF_TESTS_DIR) / "golden/lower/msa_whole_copies.py"));
  expectEveryPlannerAgrees(program, "\"n\": 0, \"v\": 3");
  expectEveryPlannerAgrees(program, "\"n\": 3, \"v\": 5");
}

// A runtime valid extent the kernel names is stated by the copy's setters as that name.
TEST(MaterializeSemanticAliases, WholeTileCopyStatesARuntimeValidExtentByItsName) {
  Program p = parseVerified(kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], v: pl.Scalar[pl.INDEX], "
      "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        t = pl.tile.set_validshape(x, v, 32)\n"
      "        for i, (c,) in pl.range(n, init_values=(t,)):\n"
      "            r = pl.yield_(c)\n"
      "        o0 = pl.tile.store(t, [0, 0], out)\n"
      "        g = pl.tile.set_validshape(r, 16, 32)\n"
      "        o1 = pl.tile.store(g, [0, 0], o0)\n"
      "        return o1\n"));
  const std::string out = printProgram(lowerUpTo(p, contextFor(), "MaterializeSemanticAliases"));
  EXPECT_EQ(linesBetween(out, "t_in_whole_src", "for i"),
            "t_in_whole_src: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = "
            "pl.tile.set_validshape(t, 16, 32)\n"
            "t_in_whole: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = "
            "pl.tile.move(t_in_whole_src, target_memory=pl.Mem.Vec)\n"
            "t_in: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec, "
            "pl.TileView(valid_shape=[v, 32])] = pl.tile.set_validshape(t_in_whole, v, 32)\n");
}

// Without an op that reads lanes outside a valid region (no setter, assemble or binary op with
// operands of different valid regions), the copy of the valid region is exact: one move, as before.
TEST(MaterializeSemanticAliases, EntryCopyStaysOneMoveWhenNoOpReadsInvalidLanes) {
  std::string out = afterMsa(
      "        t = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[1, 23])\n"
      "        for i, (c,) in pl.range(n, init_values=(t,)):\n"
      "            c1 = pl.tile.adds(c, 1.0)\n"
      "            r = pl.yield_(c1)\n"
      "        o0 = pl.tile.store(t, [0, 0], out)\n"
      "        o1 = pl.tile.store(r, [0, 0], o0)\n"
      "        return o1\n");
  // mem_vec_1 is c1's own storage (InitMemRef), the copy gets the next root.
  EXPECT_EQ(linesBetween(out, "t_in", "for i"),
            "t_in: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec, "
            "pl.TileView(valid_shape=[1, 23])] = pl.tile.move(t, target_memory=pl.Mem.Vec)\n");
  EXPECT_EQ(out.find("_whole"), std::string::npos) << out;
}

// ---- properties over the suite ----

struct MsaCase {
  fs::path path;
  Planner planner;
  const Target* target;
  std::string name;
};

void PrintTo(const MsaCase& c, std::ostream* os) { *os << c.name; }

std::vector<MsaCase> allCases() {
  std::vector<fs::path> files = suitePrograms();
  for (const fs::path& g : lowerGoldens()) files.push_back(g);
  std::vector<MsaCase> out;
  for (const fs::path& f : files)
    for (Planner p : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS})
      for (const Target* t : {&targetA2A3(), &targetA5()}) {
        std::string name = f.parent_path().filename().string() + "_" + f.stem().string() + "_" +
                           std::string(plannerName(p)) + "_" + std::string(t->name);
        for (char& ch : name)
          if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
        out.push_back({f, p, t, name});
      }
  return out;
}

class MsaPropertyCase : public testing::TestWithParam<MsaCase> {};

TEST_P(MsaPropertyCase, IsIdempotentVerifiesAndLowersEverySelectedKernel) {
  const MsaCase& c = GetParam();
  Program program = parseVerified(goldenInput(readText(c.path)), c.path.string());
  const PassContext context = contextFor(c.planner, *c.target);
  Program once = lowerUpTo(program, context, "MaterializeSemanticAliases");
  EXPECT_TRUE(checkSemanticAliases(once).empty());
  // Idempotent: a second run changes nothing and says so.
  Program twice = once.clone();
  verifyOrThrow(twice);
  std::unique_ptr<Pass> msa = createMaterializeSemanticAliasesPass();
  EXPECT_FALSE(msa->run(twice, context)) << c.name;
  EXPECT_TRUE(structurallyEqual(once, twice)) << firstDifference(once, twice);
  // Planning and VerifyTileStorage accept the result (no L9 rejection is left), no value is read
  // after its bytes were overwritten, and every selected kernel lowers (verified, verify-each).
  Program planned = lowerUpTo(program, context, "VerifyTileStorage");
  for (const Function& f : planned.functions) {
    if (f.stage != FunctionStage::Tile || f.type == FunctionType::Orchestration) continue;
    std::vector<std::string> problems = oracle_test::StorageOracle(f).run();
    EXPECT_TRUE(problems.empty()) << problems.front() << "\n" << printProgram(planned);
  }
  Program lowered = lowerUpTo(program, context, "LowerTileToBuffer");
  for (const Function& f : lowered.functions) {
    if (f.bufferIRSelected == true) {
      EXPECT_EQ(f.stage, FunctionStage::Buffer) << f.name;
    }
  }
}

std::string caseName(const testing::TestParamInfo<MsaCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(MsaProperty, MsaPropertyCase, testing::ValuesIn(allCases()), caseName);

// Loops and branches carrying Vec tiles are selected now (L1, B1, S16 through MSA).
TEST(MaterializeSemanticAliases, TileCarriesAndBranchResultsAreSelected) {
  for (const char* name : {"for_swap", "for_accumulate", "nested_control", "while_loop"}) {
    Program p = parseVerified(readText(fs::path(PTODIFF_TESTS_DIR) / "programs" / (std::string(name) + ".py")), name);
    Program planned = lowerUpTo(p, contextFor(), "SelectBufferIRFunctions");
    EXPECT_EQ(kernelOf(planned).bufferIRSelected, std::optional<bool>(true))
        << name << ": " << describeReasons(decideBufferIRSelection(kernelOf(planned), contextFor()));
  }
}

}  // namespace
}  // namespace ptodiff
