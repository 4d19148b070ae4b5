// Tests of the Buffer interpreter: op semantics on the physical machine (domains are the
// destination's valid region, shared descriptors, the matmul touched-box rule), GM rules shared with
// the Tile interpreter (poison stores, races, step budget), per-block fresh storage, placement of
// addressless allocations, and hazards located at their statements. Expected values are computed
// by hand (small exact FP32/FP16 values), never through interp/Arith.
#include <gtest/gtest.h>

#include <string>

#include "InterpTestSupport.h"
#include "interp/BufferInterpreter.h"

namespace ptodiff::testing {
namespace {

/// A Buffer-stage kernel with the given signature and body (body lines indented by 8 spaces).
std::string bufferProgram(const std::string& signature, const std::string& body) {
  return "import pypto.language as pl\n\n\n@pl.program\nclass t:\n"
         "    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)\n"
         "    def kernel(self, " + signature + ":\n" + body;
}

/// smallValue(r, c) as the two-argument function the tensor helpers take.
float value(int64_t r, int64_t c) { return smallValue(r, c); }

RunResult runBuffer(const Program& p, const KernelArgs& args, RunConfig config = {}) {
  return runBufferKernel(p, *p.defaultKernel(), args, config);
}

const std::string kAddProgram = bufferProgram(
    "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],\n"
    "               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]",
    "        a_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
    "        b_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)\n"
    "        r_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)\n"
    "        pl.buffer.load(a, [0, 0], [16, 32], a_buf)\n"
    "        pl.buffer.load(b, [0, 0], [16, 32], b_buf)\n"
    "        pl.buffer.add(a_buf, b_buf, r_buf)\n"
    "        pl.buffer.store(r_buf, [8, 0], [16, 32], out)\n"
    "        return out\n");

KernelArgs addArgs() {
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c); });
  args.tensors["b"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c, 1) * 3.0f; });
  args.tensors["out"] = sentinelTensor(DType::FP32, 32, 32);
  return args;
}

TEST(BufferInterpreter, AddExampleStoresTheSumAndKeepsTheSentinelElsewhere) {
  const Program p = compileProgram(kAddProgram);
  const RunResult r = runBuffer(p, addArgs());
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  EXPECT_FALSE(r.hazard.has_value());
  EXPECT_EQ(r.steps, 8u);  // three allocs, four ops and the return
  const Tensor& out = r.final.tensors.at("out");
  for (int64_t row = 0; row < 32; ++row)
    for (int64_t c = 0; c < 32; ++c) {
      const bool stored = row >= 8 && row < 24;
      EXPECT_EQ(writtenAt(out, row, c), stored);
      EXPECT_FALSE(poisonAt(out, row, c));
      if (stored)
        EXPECT_EQ(f32At(out, row, c), smallValue(row - 8, c) + smallValue(row - 8, c, 1) * 3.0f) << row << "," << c;
      else
        EXPECT_EQ(bitsAt(out, row, c), 0x7FC0DEADu) << row << "," << c;
    }
}

TEST(BufferInterpreter, RefusesTileStageFunctions) {
  const Program p = compileProgram(kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        o = pl.tile.store(x, [0, 0], out)\n"
      "        return o\n"));
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, value);
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  try {
    runBuffer(p, args);
    FAIL() << "expected a DiagnosticError";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(e.diagnostic().message.find("is a Tile-stage function"), std::string::npos) << e.what();
  }
}

// ---- domains and descriptors ----

TEST(BufferInterpreter, ComputeWritesOnlyTheDestinationsValidRegion) {
  // d's first 8 rows get x + 1; its other rows keep the 5.0 that `full` wrote through the full view.
  const std::string text = bufferProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
      "        whole: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)\n"
      "        d: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 32])] = pl.buffer.alloc((), 2048)\n"
      "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
      "        pl.buffer.full(5.0, whole)\n"
      "        pl.buffer.adds(x, 1.0, d)\n"
      "        pl.buffer.store(whole, [0, 0], [16, 32], out)\n"
      "        return out\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, value);
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  const RunResult r = runBuffer(p, args);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  const Tensor& out = r.final.tensors.at("out");
  for (int64_t row = 0; row < 16; ++row)
    for (int64_t c = 0; c < 32; ++c)
      EXPECT_EQ(f32At(out, row, c), row < 8 ? smallValue(row, c) + 1.0f : 5.0f) << row << "," << c;
}

