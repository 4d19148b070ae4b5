// LowerTileToBuffer unit tests: each fail-closed rule's exact diagnostic, that a failure leaves the
// input unchanged, idempotence, and which functions the pass converts. The positive forms of every
// seed example are pinned by the goldens in tests/golden/lower-buffer (LowerBufferGoldenTest.cpp).
#include <gtest/gtest.h>

#include "compiler/passes/LowerTileToBuffer.h"
#include "compiler/passes/lower/LowerSupport.h"
#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"
#include "tests/unit/compiler/PassTestSupport.h"

namespace ptodiff {
namespace {

// Kernel statements start on line 7 of every test program, indented by 8 spaces.
std::string kernel(const std::string& params, const std::string& result, const std::string& body,
                   const std::string& decorator = "type=pl.FunctionType.InCore") {
  return "import pypto.language as pl\n\n@pl.program\nclass t:\n    @pl.function(" + decorator + ")\n    def kernel(self, " +
         params + ") -> " + result + ":\n" + body;
}

const std::string kVecParams =
    "x: pl.Tensor[[64, 64], pl.FP32], row: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]";
const std::string kVecResult = "pl.Tensor[[64, 64], pl.FP32]";

PassContext contextFor(Planner planner) {
  PassContext c;
  c.planner = planner;
  c.verifyEach = true;
  return c;
}

Program parsed(const std::string& text) {
  Program p = parseProgramText(text, "test.py");
  std::vector<Diagnostic> diags = verifyProgram(p);
  for (const Diagnostic& d : diags) ADD_FAILURE() << formatDiagnostic(d) << "in:\n" << text;
  return p;
}

/// Runs the pass expecting a failure; returns its one-line diagnostic and checks the program is
/// untouched (C9).
std::string failure(const std::string& text, Planner planner = Planner::PYPTO) {
  Program p = parsed(text);
  const Program before = p.clone();
  const std::string printedBefore = printProgram(p);
  try {
    createLowerTileToBufferPass()->run(p, contextFor(planner));
  } catch (const DiagnosticError& e) {
    EXPECT_TRUE(structurallyEqual(p, before)) << firstDifference(p, before);
    EXPECT_EQ(printProgram(p), printedBefore);
    return formatDiagnostic(e.diagnostic());
  }
  ADD_FAILURE() << "the pass accepted:\n" << text;
  return "";
}

Program lowered(const std::string& text, Planner planner = Planner::PYPTO) {
  Program p = parsed(text);
  try {
    EXPECT_TRUE(createLowerTileToBufferPass()->run(p, contextFor(planner)));
  } catch (const DiagnosticError& e) {
    ADD_FAILURE() << formatDiagnostic(e.diagnostic());
  }
  return p;
}

// ---- fail-closed rules: one exact diagnostic each ----

TEST(LowerTileToBufferErrors, AddressedPlannerNeedsAddresses) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)\n"
                           "        return out\n")),
            "test.py:7:21: error: LowerTileToBuffer: [P1] tile.alloc: allocation 'm' has no address under the "
            "PYPTO planner; expected addr= (addressed planners place every allocation)\n");
}

TEST(LowerTileToBufferErrors, PtoasAllocationsHaveNoAddress) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=64)\n"
                           "        return out\n"),
                    Planner::PTOAS),
            "test.py:7:21: error: LowerTileToBuffer: [P1] tile.alloc: allocation 'm' has addr=64 under the PTOAS "
            "planner; expected an addressless allocation identity\n");
}

TEST(LowerTileToBufferErrors, InteriorMembersCannotFixAnUnstatedBase) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)\n"
                           "        a: pl.Tile[[8, 32], pl.FP32, pl.MemRef(m, 5120, 1024), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [8, 32])\n"
                           "        return out\n")),
            "test.py:7:21: error: LowerTileToBuffer: [P13] tile.alloc: allocation 'm' has no addr= and only interior "
            "members, whose addresses cannot prove where it begins; expected addr= or a member spanning its 4096 "
            "bytes\n");
}

TEST(LowerTileToBuffer, AFullCapacityMemberStatesAnUnstatedBase) {
  // P13: a production dump without addr=; the full-capacity member's address is the base.
  Program p = lowered(kernel(kVecParams, kVecResult,
                             "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)\n"
                             "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 4096, 2048), pl.Mem.Vec] = "
                             "pl.tile.load(x, [0, 0], [8, 64])\n"
                             "        o = pl.tile.store(a, [0, 0], out)\n"
                             "        return o\n"));
  EXPECT_NE(printProgram(p).find("a: pl.Buffer[[8, 64], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)"),
            std::string::npos)
      << printProgram(p);
}

TEST(LowerTileToBufferErrors, UnalignedStaticMemRefOffset) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)\n"
                           "        a: pl.Tile[[8, 32], pl.FP32, pl.MemRef(m, 16, 1024), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [8, 32])\n"
                           "        return out\n")),
            "test.py:8:76: error: LowerTileToBuffer: [P14] tile.load: 'a' starts 16 bytes into 'm'; expected a "
            "nonnegative multiple of 32 (MemRef offset 16, root address 0)\n");
}

TEST(LowerTileToBufferErrors, ViewBeyondCapacity) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)\n"
                           "        a: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m, 5120, 2048), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [16, 32])\n"
                           "        return out\n")),
            "test.py:8:79: error: LowerTileToBuffer: [P15] tile.load: 'a' occupies bytes [1024, 3072) of 'm', "
            "beyond its capacity 2048; expected every view inside its allocation\n");
}

TEST(LowerTileToBufferErrors, RuntimeWindowOverlappingItsDestinationFailsClosed) {
  // PYPTO reused the slice's source storage for the result: the runtime row may hit it (W14).
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, addr=0)\n"
                           "        w0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(m, 0, 16384), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [64, 64])\n"
                           "        w: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, -1, 4096), pl.Mem.Vec] = "
                           "pl.tile.slice(w0, [16, 64], [row, 0])\n"
                           "        y: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 8192, 4096), pl.Mem.Vec] = "
                           "pl.tile.adds(w, 1.0)\n"
                           "        o = pl.tile.store(y, [0, 0], out)\n"
                           "        return o\n")),
            "test.py:10:79: error: LowerTileToBuffer: [W14] tile.adds: the destination 'y' (Vec bytes [8192, "
            "12288)) overlaps the operand 'w' (Vec bytes [0, 16384) (a runtime-offset window somewhere inside)); "
            "expected provably disjoint storage or the identical window of an in-place op\n");
}

