// Tests of the Tile value interpreter's machine: GM loads/stores, sentinels, poison stores, bounds,
// races, control flow, the step budget and argument checking. Each program is a text that is
// parsed, verified and run.
#include <gtest/gtest.h>

#include <limits>

#include "InterpTestSupport.h"

namespace ptodiff::testing {
namespace {

const std::string kAddProgram = kernelProgram(
    "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],\n"
    "               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]",
    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
    "        s = pl.tile.add(x, y)\n"
    "        o = pl.tile.store(s, [8, 0], out)\n"
    "        return o\n");

KernelArgs addArgs() {
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c); });
  args.tensors["b"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c, 1) * 3.0f; });
  args.tensors["out"] = sentinelTensor(DType::FP32, 32, 32);
  return args;
}

TEST(TileInterpreter, AddStoresTheSumAndKeepsTheSentinelElsewhere) {
  const Program p = compileProgram(kAddProgram);
  const KernelArgs args = addArgs();
  const RunResult r = runProgram(p, args);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  EXPECT_EQ(r.steps, 5u);  // four assignments and the return
  const Tensor& out = r.final.tensors.at("out");
  for (int64_t row = 0; row < 32; ++row)
    for (int64_t c = 0; c < 32; ++c) {
      const bool stored = row >= 8 && row < 24;
      EXPECT_EQ(writtenAt(out, row, c), stored) << row << "," << c;
      EXPECT_FALSE(poisonAt(out, row, c));
      if (stored) {
        const float expected = smallValue(row - 8, c) + smallValue(row - 8, c, 1) * 3.0f;
        EXPECT_EQ(f32At(out, row, c), expected) << row << "," << c;
      } else {
        EXPECT_EQ(bitsAt(out, row, c), 0x7FC0DEADu) << "sentinel lost at " << row << "," << c;
      }
    }
  // In tensors come back unchanged.
  EXPECT_EQ(r.final.tensors.at("a").bytes, args.tensors.at("a").bytes);
}

TEST(TileInterpreter, OutOfBoundsLoadIsInvalidProgramAtTheStatement) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], row: pl.Scalar[pl.INDEX],\n"
      "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        x = pl.tile.load(a, [row, 0], [16, 32])\n"
      "        o = pl.tile.store(x, [0, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  args.scalars["row"] = ScalarValue::index(8);
  const RunResult bad = runProgram(p, args);
  EXPECT_EQ(bad.status, RunStatus::InvalidProgram);
  EXPECT_EQ(runStatusName(bad.status), "invalid-program");
  EXPECT_NE(bad.diagnostic.message.find("tile.load: window rows [8, 24) exceed tensor rows 16"), std::string::npos)
      << bad.diagnostic.message;
  EXPECT_EQ(bad.diagnostic.file, kTestFile);
  EXPECT_EQ(bad.diagnostic.loc.line, lineOf(text, "pl.tile.load"));
  EXPECT_EQ(bad.diagnostic.loc.col, 9u);
  EXPECT_FALSE(bad.final.tensors.at("out").written[0]);  // the run stopped before the store

  args.scalars["row"] = ScalarValue::index(-1);
  const RunResult negative = runProgram(p, args);
  EXPECT_EQ(negative.status, RunStatus::InvalidProgram);
  EXPECT_NE(negative.diagnostic.message.find("start before 0"), std::string::npos) << negative.diagnostic.message;

  args.scalars["row"] = ScalarValue::index(0);
  EXPECT_EQ(runProgram(p, args).status, RunStatus::Ok);
}