TEST(BufferInterpreter, SetValidShapeUpdatesTheSharedDescriptorButNotItsWindows) {
  // After set_validshape(x, [4, n]) the store of x must name [4, n]; the full window made before
  // keeps its own [16, 32] descriptor, and the lanes past the load are still poison through it.
  const std::string text = bufferProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],\n"
      "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]], all: pl.Out[pl.Tensor[[16, 32], pl.FP32]])"
      " -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]",
      "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((), 0)\n"
      "        view: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(x, [0, 0])\n"
      "        pl.buffer.set_validshape(x, [4, n])\n"
      "        pl.buffer.load(a, [0, 0], [4, n], x)\n"
      "        pl.buffer.store(x, [0, 0], [4, n], out)\n"
      "        pl.buffer.store(view, [0, 0], [16, 32], all)\n"
      "        return out, all\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, value);
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  args.tensors["all"] = sentinelTensor(DType::FP32, 16, 32);
  args.scalars["n"] = ScalarValue::index(8);
  const RunResult r = runBuffer(p, args);
  // The second store writes poison (never-loaded lanes): invalid-program, located there.
  ASSERT_EQ(r.status, RunStatus::InvalidProgram) << r.diagnostic.message;
  EXPECT_EQ(r.diagnostic.loc.line, lineOf(text, "pl.buffer.store(view"));
  EXPECT_NE(r.diagnostic.message.find("stores 480 poison element(s) into 'all' (first at [0, 8])"), std::string::npos)
      << r.diagnostic.message;
  const Tensor& out = r.final.tensors.at("out");
  const Tensor& all = r.final.tensors.at("all");
  for (int64_t row = 0; row < 16; ++row)
    for (int64_t c = 0; c < 32; ++c) {
      const bool loaded = row < 4 && c < 8;
      EXPECT_EQ(writtenAt(out, row, c), loaded);
      if (loaded) {
        EXPECT_EQ(f32At(out, row, c), smallValue(row, c));
      }
      EXPECT_EQ(poisonAt(all, row, c), !loaded) << row << "," << c;
    }
}

TEST(BufferInterpreter, ASubviewWindowReadsThroughItsParentsPitch) {
  // A [4, 8] window at (2, 16) of a [16, 32] buffer, stored to a [4, 8] tensor.
  const std::string text = bufferProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]",
      "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())\n"
      "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
      "        w: pl.Buffer[[4, 8], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(x, [2, 16])\n"
      "        pl.buffer.store(w, [0, 0], [4, 8], out)\n"
      "        return out\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, value);
  args.tensors["out"] = sentinelTensor(DType::FP32, 4, 8);
  const RunResult r = runBuffer(p, args);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  for (int64_t row = 0; row < 4; ++row)
    for (int64_t c = 0; c < 8; ++c) EXPECT_EQ(f32At(r.final.tensors.at("out"), row, c), smallValue(row + 2, c + 16));
}

// ---- cube ----

/// Ones in FP16 Mat, then: c = L x R over the full [32, 32] (each lane 32.0), then the second op on
/// an [8, 8] product over K = 4 (each product lane 4.0) through the product view c8 of the same
/// bytes (M8), then the whole Acc stored.
std::string touchedBoxProgram(const std::string& secondOp) {
  return bufferProgram(
      "a: pl.Tensor[[32, 32], pl.FP16], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]",
      "        m: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)\n"
      "        l: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)\n"
      "        r: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)\n"
      "        l2: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Left, pl.TileView(valid_shape=[8, 4])] = pl.buffer.alloc((), 2048)\n"
      "        r2: pl.Buffer[[32, 32], pl.FP16, pl.Mem.Right, pl.TileView(valid_shape=[32, 8])] = pl.buffer.alloc((), 2048)\n"
      "        c: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)\n"
      "        c8: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[8, 8])] = pl.buffer.alloc((), 0)\n"
      "        pl.buffer.load(a, [0, 0], [32, 32], m)\n"
      "        pl.buffer.copy(m, l)\n"
      "        pl.buffer.copy(m, r)\n"
      "        pl.buffer.copy(m, l2)\n"
      "        pl.buffer.copy(m, r2)\n"
      "        pl.buffer.matmul(l, r, c)\n"
      "        pl.buffer." + secondOp + "(l2, r2, c8)\n"  // M8: through the product-shaped view
      "        pl.buffer.store(c, [0, 0], [32, 32], out)\n"
      "        return out\n");
}

