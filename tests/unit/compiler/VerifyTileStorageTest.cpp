// VerifyTileStorage (spec/lowering.md step 5): every diagnostic it emits, on hand-written planned
// kernels (P1, P14, P18: closure, roots, capacity, reserved range, overlap of live allocations;
// L9: two generations of a loop value). Each case names the rule in the message.
#include <gtest/gtest.h>

#include "compiler/passes/VerifyTileStorage.h"
#include "tests/unit/compiler/PassTestSupport.h"

namespace ptodiff {
namespace {

using namespace testsupport;

/// A planned kernel `body` with parameters a: [16, 32] FP32, n: INDEX, out: Out [16, 32] FP32.
std::string planned(const std::string& body, const std::string& selected = "True") {
  return "@pl.program\nclass t:\n    @pl.function(type=pl.FunctionType.InCore, buffer_ir_selected=" + selected +
         ")\n    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], "
         "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:\n" +
         body;
}

std::vector<std::string> problems(const std::string& text, Planner planner = Planner::PYPTO,
                                  const Target& target = targetA2A3()) {
  Program p = parseVerified(text);
  std::vector<std::string> out;
  for (const Diagnostic& d : checkTileStorage(p, contextFor(planner, target))) out.push_back(d.message);
  return out;
}

using Messages = std::vector<std::string>;

constexpr const char* kTwoLive =
    "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
    "        m1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=ADDR)\n"
    "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m1, ADDR, 2048), pl.Mem.Vec] = pl.tile.exp(x)\n"
    "        z: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.add(x, y)\n"
    "        o = pl.tile.store(z, [0, 0], out)\n"
    "        return o\n";

std::string twoLive(int addr) {
  std::string s = kTwoLive;
  for (size_t at; (at = s.find("ADDR")) != std::string::npos;) s.replace(at, 4, std::to_string(addr));
  return planned(s);
}

TEST(VerifyTileStorage, AcceptsASoundPlan) {
  // z writes exactly x's window as x is read for the last time: an in-place add.
  EXPECT_EQ(problems(twoLive(2048)), (Messages{}));
}

TEST(VerifyTileStorage, RejectsSimultaneouslyLiveAllocationsThatOverlapP18) {
  Program p = parseVerified(twoLive(1024));
  std::vector<Diagnostic> d = checkTileStorage(p, contextFor());
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].message,
            "VerifyTileStorage [P18]: 'x' (line 7) and 'y' (line 8) are live at the same time but their storage "
            "overlaps: [0, 2048) and [1024, 3072) of Vec");
  EXPECT_EQ(d[0].loc.line, 8u);
  ASSERT_EQ(d[0].notes.size(), 1u);
  EXPECT_EQ(d[0].notes[0].message, "'x' is defined here");
  EXPECT_EQ(d[0].notes[0].loc.line, 7u);
  // z may write over y only exactly (y is read for the last time by z's in-place add).
  EXPECT_EQ(d[1].message,
            "VerifyTileStorage [P18]: 'y' (line 8) and 'z' (line 9) are live at the same time but their storage "
            "overlaps: [1024, 3072) and [0, 2048) of Vec (an in-place op may only write exactly its input's window)");
}

TEST(VerifyTileStorage, RejectsATileWithoutStorageP18) {
  EXPECT_EQ(problems(planned("        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                             "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
                             "        y = pl.tile.exp(x)\n"
                             "        o = pl.tile.store(y, [0, 0], out)\n        return o\n")),
            (Messages{"VerifyTileStorage [P18]: 'y' has no pl.MemRef; expected every Tile value of a planned kernel to "
                     "name its storage"}));
}

TEST(VerifyTileStorage, RejectsAMemRefOutsideItsRootP14) {
  EXPECT_EQ(problems(planned("        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                             "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 1024, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
                             "        o = pl.tile.store(x, [0, 0], out)\n        return o\n")),
            (Messages{"VerifyTileStorage [P14]: 'x' occupies [1024, 3072), outside root 'm0' at [0, 2048)"}));
}

