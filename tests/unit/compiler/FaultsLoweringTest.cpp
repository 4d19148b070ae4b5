// The catalogue faults of MaterializeSemanticAliases and LowerTileToBuffer (compiler/faults,
// docs/faults.md): each small kernel is lowered (PYPTO planner, verify-each) with and without its
// fault. The faulty print must be the clean print with exactly the listed statements replaced, so a
// fault deviates at its one place and nothing else changes; the clean print is the lowering as it
// was. tests/unit/tools/FaultsRunTest.cpp runs the same kernels through the differential runner.
#include <gtest/gtest.h>

#include "compiler/text/Printer.h"
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

std::string vecKernel(const std::string& params, const std::string& body, const std::string& result) {
  return kernelProgram(params, body, result);
}

constexpr const char* k1632 = "pl.Tensor[[16, 32], pl.FP32]";
constexpr const char* k3232 = "pl.Tensor[[32, 32], pl.FP32]";

// ---- LowerTileToBuffer ----

TEST(FaultsLowering, AssembleSourceValidOnlyCopiesOnlyTheSourcesValidRegion) {
  // Seed 000 step 6 (whole-source tinsert): a 4x8-valid window's whole 8x16 lands in x.
  const std::string k = vecKernel(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
      "        s = pl.tile.slice(y, [8, 16], [0, 0], [4, 8])\n"
      "        r = pl.tile.assemble(x, s, [8, 16])\n"
      "        o = pl.tile.store(r, [0, 0], out)\n"
      "        return o\n",
      k1632);
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

constexpr const char* kCubeParams =
    "a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]";

TEST(FaultsLowering, InitCondInvertedSwapsTheArmsOfTheRuntimeInitCond) {
  // M7: a runtime init_cond becomes an explicit if; the fault accumulates on the first trip.
  const std::string k = vecKernel(
      kCubeParams,
      "        am = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
      "        bm = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)\n"
      "        acc0 = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
      "        for k, (acc,) in pl.range(2, init_values=(acc0,)):\n"
      "            lhs = pl.tile.extract(am, 0, k * 16, [16, 16], target_memory=pl.Mem.Left)\n"
      "            rhs = pl.tile.extract(bm, k * 16, 0, [16, 16], target_memory=pl.Mem.Right)\n"
      "            acc1 = pl.tile.matmul_acc(acc, lhs, rhs, init_cond=k == 0)\n"
      "            acc_out = pl.yield_(acc1)\n"
      "        o = pl.tile.store(acc_out, [0, 0], out)\n"
      "        return o\n",
      "pl.Tensor[[16, 16], pl.FP32]");
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
  const std::string k = vecKernel(
      "a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 32], pl.FP16], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
      "        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        bm = pl.tile.load(b, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
      "        bh = pl.tile.load(b, [0, 0], [16, 32], valid_shape=[16, 16], target_memory=pl.Mem.Mat)\n"
      "        lhs = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
      "        rhs = pl.tile.move(bm, target_memory=pl.Mem.Right)\n"
      "        rhs_half = pl.tile.move(bh, target_memory=pl.Mem.Right)\n"
      "        c = pl.tile.matmul(lhs, rhs)\n"
      "        c2 = pl.tile.matmul_acc(c, lhs, rhs_half)\n"
      "        o = pl.tile.store(c2, [0, 0], out)\n"
      "        return o\n",
      "pl.Tensor[[16, 32], pl.FP32]");
  expectDeviation(k, Fault::AccProductViewDropped, "LowerTileToBuffer",
                  {{"        pl.buffer.matmul_acc(lhs, rhs_half, c2_product)\n",
                    "        pl.buffer.matmul_acc(lhs, rhs_half, c)\n"}});
}

TEST(FaultsLowering, NzZnSwappedFlipsTheBoxOrderOfEachBoxedRootsAllocation) {
  // B^T relabelled by transpose_view shares btm's bytes as a ZN Mat tile: with btm ZN too, the
  // relabel reads the bytes in the wrong order.
  const std::string k = vecKernel(
      "a: pl.Tensor[[16, 32], pl.FP16], bt: pl.Tensor[[16, 32], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
      "        am = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
      "        btm = pl.tile.load(bt, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
      "        bm = pl.tile.transpose_view(btm)\n"
      "        lhs = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
      "        rhs = pl.tile.move(bm, target_memory=pl.Mem.Right)\n"
      "        c = pl.tile.matmul(lhs, rhs)\n"
      "        o = pl.tile.store(c, [0, 0], out)\n"
      "        return o\n",
      "pl.Tensor[[16, 16], pl.FP32]");
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
  const std::string k = vecKernel("a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                                  "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                  "        y = pl.tile.set_validshape(x, 8, 16)\n"
                                  "        z = pl.tile.adds(y, 1.0)\n"
                                  "        o = pl.tile.store(z, [0, 0], out)\n"
                                  "        return o\n",
                                  k1632);
  expectDeviation(k, Fault::StaleValidShape, "LowerTileToBuffer",
                  {{"        pl.buffer.set_validshape(x, [8, 16])\n", ""}});
}

TEST(FaultsLowering, ReshapeWidensValidLowersAPartialReshapeAsFullyValid) {
  // A [4, 32]-valid tile reshaped to [32, 16] is valid [8, 16] (row-major prefix); the fault stores 32 rows.
  const std::string k = vecKernel("a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]",
                                  "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[4, 32])\n"
                                  "        y = pl.tile.reshape(x, [32, 16])\n"
                                  "        o = pl.tile.store(y, [0, 0], out)\n"
                                  "        return o\n",
                                  "pl.Tensor[[32, 16], pl.FP32]");
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
  const std::string k = vecKernel(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], f: pl.Scalar[pl.BOOL], "
      "out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
      "        if f:\n"
      "            z = pl.tile.add(x, y)\n"
      "            r = pl.yield_(z)\n"
      "        else:\n"
      "            r = pl.yield_(x)\n"
      "        o0 = pl.tile.store(r, [0, 0], out)\n"
      "        o1 = pl.tile.store(x, [16, 0], o0)\n"
      "        return o1\n",
      k3232);
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
  const std::string k = vecKernel(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], "
      "out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
      "        for i, (p, q) in pl.range(n, init_values=(x, y)):\n"
      "            p1, q1 = pl.yield_(q, p)\n"
      "        o0 = pl.tile.store(p1, [0, 0], out)\n"
      "        o1 = pl.tile.store(q1, [16, 0], o0)\n"
      "        return o1\n",
      k3232);
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
  const std::string k = vecKernel(
      "a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        for i, (c,) in pl.range(n, init_values=(x,)):\n"
      "            d = pl.tile.adds(c, 1.0)\n"
      "            c1 = pl.yield_(d)\n"
      "        o0 = pl.tile.store(c1, [0, 0], out)\n"
      "        o1 = pl.tile.store(x, [16, 0], o0)\n"
      "        return o1\n",
      k3232);
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