KernelArgs onesArgs() {
  KernelArgs args;
  args.tensors["a"] = bitsTensor(DType::FP16, 32, 32, [](int64_t, int64_t) { return uint64_t{0x3C00}; });  // 1.0
  args.tensors["out"] = sentinelTensor(DType::FP32, 32, 32);
  return args;
}

void expectTouchedBoxRule(const RunResult& r, float productLane) {
  // The product [8, 8] touches only Acc box (0, 0): its other lanes become poison; the three other
  // boxes keep the first matmul's 32.0.
  ASSERT_EQ(r.status, RunStatus::InvalidProgram) << r.diagnostic.message;  // the store writes those poison lanes
  EXPECT_NE(r.diagnostic.message.find("stores 192 poison element(s) into 'out' (first at [0, 8])"), std::string::npos)
      << r.diagnostic.message;
  const Tensor& out = r.final.tensors.at("out");
  for (int64_t row = 0; row < 32; ++row)
    for (int64_t c = 0; c < 32; ++c) {
      const bool product = row < 8 && c < 8, touched = row < 16 && c < 16;
      EXPECT_EQ(poisonAt(out, row, c), touched && !product) << row << "," << c;
      if (product) {
        EXPECT_EQ(f32At(out, row, c), productLane) << row << "," << c;
      }
      if (!touched) {
        EXPECT_EQ(f32At(out, row, c), 32.0f) << row << "," << c;
      }
    }
}

TEST(BufferInterpreter, MatmulWritesTheProductAndPoisonsTheRestOfTouchedBoxes) {
  const Program p = compileProgram(touchedBoxProgram("matmul"));
  expectTouchedBoxRule(runBuffer(p, onesArgs()), 4.0f);
}

TEST(BufferInterpreter, MatmulAccAddsInPlace) {
  const Program p = compileProgram(touchedBoxProgram("matmul_acc"));
  expectTouchedBoxRule(runBuffer(p, onesArgs()), 36.0f);
}

TEST(BufferInterpreter, SeedCubeExampleAccumulatesTheProductTwice) {
  // The seed's "Matrix storage" example: x = A @ B; y = x + A @ B, so out = 2 * A @ B. Small
  // integer operands keep every FP32 sum exact, so the expectation is plain integer arithmetic.
  const std::string text = bufferProgram(
      "A: pl.Tensor[[64, 64], pl.FP16], B: pl.Tensor[[64, 64], pl.FP16],\n"
      "               out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]",
      "        a_mat: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Mat, pl.Layout.NZ] = pl.buffer.alloc((), 0)\n"
      "        b_mat: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Mat, pl.Layout.NZ] = pl.buffer.alloc((), 8192)\n"
      "        a_l0: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)\n"
      "        b_l0: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Right, pl.Layout.ZN] = pl.buffer.alloc((), 0)\n"
      "        acc: pl.Buffer[[64, 64], pl.FP32, pl.Mem.Acc, pl.TileView(fractal=1024)] = pl.buffer.alloc((), 0)\n"
      "        pl.buffer.load(A, [0, 0], [64, 64], a_mat)\n"
      "        pl.buffer.load(B, [0, 0], [64, 64], b_mat)\n"
      "        pl.buffer.copy(a_mat, a_l0)\n"
      "        pl.buffer.copy(b_mat, b_l0)\n"
      "        pl.buffer.matmul(a_l0, b_l0, acc)\n"
      "        pl.buffer.matmul_acc(a_l0, b_l0, acc)\n"
      "        pl.buffer.store(acc, [0, 0], [64, 64], out)\n"
      "        return out\n");
  const Program p = compileProgram(text);
  auto aAt = [](int64_t i, int64_t k) { return static_cast<int>((i + 2 * k) % 5) - 2; };
  auto bAt = [](int64_t k, int64_t j) { return static_cast<int>((3 * k + j) % 7) - 3; };
  // FP16 bits of small integers -3..3: exact, written out by hand.
  auto fp16Bits = [](int v) -> uint64_t {
    static const uint16_t table[] = {0xC200, 0xC000, 0xBC00, 0x0000, 0x3C00, 0x4000, 0x4200};  // -3..3
    return table[v + 3];
  };
  KernelArgs args;
  args.tensors["A"] = bitsTensor(DType::FP16, 64, 64, [&](int64_t r, int64_t c) { return fp16Bits(aAt(r, c)); });
  args.tensors["B"] = bitsTensor(DType::FP16, 64, 64, [&](int64_t r, int64_t c) { return fp16Bits(bAt(r, c)); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 64, 64);
  const RunResult r = runBuffer(p, args);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  for (int64_t i = 0; i < 64; ++i)
    for (int64_t j = 0; j < 64; ++j) {
      int sum = 0;
      for (int64_t k = 0; k < 64; ++k) sum += aAt(i, k) * bAt(k, j);
      ASSERT_EQ(f32At(r.final.tensors.at("out"), i, j), static_cast<float>(2 * sum)) << i << "," << j;
    }
}

TEST(BufferInterpreter, SeedBranchExampleYieldsTheStoreOffset) {
  // The seed's "Branches" example: both arms write `destination`; the scalar result picks the rows.
  const std::string text = bufferProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], flag: pl.Scalar[pl.BOOL],\n"
      "               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]",
      "        a_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
      "        b_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)\n"
      "        destination: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)\n"
      "        pl.buffer.load(a, [0, 0], [16, 32], a_buf)\n"
      "        pl.buffer.load(b, [0, 0], [16, 32], b_buf)\n"
      "        if flag:\n"
      "            pl.buffer.mul(a_buf, b_buf, destination)\n"
      "            selected_offset = pl.yield_(16)\n"
      "        else:\n"
      "            pl.buffer.copy(a_buf, destination)\n"
      "            selected_offset = pl.yield_(0)\n"
      "        pl.buffer.store(destination, [selected_offset, 0], [16, 32], out)\n"
      "        return out\n");
  const Program p = compileProgram(text);
  for (const bool flag : {true, false}) {
    KernelArgs args;
    args.tensors["a"] = fp32Tensor(16, 32, value);
    args.tensors["b"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c, 2); });
    args.tensors["out"] = sentinelTensor(DType::FP32, 32, 32);
    args.scalars["flag"] = ScalarValue::boolean(flag);
    const RunResult r = runBuffer(p, args);
    ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
    const Tensor& out = r.final.tensors.at("out");
    const int64_t first = flag ? 16 : 0;
    for (int64_t row = 0; row < 32; ++row)
      for (int64_t c = 0; c < 32; ++c) {
        const bool stored = row >= first && row < first + 16;
        EXPECT_EQ(writtenAt(out, row, c), stored) << flag << " " << row << "," << c;
        if (!stored) continue;
        const int64_t k = row - first;
        EXPECT_EQ(f32At(out, row, c), flag ? smallValue(k, c) * smallValue(k, c, 2) : smallValue(k, c));
      }
  }
}