TEST(VerifyTileStorage, RejectsAMemRefSmallerThanItsTileP14) {
  EXPECT_EQ(problems(planned("        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                             "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 1024), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
                             "        o = pl.tile.store(x, [0, 0], out)\n        return o\n")),
            (Messages{"VerifyTileStorage [P14]: the MemRef of 'x' holds 1024 bytes but the tile needs 2048"}));
}

TEST(VerifyTileStorage, RejectsAnEmptyMemRefP14) {
  EXPECT_EQ(problems(planned("        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                             "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 0), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
                             "        o = pl.tile.store(x, [0, 0], out)\n        return o\n")),
            (Messages{"VerifyTileStorage [P14]: 'x' has a MemRef of 0 bytes",
                      "VerifyTileStorage [P14]: the MemRef of 'x' holds 0 bytes but the tile needs 2048"}));
}

TEST(VerifyTileStorage, RejectsARuntimeWindowLargerThanItsRootP14) {
  EXPECT_EQ(problems(planned("        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                             "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
                             "        s: pl.Tile[[8, 32], pl.FP32, pl.MemRef(m0, -1, 4096), pl.Mem.Vec] = pl.tile.slice(x, [8, 32], [n, 0])\n"
                             "        o = pl.tile.store(s, [0, 0], out)\n        return o\n")),
            (Messages{"VerifyTileStorage [P14]: the window of 's' spans 4096 bytes, more than root 'm0' holds (2048)"}));
}

TEST(VerifyTileStorage, RejectsAViewNamingAnotherRootThanItsSourceP18) {
  EXPECT_EQ(problems(planned("        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                             "        m1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)\n"
                             "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
                             "        v: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m1, 2048, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[8, 32])] = pl.tile.set_validshape(x, 8, 32)\n"
                             "        o = pl.tile.store(v, [0, 0], out)\n        return o\n")),
            (Messages{"VerifyTileStorage [P18]: 'v' is a view but names root 'm1' while its source names 'm0'"}));
}

constexpr const char* kUnalignedWindow =
    "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
    "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        s: pl.Tile[[8, 16], pl.FP32, pl.MemRef(m0, 16, 960), pl.Mem.Vec] = pl.tile.slice(x, [8, 16], [0, 4])\n"
    "        o = pl.tile.store(x, [0, 0], out)\n        return o\n";

// P14 binds both paths: no UB tile, view or not, can start off a 32-byte boundary.
TEST(VerifyTileStorage, RejectsAnUnalignedWindowOnEitherPathP14) {
  for (const char* selected : {"True", "False"})
    EXPECT_EQ(problems(planned(kUnalignedWindow, selected)),
              (Messages{"VerifyTileStorage [P14]: 's' has MemRef offset 16; expected a nonnegative multiple of 32"}))
        << "buffer_ir_selected=" << selected;
}

TEST(VerifyTileStorage, RejectsAViewOutsideItsSourcesWindowP18) {
  EXPECT_EQ(problems(planned("        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)\n"
                             "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
                             "        s: pl.Tile[[8, 32], pl.FP32, pl.MemRef(m0, 2048, 1024), pl.Mem.Vec] = pl.tile.slice(x, [8, 32], [8, 0])\n"
                             "        o = pl.tile.store(s, [0, 0], out)\n        return o\n")),
            (Messages{"VerifyTileStorage [P18]: 's' occupies [2048, 3072), outside its source's window [0, 2048)"}));
}

TEST(VerifyTileStorage, RejectsARuntimeOffsetOnAnythingButASliceP14) {
  EXPECT_EQ(problems(planned("        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
                             "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, -1, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
                             "        o = pl.tile.store(x, [0, 0], out)\n        return o\n")),
            (Messages{"VerifyTileStorage [P14]: 'x' has a runtime MemRef offset; only a slice window (or a view of "
                     "one) may be placed at run time"}));
}