TEST(TileInterpreter, StoringPoisonIsInvalidProgramButOutputsAreReturned) {
  const std::string text = kernelProgram(
      "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]], out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> "
      "tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]",
      "        x = pl.tile.create([16, 32], dtype=pl.FP32)\n"
      "        o = pl.tile.store(x, [0, 0], out)\n"
      "        f = pl.tile.full([16, 32], dtype=pl.FP32, value=2.5)\n"
      "        o2 = pl.tile.store(f, [0, 0], out2)\n"
      "        return o, o2\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  args.tensors["out2"] = sentinelTensor(DType::FP32, 16, 32);
  const RunResult r = runProgram(p, args);
  EXPECT_EQ(r.status, RunStatus::InvalidProgram);
  EXPECT_NE(r.diagnostic.message.find("tile.store: stores 512 poison element(s) into 'out'"), std::string::npos)
      << r.diagnostic.message;
  EXPECT_EQ(r.diagnostic.loc.line, lineOf(text, "store(x"));
  const Tensor& out = r.final.tensors.at("out");
  EXPECT_TRUE(out.anyPoison());
  EXPECT_TRUE(poisonAt(out, 15, 31));
  EXPECT_TRUE(writtenAt(out, 0, 0));
  // The run went on: the later store happened.
  const Tensor& out2 = r.final.tensors.at("out2");
  EXPECT_FALSE(out2.anyPoison());
  EXPECT_EQ(f32At(out2, 3, 4), 2.5f);
}

TEST(TileInterpreter, TransfersCopyNaNPayloadBits) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[8, 8], pl.FP32], h: pl.Tensor[[16, 16], pl.FP16],\n"
      "               out: pl.Out[pl.Tensor[[8, 8], pl.FP32]], outh: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> "
      "tuple[pl.Tensor[[8, 8], pl.FP32], pl.Tensor[[16, 16], pl.FP16]]",
      "        x = pl.tile.load(a, [0, 0], [8, 8])\n"
      "        m = pl.tile.move(x, target_memory=pl.Mem.Vec)\n"
      "        s = pl.tile.slice(m, [8, 8], [0, 0])\n"
      "        o = pl.tile.store(s, [0, 0], out)\n"
      "        y = pl.tile.load(h, [0, 0], [16, 16])\n"
      "        o2 = pl.tile.store(y, [0, 0], outh)\n"
      "        return o, o2\n");
  const Program p = compileProgram(text);
  // Signalling NaNs, negative payloads, the sentinel itself, Inf and -0.
  auto nan32 = [](int64_t r, int64_t c) -> uint64_t {
    const uint32_t payload = static_cast<uint32_t>(r * 8 + c + 1);
    switch ((r + c) % 4) {
      case 0: return 0x7F800000u | payload;  // signalling, positive
      case 1: return 0xFFC00000u | payload;  // quiet, negative
      case 2: return 0x7FC0DEADu;
      default: return c % 2 ? 0x80000000u : 0xFF800000u;
    }
  };
  auto nan16 = [](int64_t r, int64_t c) -> uint64_t { return ((r + c) % 2 ? 0xFC00u : 0x7C00u) | ((r * 16 + c) % 0x3FF + 1); };
  KernelArgs args;
  args.tensors["a"] = bitsTensor(DType::FP32, 8, 8, nan32);
  args.tensors["h"] = bitsTensor(DType::FP16, 16, 16, nan16);
  args.tensors["out"] = sentinelTensor(DType::FP32, 8, 8);
  args.tensors["outh"] = sentinelTensor(DType::FP16, 16, 16);
  const RunResult r = runProgram(p, args);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  for (int64_t row = 0; row < 8; ++row)
    for (int64_t c = 0; c < 8; ++c) EXPECT_EQ(bitsAt(r.final.tensors.at("out"), row, c), nan32(row, c));
  for (int64_t row = 0; row < 16; ++row)
    for (int64_t c = 0; c < 16; ++c) EXPECT_EQ(bitsAt(r.final.tensors.at("outh"), row, c), nan16(row, c));
}

// ---- control flow ----

const std::string kForProgram = kernelProgram(
    "a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],\n"
    "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        for i, (acc,) in pl.range(0, n, 1, init_values=(x,)):\n"
    "            nxt = pl.tile.add(acc, x)\n"
    "            acc2 = pl.yield_(nxt)\n"
    "        o = pl.tile.store(acc2, [0, 0], out)\n"
    "        return o\n");

RunResult runFor(int64_t n, RunConfig config = {}) {
  static const Program p = compileProgram(kForProgram);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c) + 0.1f; });
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  args.scalars["n"] = ScalarValue::index(n);
  return runProgram(p, args, config);
}

TEST(TileInterpreterControl, ZeroTripLoopKeepsItsInitialCarries) {
  const RunResult r = runFor(0);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  for (int64_t c = 0; c < 32; ++c) EXPECT_EQ(f32At(r.final.tensors.at("out"), 5, c), smallValue(5, c) + 0.1f);
}

TEST(TileInterpreterControl, ForLoopCarriesThroughEveryIteration) {
  const RunResult r = runFor(3);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  for (int64_t c = 0; c < 32; ++c) {
    const float x = smallValue(2, c) + 0.1f;
    float expected = x;
    for (int i = 0; i < 3; ++i) expected = expected + x;
    EXPECT_EQ(f32At(r.final.tensors.at("out"), 2, c), expected);
  }
}