// ---- GM rules, blocks, budget ----

TEST(BufferInterpreter, EachBlockRunsOnFreshStorage) {
  // Only block 0 loads x; block 1 stores what its own (fresh) x holds: poison.
  const std::string text = bufferProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]",
      "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
      "        idx = pl.buffer.get_block_idx()\n"
      "        if idx == 0:\n"
      "            pl.buffer.load(a, [0, 0], [16, 32], x)\n"
      "        pl.buffer.store(x, [idx * 16, 0], [16, 32], out)\n"
      "        return out\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, value);
  args.tensors["out"] = sentinelTensor(DType::FP32, 32, 32);
  RunConfig one;
  EXPECT_EQ(runBuffer(p, args, one).status, RunStatus::Ok);
  RunConfig two;
  two.blockNum = 2;
  const RunResult r = runBuffer(p, args, two);
  ASSERT_EQ(r.status, RunStatus::InvalidProgram);
  EXPECT_NE(r.diagnostic.message.find("stores 512 poison element(s) into 'out' (first at [16, 0])"), std::string::npos)
      << r.diagnostic.message;
  EXPECT_FALSE(poisonAt(r.final.tensors.at("out"), 15, 31));
  EXPECT_TRUE(poisonAt(r.final.tensors.at("out"), 16, 0));
}

TEST(BufferInterpreter, RacesAndTheStepBudgetAsInTheTileInterpreter) {
  const Program p = compileProgram(kAddProgram);
  RunConfig two;
  two.blockNum = 2;
  const RunResult race = runBuffer(p, addArgs(), two);
  EXPECT_EQ(race.status, RunStatus::Race);
  EXPECT_EQ(race.diagnostic.message, "buffer.store: out[8, 0] is written by block 0 and by block 1");
  EXPECT_EQ(race.diagnostic.loc.line, lineOf(kAddProgram, "pl.buffer.store"));
  RunConfig tight;
  tight.stepBudget = 5;
  const RunResult timeout = runBuffer(p, addArgs(), tight);
  EXPECT_EQ(timeout.status, RunStatus::Timeout);
  EXPECT_EQ(timeout.steps, 6u);
  EXPECT_EQ(timeout.diagnostic.loc.line, lineOf(kAddProgram, "pl.buffer.add"));  // the sixth statement
}