TEST(LowerTileToBufferErrors, UnalignedStaticWindowOffset) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, addr=0)\n"
                           "        w0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(m, 0, 16384), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [64, 64])\n"
                           "        w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m, 16, 3968), pl.Mem.Vec] = "
                           "pl.tile.slice(w0, [16, 32], [0, 4])\n"
                           "        return out\n")),
            "test.py:9:77: error: LowerTileToBuffer: [W16] tile.slice: the window starts at byte 16, which is not "
            "32-byte aligned; expected an aligned vector base address\n");
}

// W17 on the first axis while the second is runtime: the message prints both extents (this
// crashed once, printing the second axis before it was known).
TEST(LowerTileToBufferErrors, ZeroValidWindowOnTheFirstAxis) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, addr=0)\n"
                           "        w0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(m, 0, 16384), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [64, 64])\n"
                           "        w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m, 0, 3968), pl.Mem.Vec, "
                           "pl.TileView(valid_shape=[0, row])] = pl.tile.slice(w0, [16, 32], [0, 0], valid_shape=[0, row])\n"
                           "        return out\n")),
            "test.py:9:111: error: LowerTileToBuffer: [W17] tile.slice: the window 'w' has valid extents [0, row]; "
            "expected positive constant extents (zero-valid windows are rejected)\n");
}

TEST(LowerTileToBufferErrors, UnprovableRuntimeColumnOffset) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, addr=0)\n"
                           "        w0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(m, 0, 16384), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [64, 64])\n"
                           "        c = row * 4\n"
                           "        w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m, -1, 3968), pl.Mem.Vec] = "
                           "pl.tile.slice(w0, [16, 32], [0, c])\n"
                           "        return out\n")),
            "test.py:10:77: error: LowerTileToBuffer: [W16] tile.slice: the window offset column c is not provably a "
            "multiple of 8, so the window base may not be 32-byte aligned; expected a provably aligned offset\n");
}

TEST(LowerTileToBufferErrors, AssembleIntoAWindow) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, addr=0)\n"
                           "        n: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1024, addr=16384)\n"
                           "        w0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(m, 0, 16384), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [64, 64])\n"
                           "        w: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 0, 4096), pl.Mem.Vec] = "
                           "pl.tile.slice(w0, [16, 64], [0, 0])\n"
                           "        s: pl.Tile[[4, 64], pl.FP32, pl.MemRef(n, 16384, 1024), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [4, 64])\n"
                           "        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 0, 4096), pl.Mem.Vec] = "
                           "pl.tile.assemble(w, s, [0, 0])\n"
                           "        return out\n")),
            "test.py:12:76: error: LowerTileToBuffer: [W7] tile.assemble: the assemble target 'w' is a window; "
            "expected an allocation-level target tile\n");
}

TEST(LowerTileToBufferErrors, LoopCarryInOtherStorage) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                           "        n: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)\n"
                           "        t0: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [8, 64])\n"
                           "        for i, (t,) in pl.range(4, init_values=(t0,)):\n"
                           "            t1: pl.Tile[[8, 64], pl.FP32, pl.MemRef(n, 2048, 2048), pl.Mem.Vec] = "
                           "pl.tile.adds(t, 1.0)\n"
                           "            r = pl.yield_(t1)\n"
                           "        o = pl.tile.store(r, [0, 0], out)\n"
                           "        return o\n")),
            "test.py:12:27: error: LowerTileToBuffer: [L1] for: the backedge yields 't1' for carry 't' in other "
            "storage; expected the yielded value, the carry and the result to share one legalized storage window "
            "(carry copies are planned before lowering)\n");
}

TEST(LowerTileToBufferErrors, BranchArmsInOtherStorage) {
  EXPECT_EQ(failure(kernel(kVecParams + ", f: pl.Scalar[pl.BOOL]", kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                           "        n: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)\n"
                           "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [8, 64])\n"
                           "        if f:\n"
                           "            b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(n, 2048, 2048), pl.Mem.Vec] = "
                           "pl.tile.exp(a)\n"
                           "            c = pl.yield_(b)\n"
                           "        else:\n"
                           "            c = pl.yield_(a)\n"
                           "        o = pl.tile.store(c, [0, 0], out)\n"
                           "        return o\n")),
            "test.py:14:27: error: LowerTileToBuffer: [B1] if: the else arm yields 'a' for the branch result 'c' "
            "in other storage; expected storage legalization to give both arms the result's destination\n");
}

const std::string kCubeParams =
    "a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]";
const std::string kCubeResult = "pl.Tensor[[16, 16], pl.FP32]";
const std::string kCubePrologue =
    "        ma: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512, addr=0)\n"
    "        mb: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512, addr=512)\n"
    "        l: pl.Ptr = pl.tile.alloc(pl.Mem.Left, 512, addr=0)\n"
    "        r: pl.Ptr = pl.tile.alloc(pl.Mem.Right, 512, addr=0)\n"
    "        c0: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024, addr=0)\n"
    "        c1: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024, addr=1024)\n"
    "        am: pl.Tile[[16, 16], pl.FP16, pl.MemRef(ma, 0, 512), pl.Mem.Mat] = "
    "pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
    "        bm: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mb, 512, 512), pl.Mem.Mat] = "
    "pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
    "        al: pl.Tile[[16, 16], pl.FP16, pl.MemRef(l, 0, 512), pl.Mem.Left] = "
    "pl.tile.move(am, target_memory=pl.Mem.Left)\n"
    "        br: pl.Tile[[16, 16], pl.FP16, pl.MemRef(r, 0, 512), pl.Mem.Right] = "
    "pl.tile.move(bm, target_memory=pl.Mem.Right)\n";