TEST(TileInterpreterControl, StepBudgetEndsARunawayLoopWithTimeout) {
  RunConfig config;
  config.stepBudget = 50;
  const RunResult r = runFor(1'000'000, config);
  EXPECT_EQ(r.status, RunStatus::Timeout);
  EXPECT_EQ(runStatusName(r.status), "timeout");
  EXPECT_EQ(r.steps, 51u);
  EXPECT_NE(r.diagnostic.message.find("step budget of 50"), std::string::npos);
  const uint32_t line = r.diagnostic.loc.line;
  EXPECT_GE(line, lineOf(kForProgram, "pl.range"));
  EXPECT_LE(line, lineOf(kForProgram, "pl.yield_"));
  // The same loop within budget passes.
  EXPECT_EQ(runFor(10).status, RunStatus::Ok);
}

TEST(TileInterpreterControl, NonPositiveStepIsInvalidProgram) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], s: pl.Scalar[pl.INDEX],\n"
      "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        for i, (acc,) in pl.range(0, 4, s, init_values=(x,)):\n"
      "            nxt = pl.tile.adds(acc, 1.0)\n"
      "            acc2 = pl.yield_(nxt)\n"
      "        o = pl.tile.store(acc2, [0, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t, int64_t) { return 1.0f; });
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  args.scalars["s"] = ScalarValue::index(0);
  const RunResult r = runProgram(p, args);
  EXPECT_EQ(r.status, RunStatus::InvalidProgram);
  EXPECT_NE(r.diagnostic.message.find("step 0 is not positive"), std::string::npos) << r.diagnostic.message;
  EXPECT_EQ(r.diagnostic.loc.line, lineOf(text, "pl.range"));
  args.scalars["s"] = ScalarValue::index(3);  // i = 0, 3: two trips
  const RunResult ok = runProgram(p, args);
  ASSERT_EQ(ok.status, RunStatus::Ok);
  EXPECT_EQ(f32At(ok.final.tensors.at("out"), 0, 0), 3.0f);
}

const std::string kWhileProgram = kernelProgram(
    "a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],\n"
    "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
    "        for (t, k) in pl.while_(init_values=(x, 0)):\n"
    "            pl.cond(k < n)\n"
    "            t1 = pl.tile.muls(t, 3.0)\n"
    "            k1 = k + 1\n"
    "            t2, k2 = pl.yield_(t1, k1)\n"
    "        if k2 == n:\n"
    "            w = pl.tile.adds(t2, 0.5)\n"
    "            res = pl.yield_(w)\n"
    "        else:\n"
    "            res = pl.yield_(x)\n"
    "        o = pl.tile.store(res, [0, 0], out)\n"
    "        return o\n");

TEST(TileInterpreterControl, WhileLoopChecksItsConditionBeforeEachIteration) {
  const Program p = compileProgram(kWhileProgram);
  for (int64_t n : {0, 1, 4}) {
    KernelArgs args;
    args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c); });
    args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
    args.scalars["n"] = ScalarValue::index(n);
    const RunResult r = runProgram(p, args);
    ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
    for (int64_t c = 0; c < 32; c += 5) {
      float expected = smallValue(7, c);
      for (int64_t i = 0; i < n; ++i) expected = expected * 3.0f;
      expected = expected + 0.5f;
      EXPECT_EQ(f32At(r.final.tensors.at("out"), 7, c), expected) << "n=" << n << " c=" << c;
    }
  }
}

TEST(TileInterpreterControl, IndexOverflowIsInvalidProgram) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX],\n"
      "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        big = n * n\n"
      "        row = big // n - n\n"
      "        x = pl.tile.load(a, [row, 0], [16, 32])\n"
      "        o = pl.tile.store(x, [0, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t, int64_t) { return 1.0f; });
  args.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  args.scalars["n"] = ScalarValue::index(int64_t{1} << 32);
  const RunResult r = runProgram(p, args);
  EXPECT_EQ(r.status, RunStatus::InvalidProgram);
  EXPECT_NE(r.diagnostic.message.find("overflow"), std::string::npos) << r.diagnostic.message;
  EXPECT_EQ(r.diagnostic.loc.line, lineOf(text, "big = n * n"));
  args.scalars["n"] = ScalarValue::index(int64_t{1} << 31);  // (2^31)^2 fits; row = 0
  EXPECT_EQ(runProgram(p, args).status, RunStatus::Ok);
}

// ---- launches and races ----

TEST(TileInterpreterLaunch, TwoBlocksStoringTheSameElementsRace) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32],\n"
      "               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        o = pl.tile.store(x, [0, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 32, 32);
  EXPECT_EQ(runProgram(p, args).status, RunStatus::Ok);
  RunConfig two;
  two.blockNum = 2;
  const RunResult r = runProgram(p, args, two);
  EXPECT_EQ(r.status, RunStatus::Race);
  EXPECT_EQ(runStatusName(r.status), "race");
  EXPECT_NE(r.diagnostic.message.find("written by block 0 and by block 1"), std::string::npos) << r.diagnostic.message;
  EXPECT_EQ(r.diagnostic.loc.line, lineOf(text, "pl.tile.store"));
}