TEST(BufferInterpreter, GmWindowOutOfBoundsIsInvalidProgram) {
  const std::string text = bufferProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], row: pl.Scalar[pl.INDEX],\n"
      "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
      "        pl.buffer.load(a, [row, 0], [16, 32], x)\n"
      "        pl.buffer.store(x, [0, 0], [16, 32], out)\n"
      "        return out\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, value);
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  args.scalars["row"] = ScalarValue::index(8);
  const RunResult r = runBuffer(p, args);
  EXPECT_EQ(r.status, RunStatus::InvalidProgram);
  EXPECT_EQ(r.diagnostic.message, "buffer.load: window rows [8, 24) exceed tensor rows 16 (tensor 'a')");
}

// ---- placement ----

TEST(BufferInterpreter, AnAllocationRunAgainKeepsItsPlaceAndItsBytes) {
  const std::string program = bufferProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]",
      "        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())\n"
      "        pl.buffer.full(1.0, y)\n"
      "        for i in pl.range(2):\n"
      "            x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc(())\n"
      "            if i == 0:\n"
      "                pl.buffer.set_validshape(x, [8, 32])\n"
      "                pl.buffer.load(a, [0, 0], [8, 32], x)\n"
      "                pl.buffer.store(x, [0, 0], [8, 32], out)\n"
      "            else:\n"
      "                pl.buffer.store(x, [16, 0], [16, 32], out)\n"
      "        return out\n");
  const Program p = compileProgram(program);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, value);
  args.tensors["out"] = sentinelTensor(DType::FP32, 32, 32);
  const RunResult r = runBuffer(p, args);
  // Trip 1: x is full again ([16, 32] store accepted), rows 0..7 hold trip 0's data at the same
  // address (distinct from y's), rows 8..15 were never written: poison.
  ASSERT_EQ(r.status, RunStatus::InvalidProgram) << r.diagnostic.message;
  EXPECT_NE(r.diagnostic.message.find("stores 256 poison element(s) into 'out' (first at [24, 0])"), std::string::npos)
      << r.diagnostic.message;
  const Tensor& out = r.final.tensors.at("out");
  for (int64_t row = 0; row < 8; ++row)
    for (int64_t c = 0; c < 32; ++c) {
      EXPECT_EQ(f32At(out, row, c), smallValue(row, c));
      EXPECT_EQ(f32At(out, 16 + row, c), smallValue(row, c));
      EXPECT_FALSE(poisonAt(out, 16 + row, c));
      EXPECT_TRUE(poisonAt(out, 24 + row, c));
    }
}

TEST(BufferInterpreter, AddressedPlannerMakesAnAddresslessAllocationAHazard) {
  const std::string text = bufferProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
      "        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc(())\n"
      "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
      "        pl.buffer.exp(x, y)\n"
      "        pl.buffer.store(y, [0, 0], [16, 32], out)\n"
      "        return out\n");
  const Program p = compileProgram(text);
  EXPECT_TRUE(allocFormsOf(*p.defaultKernel()).mixed());
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, value);
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  // PTOAS: y is placed at 0, over x: exp reads x and writes y in place (the identical window).
  EXPECT_EQ(runBuffer(p, args).status, RunStatus::Ok);
  RunConfig addressed;
  addressed.addressedPlanner = true;
  const RunResult r = runBuffer(p, args, addressed);
  ASSERT_EQ(r.status, RunStatus::Hazard);
  EXPECT_EQ(r.hazard->kind, HazardKind::Addressless);
  EXPECT_EQ(r.hazard->loc, (SourceLoc{lineOf(text, "y: pl.Buffer"), 9}));
  EXPECT_EQ(r.diagnostic.severity, Severity::Hazard);
  EXPECT_EQ(r.diagnostic.file, kTestFile);
  EXPECT_EQ(r.diagnostic.message.rfind("addressless: buffer.alloc: y: Vec FP32 [16, 32] has no address", 0), 0u)
      << r.diagnostic.message;
  EXPECT_FALSE(writtenAt(r.final.tensors.at("out"), 0, 0));  // the run stopped at the hazard
}