TEST(LowerTileToBufferErrors, MatmulAccMustAccumulateInPlace) {
  EXPECT_EQ(failure(kernel(kCubeParams, kCubeResult,
                           kCubePrologue +
                               "        x: pl.Tile[[16, 16], pl.FP32, pl.MemRef(c0, 0, 1024), pl.Mem.Acc] = "
                               "pl.tile.matmul(al, br)\n"
                               "        y: pl.Tile[[16, 16], pl.FP32, pl.MemRef(c1, 1024, 1024), pl.Mem.Acc] = "
                               "pl.tile.matmul_acc(x, al, br)\n"
                               "        o = pl.tile.store(y, [0, 0], out)\n"
                               "        return o\n",
                           "type=pl.FunctionType.AIC")),
            "test.py:18:80: error: LowerTileToBuffer: [M6] tile.matmul_acc: 'y' is not written in place into the "
            "accumulator 'x'; expected matmul_acc's result to share its accumulator's storage\n");
}

TEST(LowerTileToBufferErrors, RuntimeValidTileSharingAByteRoot) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)\n"
                           "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec, "
                           "pl.TileView(valid_shape=[row, 64])] = pl.tile.load(x, [0, 0], [8, 64], valid_shape=[row, 64])\n"
                           "        b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 2048, 2048), pl.Mem.Vec] = "
                           "pl.tile.load(x, [8, 0], [8, 64])\n"
                           "        return out\n")),
            "test.py:8:111: error: LowerTileToBuffer: [V9] tile: the runtime-valid tile 'a' shares allocation 'm' "
            "with other views or does not cover it; expected a dynamic tile to own its allocation\n");
}

TEST(LowerTileToBufferErrors, RuntimeValidStateCrossingALoop) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                           "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec, "
                           "pl.TileView(valid_shape=[row, 64])] = pl.tile.load(x, [0, 0], [8, 64], valid_shape=[row, 64])\n"
                           "        for i, (o,) in pl.range(2, init_values=(out,)):\n"
                           "            o1 = pl.tile.store(a, [i * 8, 0], o)\n"
                           "            res = pl.yield_(o1)\n"
                           "        return res\n")),
            "test.py:10:32: error: LowerTileToBuffer: [V5] tile: the runtime-valid storage of 'a' is used inside a "
            "loop or branch; expected dynamic valid state only in straight-line code\n");
}

TEST(LowerTileToBufferErrors, StaleValidShapeVersion) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                           "        n: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)\n"
                           "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [8, 64])\n"
                           "        s: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec, "
                           "pl.TileView(valid_shape=[row, 64])] = pl.tile.set_validshape(a, row, 64)\n"
                           "        e: pl.Tile[[8, 64], pl.FP32, pl.MemRef(n, 2048, 2048), pl.Mem.Vec] = pl.tile.exp(a)\n"
                           "        o = pl.tile.store(e, [0, 0], out)\n"
                           "        return o\n")),
            "test.py:11:78: error: LowerTileToBuffer: [V4] tile.exp: reads 'a' (valid [8, 64]) after 's' changed "
            "the shared handle's valid extents to [row, 64]; expected uses of the current metadata version only\n");
}

TEST(LowerTileToBufferErrors, ReductionsHaveNoRecipe) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                           "        n: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256, addr=2048)\n"
                           "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [8, 64])\n"
                           "        s: pl.Tile[[1, 64], pl.FP32, pl.MemRef(n, 2048, 256), pl.Mem.Vec, "
                           "pl.TileView(valid_shape=[1, 64])] = pl.tile.col_sum(a)\n"
                           "        return out\n")),
            "test.py:10:111: error: LowerTileToBuffer: [S19] tile.col_sum: reductions have no Buffer recipe; "
            "expected the kernel to stay on the Tile path\n");
}

TEST(LowerTileToBufferErrors, RecipCannotRunInPlace) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                           "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [8, 64])\n"
                           "        b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = pl.tile.recip(a)\n"
                           "        o = pl.tile.store(b, [0, 0], out)\n"
                           "        return o\n")),
            "test.py:9:75: error: LowerTileToBuffer: [S13] tile.recip: the destination 'b' (Vec bytes [0, 2048)) "
            "overlaps the operand 'a' (Vec bytes [0, 2048)); expected a distinct destination (the op cannot run in "
            "place)\n");
}

TEST(LowerTileToBufferErrors, ArithmeticDestinationInTheFamilyOfAWindowItReads) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 16384, addr=0)\n"
                           "        w0: pl.Tile[[64, 64], pl.FP32, pl.MemRef(m, 0, 16384), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [64, 64])\n"
                           "        w: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 256, 4096), pl.Mem.Vec] = "
                           "pl.tile.slice(w0, [16, 64], [1, 0])\n"
                           "        y: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 0, 4096), pl.Mem.Vec] = pl.tile.abs(w)\n"
                           "        o = pl.tile.store(y, [0, 0], out)\n"
                           "        return o\n")),
            "test.py:10:76: error: LowerTileToBuffer: [W13] tile.abs: the destination 'y' (Vec bytes [0, 4096)) "
            "overlaps the operand 'w' (Vec bytes [256, 4352)); expected provably disjoint storage or the identical "
            "window of an in-place op\n");
}

TEST(LowerTileToBufferErrors, BranchResultAliasingDifferentParameters) {
  // (A tensor loop carry that changes parameters is already rejected by the verifier.)
  EXPECT_EQ(failure(kernel(kVecParams + ", out2: pl.Out[pl.Tensor[[64, 64], pl.FP32]], f: pl.Scalar[pl.BOOL]",
                           kVecResult,
                           "        if f:\n"
                           "            r = pl.yield_(out)\n"
                           "        else:\n"
                           "            r = pl.yield_(out2)\n"
                           "        return r\n")),
            "test.py:7:9: error: LowerTileToBuffer: [B10] if: the branch result 'r' aliases different GM tensors in "
            "its arms; expected both arms to resolve to one parameter\n");
}

