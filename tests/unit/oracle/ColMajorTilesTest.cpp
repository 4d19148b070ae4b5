// Col-major (DN) Vec tiles, the transposed views of row-major ones, through the reference lowering:
// each kernel runs on the Tile interpreter and, per planner, on the planned-Tile interpreter, with
// verify-each and the round trip after every pass (property 2), and every planned run must equal
// the Tile run. A DN tile stores its elements column by column, so each of these once miscompiled
// or failed to compile (docs/lowering.md, "Col-major tiles"): a reshape read them in storage order,
// and a loop carrying one had no copy (tile.move only makes the space's row-major layout).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "compiler/passes/Pipeline.h"
#include "compiler/text/Printer.h"
#include "oracle/Differential.h"
#include "tests/unit/oracle/OracleTestSupport.h"

namespace ptodiff::oracle {
namespace {

using ::testing::HasSubstr;
using testing::compileProgram;
using testing::fp32Tensor;
using testing::kernelProgram;
using testing::sentinelTensor;

constexpr const char* kSignature =
    "a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]], "
    "out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[32, 16], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]";

KernelArgs argsWithTrips(int64_t n) {
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return float(r * 32 + c) / 8.0f; });
  args.tensors["out"] = sentinelTensor(DType::FP32, 32, 16);
  args.tensors["out2"] = sentinelTensor(DType::FP32, 16, 32);
  args.scalars["n"] = ScalarValue::index(n);
  return args;
}

/// Runs `body` under every planner (Tile path: transposed Vec tiles keep a kernel there) and
/// expects the Tile run, the oracle and every planned run to pass.
void expectEveryPlannerPasses(const std::string& body, int64_t trips) {
  const Program p = compileProgram(kernelProgram(kSignature, body));
  DifferentialOptions o;
  o.checkLoweringLaws = true;
  const DifferentialReport r = runDifferential({&p, p.defaultKernel()}, argsWithTrips(trips), o);
  for (const StageVerdict& v : r.verdicts) {
    if (v.stage == "buffer") {
      EXPECT_EQ(v.kind, VerdictKind::Skipped) << v.planner << ": " << v.detail;
      continue;
    }
    EXPECT_EQ(v.kind, VerdictKind::Pass) << v.planner << " " << v.stage << " (n = " << trips << "): " << v.detail;
  }
  EXPECT_EQ(r.runs, 4);  // tile, and one planned run per planner
}

/// The program after MaterializeSemanticAliases under PYPTO.
std::string afterAliases(const std::string& body) {
  const Program p = compileProgram(kernelProgram(kSignature, body));
  PassManagerOptions options;
  options.stopAfter = "MaterializeSemanticAliases";
  PassContext context;
  return printProgram(makeLoweringPassManager(options).run(p, context).program);
}

// InitMemRef moves a DN reshape source into a row-major tile first (`t_dense`): a reshape
// reinterprets bytes in row-major order, and the planned run read the transposed order (mismatch
// under every planner before).
TEST(ColMajorTiles, AReshapeReadsATransposedTileThroughARowMajorCopy) {
  const std::string body =
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        t = pl.tile.transpose_view(x)\n"
      "        m = pl.tile.reshape(t, [16, 32])\n"
      "        o2 = pl.tile.store(m, [0, 0], out2)\n"
      "        return out, o2\n";
  expectEveryPlannerPasses(body, 0);
  PassManagerOptions options;
  options.stopAfter = "InitMemRef";
  const Program p = compileProgram(kernelProgram(kSignature, body));
  const std::string initialized = printProgram(makeLoweringPassManager(options).run(p, PassContext{}).program);
  // The copy is row-major (no TileView) and the reshape reads it.
  EXPECT_THAT(initialized, HasSubstr("t_dense: pl.Tile[[32, 16], pl.FP32, pl.MemRef(mem_vec_1, 0, 2048), pl.Mem.Vec] = "
                                     "pl.tile.move("))
      << initialized;
  EXPECT_THAT(initialized, HasSubstr("pl.tile.reshape(t_dense, [16, 32])")) << initialized;
}

// A window of a DN tile that keeps every row is a view (its columns stay one dense run each), and
// an assemble into a DN tile writes through the same addressing; both need no copy.
TEST(ColMajorTiles, FullRowWindowsAndAssemblesOfATransposedTileAreViews) {
  expectEveryPlannerPasses(
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        t = pl.tile.transpose_view(x)\n"
      "        s = pl.tile.slice(t, [32, 8], [0, 8])\n"
      "        y = pl.tile.load(a, [0, 0], [8, 8])\n"
      "        z = pl.tile.assemble(t, y, [8, 0])\n"
      "        o = pl.tile.store(z, [0, 0], out)\n"
      "        e = pl.tile.transpose_view(s)\n"
      "        o2 = pl.tile.store(e, [0, 0], out2)\n"
      "        return o, o2\n",
      0);
}

// A loop carrying a DN tile whose input stays observable needs an entry copy (L3), and a body
// yielding a DN tile in other storage a transfer (L9); tile.move cannot make a DN copy, so both go
// through the transposed (row-major) view (compile-error [L9] under every planner before).
TEST(ColMajorTiles, ALoopCarryingATransposedTileCopiesItThroughItsTransposedView) {
  const std::string body =
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        t = pl.tile.transpose_view(x)\n"
      "        for i, (c,) in pl.range(n, init_values=(t,)):\n"
      "            v = pl.tile.transpose_view(c)\n"
      "            w = pl.tile.adds(v, 1.0)\n"
      "            u = pl.tile.transpose_view(w)\n"
      "            r = pl.yield_(u)\n"
      "        o = pl.tile.store(r, [0, 0], out)\n"
      "        o2 = pl.tile.store(x, [0, 0], out2)\n"
      "        return o, o2\n";
  for (int64_t trips : {0, 1, 3}) expectEveryPlannerPasses(body, trips);
  const std::string planned = afterAliases(body);
  EXPECT_THAT(planned, HasSubstr("= pl.tile.transpose_view(t)")) << planned;
  EXPECT_THAT(planned, HasSubstr("t_in: pl.Tile[[32, 16], pl.FP32, pl.MemRef(")) << planned;
  EXPECT_THAT(planned, HasSubstr("c_next: pl.Tile[[32, 16], pl.FP32, pl.MemRef(")) << planned;
}

// Two DN carries swapped on every trip: the snapshot of one is a DN copy too.
TEST(ColMajorTiles, SwappedTransposedCarriesTakeTransposedSnapshots) {
  const std::string body =
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y = pl.tile.adds(x, 2.0)\n"
      "        t = pl.tile.transpose_view(x)\n"
      "        u = pl.tile.transpose_view(y)\n"
      "        for i, (c, d) in pl.range(n, init_values=(t, u)):\n"
      "            r, q = pl.yield_(d, c)\n"
      "        o = pl.tile.store(r, [0, 0], out)\n"
      "        e = pl.tile.transpose_view(q)\n"
      "        o2 = pl.tile.store(e, [0, 0], out2)\n"
      "        return o, o2\n";
  for (int64_t trips : {0, 1, 2, 3}) expectEveryPlannerPasses(body, trips);
  EXPECT_THAT(afterAliases(body), HasSubstr("_snap: pl.Tile[[32, 16], pl.FP32, pl.MemRef("));
}

}  // namespace
}  // namespace ptodiff::oracle