TEST(BufferInterpreter, TargetDecidesTheReservedRange) {
  const std::string text = bufferProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 196608)\n"
      "        pl.buffer.load(a, [0, 0], [16, 32], x)\n"
      "        pl.buffer.store(x, [0, 0], [16, 32], out)\n"
      "        return out\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, value);
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  EXPECT_EQ(runBuffer(p, args).hazard->kind, HazardKind::Bounds);  // a2a3 UB ends at 192 KiB
  RunConfig a5;
  a5.target = TargetKind::A5;
  EXPECT_EQ(runBuffer(p, args, a5).status, RunStatus::Ok);  // a5 UB: 240 KiB usable
}

// ---- hazards of views and descriptors ----

struct HazardCase {
  std::string body;  // uses a: [32, 32] FP32 In, n: INDEX, out: [16, 32] FP32 Out
  HazardKind kind;
  std::string detail;
};

RunResult runHazardBody(const std::string& body, int64_t n) {
  const Program p = compileProgram(bufferProgram(
      "a: pl.Tensor[[32, 32], pl.FP32], n: pl.Scalar[pl.INDEX],\n"
      "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      body + "        return out\n"));
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(32, 32, value);
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  args.scalars["n"] = ScalarValue::index(n);
  return runBuffer(p, args);
}

TEST(BufferInterpreter, DescriptorAndViewHazards) {
  const std::vector<HazardCase> cases = {
      {"        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((), 0)\n"
       "        pl.buffer.set_validshape(x, [n, 32])\n",
       HazardKind::Valid,
       "buffer.set_validshape: valid extents [17, 32] lie outside the shape [16, 32]; expected 0 <= valid <= shape on "
       "each axis"},
      {"        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, -1])] = pl.buffer.alloc((n, 32), 0)\n",
       HazardKind::Valid,
       "buffer.alloc: valid tuple [17, 32] disagrees with the static descriptor extent 8 on axis 0"},
      {"        x: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
       "        w: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(x, [0, 8])\n"
       "        v: pl.Buffer[[8, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(w)\n",
       HazardKind::Align,
       "buffer.reshape: source w has row pitch 128 B, not the dense 16 x 4 B = 64 B a reshape reinterprets"},
      {"        x: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
       "        w: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, 32])] = pl.buffer.subview(x, [0, 0], [n, 32])\n",
       HazardKind::Valid,
       "buffer.subview: valid extents [17, 32] lie outside the shape [16, 32]; expected 0 <= valid <= shape on each "
       "axis"},
      {"        x: pl.Buffer[[32, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
       "        pl.buffer.load(a, [0, 0], [32, 32], x)\n"
       "        e: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 8192)\n"
       "        pl.buffer.extract(x, n, 0, e)\n",
       HazardKind::Valid, "buffer.extract: the window [16, 32] at [17, 0] does not fit operand x's shape [32, 32]"},
      {"        x: pl.Buffer[[8, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
       "        y: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)\n"
       "        pl.buffer.exp(x, y)\n",
       HazardKind::Valid, "buffer.exp: the destination's valid region [16, 32] does not fit operand x's shape [8, 32]"},
      {"        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc((), 0)\n"
       "        pl.buffer.set_validshape(x, [n - 17, 32])\n"
       "        pl.buffer.full(1.0, x)\n",
       HazardKind::EmptyOp,
       "buffer.full: the destination x's valid region [0, 32] is empty; the lowering must guard an op over an empty "
       "region"},
  };
  for (const HazardCase& c : cases) {
    const RunResult r = runHazardBody(c.body, 17);
    ASSERT_EQ(r.status, RunStatus::Hazard) << c.body << "\n" << r.diagnostic.message;
    EXPECT_EQ(r.hazard->kind, c.kind) << c.body;
    EXPECT_EQ(r.hazard->detail, c.detail) << c.body;
  }
}

TEST(BufferInterpreter, ASubviewInAnotherLayoutIsAnInputError) {
  const std::string text = bufferProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        x: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)\n"
      "        col: pl.Buffer[[16, 1], pl.FP32, pl.Mem.Vec] = pl.buffer.subview(x, [0, 3])\n"
      "        return out\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, value);
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  try {
    runBuffer(p, args);
    FAIL() << "expected a DiagnosticError";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().loc.line, lineOf(text, "col: pl.Buffer"));
    EXPECT_NE(e.diagnostic().message.find("the result's layout DN differs from the parent's ND"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ptodiff::testing
