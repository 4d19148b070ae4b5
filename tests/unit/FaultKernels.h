// One small kernel per catalogue fault of MaterializeSemanticAliases and LowerTileToBuffer
// (compiler/faults, docs/faults.md), shared by the test that pins where each fault deviates in the
// printed lowering (compiler/FaultsLoweringTest) and the test that checks `ptodiff run` catches it
// (tools/FaultsRunTest). Each kernel is the smallest program whose lowering takes the faulty path;
// the run test's expected diagnostics cite line:column of these texts, so edit them together.
#pragma once

#include <string>

namespace ptodiff::faultkernels {

/// A one-kernel InCore program around `body` (8-space indented statements).
inline std::string kernel(const std::string& params, const std::string& result, const std::string& body) {
  return "@pl.program\nclass t:\n    @pl.function(type=pl.FunctionType.InCore)\n    def kernel(self, " + params +
         ") -> " + result + ":\n" + body;
}

// ---- LowerTileToBuffer ----

/// Seed 000 step 6 (whole-source tinsert): a 4x8-valid window of y assembled into x at [8, 16].
inline std::string assembleSourceValidOnly() {
  return kernel(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
      "pl.Tensor[[16, 32], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
      "        s = pl.tile.slice(y, [8, 16], [0, 0], [4, 8])\n"
      "        r = pl.tile.assemble(x, s, [8, 16])\n"
      "        o = pl.tile.store(r, [0, 0], out)\n"
      "        return o\n");
}

/// M7: a K loop whose runtime init_cond `k == 0` initializes the accumulator on the first trip.
inline std::string initCondInverted() {
  return kernel(
      "a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
      "pl.Tensor[[16, 16], pl.FP32]",
      "        am = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
      "        bm = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)\n"
      "        acc0 = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
      "        for k, (acc,) in pl.range(2, init_values=(acc0,)):\n"
      "            lhs = pl.tile.extract(am, 0, k * 16, [16, 16], target_memory=pl.Mem.Left)\n"
      "            rhs = pl.tile.extract(bm, k * 16, 0, [16, 16], target_memory=pl.Mem.Right)\n"
      "            acc1 = pl.tile.matmul_acc(acc, lhs, rhs, init_cond=k == 0)\n"
      "            acc_out = pl.yield_(acc1)\n"
      "        o = pl.tile.store(acc_out, [0, 0], out)\n"
      "        return o\n");
}

/// M8: a 16x16 product accumulated into a 16x32 Acc tile (written through a product-shaped view).
inline std::string accProductViewDropped() {
  return kernel(
      "a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 32], pl.FP16], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
      "pl.Tensor[[16, 32], pl.FP32]",
      "        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        bm = pl.tile.load(b, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
      "        bh = pl.tile.load(b, [0, 0], [16, 32], valid_shape=[16, 16], target_memory=pl.Mem.Mat)\n"
      "        lhs = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
      "        rhs = pl.tile.move(bm, target_memory=pl.Mem.Right)\n"
      "        rhs_half = pl.tile.move(bh, target_memory=pl.Mem.Right)\n"
      "        c = pl.tile.matmul(lhs, rhs)\n"
      "        c2 = pl.tile.matmul_acc(c, lhs, rhs_half)\n"
      "        o = pl.tile.store(c2, [0, 0], out)\n"
      "        return o\n");
}

/// B^T relabelled by transpose_view shares btm's bytes as a ZN Mat tile, so the box order matters.
inline std::string nzZnSwapped() {
  return kernel(
      "a: pl.Tensor[[16, 32], pl.FP16], bt: pl.Tensor[[16, 32], pl.FP16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]",
      "pl.Tensor[[16, 16], pl.FP32]",
      "        am = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
      "        btm = pl.tile.load(bt, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
      "        bm = pl.tile.transpose_view(btm)\n"
      "        lhs = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
      "        rhs = pl.tile.move(bm, target_memory=pl.Mem.Right)\n"
      "        c = pl.tile.matmul(lhs, rhs)\n"
      "        o = pl.tile.store(c, [0, 0], out)\n"
      "        return o\n");
}

/// V7: the dynamic handle x is narrowed to [8, 16] before the in-place adds.
inline std::string staleValidShape() {
  return kernel("a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                "pl.Tensor[[16, 32], pl.FP32]",
                "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                "        y = pl.tile.set_validshape(x, 8, 16)\n"
                "        z = pl.tile.adds(y, 1.0)\n"
                "        o = pl.tile.store(z, [0, 0], out)\n"
                "        return o\n");
}

/// A [4, 32]-valid tile reshaped to [32, 16] is valid [8, 16] (row-major prefix).
inline std::string reshapeWidensValid() {
  return kernel("a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]",
                "pl.Tensor[[32, 16], pl.FP32]",
                "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[4, 32])\n"
                "        y = pl.tile.reshape(x, [32, 16])\n"
                "        o = pl.tile.store(y, [0, 0], out)\n"
                "        return o\n");
}

// ---- MaterializeSemanticAliases ----

/// B1-B5: a branch result that is x in the else arm, with x stored after the branch.
inline std::string branchTransferDropped() {
  return kernel(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], f: pl.Scalar[pl.BOOL], "
      "out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
      "pl.Tensor[[32, 32], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
      "        if f:\n"
      "            z = pl.tile.add(x, y)\n"
      "            r = pl.yield_(z)\n"
      "        else:\n"
      "            r = pl.yield_(x)\n"
      "        o0 = pl.tile.store(r, [0, 0], out)\n"
      "        o1 = pl.tile.store(x, [16, 0], o0)\n"
      "        return o1\n");
}

/// L9: the loop carries (p, q) swap on every trip.
inline std::string loopSwapWithoutSnapshot() {
  return kernel(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], "
      "out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
      "pl.Tensor[[32, 32], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
      "        for i, (p, q) in pl.range(n, init_values=(x, y)):\n"
      "            p1, q1 = pl.yield_(q, p)\n"
      "        o0 = pl.tile.store(p1, [0, 0], out)\n"
      "        o1 = pl.tile.store(q1, [16, 0], o0)\n"
      "        return o1\n");
}

/// L3: x starts the carry and is stored after the loop, so the carry needs an entry copy.
inline std::string zeroTripEntryCopyMissing() {
  return kernel("a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]",
                "pl.Tensor[[32, 32], pl.FP32]",
                "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                "        for i, (c,) in pl.range(n, init_values=(x,)):\n"
                "            d = pl.tile.adds(c, 1.0)\n"
                "            c1 = pl.yield_(d)\n"
                "        o0 = pl.tile.store(c1, [0, 0], out)\n"
                "        o1 = pl.tile.store(x, [16, 0], o0)\n"
                "        return o1\n");
}

}  // namespace ptodiff::faultkernels