// Fuzz campaign seed 1, cases 74 and 266 (Tile-path kernels): a reshape or transpose_view of a
// window cut at a runtime offset shares that window's MemRef, runtime offset included (P14).
TEST(VerifyTileStorage, AcceptsARelabelOfARuntimeOffsetWindowOnEitherPathP14) {
  const std::string body =
      "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
      "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        s: pl.Tile[[2, 32], pl.FP32, pl.MemRef(m0, -1, 256), pl.Mem.Vec] = pl.tile.slice(x, [2, 32], [n, 0])\n"
      "        r: pl.Tile[[4, 16], pl.FP32, pl.MemRef(m0, -1, 256), pl.Mem.Vec] = pl.tile.reshape(s, [4, 16])\n"
      "        v: pl.Tile[[4, 16], pl.FP32, pl.MemRef(m0, -1, 256), pl.Mem.Vec, pl.TileView(valid_shape=[2, 16])] = "
      "pl.tile.set_validshape(r, 2, 16)\n"
      "        o = pl.tile.store(x, [0, 0], out)\n        return o\n";
  for (const char* selected : {"True", "False"})
    EXPECT_EQ(problems(planned(body, selected)), (Messages{})) << "buffer_ir_selected=" << selected;
}

// Fuzz campaign of 2026-12-02, seed 5, case 899 (out of contract, Tile path): an If yields a slice
// at a runtime offset, so its result (no MemRef of its own) is that window at run time, and a view
// of the result is placed at run time too; a view of a result whose arms are all static is not.
TEST(VerifyTileStorage, AcceptsAViewOfABranchResultOneOfWhoseArmsIsARuntimeWindowP14) {
  const std::string body =
      "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
      "        m1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 256, addr=2048)\n"
      "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y: pl.Tile[[2, 32], pl.FP32, pl.MemRef(m1, 2048, 256), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [2, 32])\n"
      "        s: pl.Tile[[2, 32], pl.FP32, pl.MemRef(m0, -1, 256), pl.Mem.Vec] = pl.tile.slice(x, [2, 32], [n, 0])\n"
      "        if n > 0:\n"
      "            r = pl.yield_(ARM)\n"
      "        else:\n"
      "            r = pl.yield_(y)\n"
      "        v: pl.Tile[[2, 32], pl.FP32, pl.MemRef(m0, -1, 256), pl.Mem.Vec, pl.TileView(valid_shape=[1, 32])] = "
      "pl.tile.set_validshape(r, 1, 32)\n"
      "        o = pl.tile.store(v, [0, 0], out)\n        return o\n";
  auto withArm = [&](const std::string& arm) {
    std::string b = body;
    b.replace(b.find("ARM"), 3, arm);
    return planned(b, "False");
  };
  EXPECT_EQ(problems(withArm("s")), (Messages{}));
  EXPECT_EQ(problems(withArm("y")),
            (Messages{"VerifyTileStorage [P14]: 'v' has a runtime MemRef offset; only a slice window (or a view of "
                      "one) may be placed at run time"}));
}

constexpr const char* kOneRoot =
    "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048ADDR)\n"
    "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, OFF, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        o = pl.tile.store(x, [0, 0], out)\n        return o\n";

std::string oneRoot(const std::string& addr) {
  std::string s = kOneRoot;
  s.replace(s.find("ADDR"), 4, addr.empty() ? "" : ", addr=" + addr);
  s.replace(s.find("OFF"), 3, addr.empty() ? "0" : addr);
  return planned(s);
}

TEST(VerifyTileStorage, RequiresAnAddressUnderAddressedPlannersAndNoneUnderPtoasP1) {
  EXPECT_EQ(problems(oneRoot(""), Planner::PYPTO),
            (Messages{"VerifyTileStorage [P1]: 'm0' (Vec, 2048 bytes) has no address, but PYPTO places every root; "
                     "expected pl.tile.alloc(..., addr=A)"}));
  EXPECT_EQ(problems(oneRoot(""), Planner::PTOAS), (Messages{}));
  EXPECT_EQ(problems(oneRoot("0"), Planner::PTOAS),
            (Messages{"VerifyTileStorage [P1]: 'm0' (Vec, 2048 bytes) has addr=0, but PTOAS gives allocation "
                     "identities only; expected no address"}));
}