TEST(LowerTileToBufferErrors, ScalarWithoutAStatedConversion) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                           "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [8, 64])\n"
                           "        b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = pl.tile.adds(a, row)\n"
                           "        o = pl.tile.store(b, [0, 0], out)\n"
                           "        return o\n")),
            "test.py:9:75: error: LowerTileToBuffer: [S11] tile.adds: the scalar row of type INDEX needs a conversion "
            "to FP32 that the IR cannot state; expected a literal or a scalar of the tile's element type\n");
}

// S11: SelectBufferIRFunctions keeps a kernel on Tile exactly when lower::scalarOperandStatable
// says no; the conversion must accept every scalar the predicate accepts and reject the rest.
TEST(LowerTileToBufferErrors, TheSelectionPredicateForScalarsAgreesWithTheConversionS11) {
  for (const std::string scalar : {"row", "s", "k", "2", "-3", "2.5", "pl.const(3, pl.INT32)", "s + 1.0", "row + 1"}) {
    const std::string text = kernel(
        "x: pl.Tensor[[64, 64], pl.FP32], row: pl.Scalar[pl.INDEX], s: pl.Scalar[pl.FP32], k: pl.Scalar[pl.INT32], "
        "out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]",
        kVecResult,
        "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
        "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 64])\n"
        "        b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = pl.tile.adds(a, " + scalar + ")\n"
        "        o = pl.tile.store(b, [0, 0], out)\n"
        "        return o\n");
    Program p = parsed(text);
    const Expr& adds = *p.functions[0].body[2]->as<AssignStmt>().value;
    ASSERT_EQ(adds.op, Opcode::TileAdds) << scalar;
    const bool statable = lower::scalarOperandStatable(*adds.args[1], DType::FP32);
    EXPECT_EQ(statable, scalar != "row" && scalar != "k" && scalar != "row + 1") << scalar;
    bool lowers = true;
    try {
      createLowerTileToBufferPass()->run(p, contextFor(Planner::PYPTO));
    } catch (const DiagnosticError& e) {
      lowers = false;
      EXPECT_NE(formatDiagnostic(e.diagnostic()).find("[S11]"), std::string::npos) << formatDiagnostic(e.diagnostic());
    }
    EXPECT_EQ(lowers, statable) << scalar;
  }
}

TEST(LowerTileToBufferErrors, PtoasInteriorWindowParent) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)\n"
                           "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [8, 64])\n"
                           "        b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 2048, 2048), pl.Mem.Vec] = "
                           "pl.tile.load(x, [8, 0], [8, 64])\n"
                           "        w: pl.Tile[[4, 64], pl.FP32, pl.MemRef(m, 2048, 1024), pl.Mem.Vec] = "
                           "pl.tile.slice(b, [4, 64], [0, 0])\n"
                           "        return out\n"),
                    Planner::PTOAS),
            "test.py:9:9: error: LowerTileToBuffer: [P17] tile.alloc: the window parent 'b' is an interior view of "
            "the addressless allocation 'm'; expected a full-capacity typed root for PTOAS window parents\n");
}

TEST(LowerTileToBufferErrors, PtoasMatrixAllocationHoldsOneWindow) {
  EXPECT_EQ(failure(kernel(kCubeParams, kCubeResult,
                           "        ma: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024)\n"
                           "        am: pl.Tile[[16, 16], pl.FP16, pl.MemRef(ma, 0, 512), pl.Mem.Mat] = "
                           "pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
                           "        bm: pl.Tile[[16, 16], pl.FP16, pl.MemRef(ma, 512, 512), pl.Mem.Mat] = "
                           "pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
                           "        return out\n",
                           "type=pl.FunctionType.AIC"),
                    Planner::PTOAS),
            "test.py:8:9: error: LowerTileToBuffer: [M4] tile.alloc: the addressless Mat allocation 'ma' holds 'am' "
            "at byte 0 spanning 512 of 1024 bytes; expected one window per PTOAS allocation\n");
}

TEST(LowerTileToBufferErrors, SelectedKernelWithoutPlannedStorage) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        a = pl.tile.load(x, [0, 0], [8, 64])\n"
                           "        o = pl.tile.store(a, [0, 0], out)\n"
                           "        return o\n",
                           "type=pl.FunctionType.InCore, buffer_ir_selected=True")),
            "test.py:7:13: error: LowerTileToBuffer: [P18] tile.load: 'a' has no MemRef; expected planned storage "
            "on every tile\n");
}

// ---- the remaining fail-closed sites (audit of issue 3): one exact diagnostic each ----
// Sites no verified kernel can reach are listed, with the check that rejects first, after these.

const std::string kAllocM4096 = "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)\n";
const std::string kTwoRoots =
    "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
    "        n: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)\n";
const std::string kLoadA =
    "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 64])\n";

TEST(LowerTileToBufferErrors, MoveOntoOverlappingStorageA30) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           kAllocM4096 + kLoadA +
                               "        b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 1024, 2048), pl.Mem.Vec] = "
                               "pl.tile.move(a, target_memory=pl.Mem.Vec)\n"
                               "        o = pl.tile.store(b, [0, 0], out)\n"
                               "        return o\n")),
            "test.py:9:78: error: LowerTileToBuffer: [A30] tile.move: the destination 'b' (Vec bytes [1024, 3072)) "
            "overlaps the operand 'a' (Vec bytes [0, 2048)); expected provably disjoint storage or the identical "
            "window of an in-place op\n");
}

TEST(LowerTileToBufferErrors, ExtractOntoOverlappingStorageA30) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           kAllocM4096 +
                               "        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 0, 4096), pl.Mem.Vec] = "
                               "pl.tile.load(x, [0, 0], [16, 64])\n"
                               "        e: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 2048, 2048), pl.Mem.Vec] = "
                               "pl.tile.extract(a, 0, 0, [8, 64], target_memory=pl.Mem.Vec)\n"
                               "        o = pl.tile.store(e, [0, 0], out)\n"
                               "        return o\n")),
            "test.py:9:78: error: LowerTileToBuffer: [A30] tile.extract: the destination 'e' (Vec bytes [2048, "
            "4096)) overlaps the operand 'a' (Vec bytes [0, 4096)); expected provably disjoint storage or the "
            "identical window of an in-place op\n");
}

