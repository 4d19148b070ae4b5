// InitMemRef (spec/lowering.md step 2): a fresh root per allocation identity; views at the right
// offset and size of the storage they share; in-place results following their input only when the
// input is not observable afterwards; carries and compound results unannotated; planned input
// rejected with a diagnostic.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "compiler/passes/InitMemRef.h"
#include "compiler/planners/PlannedStorage.h"
#include "compiler/text/Printer.h"
#include "tests/unit/compiler/PassTestSupport.h"

namespace ptodiff {
namespace {

using namespace testsupport;

Program initMemRef(const std::string& params, const std::string& body,
                   const std::string& result = "pl.Tensor[[16, 32], pl.FP32]") {
  return lowerUpTo(parseVerified(kernelProgram(params, body, result)), contextFor(), "InitMemRef");
}

/// The MemRef of the Tile binder `name` (searched through nested regions).
std::optional<MemRef> memrefOf(const Program& p, const std::string& name) {
  std::optional<MemRef> found;
  auto visit = [&](const Block& body, auto&& self) -> void {
    for (const StmtPtr& s : body) {
      if (s->kind == Stmt::Kind::Assign && s->as<AssignStmt>().target.name == name) {
        const auto& b = s->as<AssignStmt>().target;
        if (b.annotation) found = b.annotation->memref;
      }
      if (s->kind == Stmt::Kind::For) self(s->as<ForStmt>().body, self);
      if (s->kind == Stmt::Kind::While) self(s->as<WhileStmt>().body, self);
      if (s->kind == Stmt::Kind::If) {
        self(s->as<IfStmt>().thenBody, self);
        self(s->as<IfStmt>().elseBody, self);
      }
    }
  };
  visit(p.functions[0].body, visit);
  return found;
}

MemRef ref(const std::string& base, int64_t offset, int64_t size) { return MemRef{base, Extent::constant(offset), size}; }

constexpr const char* kVec = "a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]";

TEST(InitMemRef, GivesEveryAllocationIdentityARootOfItsOwnHoistedToTheTop) {
  Program p = initMemRef(kVec,
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        y = pl.tile.exp(x)\n"
                         "        h = pl.tile.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)\n"
                         "        r = pl.tile.store(y, [0, 0], out)\n        return r\n");
  std::vector<storage::Root> roots = storage::collectRoots(p.functions[0]);
  ASSERT_EQ(roots.size(), 3u);
  EXPECT_EQ(roots[0].name, "mem_vec_0");
  EXPECT_EQ(roots[0].size, 2048);
  EXPECT_EQ(roots[2].name, "mem_mat_2");
  EXPECT_EQ(roots[2].space, MemSpace::Mat);
  EXPECT_EQ(roots[2].size, 4096);
  for (const storage::Root& r : roots) EXPECT_FALSE(r.addr.has_value());
  // The roots come first, each located at the value it serves (C10).
  EXPECT_EQ(p.functions[0].body[0]->loc.line, 5u);
  EXPECT_EQ(memrefOf(p, "x"), ref("mem_vec_0", 0, 2048));
  EXPECT_EQ(memrefOf(p, "y"), ref("mem_vec_1", 0, 2048));
  EXPECT_EQ(memrefOf(p, "h"), ref("mem_mat_2", 0, 4096));
}

TEST(InitMemRef, SlicesShareTheirSourceAtTheWindowOffsetWithTheParentPitch) {
  Program p = initMemRef(std::string(kVec) + ", r: pl.Scalar[pl.INDEX]",
                         "        x = pl.tile.load(a, [0, 0], [32, 32])\n"
                         "        top = pl.tile.slice(x, [16, 32], [8, 0])\n"
                         "        inner = pl.tile.slice(top, [8, 16], [4, 8])\n"
                         "        moving = pl.tile.slice(x, [8, 32], [r, 0])\n"
                         "        o = pl.tile.store(inner, [0, 0], out)\n"
                         "        o2 = pl.tile.store(moving, [0, 0], o)\n        return o2\n");
  EXPECT_EQ(memrefOf(p, "top"), ref("mem_vec_0", 8 * 128, 16 * 128));
  // Row 12, column 8 of x's 128-byte rows; 7 full rows and 16 elements of span.
  EXPECT_EQ(memrefOf(p, "inner"), ref("mem_vec_0", 12 * 128 + 8 * 4, 7 * 128 + 16 * 4));
  // A runtime row offset: placed at run time (-1), spanning 8 rows.
  EXPECT_EQ(memrefOf(p, "moving"), (MemRef{"mem_vec_0", Extent::dynamic(), 8 * 128}));
}

TEST(InitMemRef, SlicesOfBoxedTilesAddressWholeBoxes) {
  // Mat FP16 NZ: 16x16 boxes stored column of boxes after column of boxes (semantics.md §3).
  Program p = initMemRef("a: pl.Tensor[[32, 32], pl.FP16], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                         "        m = pl.tile.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)\n"
                         "        b = pl.tile.slice(m, [16, 16], [16, 16])\n"
                         "        l = pl.tile.move(b, target_memory=pl.Mem.Left)\n"
                         "        return out\n");
  // Box (row 1, column 1) is the fourth box: 3 * 256 elements * 2 bytes; one box of span.
  EXPECT_EQ(memrefOf(p, "b"), ref("mem_mat_0", 3 * 512, 512));
}

TEST(InitMemRef, RelabelsAndSettersShareTheirInputsStorage) {
  Program p = initMemRef(kVec,
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        f = pl.tile.reshape(x, [64, 8])\n"
                         "        v = pl.tile.set_validshape(x, 4, 8)\n"
                         "        y = x\n"
                         "        o = pl.tile.store(v, [0, 0], out)\n        return o\n");
  EXPECT_EQ(memrefOf(p, "f"), ref("mem_vec_0", 0, 2048));
  EXPECT_EQ(memrefOf(p, "v"), ref("mem_vec_0", 0, 2048));
  EXPECT_EQ(memrefOf(p, "y"), ref("mem_vec_0", 0, 2048));
  EXPECT_EQ(storage::collectRoots(p.functions[0]).size(), 1u);
}

TEST(InitMemRef, AssembleFollowsItsTargetWhenTheTargetIsDeadAfterwards) {
  Program p = initMemRef(kVec,
                         "        c = pl.tile.create([16, 32], dtype=pl.FP32)\n"
                         "        s = pl.tile.load(a, [0, 0], [8, 32])\n"
                         "        y = pl.tile.assemble(c, s, [8, 0])\n"
                         "        o = pl.tile.store(y, [0, 0], out)\n        return o\n");
  EXPECT_EQ(memrefOf(p, "y"), memrefOf(p, "c"));
}

TEST(InitMemRef, AssembleGetsStorageOfItsOwnWhenTheTargetIsReadLater) {
  Program p = initMemRef(kVec,
                         "        c = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)\n"
                         "        s = pl.tile.load(a, [0, 0], [8, 32])\n"
                         "        y = pl.tile.assemble(c, s, [8, 0])\n"
                         "        z = pl.tile.add(y, c)\n"
                         "        o = pl.tile.store(z, [0, 0], out)\n        return o\n");
  ASSERT_TRUE(memrefOf(p, "y"));
  EXPECT_NE(memrefOf(p, "y")->base, memrefOf(p, "c")->base);
}

// A15, an accumulator phi: the other arm of the If yields the input untouched, and no run reads it
// after the write, so the op runs in place and the branch result is the input's storage on both
// arms. A read of the input after the If still keeps it observable.
TEST(InitMemRef, AnInPlaceOpWhoseInputTheOtherArmYieldsRunsInPlace) {
  const std::string params = std::string(kVec) + ", f: pl.Scalar[pl.BOOL]";
  const std::string phi =
      "        c = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)\n"
      "        s = pl.tile.load(a, [0, 0], [8, 32])\n"
      "        if f:\n"
      "            y = pl.tile.assemble(c, s, [8, 0])\n"
      "            r = pl.yield_(y)\n"
      "        else:\n"
      "            r = pl.yield_(c)\n";
  Program p = initMemRef(params, phi + "        o = pl.tile.store(r, [0, 0], out)\n        return o\n");
  EXPECT_EQ(memrefOf(p, "y"), memrefOf(p, "c"));
  Program read = initMemRef(params, phi +
                                        "        z = pl.tile.add(r, c)\n"
                                        "        o = pl.tile.store(z, [0, 0], out)\n        return o\n");
  ASSERT_TRUE(memrefOf(read, "y"));
  EXPECT_NE(memrefOf(read, "y")->base, memrefOf(read, "c")->base);
}

// The same If inside a loop reading an input bound before the loop: the next trip's other arm reads
// what this trip wrote, so the op does not run in place.
TEST(InitMemRef, AnInPlaceOpInALoopWhoseInputTheOtherArmYieldsKeepsItsInput) {
  Program p = initMemRef(std::string(kVec) + ", f: pl.Scalar[pl.BOOL]",
                         "        c = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)\n"
                         "        s = pl.tile.load(a, [0, 0], [8, 32])\n"
                         "        for i, (k,) in pl.range(2, init_values=(s,)):\n"
                         "            if f:\n"
                         "                y = pl.tile.assemble(c, s, [8, 0])\n"
                         "                r = pl.yield_(y)\n"
                         "            else:\n"
                         "                r = pl.yield_(c)\n"
                         "            w = pl.tile.slice(r, [8, 32], [0, 0])\n"
                         "            k2 = pl.yield_(w)\n"
                         "        o = pl.tile.store(k2, [0, 0], out)\n        return o\n");
  ASSERT_TRUE(memrefOf(p, "y"));
  EXPECT_NE(memrefOf(p, "y")->base, memrefOf(p, "c")->base);
}

// An in-place result is a tile of its own type, addressed at its own row pitch from its MemRef:
// it can take its input's bytes only where they form such a tile. Into a window of a wider tile
// (8 of 16 columns: out of contract, W7) the assemble gets storage of its own; into a row band as
// wide as its parent it still runs in place (2026-12-02, seed 20: `hazard/overlap` in the planned
// run, the result at a 32-byte pitch over its 64-byte-pitch target).
TEST(InitMemRef, AssembleIntoAWindowOfAWiderTileGetsStorageOfItsOwn) {
  auto planned = [](const std::string& window) {
    return initMemRef("out: pl.Out[pl.Tensor[[3, 16], pl.FP32]]",
                      "        t0 = pl.tile.full([3, 16], dtype=pl.FP32, value=1.0)\n"
                      "        w = " + window + "\n"
                      "        s = pl.tile.full([1, 8], dtype=pl.FP32, value=2.0)\n"
                      "        g = pl.tile.assemble(w, s, [0, 0])\n"
                      "        o = pl.tile.store(g, [0, 0], out)\n        return o\n",
                      "pl.Tensor[[3, 16], pl.FP32]");
  };
  Program strided = planned("pl.tile.slice(t0, [3, 8], [0, 0])");
  EXPECT_NE(memrefOf(strided, "g")->base, memrefOf(strided, "t0")->base) << printProgram(strided);
  Program band = planned("pl.tile.slice(t0, [2, 16], [1, 0])");
  EXPECT_EQ(memrefOf(band, "g"), memrefOf(band, "w")) << printProgram(band);
}

TEST(InitMemRef, AssembleReadingItsOwnTargetThroughAWindowGetsStorageOfItsOwn) {
  // The source is a window of the target: writing in place would overwrite what it copies (W9).
  Program p = initMemRef(kVec,
                         "        c = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        s = pl.tile.slice(c, [8, 32], [0, 0])\n"
                         "        y = pl.tile.assemble(c, s, [8, 0])\n"
                         "        o = pl.tile.store(y, [0, 0], out)\n        return o\n");
  EXPECT_NE(memrefOf(p, "y")->base, memrefOf(p, "c")->base);
}

TEST(InitMemRef, AssembleOfATileIntoItselfGetsStorageOfItsOwn) {
  // The source is the target value itself: in place, the copy would read the bytes it writes (W9).
  Program p = initMemRef(kVec,
                         "        c = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        y = pl.tile.assemble(c, c, [0, 0])\n"
                         "        o = pl.tile.store(y, [0, 0], out)\n        return o\n");
  ASSERT_TRUE(memrefOf(p, "y") && memrefOf(p, "c"));
  EXPECT_NE(memrefOf(p, "y")->base, memrefOf(p, "c")->base);
}

// ---- copies before relabels of windows (P11, P14) and before row-reduction scratch (PT6) ----

/// The top-level assignments of the kernel other than the hoisted roots, `name = value` per line.
/// `name = expr` for every assignment but the roots, nested regions in place (headers left out).
std::string bodyText(const Program& p) {
  std::string out;
  auto visit = [&](const Block& body, auto&& self) -> void {
    for (const StmtPtr& s : body) {
      switch (s->kind) {
        case Stmt::Kind::Assign: {
          const auto& a = s->as<AssignStmt>();
          if (!a.target.annotation || a.target.annotation->kind != Type::Kind::Ptr)
            out += a.target.name + " = " + printExpr(*a.value) + "\n";
          break;
        }
        case Stmt::Kind::For: self(s->as<ForStmt>().body, self); break;
        case Stmt::Kind::While: self(s->as<WhileStmt>().body, self); break;
        case Stmt::Kind::If:
          self(s->as<IfStmt>().thenBody, self);
          self(s->as<IfStmt>().elseBody, self);
          break;
        default: break;
      }
    }
  };
  visit(p.functions[0].body, visit);
  return out;
}

TEST(InitMemRef, ReshapeOfAWindowWithAWiderRowPitchReadsADenseCopy) {
  // A one-row window of 128-byte rows still has that pitch (W1); a reshape needs the dense 64 B (P11).
  Program p = initMemRef(kVec,
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        row = pl.tile.slice(x, [1, 16], [0, 0])\n"
                         "        f = pl.tile.reshape(row, [2, 8])\n"
                         "        o = pl.tile.store(f, [0, 0], out)\n        return o\n");
  EXPECT_NE(bodyText(p).find("row_dense = pl.tile.move(row, target_memory=pl.Mem.Vec)\n"), std::string::npos)
      << bodyText(p);
  EXPECT_NE(bodyText(p).find("f = pl.tile.reshape(row_dense, [2, 8])\n"), std::string::npos) << bodyText(p);
  EXPECT_EQ(memrefOf(p, "row_dense"), ref("mem_vec_1", 0, 64));
  EXPECT_EQ(memrefOf(p, "f"), ref("mem_vec_1", 0, 64));
}

// The relabel keeps every lane of a narrow window; when a setter can expose them again, the dense
// copy takes them all (widen, move, narrow), not only the valid region (campaign seed 1, case 36832).
TEST(InitMemRef, ReshapeOfANarrowWindowCopiesEveryLaneWhenASetterMayExposeThem) {
  const std::string body =
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        row = pl.tile.slice(x, [1, 16], [0, 0], valid_shape=[1, 4])\n"
      "        f = pl.tile.reshape(row, [2, 8])\n"
      "        g = pl.tile.set_validshape(f, 2, 8)\n"
      "        o = pl.tile.store(g, [0, 0], out)\n        return o\n";
  Program p = initMemRef(kVec, body);
  EXPECT_NE(bodyText(p).find("row_dense_whole_src = pl.tile.set_validshape(row, 1, 16)\n"), std::string::npos)
      << bodyText(p);
  EXPECT_NE(bodyText(p).find("row_dense_whole = pl.tile.move(row_dense_whole_src, target_memory=pl.Mem.Vec)\n"),
            std::string::npos)
      << bodyText(p);
  EXPECT_NE(bodyText(p).find("row_dense = pl.tile.set_validshape(row_dense_whole, 1, 4)\n"), std::string::npos)
      << bodyText(p);
  EXPECT_NE(bodyText(p).find("f = pl.tile.reshape(row_dense, [2, 8])\n"), std::string::npos) << bodyText(p);
  // Without a setter (or another reader of hidden lanes) the valid region is all a copy needs.
  Program q = initMemRef(kVec,
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        row = pl.tile.slice(x, [1, 16], [0, 0], valid_shape=[1, 4])\n"
                         "        f = pl.tile.reshape(row, [2, 8])\n"
                         "        o = pl.tile.store(f, [0, 0], out)\n        return o\n");
  EXPECT_NE(bodyText(q).find("row_dense = pl.tile.move(row, target_memory=pl.Mem.Vec)\n"), std::string::npos)
      << bodyText(q);
}

// A reshape reinterprets whatever window its source names at run time. A branch result is the
// value of the arm that ran, and its MemRef names only the then arm's (C13): when the else arm
// yields a slice of a wider tile (128-byte rows for 64-byte ones), the reshape reads a dense copy,
// else the planned run reinterprets strided rows (`hazard: align` under every planner).
TEST(InitMemRef, ReshapeOfABranchResultWithAStridedArmReadsADenseCopy) {
  auto planned = [](const std::string& elseValue) {
    return initMemRef("c: pl.Scalar[pl.BOOL], out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]",
                      "        t0 = pl.tile.full([8, 32], dtype=pl.FP32, value=1.0)\n"
                      "        t1 = pl.tile.full([8, 16], dtype=pl.FP32, value=2.0)\n"
                      "        t2 = pl.tile.full([8, 16], dtype=pl.FP32, value=3.0)\n"
                      "        s = pl.tile.slice(t0, [8, 16], [0, 8])\n"
                      "        if c:\n"
                      "            r = pl.yield_(t1)\n"
                      "        else:\n"
                      "            r = pl.yield_(" + elseValue + ")\n"
                      "        m = pl.tile.reshape(r, [4, 32])\n"
                      "        n = pl.tile.slice(m, [4, 16], [0, 0])\n"
                      "        o = pl.tile.store(n, [0, 0], out)\n        return o\n",
                      "pl.Tensor[[4, 16], pl.FP32]");
  };
  Program strided = planned("s");
  EXPECT_NE(bodyText(strided).find("r_dense = pl.tile.move(r, target_memory=pl.Mem.Vec)\n"
                                   "m = pl.tile.reshape(r_dense, [4, 32])\n"),
            std::string::npos)
      << printProgram(strided);
  // Both arms dense (in different roots): the reshape reinterprets either as it stands.
  Program dense = planned("t2");
  EXPECT_EQ(bodyText(dense).find("_dense"), std::string::npos) << bodyText(dense);
}

TEST(InitMemRef, TransposeViewOfARuntimeOffsetWindowReadsADenseCopy) {
  // Only a slice may be placed at run time (P14): the relabel reads a copy at a static base.
  Program p = initMemRef(std::string(kVec) + ", r: pl.Scalar[pl.INDEX]",
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        w = pl.tile.slice(x, [8, 8], [r, 0])\n"
                         "        t = pl.tile.transpose_view(w)\n"
                         "        o = pl.tile.store(t, [0, 0], out)\n        return o\n");
  EXPECT_NE(bodyText(p).find("t = pl.tile.transpose_view(w_dense)\n"), std::string::npos) << bodyText(p);
  EXPECT_EQ(memrefOf(p, "w_dense"), ref("mem_vec_1", 0, 256));
  EXPECT_EQ(memrefOf(p, "t"), ref("mem_vec_1", 0, 256));
}

TEST(InitMemRef, ReshapeOfADenseRowBandNeedsNoCopy) {
  Program p = initMemRef(kVec,
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        band = pl.tile.slice(x, [8, 32], [8, 0])\n"
                         "        f = pl.tile.reshape(band, [16, 16])\n"
                         "        o = pl.tile.store(f, [0, 0], out)\n        return o\n");
  EXPECT_EQ(bodyText(p).find("_dense"), std::string::npos) << bodyText(p);
  EXPECT_EQ(memrefOf(p, "f"), ref("mem_vec_0", 1024, 1024));
}

TEST(InitMemRef, RowReductionScratchStillReadLaterIsFreshStorage) {
  // The reduction writes poison over its tmp (semantics.md §2, PT6); `s` is stored afterwards. The
  // reduction never reads its tmp, so fresh storage of the tmp's shape serves as scratch.
  Program p = initMemRef(kVec,
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        s = pl.tile.load(a, [16, 0], [16, 32])\n"
                         "        m = pl.tile.row_sum(x, s)\n"
                         "        o = pl.tile.store(s, [0, 0], out)\n        return o\n");
  EXPECT_NE(bodyText(p).find("s_scratch = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                             "m = pl.tile.row_sum(x, s_scratch)\n"),
            std::string::npos)
      << bodyText(p);
  EXPECT_NE(memrefOf(p, "s_scratch")->base, memrefOf(p, "s")->base);
}

TEST(InitMemRef, RowReductionScratchThatIsAlsoTheReducedTileIsAPrivateCopy) {
  Program p = initMemRef(kVec,
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        m = pl.tile.row_max(x, x)\n"
                         "        o = pl.tile.store(x, [0, 0], out)\n        return o\n");
  EXPECT_NE(bodyText(p).find("m = pl.tile.row_max(x, x_scratch)\n"), std::string::npos) << bodyText(p);
}

TEST(InitMemRef, RowReductionScratchReadBeforeALoopRepeatsIsAPrivateCopy) {
  // `s` is bound once outside the loop and read before the reduction in every trip.
  Program p = initMemRef("a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        s = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        for i, (o,) in pl.range(2, init_values=(out,)):\n"
                         "            e = pl.tile.exp(s)\n"
                         "            m = pl.tile.row_min(e, s)\n"
                         "            o1 = pl.tile.store(e, [0, 0], o)\n"
                         "            r = pl.yield_(o1)\n"
                         "        return r\n");
  EXPECT_TRUE(memrefOf(p, "s_scratch").has_value());
}

TEST(InitMemRef, TransposedRowReductionScratchReadInALaterTripIsFreshStorage) {
  // Fuzz finding (60 s demo of 2026-12-01, case 3071): a `transpose_view` tmp cannot be copied by a
  // move (M14), so the copy was skipped and VerifyTileStorage failed closed with [L9]. Fresh scratch
  // of the tmp's (transposed) shape needs no copy.
  Program p = initMemRef("a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], "
                         "out: pl.Out[pl.Tensor[[32, 1], pl.FP32]]",
                         "        f = pl.tile.full([16, 32], dtype=pl.FP32, value=-1.25)\n"
                         "        t = pl.tile.transpose_view(f)\n"
                         "        for i, (o,) in pl.range(n, init_values=(out,)):\n"
                         "            x = pl.tile.relu(t)\n"
                         "            m = pl.tile.row_max(x, t)\n"
                         "            o1 = pl.tile.store(m, [0, 0], o)\n"
                         "            r = pl.yield_(o1)\n"
                         "        return r\n",
                         "pl.Tensor[[32, 1], pl.FP32]");
  // One line per statement: the printer wraps long calls after `(`.
  const std::string text =
      std::regex_replace(std::regex_replace(printProgram(p), std::regex("\\(\n *"), "("), std::regex("\n *\\)"), ")");
  EXPECT_NE(text.find("= pl.tile.create([32, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("t_scratch: pl.Tile[[32, 16], pl.FP32, pl.MemRef("), std::string::npos) << text;
  EXPECT_NE(text.find("pl.tile.row_max(x, t_scratch)"), std::string::npos) << text;
  EXPECT_NE(memrefOf(p, "t_scratch")->base, memrefOf(p, "t")->base);
}

TEST(InitMemRef, NarrowInPlaceInputStillReadLaterIsCopiedWholeAndWrittenInPlace) {
  // Fuzz finding (60 s demo of 2026-12-01, case 456): `t0` is read after the assemble, so the
  // assemble result needs storage of its own; the planned copy of its input would take only the
  // valid [3, 4] while the Tile result keeps all [4, 16] lanes, and `r` assembles that result whole.
  Program p = initMemRef("out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]",
                         "        t0 = pl.tile.full([4, 16], dtype=pl.FP32, value=1.0)\n"
                         "        n = pl.tile.set_validshape(t0, 3, 4)\n"
                         "        s = pl.tile.full([3, 8], dtype=pl.FP32, value=2.0)\n"
                         "        g = pl.tile.assemble(n, s, [0, 0])\n"
                         "        r = pl.tile.assemble(t0, g, [0, 0])\n"
                         "        o = pl.tile.store(r, [0, 0], out)\n        return o\n",
                         "pl.Tensor[[4, 16], pl.FP32]");
  EXPECT_NE(bodyText(p).find("n_inplace_whole_src = pl.tile.set_validshape(n, 4, 16)\n"
                             "n_inplace_whole = pl.tile.move(n_inplace_whole_src, target_memory=pl.Mem.Vec)\n"
                             "n_inplace = pl.tile.set_validshape(n_inplace_whole, 3, 4)\n"
                             "g = pl.tile.assemble(n_inplace, s, [0, 0])\n"),
            std::string::npos)
      << bodyText(p);
  EXPECT_EQ(memrefOf(p, "g"), memrefOf(p, "n_inplace_whole"));  // in place on the copy
  EXPECT_NE(memrefOf(p, "g")->base, memrefOf(p, "t0")->base);
}

// Campaign seed 3, case 13055 (reduced): the While carry holds only g and its in-place updates, so
// its reads are reads of g, not of g's input; g follows its input (no copy, no storage of its own).
TEST(InitMemRef, AnInPlaceResultCarriedAndUpdatedInPlaceFollowsItsInput) {
  Program p = initMemRef("out: pl.Out[pl.Tensor[[5, 64], pl.FP32]]",
                         "        t0 = pl.tile.full([5, 64], dtype=pl.FP32, value=1.0)\n"
                         "        n = pl.tile.set_validshape(t0, 2, 3)\n"
                         "        s = pl.tile.full([2, 8], dtype=pl.FP32, value=1.0)\n"
                         "        g = pl.tile.assemble(n, s, [0, 0])\n"
                         "        for (c,) in pl.while_(init_values=(g,)):\n"
                         "            pl.cond(0 < 0)\n"
                         "            h = pl.tile.assemble(c, s, [0, 0])\n"
                         "            r = pl.yield_(h)\n"
                         "        w = pl.tile.set_validshape(r, 3, 1)\n"
                         "        o = pl.tile.store(w, [0, 0], out)\n        return o\n",
                         "pl.Tensor[[5, 64], pl.FP32]");
  EXPECT_EQ(bodyText(p).find("_inplace"), std::string::npos) << bodyText(p);
  EXPECT_EQ(memrefOf(p, "g"), memrefOf(p, "t0")) << bodyText(p);
  EXPECT_EQ(memrefOf(p, "h"), memrefOf(p, "t0")) << bodyText(p);
}

// Campaign seed 4, case 21898 (shrunk): `r` joins t36 (a view of the assemble result) with t39 in
// a zero-trip While, and the store reads it, so the assemble's input counts as observable and it
// got a whole copy; the copy is read by the assemble alone, so the assemble runs in place on it.
// Given storage of its own instead, the result started from the valid [1, 1] region only, and the
// lane [0, 8] that the setter to [1, 9] exposes was lost (uninit under PTOAS, 4 instead of 2 under
// DSA_RP).
TEST(InitMemRef, AnInPlaceOpRunsInPlaceOnAWholeCopyNothingElseReads) {
  Program p = initMemRef("out: pl.Out[pl.Tensor[[2, 32], pl.FP32]]",
                         "        t1 = pl.tile.full([1, 48], dtype=pl.FP32, value=1.0)\n"
                         "        t25 = pl.tile.set_validshape(t1, 1, 1)\n"
                         "        t33 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)\n"
                         "        t34 = pl.tile.assemble(t25, t33, [0, 0])\n"
                         "        t36 = pl.tile.set_validshape(t34, 1, 9)\n"
                         "        t39 = pl.tile.add(t36, t36)\n"
                         "        for (c1,) in pl.while_(init_values=(t39,)):\n"
                         "            pl.cond(0 < 0)\n"
                         "            r4 = pl.yield_(t36)\n"
                         "        o4 = pl.tile.store(r4, [1, 16], out)\n        return o4\n",
                         "pl.Tensor[[2, 32], pl.FP32]");
  EXPECT_NE(bodyText(p).find("t34 = pl.tile.assemble(t25_inplace, t33, [0, 0])\n"), std::string::npos) << bodyText(p);
  EXPECT_EQ(memrefOf(p, "t34"), memrefOf(p, "t25_inplace_whole")) << bodyText(p);
  EXPECT_NE(memrefOf(p, "t34")->base, memrefOf(p, "t1")->base) << bodyText(p);
}

// The same whole-copy pattern read by something besides the in-place op is not private: the op
// keeps storage of its own rather than overwriting bytes another value still reads.
TEST(InitMemRef, AWholeCopyReadElsewhereIsNotOverwrittenInPlace) {
  Program p = initMemRef("out: pl.Out[pl.Tensor[[2, 48], pl.FP32]]",
                         "        t1 = pl.tile.full([1, 48], dtype=pl.FP32, value=1.0)\n"
                         "        ws = pl.tile.set_validshape(t1, 1, 48)\n"
                         "        w = pl.tile.move(ws, target_memory=pl.Mem.Vec)\n"
                         "        n = pl.tile.set_validshape(w, 1, 1)\n"
                         "        s = pl.tile.full([1, 8], dtype=pl.FP32, value=2.0)\n"
                         "        g = pl.tile.assemble(n, s, [0, 0])\n"
                         "        o1 = pl.tile.store(g, [0, 0], out)\n"
                         "        o2 = pl.tile.store(w, [1, 0], o1)\n        return o2\n",
                         "pl.Tensor[[2, 48], pl.FP32]");
  EXPECT_NE(memrefOf(p, "g")->base, memrefOf(p, "w")->base) << bodyText(p);
}

// Campaign seed 17, case 68486 (shrunk): the whole-copy pattern made once before a While whose
// body narrows it again and assembles into it. The copy is not private to one trip: the next trip
// reads it again through the repeated setter, so the assemble works on a copy of its own made in
// the loop (a copy made before the loop, overwritten in place, was a live clobber).
TEST(InitMemRef, AWholeCopyMadeBeforeALoopIsCopiedAgainForAnInPlaceOpInTheLoop) {
  Program p = initMemRef("out: pl.Out[pl.Tensor[[1, 32], pl.FP32]]",
                         "        t1 = pl.tile.full([1, 32], dtype=pl.FP32, value=1.0)\n"
                         "        t2 = pl.tile.set_validshape(t1, 1, 1)\n"
                         "        t3 = pl.tile.move(t2, target_memory=pl.Mem.Vec)\n"
                         "        for (k,) in pl.while_(init_values=(0,)):\n"
                         "            pl.cond(k < 2)\n"
                         "            t13 = pl.tile.set_validshape(t3, 1, 1)\n"
                         "            t15 = pl.tile.full([1, 8], dtype=pl.FP32, value=1.0)\n"
                         "            t16 = pl.tile.assemble(t13, t15, [0, 0])\n"
                         "            k1 = k + 1\n"
                         "            r = pl.yield_(k1)\n"
                         "        o = pl.tile.store(t3, [0, 0], out)\n        return o\n",
                         "pl.Tensor[[1, 32], pl.FP32]");
  EXPECT_NE(bodyText(p).find("t16 = pl.tile.assemble(t13_inplace, t15, [0, 0])\n"), std::string::npos) << bodyText(p);
  EXPECT_EQ(memrefOf(p, "t16"), memrefOf(p, "t13_inplace_whole")) << bodyText(p);
  EXPECT_NE(memrefOf(p, "t16")->base, memrefOf(p, "t3")->base) << bodyText(p);
}

// Campaign seed 17, case 222851 (shrunk): `r1` is `t0` when the then arm runs and `t5` when the
// else arm does, and its MemRef names only the then arm's storage (C13). An assemble placed there
// would copy just its target's valid [3, 1] region after the else arm, losing the lane [0, 8] the
// setter to [1, 9] exposes; it gets a whole copy of its own, read through the branch result at run
// time, and runs in place on that.
TEST(InitMemRef, AnInPlaceOpOnABranchResultOfTwoStoragesRunsOnACopy) {
  const std::string body = "        t0 = pl.tile.full([8, 16], dtype=pl.FP32, value=1.0)\n"
                           "        t5 = pl.tile.add(t0, t0)\n"
                           "        if c:\n"
                           "            r1 = pl.yield_(t0)\n"
                           "        else:\n"
                           "            r1 = pl.yield_(ELSE)\n"
                           "        t11 = pl.tile.set_validshape(r1, 3, 1)\n"
                           "        t13 = pl.tile.full([3, 8], dtype=pl.FP32, value=1.0)\n"
                           "        t14 = pl.tile.assemble(t11, t13, [0, 0])\n"
                           "        t16 = pl.tile.set_validshape(t14, 1, 9)\n"
                           "        o = pl.tile.store(t16, [0, 0], out)\n        return o\n";
  auto planned = [&](const std::string& elseValue) {
    return initMemRef("c: pl.Scalar[pl.BOOL], out: pl.Out[pl.Tensor[[1, 16], pl.FP32]]",
                      std::regex_replace(body, std::regex("ELSE"), elseValue), "pl.Tensor[[1, 16], pl.FP32]");
  };
  Program twoStorages = planned("t5");
  EXPECT_NE(bodyText(twoStorages).find("t14 = pl.tile.assemble(t11_inplace, t13, [0, 0])\n"), std::string::npos)
      << bodyText(twoStorages);
  EXPECT_EQ(memrefOf(twoStorages, "t14"), memrefOf(twoStorages, "t11_inplace_whole")) << bodyText(twoStorages);
  // Both arms yielding one storage leave nothing to choose: the assemble runs in place on it.
  Program oneStorage = planned("t0");
  EXPECT_EQ(bodyText(oneStorage).find("_inplace"), std::string::npos) << bodyText(oneStorage);
  EXPECT_EQ(memrefOf(oneStorage, "t14"), memrefOf(oneStorage, "t0")) << bodyText(oneStorage);
}

TEST(InitMemRef, AWholeCopyJoinedByALoopCarryIsNotCopiedAgain) {
  // Fuzz finding (60 s demo of 2026-12-01, case 80, reduced): the carry joins the copy's storage
  // with `t0`'s, which the loop yields and `r` reads later, so the assemble never follows its input;
  // copying the copy again looped until InitMemRef's round bound threw.
  Program p = initMemRef("out: pl.Out[pl.Tensor[[3, 32], pl.FP32]]",
                         "        t0 = pl.tile.full([3, 32], dtype=pl.FP32, value=1.0)\n"
                         "        e = pl.tile.set_validshape(t0, 0, 0)\n"
                         "        g = pl.tile.assemble(e, t0, [0, 0])\n"
                         "        for (c, k) in pl.while_(init_values=(g, 0)):\n"
                         "            pl.cond(k < 1)\n"
                         "            k1 = 1\n"
                         "            r, rk = pl.yield_(t0, k1)\n"
                         "        o = pl.tile.store(r, [0, 0], out)\n        return o\n",
                         "pl.Tensor[[3, 32], pl.FP32]");
  EXPECT_NE(bodyText(p).find("g = pl.tile.assemble(e_inplace, t0, [0, 0])\n"), std::string::npos) << bodyText(p);
  EXPECT_EQ(bodyText(p).find("e_inplace_inplace"), std::string::npos) << bodyText(p);
}

TEST(InitMemRef, AResultCarriedThroughALoopThatYieldsItsCarryBackFollowsItsCopy) {
  // Fuzz finding (5-minute campaign, seed 2, case 771): `c` yields itself, so it holds only what
  // `g` holds; counting it as another reader of the copy kept the assemble off the copy, and the
  // result's valid-region copy lost the lanes the growing setter exposes.
  Program p = initMemRef("out: pl.Out[pl.Tensor[[6, 24], pl.FP32]]",
                         "        t0 = pl.tile.full([6, 24], dtype=pl.FP32, value=1.0)\n"
                         "        n = pl.tile.set_validshape(t0, 2, 1)\n"
                         "        s = pl.tile.slice(t0, [4, 24], [0, 0], valid_shape=[1, 1])\n"
                         "        g = pl.tile.assemble(n, s, [1, 0])\n"
                         "        w = pl.tile.set_validshape(g, 1, 3)\n"
                         "        for i, (c,) in pl.range(1, 0, init_values=(w,)):\n"
                         "            r = pl.yield_(c)\n"
                         "        o = pl.tile.store(w, [0, 0], out)\n        return o\n",
                         "pl.Tensor[[6, 24], pl.FP32]");
  EXPECT_NE(bodyText(p).find("g = pl.tile.assemble(n_inplace, s, [1, 0])\n"), std::string::npos) << bodyText(p);
  EXPECT_EQ(memrefOf(p, "g"), memrefOf(p, "n_inplace_whole"));
}

TEST(InitMemRef, FullyValidInPlaceInputNeedsNoWholeCopy) {
  // A copy of the valid region is the whole tile already.
  Program p = initMemRef("out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]",
                         "        t0 = pl.tile.full([4, 16], dtype=pl.FP32, value=1.0)\n"
                         "        s = pl.tile.full([3, 8], dtype=pl.FP32, value=2.0)\n"
                         "        g = pl.tile.assemble(t0, s, [0, 0])\n"
                         "        r = pl.tile.assemble(t0, g, [0, 0])\n"
                         "        o = pl.tile.store(r, [0, 0], out)\n        return o\n",
                         "pl.Tensor[[4, 16], pl.FP32]");
  EXPECT_EQ(bodyText(p).find("_inplace"), std::string::npos) << bodyText(p);
}

TEST(InitMemRef, RowReductionScratchReadByNothingElseIsUsedDirectly) {
  Program p = initMemRef(kVec,
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        s = pl.tile.full([16, 32], dtype=pl.FP32, value=0.0)\n"
                         "        m = pl.tile.row_sum(x, s)\n"
                         "        o = pl.tile.store(x, [0, 0], out)\n        return o\n");
  EXPECT_EQ(bodyText(p).find("_scratch"), std::string::npos) << bodyText(p);
}

/// `ptodiff run GOLDEN --planner all` with scalars `r`: the planned-Tile runs of every planner must
/// be clean and equal the Tile run (semantics.md §3).
TEST(InitMemRef, TheStorageCopiesGoldenRunsCleanAndAgreesUnderEveryPlanner) {
  const std::string dir = testing::TempDir() + "/" + testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::create_directories(dir);
  const std::string program = dir + "/k.py", out = dir + "/run.out";
  std::filesystem::copy_file(std::filesystem::path(PTODIFF_TESTS_DIR) / "golden/lower/msa_storage_copies.py", program,
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir + "/k.case.json") << "{\"scalars\": {\"r\": 3}}\n";
  const int raw = std::system((std::string(PTODIFF_BINARY) + " run " + program + " --planner all > " + out + " 2>&1").c_str());
  const std::string text = readText(out);
  ASSERT_TRUE(WIFEXITED(raw)) << text;
  EXPECT_EQ(WEXITSTATUS(raw), 0) << text;
  for (const char* planner : {"PYPTO ", "DSA_RP", "PTOAS "})
    EXPECT_NE(text.find(std::string(planner) + "   planned  pass"), std::string::npos) << planner << "\n" << text;
  EXPECT_NE(text.find("result: pass"), std::string::npos) << text;
}

TEST(InitMemRef, InPlaceResultInALoopGetsStorageOfItsOwnWhenTheNextTripRereadsTheInput) {
  Program p = initMemRef("a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
                         "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                         "        s = pl.tile.full([8, 32], dtype=pl.FP32, value=2.0)\n"
                         "        for i, (o,) in pl.range(2, init_values=(out,)):\n"
                         "            y = pl.tile.assemble(x, s, [8, 0])\n"
                         "            o1 = pl.tile.store(y, [i * 16, 0], o)\n"
                         "            r = pl.yield_(o1)\n"
                         "        return r\n",
                         "pl.Tensor[[32, 32], pl.FP32]");
  EXPECT_NE(memrefOf(p, "y")->base, memrefOf(p, "x")->base);
}

TEST(InitMemRef, AccumulatorCarriedThroughALoopStaysInPlace) {
  Program p = initMemRef("a: pl.Tensor[[16, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
                         "        m = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
                         "        l = pl.tile.move(m, target_memory=pl.Mem.Left)\n"
                         "        rr = pl.tile.move(m, target_memory=pl.Mem.Right)\n"
                         "        acc0 = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
                         "        for k, (acc,) in pl.range(4, init_values=(acc0,)):\n"
                         "            acc1 = pl.tile.matmul_acc(acc, l, rr, init_cond=k == 0)\n"
                         "            acc_out = pl.yield_(acc1)\n"
                         "        o = pl.tile.store(acc_out, [0, 0], out)\n        return o\n",
                         "pl.Tensor[[16, 16], pl.FP32]");
  EXPECT_EQ(memrefOf(p, "acc1"), memrefOf(p, "acc0"));
  // Carries and loop results have no annotation slot: they denote what is bound to them.
  const auto& loop = p.functions[0].body[8]->as<ForStmt>();
  EXPECT_FALSE(loop.iterArgs[0].annotation.has_value());
  EXPECT_FALSE(trailingYield(loop.body)->targets[0].annotation.has_value());
}

TEST(InitMemRef, RootNamesAvoidNamesTheKernelAlreadyUses) {
  Program p = initMemRef("mem_vec_0: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                         "        mem_vec_1 = pl.tile.load(mem_vec_0, [0, 0], [16, 32])\n"
                         "        o = pl.tile.store(mem_vec_1, [0, 0], out)\n        return o\n");
  EXPECT_EQ(memrefOf(p, "mem_vec_1"), ref("mem_vec_2", 0, 2048));
}

TEST(InitMemRef, RejectsAProgramThatIsAlreadyPlanned) {
  Program planned = initMemRef(kVec,
                               "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                               "        o = pl.tile.store(x, [0, 0], out)\n        return o\n");
  verifyOrThrow(planned);
  try {
    createInitMemRefPass()->run(planned, contextFor());
    FAIL() << "expected InitMemRef to reject planned input";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message,
              "InitMemRef: [P18] tile.load: 'x' already names planned storage (pl.MemRef(mem_vec_0, ...)); expected "
              "an unplanned Tile program (InitMemRef plans every kernel once)");
    EXPECT_EQ(e.diagnostic().loc.line, 5u);
  }
}

TEST(InitMemRef, RejectsAStorageRootWrittenByHand) {
  Program p = parseVerified(kernelProgram("out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                                          "        m: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)\n        return out\n"));
  try {
    createInitMemRefPass()->run(p, contextFor());
    FAIL() << "expected a diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message,
              "InitMemRef: [P18] tile.alloc: 'm' is a storage root (pl.tile.alloc); expected an unplanned Tile program "
              "without storage roots");
  }
}

// Rule 14: a pass reports "unchanged" exactly when it returns the program as it was.
TEST(InitMemRef, ReportsNoChangeAndChangesNothingWithoutTileValues) {
  Program p = parseVerified(kernelProgram("out: pl.Out[pl.Tensor[[16, 32], pl.FP32]], n: pl.Scalar[pl.INDEX]",
                                          "        k = n + 1\n        return out\n"));
  Program before = p.clone();
  EXPECT_FALSE(createInitMemRefPass()->run(p, contextFor()));
  EXPECT_TRUE(structurallyEqual(before, p)) << firstDifference(before, p);
}

TEST(InitMemRef, PostconditionRequiresAMemRefOnEveryAssignedTile) {
  Program p = parseVerified(kernelProgram(kVec, "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                                "        o = pl.tile.store(x, [0, 0], out)\n        return o\n"));
  std::vector<Diagnostic> d = createInitMemRefPass()->checkPostcondition(p, contextFor());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "InitMemRef: [P18] tile.load: 'x' was left without a pl.MemRef; expected storage on every "
                          "assigned Tile value");
}

}  // namespace
}  // namespace ptodiff