TEST(VerifyTileStorage, RejectsRootsThatAreMisalignedOrLeaveTheUsableRangeP14) {
  EXPECT_EQ(problems(oneRoot("16")),
            (Messages{"VerifyTileStorage [P14]: 'm0' (Vec, 2048 bytes) starts at 16, not a multiple of 32 bytes",
                     "VerifyTileStorage [P14]: 'x' has MemRef offset 16; expected a nonnegative multiple of 32"}));
  EXPECT_EQ(problems(oneRoot("187392")),
            (Messages{"VerifyTileStorage [P14]: 'm0' (Vec, 2048 bytes) occupies [187392, 189440), touching the "
                     "reserved range [188416, 196608) of a2a3"}));
  EXPECT_EQ(problems(oneRoot("187392"), Planner::PYPTO, targetA5()), (Messages{}));
  EXPECT_EQ(problems(oneRoot("196608")),
            (Messages{"VerifyTileStorage [P14]: 'm0' (Vec, 2048 bytes) occupies [196608, 198656), but the a2a3 "
                     "target's Vec holds 188416 usable bytes ([188416, 196608) is reserved)"}));
}

TEST(VerifyTileStorage, RequiresBoxedStorageToBeBoxAlignedP14) {
  EXPECT_EQ(problems(planned(
                "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Acc, 1024, addr=512)\n"
                "        c: pl.Tile[[16, 16], pl.FP32, pl.MemRef(m0, 512, 1024), pl.Mem.Acc] = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
                "        return out\n")),
            (Messages{"VerifyTileStorage [P14]: 'm0' (Acc, 1024 bytes) starts at 512, not a multiple of 1024 bytes"}));
}

TEST(VerifyTileStorage, ChecksTheTotalOfAddresslessRootsP1) {
  const std::string body =
      "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 100000)\n"
      "        m1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 100000)\n"
      "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m1, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        o = pl.tile.store(x, [0, 0], out)\n        o2 = pl.tile.store(y, [0, 0], o)\n        return o2\n";
  EXPECT_EQ(problems(planned(body), Planner::PTOAS),
            (Messages{"VerifyTileStorage [P1]: the Vec roots of kernel 'kernel' need 200000 bytes together, but the "
                     "a2a3 target's Vec holds 188416 usable bytes ([188416, 196608) is reserved)"}));
  EXPECT_EQ(problems(planned(body), Planner::PTOAS, targetA5()), (Messages{}));
}

// Under PTOAS roots never overlap one another; identities sharing one root still must not.
TEST(VerifyTileStorage, RejectsLiveIdentitiesSharingOneAddresslessRootP18) {
  EXPECT_EQ(problems(planned("        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)\n"
                             "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
                             "        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.recip(x)\n"
                             "        o = pl.tile.store(y, [0, 0], out)\n        return o\n"),
                     Planner::PTOAS),
            (Messages{"VerifyTileStorage [P18]: 'x' (line 6) and 'y' (line 7) are live at the same time but their "
                     "storage overlaps: [0, 2048) and [0, 2048) of Vec"}));
}

// L9: `w` carries the previous trip's `u`, which is an earlier trip's `uw`, while the loop writes
// `uw` again; `u` itself is read only by the in-place mul that rewrites it.
TEST(VerifyTileStorage, RejectsReadingAnEarlierTripsGenerationL9) {
  const std::string body =
      "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
      "        m1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)\n"
      "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        for i, (u, w) in pl.range(n, init_values=(x, x)):\n"
      "            uw: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m1, 2048, 2048), pl.Mem.Vec] = pl.tile.mul(u, w)\n"
      "            u1, w1 = pl.yield_(uw, u)\n"
      "        o = pl.tile.store(w1, [0, 0], out)\n        return o\n";
  Program p = parseVerified(planned(body, "False"));
  std::vector<Diagnostic> d = checkTileStorage(p, contextFor());
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].message,
            "VerifyTileStorage [L9]: 'w' may hold an earlier version of the storage of 'uw' (line 9), which is written "
            "again before the read; keeping both needs a copy (MaterializeSemanticAliases' entry copies or parallel "
            "transfers)");
  EXPECT_EQ(d[0].loc.line, 9u);
  EXPECT_EQ(d[1].loc.line, 11u);  // the loop result w1 is the stale `u` of the last trip
  EXPECT_EQ(d[0].notes[0].message, "'uw' is written here");
  // Yielding the rotation without reading `w` again is sound: no generation is read stale.
  std::string unread = body;
  unread.replace(unread.find("pl.tile.mul(u, w)"), 17, "pl.tile.mul(u, u)");
  unread.replace(unread.find("pl.tile.store(w1,"), 17, "pl.tile.store(u1,");
  EXPECT_EQ(checkTileStorage(parseVerified(planned(unread, "False")), contextFor()).size(), 0u);
}

