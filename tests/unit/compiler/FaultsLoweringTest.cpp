// The catalogue faults of MaterializeSemanticAliases and LowerTileToBuffer (compiler/faults,
// docs/faults.md): each small kernel is lowered (PYPTO planner, verify-each) with and without its
// fault. The faulty print must be the clean print with exactly the listed statements replaced, so a
// fault deviates at its one place and nothing else changes; the clean print is the lowering as it
// was. The kernels are tests/unit/FaultKernels.h's; tests/unit/tools/FaultsRunTest.cpp runs the same
// kernels through the differential runner.
#include <gtest/gtest.h>

#include "compiler/text/Printer.h"
#include "tests/unit/FaultKernels.h"
#include "tests/unit/compiler/PassTestSupport.h"

namespace ptodiff {
namespace {

using namespace testsupport;

std::string lowered(const std::string& text, std::optional<Fault> fault, const std::string& stopAfter) {
  PassContext c = contextFor(Planner::PYPTO);
  c.faults.active = fault;
  return printProgram(lowerUpTo(parseVerified(text), c, stopAfter));
}

struct Change {
  std::string clean, faulty;  // a block of the clean print and what the fault prints in its place
};

/// Lowers `text` both ways and checks that the faulty print is the clean one with `changes` applied.
void expectDeviation(const std::string& text, Fault fault, const std::string& stopAfter,
                     const std::vector<Change>& changes) {
  const std::string clean = lowered(text, std::nullopt, stopAfter);
  const std::string faulty = lowered(text, fault, stopAfter);
  std::string expected = clean;
  for (const Change& c : changes) {
    const size_t at = expected.find(c.clean);
    ASSERT_NE(at, std::string::npos) << "not in the clean print:\n" << c.clean << "\n---\n" << clean;
    ASSERT_EQ(expected.find(c.clean, at + 1), std::string::npos) << "ambiguous block:\n" << c.clean;
    expected.replace(at, c.clean.size(), c.faulty);
  }
  EXPECT_EQ(faulty, expected);
  EXPECT_NE(faulty, clean);
}

// ---- LowerTileToBuffer ----

TEST(FaultsLowering, AssembleSourceValidOnlyCopiesOnlyTheSourcesValidRegion) {
  // Seed 000 step 6 (whole-source tinsert): a 4x8-valid window's whole 8x16 lands in x.
  const std::string k = faultkernels::assembleSourceValidOnly();
  expectDeviation(
      k, Fault::AssembleSourceValidOnly, "LowerTileToBuffer",
      {{"        r_window: pl.Buffer[[8, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(x, [8, 16], [8, 16])\n"
        "        s_as: pl.Buffer[[8, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(s, [0, 0], [8, 16])\n"
        "        pl.buffer.copy(s_as, r_window)\n",
        "        r_window: pl.Buffer[[8, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[4, 8])] = pl.buffer.subview(\n"
        "            x, [8, 16], [4, 8]\n"
        "        )\n"
        "        pl.buffer.copy(s, r_window)\n"}});
}

TEST(FaultsLowering, InitCondInvertedSwapsTheArmsOfTheRuntimeInitCond) {
  // M7: a runtime init_cond becomes an explicit if; the fault accumulates on the first trip.
  const std::string k = faultkernels::initCondInverted();
  expectDeviation(k, Fault::InitCondInverted, "LowerTileToBuffer",
                  {{"            if k == 0:\n"
                    "                pl.buffer.matmul(lhs, rhs, acc0)\n"
                    "            else:\n"
                    "                pl.buffer.matmul_acc(lhs, rhs, acc0)\n",
                    "            if k == 0:\n"
                    "                pl.buffer.matmul_acc(lhs, rhs, acc0)\n"
                    "            else:\n"
                    "                pl.buffer.matmul(lhs, rhs, acc0)\n"}});
}

TEST(FaultsLowering, AccProductViewDroppedWritesThroughTheAccumulatorHandle) {
  // M8: a 16x16 product accumulated into a 16x32 Acc goes through the product-shaped view c2_product.
  const std::string k = faultkernels::accProductViewDropped();
  expectDeviation(k, Fault::AccProductViewDropped, "LowerTileToBuffer",
                  {{"        pl.buffer.matmul_acc(lhs, rhs_half, c2_product)\n",
                    "        pl.buffer.matmul_acc(lhs, rhs_half, c)\n"}});
}

TEST(FaultsLowering, NzZnSwappedFlipsTheBoxOrderOfEachBoxedRootsAllocation) {
  // B^T relabelled by transpose_view shares btm's bytes as a ZN Mat tile: with btm ZN too, the
  // relabel reads the bytes in the wrong order.
  const std::string k = faultkernels::nzZnSwapped();
  expectDeviation(
      k, Fault::NzZnSwapped, "LowerTileToBuffer",
      {{"        am: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)\n"
        "        btm: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 1024)\n",
        "        am: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat, pl.Layout.ZN] = pl.buffer.alloc((), 0)\n"
        "        btm: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Mat, pl.Layout.ZN] = pl.buffer.alloc((), 1024)\n"},
       {"        lhs: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)\n"
        "        rhs: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)\n",
        "        lhs: pl.Buffer[[16, 32], pl.FP16, pl.Mem.Left, pl.Layout.ZN] = pl.buffer.alloc((), 0)\n"
        "        rhs: pl.Buffer[[32, 16], pl.FP16, pl.Mem.Right, pl.Layout.NZ] = pl.buffer.alloc((), 0)\n"}});
}

TEST(FaultsLowering, StaleValidShapeDropsTheStaticSetter) {
  // V7: the dynamic handle x is narrowed to [8, 16] before the in-place adds.
  const std::string k = faultkernels::staleValidShape();
  expectDeviation(k, Fault::StaleValidShape, "LowerTileToBuffer",
                  {{"        pl.buffer.set_validshape(x, [8, 16])\n", ""}});
}

TEST(FaultsLowering, ReshapeWidensValidLowersAPartialReshapeAsFullyValid) {
  // A [4, 32]-valid tile reshaped to [32, 16] is valid [8, 16] (row-major prefix); the fault stores 32 rows.
  const std::string k = faultkernels::reshapeWidensValid();
  expectDeviation(
      k, Fault::ReshapeWidensValid, "LowerTileToBuffer",
      {{"        y_full: pl.Buffer[[32, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(x_full)\n",
        "        y: pl.Buffer[[32, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(x_full)\n"},
       {"        y: pl.Buffer[[32, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 16])] = pl.buffer.subview(\n"
        "            y_full, [0, 0], [8, 16]\n"
        "        )\n",
        ""},
       {"        pl.buffer.store(y, [0, 0], [8, 16], out)\n", "        pl.buffer.store(y, [0, 0], [32, 16], out)\n"}});
}

// ---- MaterializeSemanticAliases ----

TEST(FaultsLowering, BranchTransferDroppedCoalescesTheResultWithTheElseValue) {
  // B1-B5: the result gets fresh storage mem_vec_3 and the else arm copies x into it; the fault
  // gives the result x's storage, so the then arm's add overwrites x, which is stored afterwards.
  const std::string k = faultkernels::branchTransferDropped();
  expectDeviation(
      k, Fault::BranchTransferDropped, "MaterializeSemanticAliases",
      {{"        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)\n", ""},
       {"            z: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec] = pl.tile.add(x, y)\n",
        "            z: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.add(x, y)\n"},
       {"            r_next: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec] = pl.tile.move(\n"
        "                x, target_memory=pl.Mem.Vec\n"
        "            )\n"
        "            r = pl.yield_(r_next)\n",
        "            r = pl.yield_(x)\n"}});
}

TEST(FaultsLowering, LoopSwapWithoutSnapshotTransfersInOrder) {
  // L9: the swap (p, q) -> (q, p) snapshots both sources before writing either carry.
  const std::string k = faultkernels::loopSwapWithoutSnapshot();
  expectDeviation(
      k, Fault::LoopSwapWithoutSnapshot, "MaterializeSemanticAliases",
      {{"        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)\n"
        "        mem_vec_3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)\n",
        ""},
       {"            q_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.move(\n"
        "                q, target_memory=pl.Mem.Vec\n"
        "            )\n"
        "            p_snap: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_3, 0, 2048), pl.Mem.Vec] = pl.tile.move(\n"
        "                p, target_memory=pl.Mem.Vec\n"
        "            )\n",
        ""},
       {"                q_snap, target_memory=pl.Mem.Vec\n", "                q, target_memory=pl.Mem.Vec\n"},
       {"                p_snap, target_memory=pl.Mem.Vec\n", "                p, target_memory=pl.Mem.Vec\n"}});
}

TEST(FaultsLowering, ZeroTripEntryCopyMissingLetsTheLoopWriteItsInput) {
  // L3: x is stored after the loop, so the carry starts from the entry copy x_in.
  const std::string k = faultkernels::zeroTripEntryCopyMissing();
  expectDeviation(
      k, Fault::ZeroTripEntryCopyMissing, "MaterializeSemanticAliases",
      {{"        mem_vec_2: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)\n", ""},
       {"        x_in: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.move(\n"
        "            x, target_memory=pl.Mem.Vec\n"
        "        )\n"
        "        for i, (c,) in pl.range(n, init_values=(x_in,)):\n"
        "            d: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_2, 0, 2048), pl.Mem.Vec] = pl.tile.adds(c, 1.0)\n",
        "        for i, (c,) in pl.range(n, init_values=(x,)):\n"
        "            d: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 0, 2048), pl.Mem.Vec] = pl.tile.adds(c, 1.0)\n"}});
}

}  // namespace
}  // namespace ptodiff