TEST(LowerTileToBufferErrors, BareAliasNamingOtherStorageC5) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           kTwoRoots + kLoadA +
                               "        b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(n, 2048, 2048), pl.Mem.Vec] = a\n"
                               "        o = pl.tile.store(b, [0, 0], out)\n"
                               "        return o\n")),
            "test.py:10:9: error: LowerTileToBuffer: [C5] alias: 'b' = 'a' names other storage than its source; "
            "expected a bare alias to share its source's MemRef (the conversion adds no implicit copy)\n");
}

TEST(LowerTileToBufferErrors, KernelReturningATileC6) {
  EXPECT_EQ(failure(kernel(kVecParams, "pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec]",
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n" + kLoadA +
                               "        return a\n")),
            "test.py:9:16: error: LowerTileToBuffer: [C6] return: the kernel returns the tile 'a'; expected kernels "
            "to return GM tensors or scalars\n");
}

TEST(LowerTileToBufferErrors, ExtractFromAWindowM5) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           kAllocM4096 +
                               "        n: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)\n"
                               "        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 0, 4096), pl.Mem.Vec] = "
                               "pl.tile.load(x, [0, 0], [16, 64])\n"
                               "        w: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                               "pl.tile.slice(a, [8, 64], [0, 0])\n"
                               "        e: pl.Tile[[8, 64], pl.FP32, pl.MemRef(n, 4096, 2048), pl.Mem.Vec] = "
                               "pl.tile.extract(w, 0, 0, [8, 64], target_memory=pl.Mem.Vec)\n"
                               "        o = pl.tile.store(e, [0, 0], out)\n"
                               "        return o\n")),
            "test.py:11:78: error: LowerTileToBuffer: [M5] tile.extract: extracting from the window 'w' is "
            "unsupported; expected an allocation-level Mat source\n");
}

TEST(LowerTileToBufferErrors, VecToMatMoveHasNoRecipeM5) {
  EXPECT_EQ(failure(kernel("x: pl.Tensor[[16, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]",
                           "pl.Tensor[[16, 16], pl.FP16]",
                           "        v: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512, addr=0)\n"
                           "        ma: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512, addr=0)\n"
                           "        a: pl.Tile[[16, 16], pl.FP16, pl.MemRef(v, 0, 512), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [16, 16])\n"
                           "        b: pl.Tile[[16, 16], pl.FP16, pl.MemRef(ma, 0, 512), pl.Mem.Mat] = "
                           "pl.tile.move(a, target_memory=pl.Mem.Mat)\n"
                           "        return out\n",
                           "type=pl.FunctionType.AIC")),
            "test.py:10:76: error: LowerTileToBuffer: [M5] tile.move: a Vec to Mat move has no Buffer recipe; "
            "expected Mat to Left/Right or Vec to Vec\n");
}

TEST(LowerTileToBufferErrors, RuntimeValidExtentsInMatV1) {
  EXPECT_EQ(failure(kernel("a: pl.Tensor[[16, 16], pl.FP16], n: pl.Scalar[pl.INDEX], "
                           "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
                           kCubeResult,
                           "        ma: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512, addr=0)\n"
                           "        am: pl.Tile[[16, 16], pl.FP16, pl.MemRef(ma, 0, 512), pl.Mem.Mat, "
                           "pl.TileView(valid_shape=[n, 16])] = pl.tile.load(a, [0, 0], [16, 16], valid_shape=[n, 16], "
                           "target_memory=pl.Mem.Mat)\n"
                           "        return out\n",
                           "type=pl.FunctionType.AIC")),
            "test.py:8:111: error: LowerTileToBuffer: [V1] tile: 'am' has valid extents [n, 16] in Mat; expected "
            "static nonzero extents (runtime valid extents exist only for Vec tiles)\n");
}

TEST(LowerTileToBufferErrors, RuntimeValidResultWithAStaticOperandV3) {
  // The result takes lhs's runtime valid extents; the static rhs cannot be read through them.
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           kTwoRoots +
                               "        p: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)\n"
                               "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec, "
                               "pl.TileView(valid_shape=[row, 64])] = pl.tile.load(x, [0, 0], [8, 64], "
                               "valid_shape=[row, 64])\n"
                               "        c: pl.Tile[[8, 64], pl.FP32, pl.MemRef(n, 2048, 2048), pl.Mem.Vec] = "
                               "pl.tile.load(x, [8, 0], [8, 64])\n"
                               "        d: pl.Tile[[8, 64], pl.FP32, pl.MemRef(p, 4096, 2048), pl.Mem.Vec, "
                               "pl.TileView(valid_shape=[row, 64])] = pl.tile.add(a, c)\n"
                               "        o = pl.tile.store(d, [0, 0], out)\n"
                               "        return o\n")),
            "test.py:12:114: error: LowerTileToBuffer: [V3] tile.add: the operand 'c' has valid extents [8, 64] but "
            "the result 'd' has [row, 64]; expected structurally equal runtime valid expressions\n");
}

TEST(LowerTileToBufferErrors, DynamicHandleReadWithOtherExtentsV3) {
  // A constant setter still makes the handle dynamic (V6): it holds [4, 64], the add reads [8, 64].
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           kTwoRoots +
                               "        p: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=4096)\n" + kLoadA +
                               "        s: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec, "
                               "pl.TileView(valid_shape=[4, 64])] = pl.tile.set_validshape(a, 4, 64)\n"
                               "        b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(n, 2048, 2048), pl.Mem.Vec] = "
                               "pl.tile.load(x, [8, 0], [8, 64])\n"
                               "        c: pl.Tile[[8, 64], pl.FP32, pl.MemRef(p, 4096, 2048), pl.Mem.Vec] = "
                               "pl.tile.add(b, s)\n"
                               "        o = pl.tile.store(c, [0, 0], out)\n"
                               "        return o\n")),
            "test.py:13:78: error: LowerTileToBuffer: [V3] tile.add: the operand 's' has valid extents [4, 64] but "
            "is read as [8, 64]; expected structurally equal runtime valid expressions\n");
}