// L9 with M11/M14: a K loop carrying its Left operand, the next chunk extracted on each trip (a
// prefetch). Extracted after the matmul_acc's read, it lands in the carry's storage and the
// kernel reaches the Buffer path; extracted before the read, the two generations would both live
// and no move copies Left to Left, so no lowering exists on either path and the diagnostic says so.
std::string leftPrefetch(bool beforeTheRead) {
  const std::string next =
      "            ln = pl.tile.extract(a_mat, 0, k * 16 + 16, [16, 16], target_memory=pl.Mem.Left)\n";
  return kernelProgram(
      "a: pl.Tensor[[16, 80], pl.FP16], b: pl.Tensor[[64, 16], pl.FP16], n: pl.Scalar[pl.INDEX], "
      "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
      "        a_mat = pl.tile.load(a, [0, 0], [16, 80], target_memory=pl.Mem.Mat)\n"
      "        b_mat = pl.tile.load(b, [0, 0], [64, 16], target_memory=pl.Mem.Mat)\n"
      "        acc0 = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
      "        l0 = pl.tile.extract(a_mat, 0, 0, [16, 16], target_memory=pl.Mem.Left)\n"
      "        for k, (acc, l) in pl.range(n, init_values=(acc0, l0)):\n" +
          (beforeTheRead ? next : "") +
          "            rhs = pl.tile.extract(b_mat, k * 16, 0, [16, 16], target_memory=pl.Mem.Right)\n"
          "            acc1 = pl.tile.matmul_acc(acc, l, rhs, init_cond=k == 0)\n" +
          (beforeTheRead ? "" : next) +
          "            acc_out, l_out = pl.yield_(acc1, ln)\n"
          "        r = pl.tile.store(acc_out, [0, 0], out)\n"
          "        return r\n",
      "pl.Tensor[[16, 16], pl.FP32]");
}

TEST(VerifyTileStorage, ACarriedLeftOperandIsPrefetchedAfterItsLastReadL9M14) {
  for (Planner planner : {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS}) {
    const Program lowered = lowerUpTo(parseVerified(leftPrefetch(false)), contextFor(planner), "LowerTileToBuffer");
    EXPECT_EQ(lowered.functions.at(0).stage, FunctionStage::Buffer) << plannerName(planner);
  }
  try {
    lowerUpTo(parseVerified(leftPrefetch(true)), contextFor(), "LowerTileToBuffer");
    FAIL() << "a Left carry read after its next generation was written compiled";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().message,
              "VerifyTileStorage [L9]: 'l' may hold an earlier version of the storage of 'ln' (line 10), which is "
              "written again before the read; keeping both needs a Left -> Left copy, which the target cannot "
              "perform (M11, M14); expected the new value to be computed after the last read of the old one");
    EXPECT_EQ(e.diagnostic().loc.line, 12u);
  }
}

TEST(VerifyTileStoragePass, ThrowsTheFirstProblemWithTheOthersAsNotesAndChangesNothing) {
  Program p = parseVerified(twoLive(1024));
  Program before = p.clone();
  try {
    createVerifyTileStoragePass()->run(p, contextFor());
    FAIL() << "expected a diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(e.diagnostic().message.find("'x' (line 7) and 'y' (line 8)"), std::string::npos);
    ASSERT_EQ(e.diagnostic().notes.size(), 2u);  // its own note, then the second problem
    EXPECT_NE(e.diagnostic().notes[1].message.find("'y' (line 8) and 'z' (line 9)"), std::string::npos);
  }
  EXPECT_TRUE(structurallyEqual(before, p));
  Program sound = parseVerified(twoLive(2048));
  EXPECT_FALSE(createVerifyTileStoragePass()->run(sound, contextFor()));
}

}  // namespace
}  // namespace ptodiff

