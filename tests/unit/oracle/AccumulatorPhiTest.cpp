// Accumulator phis (A15, B13): an If one arm of which continues an Acc accumulator with matmul_acc
// (directly or with a K loop) while the other yields it or another product. Each kernel runs under
// every planner with verify-each; the phis (direct or through a local K loop) must reach the Buffer
// path, the divergent branch stays on Tile, and every run must equal the Tile run. The divergent
// form with a K loop in one arm failed to compile before (VerifyTileStorage [L9]: the loop's
// matmul_acc got storage of its own, since InitMemRef counted reading the branch result after the
// If as reading the accumulator).
#include <gtest/gtest.h>

#include <string>

#include "oracle/Differential.h"
#include "tests/unit/oracle/OracleTestSupport.h"

namespace ptodiff::oracle {
namespace {

using testing::compileProgram;
using testing::fp16Tensor;
using testing::kernelProgram;
using testing::sentinelTensor;

constexpr const char* kSignature =
    "a: pl.Tensor[[16, 48], pl.FP16], b: pl.Tensor[[48, 16], pl.FP16], f: pl.Scalar[pl.BOOL], "
    "n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]";

constexpr const char* kOperands =
    "        a_mat = pl.tile.load(a, [0, 0], [16, 48], target_memory=pl.Mem.Mat)\n"
    "        b_mat = pl.tile.load(b, [0, 0], [48, 16], target_memory=pl.Mem.Mat)\n"
    "        l0 = pl.tile.extract(a_mat, 0, 0, [16, 16], target_memory=pl.Mem.Left)\n"
    "        r0 = pl.tile.extract(b_mat, 0, 0, [16, 16], target_memory=pl.Mem.Right)\n"
    "        l1 = pl.tile.extract(a_mat, 0, 16, [16, 16], target_memory=pl.Mem.Left)\n"
    "        r1 = pl.tile.extract(b_mat, 16, 0, [16, 16], target_memory=pl.Mem.Right)\n"
    "        acc = pl.tile.matmul(l0, r0)\n";

constexpr const char* kKLoop =
    "            for k, (c,) in pl.range(n, init_values=(acc,)):\n"
    "                lk = pl.tile.extract(a_mat, 0, k * 16, [16, 16], target_memory=pl.Mem.Left)\n"
    "                rk = pl.tile.extract(b_mat, k * 16, 0, [16, 16], target_memory=pl.Mem.Right)\n"
    "                c2 = pl.tile.matmul_acc(c, lk, rk)\n"
    "                c3 = pl.yield_(c2)\n"
    "            res = pl.yield_(c3)\n";

/// Runs the kernel whose If is `branch` under every planner, for both arms and 0 to 3 trips; every
/// row must pass, and the Buffer rows must run exactly when `selected`.
void expectEveryPlannerPasses(const std::string& branch, bool selected) {
  const Program p = compileProgram(kernelProgram(kSignature, std::string(kOperands) + branch +
                                                                 "        o = pl.tile.store(res, [0, 0], out)\n"
                                                                 "        return o\n"));
  for (bool f : {true, false})
    for (int64_t n : {0, 1, 3}) {
      KernelArgs args;
      args.tensors["a"] = fp16Tensor(16, 48, [](int64_t r, int64_t c) { return float((r * 3 + c) % 7) / 4.0f; });
      args.tensors["b"] = fp16Tensor(48, 16, [](int64_t r, int64_t c) { return float((r + 2 * c) % 5) / 8.0f; });
      args.tensors["out"] = sentinelTensor(DType::FP32, 16, 16);
      args.scalars["f"] = ScalarValue::boolean(f);
      args.scalars["n"] = ScalarValue::index(n);
      DifferentialOptions o;
      o.checkLoweringLaws = true;
      const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, args, o);
      for (const StageVerdict& v : r.verdicts) {
        const VerdictKind want = v.stage == "buffer" && !selected ? VerdictKind::Skipped : VerdictKind::Pass;
        EXPECT_EQ(v.kind, want) << v.planner << " " << v.stage << " (f = " << f << ", n = " << n << "): " << v.detail;
      }
    }
}

TEST(AccumulatorPhi, ADirectPhiReachesTheBufferPath) {
  expectEveryPlannerPasses(
      "        if f:\n"
      "            acc2 = pl.tile.matmul_acc(acc, l1, r1)\n"
      "            res = pl.yield_(acc2)\n"
      "        else:\n"
      "            res = pl.yield_(acc)\n",
      true);
}

TEST(AccumulatorPhi, APhiThroughALocalKLoopReachesTheBufferPath) {
  expectEveryPlannerPasses(std::string("        if f:\n") + kKLoop +
                               "        else:\n"
                               "            res = pl.yield_(acc)\n",
                           true);
}

// Inside a loop: the phi continues the outer loop's carry (each trip binds it anew); and two nested
// K loops continue one accumulator (the outer loop's result reads the accumulator's initial value
// only when no trip, inner loop included, ran).
TEST(AccumulatorPhi, PhisInsideALoopAndNestedKLoopsReachTheBufferPath) {
  const std::string innerLoop =
      "                for k, (c,) in pl.range(n, init_values=(SEED,)):\n"
      "                    lk = pl.tile.extract(a_mat, 0, k * 16, [16, 16], target_memory=pl.Mem.Left)\n"
      "                    rk = pl.tile.extract(b_mat, k * 16, 0, [16, 16], target_memory=pl.Mem.Right)\n"
      "                    c2 = pl.tile.matmul_acc(c, lk, rk)\n"
      "                    c3 = pl.yield_(c2)\n";
  auto seeded = [&](const std::string& seed) {
    std::string text = innerLoop;
    text.replace(text.find("SEED"), 4, seed);
    return text;
  };
  expectEveryPlannerPasses("        for j, (q,) in pl.range(n, init_values=(acc,)):\n"
                           "            if f:\n" +
                               seeded("q") +
                               "                r = pl.yield_(c3)\n"
                               "            else:\n"
                               "                r = pl.yield_(q)\n"
                               "            res = pl.yield_(r)\n",
                           true);
  std::string nested = "        for j, (q,) in pl.range(n, init_values=(acc,)):\n" + seeded("q") +
                       "            res = pl.yield_(c3)\n";
  for (size_t at = nested.find("\n") + 1; at < nested.size(); at = nested.find("\n", at) + 1)
    if (nested.compare(at, 16, "                ") == 0) nested.erase(at, 4);  // one level less
  expectEveryPlannerPasses(nested, true);
}

// The same rule for a Vec carry: the loop updates its input in place, since only the other arm
// reads it; a read after the If needs the entry copy again.
TEST(AccumulatorPhi, AVecLoopInOneArmUpdatesItsInputInPlaceUnlessReadAfterTheIf) {
  const std::string branch =
      "        v = pl.tile.full([16, 16], dtype=pl.FP32, value=2.0)\n"
      "        if f:\n"
      "            for k, (c,) in pl.range(n, init_values=(v,)):\n"
      "                c2 = pl.tile.muls(c, 1.5)\n"
      "                c3 = pl.yield_(c2)\n"
      "            r = pl.yield_(c3)\n"
      "        else:\n"
      "            r = pl.yield_(v)\n";
  expectEveryPlannerPasses(branch + "        res = pl.tile.abs(r)\n", true);
  expectEveryPlannerPasses(branch + "        res = pl.tile.add(r, v)\n", true);
}

TEST(AccumulatorPhi, ADivergentBranchWithAKLoopInOneArmCompilesOnTile) {
  expectEveryPlannerPasses(std::string("        if f:\n") + kKLoop +
                               "        else:\n"
                               "            other = pl.tile.matmul(l1, r1)\n"
                               "            res = pl.yield_(other)\n",
                           false);
}

}  // namespace
}  // namespace ptodiff::oracle