TEST(LowerTileToBufferErrors, SetterIntoOtherStorageV8) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           kTwoRoots + kLoadA +
                               "        s: pl.Tile[[8, 64], pl.FP32, pl.MemRef(n, 2048, 2048), pl.Mem.Vec, "
                               "pl.TileView(valid_shape=[row, 64])] = pl.tile.set_validshape(a, row, 64)\n"
                               "        o = pl.tile.store(s, [0, 0], out)\n"
                               "        return o\n")),
            "test.py:10:114: error: LowerTileToBuffer: [V8] tile.set_validshape: 's' does not name the storage of "
            "'a'; expected set_validshape to update its input's handle in place\n");
}

TEST(LowerTileToBufferErrors, AliasOfAStorageRootP2) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                           "        m2 = m\n" +
                               kLoadA +
                               "        o = pl.tile.store(a, [0, 0], out)\n"
                               "        return o\n")),
            "test.py:8:9: error: LowerTileToBuffer: [P2] alias: 'm2' renames the storage root 'm'; expected roots "
            "used only in MemRefs\n");
}

TEST(LowerTileToBufferErrors, OneRootNameAllocatedInBothArmsP2) {
  const std::string arm = "            m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                          "            a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                          "pl.tile.load(x, [0, 0], [8, 64])\n"
                          "            o1 = pl.tile.store(a, [0, 0], out)\n"
                          "            r = pl.yield_(o1)\n";
  EXPECT_EQ(failure(kernel(kVecParams + ", f: pl.Scalar[pl.BOOL]", kVecResult,
                           "        if f:\n" + arm + "        else:\n" + arm + "        return r\n")),
            "test.py:13:25: error: LowerTileToBuffer: [P2] tile.alloc: storage root 'm' is bound twice; expected one "
            "tile.alloc per root\n");
}

TEST(LowerTileToBufferErrors, ReshapeIntoOtherStorageP11) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           kTwoRoots + kLoadA +
                               "        r: pl.Tile[[16, 32], pl.FP32, pl.MemRef(n, 2048, 2048), pl.Mem.Vec] = "
                               "pl.tile.reshape(a, [16, 32])\n"
                               "        return out\n")),
            "test.py:10:79: error: LowerTileToBuffer: [P11] tile.reshape: 'r' does not name the storage window of "
            "'a' (root 'n' at byte 0 vs 'm' at byte 0); expected a relabel to keep its source's MemRef\n");
}

TEST(LowerTileToBufferErrors, ReshapeOfAWindowWithoutADensePitchP11) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           kAllocM4096 +
                               "        c: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 0, 4096), pl.Mem.Vec] = "
                               "pl.tile.load(x, [0, 0], [16, 64])\n"
                               "        w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m, 0, 3968), pl.Mem.Vec] = "
                               "pl.tile.slice(c, [16, 32], [0, 0])\n"
                               "        r: pl.Tile[[32, 16], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                               "pl.tile.reshape(w, [32, 16])\n"
                               "        return out\n")),
            "test.py:10:76: error: LowerTileToBuffer: [P11] tile.reshape: the window 'w' has rows of 128 bytes at a "
            "pitch of 256; expected a dense row pitch (or a single row) for a relabel\n");
}

TEST(LowerTileToBufferErrors, SliceOfARelabelledWindowS20) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           kAllocM4096 +
                               "        c: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 0, 4096), pl.Mem.Vec] = "
                               "pl.tile.load(x, [0, 0], [16, 64])\n"
                               "        w: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                               "pl.tile.slice(c, [8, 64], [0, 0])\n"
                               "        r: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                               "pl.tile.reshape(w, [16, 32])\n"
                               "        s: pl.Tile[[8, 32], pl.FP32, pl.MemRef(m, 0, 1024), pl.Mem.Vec] = "
                               "pl.tile.slice(r, [8, 32], [0, 0])\n"
                               "        return out\n")),
            "test.py:11:75: error: LowerTileToBuffer: [S20] tile.slice: slicing the relabelled window 'r' is "
            "unsupported; expected slices of allocation-level tiles or plain windows\n");
}

TEST(LowerTileToBufferErrors, PtoasWindowParentSharingItsAllocationS20) {
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)\n"
                           "        c: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 0, 4096), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [16, 64])\n"
                           "        w: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                           "pl.tile.slice(c, [8, 64], [0, 0])\n"
                           "        b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                           "pl.tile.load(x, [16, 0], [8, 64])\n"
                           "        return out\n"),
                    Planner::PTOAS),
            "test.py:10:9: error: LowerTileToBuffer: [S20] tile.alloc: the addressless allocation 'm' is typed as "
            "'c' and also holds the interior view 'b', which would need a subview of a relabel; expected one window "
            "parent per PTOAS allocation and full-capacity relabels beside it\n");
}

TEST(LowerTileToBufferErrors, MatAssembleHasNoRecipeW8) {
  EXPECT_EQ(failure(kernel("a: pl.Tensor[[32, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
                           kCubeResult,
                           "        ma: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 1024, addr=0)\n"
                           "        mb: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 512, addr=1024)\n"
                           "        t0: pl.Tile[[32, 16], pl.FP16, pl.MemRef(ma, 0, 1024), pl.Mem.Mat] = "
                           "pl.tile.load(a, [0, 0], [32, 16], target_memory=pl.Mem.Mat)\n"
                           "        s: pl.Tile[[16, 16], pl.FP16, pl.MemRef(mb, 1024, 512), pl.Mem.Mat] = "
                           "pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
                           "        r: pl.Tile[[32, 16], pl.FP16, pl.MemRef(ma, 0, 1024), pl.Mem.Mat] = "
                           "pl.tile.assemble(t0, s, [16, 0])\n"
                           "        return out\n",
                           "type=pl.FunctionType.AIC")),
            "test.py:11:77: error: LowerTileToBuffer: [W8] tile.assemble: assembling Mat tiles has no Buffer "
            "recipe; expected a Vec target and source\n");
}