namespace ptodiff {
namespace {

// Versions of one must-alias storage (MaterializeSemanticAliases' output): the initializer `x` and
// the retargeted producer `x1` share the carry's window. Sharing is accepted because no value is
// read after another version replaced it ...
constexpr const char* kVersions =
    "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
    "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        for i, (c,) in pl.range(n, init_values=(x,)):\n"
    "            x1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.adds(c, 1.0)\n"
    "            c1 = pl.yield_(x1)\n"
    "        o = pl.tile.store(c1, [0, 0], out)\n        return o\n";

TEST(VerifyTileStorage, AcceptsVersionsOfOneCarryStorageL9) {
  EXPECT_EQ(problems(planned(kVersions)), std::vector<std::string>{});
}

// ... and rejected when the initializer is read after the loop: the loop's write of `x1` replaced it
// (the entry copy L3 asks for is missing).
TEST(VerifyTileStorage, RejectsReadingAVersionAnotherVersionReplacedL9) {
  std::string body = kVersions;
  body.replace(body.find("pl.tile.store(c1,"), 17, "pl.tile.store(x, ");
  EXPECT_EQ(problems(planned(body)),
            std::vector<std::string>{
                "VerifyTileStorage [L9]: 'x' may hold an earlier version of the storage of 'x1' (line 8), which is "
                "written again before the read; keeping both needs a copy (MaterializeSemanticAliases' entry copies "
                "or parallel transfers)"});
}

// An If outside every loop runs one arm once: reading its result after a write in one arm never
// reads the other arm's value over that write (A15: the then arm continues `x` in place)...
constexpr const char* kArmWrite =
    "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
    "        m1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)\n"
    "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        if n > 0:\n"
    "            x1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)\n"
    "            r = pl.yield_(x1)\n"
    "        else:\n"
    "            r = pl.yield_(x)\n"
    "        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m1, 2048, 2048), pl.Mem.Vec] = pl.tile.abs(r)\n"
    "        o = pl.tile.store(y, [0, 0], out)\n        return o\n";

TEST(VerifyTileStorage, AcceptsTheArmThatExcludesTheWriteL9) {
  EXPECT_EQ(problems(planned(kArmWrite)), std::vector<std::string>{});
}

// ... but inside a loop an earlier trip may have taken the writing arm: the else arm then yields
// `x`'s storage holding `x1`, unless `x` is loaded anew on every trip.
constexpr const char* kArmWriteInLoop =
    "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
    "        m1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)\n"
    "        for j in pl.range(n):\n"
    "            x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
    "            if j > 0:\n"
    "                x1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)\n"
    "                r = pl.yield_(x1)\n"
    "            else:\n"
    "                r = pl.yield_(x)\n"
    "            y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m1, 2048, 2048), pl.Mem.Vec] = pl.tile.abs(r)\n"
    "            o = pl.tile.store(y, [0, 0], out)\n"
    "        return out\n";

TEST(VerifyTileStorage, AcceptsTheArmThatExcludesTheWriteOfAValueLoadedEveryTripL9) {
  EXPECT_EQ(problems(planned(kArmWriteInLoop)), std::vector<std::string>{});
}

TEST(VerifyTileStorage, RejectsTheArmThatExcludesTheWriteOnALaterTripL9) {
  const std::string body =
      "        m0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)\n"
      "        m1: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=2048)\n"
      "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        for j in pl.range(n):\n"
      "            if j > 0:\n"
      "                x1: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m0, 0, 2048), pl.Mem.Vec] = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)\n"
      "                r = pl.yield_(x1)\n"
      "            else:\n"
      "                r = pl.yield_(x)\n"
      "            y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m1, 2048, 2048), pl.Mem.Vec] = pl.tile.abs(r)\n"
      "            o = pl.tile.store(y, [0, 0], out)\n"
      "        return out\n";
  EXPECT_EQ(problems(planned(body)),
            std::vector<std::string>{
                "VerifyTileStorage [L9]: 'r' may hold an earlier version of the storage of 'x1' (line 10), which "
                "is written again before the read; keeping both needs a copy (MaterializeSemanticAliases' entry "
                "copies or parallel transfers)"});
}

}  // namespace
}  // namespace ptodiff