TEST(TileInterpreterLaunch, BlocksWritingDisjointRowsDoNotRace) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32],\n"
      "               out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]",
      "        idx = pl.tile.get_block_idx()\n"
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y = pl.tile.adds(x, 100.0)\n"
      "        if idx == 0:\n"
      "            z = pl.yield_(x)\n"
      "        else:\n"
      "            z = pl.yield_(y)\n"
      "        o = pl.tile.store(z, [idx * 16, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c); });
  args.tensors["out"] = sentinelTensor(DType::FP32, 32, 32);
  RunConfig two;
  two.blockNum = 2;
  const RunResult r = runProgram(p, args, two);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  EXPECT_EQ(f32At(r.final.tensors.at("out"), 3, 4), smallValue(3, 4));
  EXPECT_EQ(f32At(r.final.tensors.at("out"), 19, 4), smallValue(3, 4) + 100.0f);
}

TEST(TileInterpreterLaunch, ReadingAnotherBlocksWriteRaces) {
  const std::string text = kernelProgram(
      "buf: pl.InOut[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]",
      "        idx = pl.tile.get_block_idx()\n"
      "        x = pl.tile.load(buf, [idx * 8, 0], [8, 32])\n"
      "        o = pl.tile.store(x, [idx * 8 + 8, 0], buf)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args;
  args.tensors["buf"] = fp32Tensor(32, 32, [](int64_t r, int64_t c) { return smallValue(r, c); });
  RunConfig two;
  two.blockNum = 2;
  const RunResult r = runProgram(p, args, two);
  EXPECT_EQ(r.status, RunStatus::Race);
  EXPECT_NE(r.diagnostic.message.find("block 1 reads buf[8, 0] written by block 0"), std::string::npos)
      << r.diagnostic.message;
  EXPECT_EQ(r.diagnostic.loc.line, lineOf(text, "pl.tile.load"));
  // One block alone is fine, and it copied rows 0..8 to 8..16.
  const RunResult one = runProgram(p, args);
  ASSERT_EQ(one.status, RunStatus::Ok);
  EXPECT_EQ(f32At(one.final.tensors.at("buf"), 9, 3), smallValue(1, 3));
}

// ---- inputs that do not fit ----

TEST(TileInterpreterArgs, MissingOrMistypedArgumentsAreDiagnostics) {
  const Program p = compileProgram(kAddProgram);
  KernelArgs args = addArgs();
  args.tensors.erase("b");
  try {
    runProgram(p, args);
    FAIL() << "expected a DiagnosticError";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(e.diagnostic().message.find("missing tensor argument 'b'"), std::string::npos);
    EXPECT_EQ(e.diagnostic().file, kTestFile);
  }
  args = addArgs();
  args.tensors["a"] = sentinelTensor(DType::FP16, 16, 32);
  try {
    runProgram(p, args);
    FAIL() << "expected a DiagnosticError";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(e.diagnostic().message.find("is FP16 [16, 32]; expected FP32 [16, 32]"), std::string::npos)
        << e.diagnostic().message;
  }
  const Program q = compileProgram(kForProgram);
  KernelArgs scalarArgs;
  scalarArgs.tensors["a"] = fp32Tensor(16, 32, [](int64_t, int64_t) { return 0.0f; });
  scalarArgs.tensors["out"] = sentinelTensor(DType::FP32, 16, 32);
  EXPECT_THROW(runProgram(q, scalarArgs), DiagnosticError);  // n missing
  scalarArgs.scalars["n"] = ScalarValue::fp32(1.0f);
  EXPECT_THROW(runProgram(q, scalarArgs), DiagnosticError);  // n is FP32, expected INDEX
}

TEST(TileInterpreterArgs, BufferStageFunctionsPointToTheBufferInterpreter) {
  Program p = compileProgram(kAddProgram);
  p.functions[0].stage = FunctionStage::Buffer;
  try {
    runProgram(p, addArgs());
    FAIL() << "expected a DiagnosticError";
  } catch (const DiagnosticError& e) {
    EXPECT_NE(e.diagnostic().message.find("run it with the Buffer interpreter: runBufferKernel, or `ptodiff interp "
                                          "--interpreter buffer`"),
              std::string::npos)
        << e.diagnostic().message;
  }
}

}  // namespace
}  // namespace ptodiff::testing