// Sites the verifier shields (C2: the pass's input is verified): these pin the verifier's
// rejection, so a verifier change that lets such a kernel through fails here, not silently.
std::string verifierError(const std::string& text) {
  Program p = parseProgramText(text, "test.py");
  std::vector<Diagnostic> diags = verifyProgram(p);
  return diags.empty() ? std::string() : formatDiagnostic(diags.front());
}

TEST(LowerTileToBufferErrors, VerifierRejectsATensorCarrySwitchingParametersBeforeL5) {
  EXPECT_EQ(verifierError(kernel(kVecParams + ", out2: pl.Out[pl.Tensor[[64, 64], pl.FP32]]", kVecResult,
                                 "        for i, (o,) in pl.range(2, init_values=(out,)):\n"
                                 "            r = pl.yield_(out2)\n"
                                 "        return r\n")),
            "test.py:8:27: error: pl.yield_: tensor carry 'o' starts as Out parameter 'out' but is yielded as Out "
            "parameter 'out2'; expected a tensor carry to keep referring to the same parameter\n");
}

TEST(LowerTileToBufferErrors, VerifierRejectsANonPositiveCapacityBeforeP4) {
  EXPECT_EQ(verifierError(kernel(kVecParams, kVecResult,
                                 "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 0, addr=0)\n"
                                 "        return out\n")),
            "test.py:7:47: error: tile.alloc: size must be a positive integer literal; expected the root's capacity "
            "in bytes\n");
}

TEST(LowerTileToBufferErrors, VerifierRejectsABoxedVecTileBeforeP16) {
  EXPECT_EQ(verifierError(kernel(kVecParams, kVecResult,
                                 "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                                 "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec, "
                                 "pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = "
                                 "pl.tile.load(x, [0, 0], [8, 64])\n"
                                 "        o = pl.tile.store(a, [0, 0], out)\n"
                                 "        return o\n")),
            "test.py:8:9: error: annotation of 'a' differs from the inferred type (layout NZ (fractal 512) vs ND); "
            "expected pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec]\n");
}

// ---- conversion contract ----

const std::string kPlannedKernel = kernel(kVecParams, kVecResult,
                                          "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                                          "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                                          "pl.tile.load(x, [0, 0], [8, 64])\n"
                                          "        b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = "
                                          "pl.tile.exp(a)\n"
                                          "        o = pl.tile.store(b, [0, 0], out)\n"
                                          "        return o\n");

TEST(LowerTileToBuffer, ColumnDisjointWindowsOfOneTileNeedNoSnapshot) {
  // W10/W11: the left half is copied onto the right half of the same rows; the hulls overlap but
  // the rows' bytes do not (the proof uses the inherited pitch and the gaps between rows).
  Program p = lowered(kernel(kVecParams, kVecResult,
                             "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)\n"
                             "        c: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 0, 4096), pl.Mem.Vec] = "
                             "pl.tile.load(x, [0, 0], [16, 64])\n"
                             "        left: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m, 0, 4000), pl.Mem.Vec] = "
                             "pl.tile.slice(c, [16, 32], [0, 0])\n"
                             "        d: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 0, 4096), pl.Mem.Vec] = "
                             "pl.tile.assemble(c, left, [0, 32])\n"
                             "        o = pl.tile.store(d, [0, 0], out)\n"
                             "        return o\n"));
  const std::string text = printProgram(p);
  EXPECT_NE(text.find("pl.buffer.copy(left, d_window)"), std::string::npos) << text;
}

TEST(LowerTileToBufferErrors, OverlappingRowsOfOneTileNeedASnapshot) {
  // Rows [0, 16) copied onto rows [8, 24) of the same tile: MaterializeSemanticAliases should have
  // snapshotted the source (W9); the lowering fails closed instead of copying over it.
  EXPECT_EQ(failure(kernel(kVecParams, kVecResult,
                           "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192, addr=0)\n"
                           "        c: pl.Tile[[32, 64], pl.FP32, pl.MemRef(m, 0, 8192), pl.Mem.Vec] = "
                           "pl.tile.load(x, [0, 0], [32, 64])\n"
                           "        top: pl.Tile[[16, 64], pl.FP32, pl.MemRef(m, 0, 4096), pl.Mem.Vec] = "
                           "pl.tile.slice(c, [16, 64], [0, 0])\n"
                           "        d: pl.Tile[[32, 64], pl.FP32, pl.MemRef(m, 0, 8192), pl.Mem.Vec] = "
                           "pl.tile.assemble(c, top, [8, 0])\n"
                           "        o = pl.tile.store(d, [0, 0], out)\n"
                           "        return o\n")),
            "test.py:10:76: error: LowerTileToBuffer: [W9] tile.assemble: the destination 'd_window' (Vec bytes "
            "[2048, 6144)) overlaps the operand 'top' (Vec bytes [0, 4096)); expected provably disjoint storage or "
            "the identical window of an in-place op\n");
}

TEST(LowerTileToBuffer, IsIdempotent) {
  Program once = lowered(kPlannedKernel);
  ASSERT_EQ(once.functions.size(), 1u);
  EXPECT_EQ(once.functions[0].stage, FunctionStage::Buffer);
  Program twice = once.clone();
  EXPECT_FALSE(createLowerTileToBufferPass()->run(twice, contextFor(Planner::PYPTO)));
  EXPECT_TRUE(structurallyEqual(once, twice)) << firstDifference(once, twice);
  EXPECT_EQ(printProgram(once), printProgram(twice));
}

TEST(LowerTileToBuffer, OutputVerifiesAndRoundTrips) {
  Program p = lowered(kPlannedKernel);
  EXPECT_TRUE(verifyProgram(p).empty());
  Program again = parseProgramText(printProgram(p), "printed.py");
  EXPECT_TRUE(structurallyEqual(p, again)) << firstDifference(p, again);
}

TEST(LowerTileToBuffer, FailureLeavesTheWholeProgramUnchanged) {
  // The first kernel converts, the second fails: neither may change (C9).
  const std::string text =
      "import pypto.language as pl\n\n@pl.program\nclass t:\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def good(self, x: pl.Tensor[[8, 64], pl.FP32], out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> "
      "pl.Tensor[[8, 64], pl.FP32]:\n"
      "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
      "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 64])\n"
      "        o = pl.tile.store(a, [0, 0], out)\n"
      "        return o\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def bad(self, x: pl.Tensor[[8, 64], pl.FP32], out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> "
      "pl.Tensor[[8, 64], pl.FP32]:\n"
      "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
      "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 64])\n"
      "        b: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = pl.tile.recip(a)\n"
      "        o = pl.tile.store(b, [0, 0], out)\n"
      "        return o\n";
  EXPECT_NE(failure(text).find("[S13] tile.recip"), std::string::npos);
}

TEST(LowerTileToBuffer, ConvertsOnlySelectedDeviceKernels) {
  const std::string body =
      "(self, x: pl.Tensor[[8, 64], pl.FP32], out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], "
      "pl.FP32]:\n"
      "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
      "        a: pl.Tile[[8, 64], pl.FP32, pl.MemRef(m, 0, 2048), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 64])\n"
      "        o = pl.tile.store(a, [0, 0], out)\n"
      "        return o\n";
  const std::string unplanned =
      "(self, x: pl.Tensor[[8, 64], pl.FP32], out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], "
      "pl.FP32]:\n"
      "        a = pl.tile.load(x, [0, 0], [8, 64])\n"
      "        o = pl.tile.store(a, [0, 0], out)\n"
      "        return o\n";
  const std::string text = "import pypto.language as pl\n\n@pl.program\nclass t:\n"
                           "    @pl.function(type=pl.FunctionType.AIV)\n    def chosen" + body +
                           "    @pl.function(type=pl.FunctionType.AIV, buffer_ir_selected=False)\n    def kept" + body +
                           "    @pl.function(type=pl.FunctionType.InCore)\n    def unplanned" + unplanned;
  Program p = lowered(text);
  ASSERT_EQ(p.functions.size(), 3u);
  EXPECT_EQ(p.functions[0].stage, FunctionStage::Buffer);  // planned and not deselected
  EXPECT_EQ(p.functions[1].stage, FunctionStage::Tile);    // SelectBufferIRFunctions said no
  EXPECT_EQ(p.functions[2].stage, FunctionStage::Tile);    // no planned storage: not selected
  const Program input = parsed(text);
  for (size_t i = 1; i < 3; ++i) {
    Program a, b;
    a.functions.push_back(p.functions[i].clone());
    b.functions.push_back(input.functions[i].clone());
    EXPECT_TRUE(structurallyEqual(a, b)) << firstDifference(a, b);
  }
}

TEST(LowerTileToBuffer, ProgramsWithoutSelectedKernelsAreUnchanged) {
  const std::string text = kernel(kVecParams, kVecResult,
                                  "        a = pl.tile.load(x, [0, 0], [8, 64])\n"
                                  "        o = pl.tile.store(a, [0, 0], out)\n"
                                  "        return o\n");
  Program p = parsed(text);
  const Program before = p.clone();
  EXPECT_FALSE(createLowerTileToBufferPass()->run(p, contextFor(Planner::PYPTO)));
  EXPECT_TRUE(structurallyEqual(p, before));
}

TEST(LowerTileToBuffer, PostconditionFlagsUnconvertedSelectedKernels) {
  Program p = parsed(kPlannedKernel);
  std::unique_ptr<Pass> pass = createLowerTileToBufferPass();
  std::vector<Diagnostic> before = pass->checkPostcondition(p, contextFor(Planner::PYPTO));
  ASSERT_EQ(before.size(), 1u);
  EXPECT_NE(before[0].message.find("[C7] function 'kernel' is still a planned Tile kernel"), std::string::npos);
  ASSERT_TRUE(pass->run(p, contextFor(Planner::PYPTO)));
  EXPECT_TRUE(pass->checkPostcondition(p, contextFor(Planner::PYPTO)).empty());
}

TEST(LowerTileToBuffer, NamesItself) {
  std::unique_ptr<Pass> pass = createLowerTileToBufferPass();
  EXPECT_EQ(pass->name(), "LowerTileToBuffer");
  EXPECT_FALSE(pass->summary().empty());
}

// leavesUnchanged() is a promise the oracle's LoweringCache relies on (it then shares the planned
// program as the lowered one): true exactly when run() changes nothing. Checked on every suite
// program and lower-golden input, planned under each planner and target, with buffer IR on and off;
// both answers occur.
TEST(LowerTileToBuffer, LeavesUnchangedExactlyWhenRunChangesNothing) {
  std::vector<std::filesystem::path> files = testsupport::suitePrograms();
  for (const std::filesystem::path& g : testsupport::lowerGoldens()) files.push_back(g);
  ASSERT_GT(files.size(), 20u);
  int unchanged = 0, converted = 0;
  for (const std::filesystem::path& f : files) {
    const Program input =
        testsupport::parseVerified(testsupport::goldenInput(testsupport::readText(f)), f.filename().string());
    for (const Target* target : {&targetA2A3(), &targetA5()})
      for (const Planner planner : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS})
        for (const bool bufferIR : {true, false}) {
          const PassContext context = testsupport::contextFor(planner, *target, bufferIR);
          Program planned;
          try {
            planned = testsupport::lowerUpTo(input, context, "VerifyTileStorage");
          } catch (const DiagnosticError&) {
            continue;  // rejected before LowerTileToBuffer
          }
          const auto pass = createLowerTileToBufferPass();
          const bool predicted = pass->leavesUnchanged(planned, context);
          Program after = planned.clone();
          bool changed = true;
          try {
            changed = pass->run(after, context);
          } catch (const DiagnosticError&) {
            // a rejection is no "unchanged"
          }
          EXPECT_EQ(predicted, !changed) << f << " under " << plannerName(planner) << " on " << target->name
                                         << (bufferIR ? "" : " without buffer IR");
          if (predicted) {
            EXPECT_TRUE(structurallyEqual(after, planned)) << f;
          }
          ++(predicted ? unchanged : converted);
        }
  }
  EXPECT_GT(unchanged, 0);
  EXPECT_GT(converted, 0);
}

}  // namespace
}  // namespace ptodiff
