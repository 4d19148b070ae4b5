// One test per Tile-op rule of semantics.md §2 that is easy to get wrong: valid-region arithmetic
// of slice/assemble/reshape/extract/move, poison propagation, matmul_acc's box rule and default
// init_cond, the scalar conversion of tile-scalar ops, reductions and transpose_view. Programs are
// texts that are parsed, verified and run; expected values are computed by hand or with host
// arithmetic.
#include <gtest/gtest.h>

#include <cmath>

#include "InterpTestSupport.h"

namespace ptodiff::testing {
namespace {

KernelArgs withOut(KernelArgs args, const std::string& name, DType dt, int64_t rows, int64_t cols) {
  args.tensors[name] = sentinelTensor(dt, rows, cols);
  return args;
}

float aValue(int64_t r, int64_t c) { return smallValue(r, c); }
float bValue(int64_t r, int64_t c) { return smallValue(r, c, 2) + 100.0f; }

// ---- slice ----

const std::string kSliceProgram = kernelProgram(
    "a: pl.Tensor[[16, 32], pl.FP32], vr: pl.Scalar[pl.INDEX], vc: pl.Scalar[pl.INDEX],\n"
    "               out1: pl.Out[pl.Tensor[[8, 16], pl.FP32]], out2: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> "
    "tuple[pl.Tensor[[8, 16], pl.FP32], pl.Tensor[[8, 16], pl.FP32]]",
    "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[vr, vc])\n"
    "        s1 = pl.tile.slice(x, [8, 16], [8, 16])\n"
    "        r1 = pl.tile.store(s1, [0, 0], out1)\n"
    "        s2 = pl.tile.slice(x, [8, 16], [8, 16], valid_shape=[6, 2])\n"
    "        r2 = pl.tile.store(s2, [0, 0], out2)\n"
    "        return r1, r2\n");

/// Which elements of `t` were written, as (rows, cols) of the written prefix; checks it is one.
std::pair<int64_t, int64_t> writtenPrefix(const Tensor& t) {
  int64_t rows = 0, cols = 0;
  for (int64_t r = 0; r < t.rows; ++r)
    for (int64_t c = 0; c < t.cols; ++c)
      if (writtenAt(t, r, c)) {
        rows = std::max(rows, r + 1);
        cols = std::max(cols, c + 1);
      }
  for (int64_t r = 0; r < t.rows; ++r)
    for (int64_t c = 0; c < t.cols; ++c) EXPECT_EQ(writtenAt(t, r, c), r < rows && c < cols) << r << "," << c;
  return {rows, cols};
}

RunResult runSlice(int64_t vr, int64_t vc) {
  static const Program p = compileProgram(kSliceProgram);
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, aValue);
  args.scalars["vr"] = ScalarValue::index(vr);
  args.scalars["vc"] = ScalarValue::index(vc);
  args = withOut(withOut(args, "out1", DType::FP32, 8, 16), "out2", DType::FP32, 8, 16);
  return runProgram(p, args);
}

TEST(TileOpsSlice, ValidIsClampedToTheSourceValidWithAndWithoutARequest) {
  // Source valid (12, 20); window at [8, 16] of extent 8 x 16: available = (12-8, 20-16) = (4, 4).
  const RunResult r = runSlice(12, 20);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  const Tensor& out1 = r.final.tensors.at("out1");
  EXPECT_EQ(writtenPrefix(out1), std::make_pair(int64_t{4}, int64_t{4}));
  EXPECT_EQ(f32At(out1, 3, 3), aValue(11, 19));
  // Requested (6, 2): min(6, 4) = 4 rows, min(2, 4) = 2 columns (PyPTO clamps a request too).
  EXPECT_EQ(writtenPrefix(r.final.tensors.at("out2")), std::make_pair(int64_t{4}, int64_t{2}));
  // A source valid region ending before the window: clamp(4 - 8, 0, 8) = 0 rows, nothing stored.
  const RunResult empty = runSlice(4, 32);
  ASSERT_EQ(empty.status, RunStatus::Ok);
  EXPECT_EQ(writtenPrefix(empty.final.tensors.at("out1")), std::make_pair(int64_t{0}, int64_t{0}));
  EXPECT_EQ(bitsAt(empty.final.tensors.at("out1"), 0, 0), 0x7FC0DEADu);
  // A fully valid source: the window's full extent, and the request (6, 2) as given.
  const RunResult fullSrc = runSlice(16, 32);
  EXPECT_EQ(writtenPrefix(fullSrc.final.tensors.at("out1")), std::make_pair(int64_t{8}, int64_t{16}));
  EXPECT_EQ(writtenPrefix(fullSrc.final.tensors.at("out2")), std::make_pair(int64_t{6}, int64_t{2}));
}

TEST(TileOpsSlice, RuntimeWindowOutsideTheSourceIsInvalidProgram) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], r: pl.Scalar[pl.INDEX],\n"
      "               out: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        s = pl.tile.slice(x, [8, 32], [r, 0])\n"
      "        o = pl.tile.store(s, [0, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args = withOut({}, "out", DType::FP32, 8, 32);
  args.tensors["a"] = fp32Tensor(16, 32, aValue);
  args.scalars["r"] = ScalarValue::index(12);
  const RunResult bad = runProgram(p, args);
  EXPECT_EQ(bad.status, RunStatus::InvalidProgram);
  EXPECT_NE(bad.diagnostic.message.find("tile.slice: window rows [12, 20)"), std::string::npos) << bad.diagnostic.message;
  EXPECT_EQ(bad.diagnostic.loc.line, lineOf(text, "pl.tile.slice"));
  args.scalars["r"] = ScalarValue::index(8);
  const RunResult ok = runProgram(p, args);
  ASSERT_EQ(ok.status, RunStatus::Ok);
  EXPECT_EQ(f32At(ok.final.tensors.at("out"), 7, 31), aValue(15, 31));
}

// ---- assemble ----

TEST(TileOpsAssemble, CopiesTheWholePhysicalSourceIncludingPoisonLanes) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[8, 16], pl.FP32],\n"
      "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        t = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        s = pl.tile.load(b, [0, 0], [8, 16], valid_shape=[8, 8])\n"
      "        u = pl.tile.assemble(t, s, [0, 8])\n"
      "        o = pl.tile.store(u, [0, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args = withOut({}, "out", DType::FP32, 16, 32);
  args.tensors["a"] = fp32Tensor(16, 32, aValue);
  args.tensors["b"] = fp32Tensor(8, 16, bValue);
  const RunResult r = runProgram(p, args);
  // The target stays fully valid, so the source's poison columns 8..16 (target columns 16..24)
  // reach GM: invalid-program, with exactly those elements poison.
  EXPECT_EQ(r.status, RunStatus::InvalidProgram);
  EXPECT_NE(r.diagnostic.message.find("64 poison element(s)"), std::string::npos) << r.diagnostic.message;
  const Tensor& out = r.final.tensors.at("out");
  for (int64_t row = 0; row < 16; ++row)
    for (int64_t c = 0; c < 32; ++c) {
      const bool fromSource = row < 8 && c >= 8 && c < 24;
      const bool poisoned = fromSource && c >= 16;
      EXPECT_EQ(poisonAt(out, row, c), poisoned) << row << "," << c;
      EXPECT_TRUE(writtenAt(out, row, c));
      if (!fromSource) {
        EXPECT_EQ(f32At(out, row, c), aValue(row, c));
      } else if (!poisoned) {
        EXPECT_EQ(f32At(out, row, c), bValue(row, c - 8));
      }
    }
}

TEST(TileOpsAssemble, ValidIsTheWriteUnion) {
  // Target valid (8, 32); an 8 x 32 source written at row 8 grows the valid rows to 16.
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[8, 32], pl.FP32],\n"
      "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        t = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[8, 32])\n"
      "        s = pl.tile.load(b, [0, 0], [8, 32])\n"
      "        u = pl.tile.assemble(t, s, [8, 0])\n"
      "        o = pl.tile.store(u, [0, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args = withOut({}, "out", DType::FP32, 16, 32);
  args.tensors["a"] = fp32Tensor(16, 32, aValue);
  args.tensors["b"] = fp32Tensor(8, 32, bValue);
  const RunResult r = runProgram(p, args);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  const Tensor& out = r.final.tensors.at("out");
  EXPECT_EQ(writtenPrefix(out), std::make_pair(int64_t{16}, int64_t{32}));
  EXPECT_EQ(f32At(out, 7, 5), aValue(7, 5));
  EXPECT_EQ(f32At(out, 8, 5), bValue(0, 5));
  EXPECT_EQ(f32At(out, 15, 31), bValue(7, 31));
}

TEST(TileOpsAssemble, ANonRectangularUnionAtRunTimeIsInvalidProgram) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[8, 16], pl.FP32], n: pl.Scalar[pl.INDEX],\n"
      "               r0: pl.Scalar[pl.INDEX],\n"
      "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        t = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[n, 16])\n"
      "        s = pl.tile.load(b, [0, 0], [8, 16])\n"
      "        u = pl.tile.assemble(t, s, [r0, 16])\n"
      "        o = pl.tile.store(u, [0, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args = withOut({}, "out", DType::FP32, 16, 32);
  args.tensors["a"] = fp32Tensor(16, 32, aValue);
  args.tensors["b"] = fp32Tensor(8, 16, bValue);
  args.scalars["n"] = ScalarValue::index(8);
  args.scalars["r0"] = ScalarValue::index(8);  // valid (8, 16) plus [8, 16) x [16, 32): not a rectangle
  const RunResult r = runProgram(p, args);
  EXPECT_EQ(r.status, RunStatus::InvalidProgram);
  EXPECT_NE(r.diagnostic.message.find("tile.assemble:"), std::string::npos);
  EXPECT_NE(r.diagnostic.message.find("not a prefix rectangle"), std::string::npos) << r.diagnostic.message;
  EXPECT_EQ(r.diagnostic.loc.line, lineOf(text, "pl.tile.assemble"));
  args.scalars["n"] = ScalarValue::index(16);  // valid (16, 16): an L-shape again
  EXPECT_EQ(runProgram(p, args).status, RunStatus::InvalidProgram);
  args.scalars["n"] = ScalarValue::index(8);
  args.scalars["r0"] = ScalarValue::index(0);  // the same 8 rows: the write grows the columns to 32
  const RunResult ok = runProgram(p, args);
  ASSERT_EQ(ok.status, RunStatus::Ok) << ok.diagnostic.message;
  EXPECT_EQ(writtenPrefix(ok.final.tensors.at("out")), std::make_pair(int64_t{8}, int64_t{32}));
  EXPECT_EQ(f32At(ok.final.tensors.at("out"), 1, 20), bValue(1, 4));
  EXPECT_EQ(f32At(ok.final.tensors.at("out"), 1, 15), aValue(1, 15));
}

// ---- reshape ----

TEST(TileOpsReshape, FlatPrefixValidRule) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32],\n"
      "               out1: pl.Out[pl.Tensor[[64, 8], pl.FP32]], out2: pl.Out[pl.Tensor[[64, 8], pl.FP32]]) -> "
      "tuple[pl.Tensor[[64, 8], pl.FP32], pl.Tensor[[64, 8], pl.FP32]]",
      "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[2, 32])\n"
      "        y = pl.tile.reshape(x, [64, 8])\n"
      "        r1 = pl.tile.store(y, [0, 0], out1)\n"
      "        z = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[1, 5])\n"
      "        w = pl.tile.reshape(z, [64, 8])\n"
      "        r2 = pl.tile.store(w, [0, 0], out2)\n"
      "        return r1, r2\n");
  const Program p = compileProgram(text);
  KernelArgs args = withOut(withOut({}, "out1", DType::FP32, 64, 8), "out2", DType::FP32, 64, 8);
  args.tensors["a"] = fp32Tensor(16, 32, aValue);
  const RunResult r = runProgram(p, args);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  // 2 x 32 = 64 valid elements: 8 divides 64, so valid' = (8, 8); elements in row-major order.
  const Tensor& out1 = r.final.tensors.at("out1");
  EXPECT_EQ(writtenPrefix(out1), std::make_pair(int64_t{8}, int64_t{8}));
  for (int64_t row = 0; row < 8; ++row)
    for (int64_t c = 0; c < 8; ++c) {
      const int64_t flat = row * 8 + c;
      EXPECT_EQ(f32At(out1, row, c), aValue(flat / 32, flat % 32));
    }
  // 5 valid elements: 8 does not divide 5, and 5 <= 8, so valid' = (1, 5).
  EXPECT_EQ(writtenPrefix(r.final.tensors.at("out2")), std::make_pair(int64_t{1}, int64_t{5}));
}

// ---- set_validshape, move, extract, poison ----

TEST(TileOpsValid, PoisonPropagatesThroughArithmeticFromExposedLanes) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],\n"
      "               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[16, 16])\n"
      "        w = pl.tile.set_validshape(x, 16, 32)\n"
      "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
      "        s = pl.tile.mul(y, w)\n"
      "        e = pl.tile.exp(s)\n"
      "        o = pl.tile.store(e, [0, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args = withOut({}, "out", DType::FP32, 16, 32);
  args.tensors["a"] = fp32Tensor(16, 32, aValue);
  args.tensors["b"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return smallValue(r, c, 3) * 0.125f; });
  const RunResult r = runProgram(p, args);
  EXPECT_EQ(r.status, RunStatus::InvalidProgram);
  const Tensor& out = r.final.tensors.at("out");
  for (int64_t row = 0; row < 16; ++row)
    for (int64_t c = 0; c < 32; ++c) {
      EXPECT_EQ(poisonAt(out, row, c), c >= 16) << row << "," << c;
      if (c < 16) {
        const float product = (smallValue(row, c, 3) * 0.125f) * aValue(row, c);
        EXPECT_EQ(f32At(out, row, c), static_cast<float>(std::exp(static_cast<double>(product))));
      }
    }
}

TEST(TileOpsValid, SetValidShapeKeepsExposedLanesButMovePoisonsOutsideValid) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32],\n"
      "               out1: pl.Out[pl.Tensor[[16, 32], pl.FP32]], out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> "
      "tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]",
      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
      "        y = pl.tile.set_validshape(x, 8, 32)\n"
      "        z = pl.tile.set_validshape(y, 16, 32)\n"
      "        r1 = pl.tile.store(z, [0, 0], out1)\n"
      "        m = pl.tile.move(y, target_memory=pl.Mem.Vec)\n"
      "        g = pl.tile.set_validshape(m, 16, 32)\n"
      "        r2 = pl.tile.store(g, [0, 0], out2)\n"
      "        return r1, r2\n");
  const Program p = compileProgram(text);
  KernelArgs args = withOut(withOut({}, "out1", DType::FP32, 16, 32), "out2", DType::FP32, 16, 32);
  args.tensors["a"] = fp32Tensor(16, 32, aValue);
  const RunResult r = runProgram(p, args);
  // out1: shrinking and growing back exposes lanes that were written by the load: all defined.
  const Tensor& out1 = r.final.tensors.at("out1");
  EXPECT_FALSE(out1.anyPoison());
  EXPECT_EQ(f32At(out1, 12, 7), aValue(12, 7));
  // out2: move copied only the valid rows 0..8; rows 8..16 are poison once exposed.
  EXPECT_EQ(r.status, RunStatus::InvalidProgram);
  EXPECT_EQ(r.diagnostic.loc.line, lineOf(text, "store(g"));
  const Tensor& out2 = r.final.tensors.at("out2");
  for (int64_t row = 0; row < 16; ++row) {
    EXPECT_EQ(poisonAt(out2, row, 3), row >= 8) << row;
    if (row < 8) {
      EXPECT_EQ(f32At(out2, row, 3), aValue(row, 3));
    }
  }
}

TEST(TileOpsValid, ExtractCopiesTheClampedValidWindowOnly) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32],\n"
      "               out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[12, 32])\n"
      "        e = pl.tile.extract(x, 8, 8, [8, 16], target_memory=pl.Mem.Vec)\n"
      "        g = pl.tile.set_validshape(e, 8, 16)\n"
      "        o = pl.tile.store(g, [0, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args = withOut({}, "out", DType::FP32, 8, 16);
  args.tensors["a"] = fp32Tensor(16, 32, aValue);
  const RunResult r = runProgram(p, args);
  // valid = (clamp(12 - 8, 0, 8), 16) = (4, 16); rows 4..8 of the copy are poison.
  EXPECT_EQ(r.status, RunStatus::InvalidProgram);
  const Tensor& out = r.final.tensors.at("out");
  for (int64_t row = 0; row < 8; ++row) {
    EXPECT_EQ(poisonAt(out, row, 0), row >= 4);
    if (row < 4) {
      EXPECT_EQ(f32At(out, row, 15), aValue(row + 8, 23));
    }
  }
}

// ---- tile-scalar conversion ----

TEST(TileOpsScalar, TheScalarIsRoundedToTheTileDtypeBeforeTheOp) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 16], pl.FP16], s: pl.Scalar[pl.FP32],\n"
      "               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]",
      "        x = pl.tile.load(a, [0, 0], [16, 16])\n"
      "        y = pl.tile.adds(x, s)\n"
      "        o = pl.tile.store(y, [0, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args = withOut({}, "out", DType::FP16, 16, 16);
  args.tensors["a"] = bitsTensor(DType::FP16, 16, 16, [](int64_t, int64_t) { return 0x3C00u; });  // 1.0
  // s = 2^-11 + 2^-22. In FP16 s sits exactly halfway between 2^-11 and its successor
  // 2^-11 + 2^-21, so it rounds to even: 2^-11. Then 1 + 2^-11 is halfway between 1 and
  // 1 + 2^-10: even is 1.0 (0x3C00). Adding the unconverted s in binary32 would give
  // 1 + 2^-11 + 2^-22, above the halfway point: 0x3C01.
  args.scalars["s"] = ScalarValue::fp32(std::ldexp(1.0f, -11) + std::ldexp(1.0f, -22));
  const RunResult r = runProgram(p, args);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.diagnostic.message;
  EXPECT_EQ(bitsAt(r.final.tensors.at("out"), 0, 0), 0x3C00u);
  EXPECT_EQ(bitsAt(r.final.tensors.at("out"), 15, 15), 0x3C00u);
}

// ---- matmul ----

/// Small integers, exact in FP16 and in FP32 sums.
float mA(int64_t r, int64_t c) { return static_cast<float>((r * 3 + c) % 7 - 3); }
float mB(int64_t r, int64_t c) { return static_cast<float>((r + 2 * c) % 5 - 2); }
uint64_t fp16Of(float v) {
  // Exact small integers only: sign, exponent and 10-bit fraction by hand.
  if (v == 0.0f) return 0;
  const uint64_t sign = v < 0 ? 0x8000u : 0u;
  const int mag = static_cast<int>(std::fabs(v));
  int e = 0;
  while ((mag >> (e + 1)) != 0) ++e;
  const uint64_t fraction = static_cast<uint64_t>((mag << 10 >> e) & 0x3FF);
  return sign | (static_cast<uint64_t>(e + 15) << 10) | fraction;
}
double productAB(int64_t i, int64_t j, int64_t K) {
  double sum = 0;
  for (int64_t k = 0; k < K; ++k) sum += static_cast<double>(mA(i, k)) * mB(k, j);
  return sum;
}

const std::string kMatmulAccProgram = kernelProgram(
    "a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 32], pl.FP16],\n"
    "               out1: pl.Out[pl.Tensor[[16, 32], pl.FP32]], out2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> "
    "tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]",
    "        am = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
    "        bm = pl.tile.load(b, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
    "        bp = pl.tile.load(b, [0, 0], [16, 32], valid_shape=[16, 8], target_memory=pl.Mem.Mat)\n"
    "        l = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
    "        r = pl.tile.move(bm, target_memory=pl.Mem.Right)\n"
    "        rp = pl.tile.move(bp, target_memory=pl.Mem.Right)\n"
    "        c = pl.tile.matmul(l, r)\n"
    "        c2 = pl.tile.matmul_acc(c, l, rp)\n"
    "        o1 = pl.tile.store(c2, [0, 0], out1)\n"
    "        c3 = pl.tile.matmul_acc(c, l, rp, init_cond=True)\n"
    "        o2 = pl.tile.store(c3, [0, 0], out2)\n"
    "        return o1, o2\n");

TEST(TileOpsMatmul, MatmulAccKeepsOnlyUntouchedBoxesAndAccumulatesByDefault) {
  const Program p = compileProgram(kMatmulAccProgram);
  KernelArgs args = withOut(withOut({}, "out1", DType::FP32, 16, 32), "out2", DType::FP32, 16, 32);
  args.tensors["a"] = bitsTensor(DType::FP16, 16, 16, [](int64_t r, int64_t c) { return fp16Of(mA(r, c)); });
  args.tensors["b"] = bitsTensor(DType::FP16, 16, 32, [](int64_t r, int64_t c) { return fp16Of(mB(r, c)); });
  const RunResult res = runProgram(p, args);
  // Columns 8..16 share the touched box 0 with the product lanes: poison reaches GM.
  EXPECT_EQ(res.status, RunStatus::InvalidProgram);
  for (const char* name : {"out1", "out2"}) {
    const bool accumulate = std::string(name) == "out1";
    const Tensor& out = res.final.tensors.at(name);
    for (int64_t i = 0; i < 16; ++i)
      for (int64_t j = 0; j < 32; ++j) {
        const bool product = j < 8, touchedBox = j < 16;
        EXPECT_EQ(poisonAt(out, i, j), touchedBox && !product) << name << " " << i << "," << j;
        const double ab = productAB(i, j, 16);
        if (product) {  // omitted init_cond accumulates onto c; init_cond=True overwrites
          EXPECT_EQ(f32At(out, i, j), static_cast<float>(accumulate ? 2 * ab : ab)) << name << " " << i << "," << j;
        } else if (!touchedBox) {  // box 1 has no product lane: c's elements survive
          EXPECT_EQ(f32At(out, i, j), static_cast<float>(ab)) << name << " " << i << "," << j;
        }
      }
  }
}

TEST(TileOpsMatmul, FoldsOnlyOverTheLeftValidColumnsAndStoresAccToFp16WithOneRounding) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],\n"
      "               out: pl.Out[pl.Tensor[[16, 16], pl.FP16]], out32: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> "
      "tuple[pl.Tensor[[16, 16], pl.FP16], pl.Tensor[[16, 16], pl.FP32]]",
      "        am = pl.tile.load(a, [0, 0], [16, 16], valid_shape=[16, 2], target_memory=pl.Mem.Mat)\n"
      "        bm = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        l = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
      "        r = pl.tile.move(bm, target_memory=pl.Mem.Right)\n"
      "        c = pl.tile.matmul(l, r)\n"
      "        o = pl.tile.store(c, [0, 0], out)\n"
      "        o2 = pl.tile.store(c, [0, 0], out32)\n"
      "        return o, o2\n");
  const Program p = compileProgram(text);
  KernelArgs args = withOut(withOut({}, "out", DType::FP16, 16, 16), "out32", DType::FP32, 16, 16);
  // Row i of A: [2047, 2 + i, 1000, ...]; B is all ones. Only k < 2 counts: 2049 + i.
  args.tensors["a"] = bitsTensor(DType::FP16, 16, 16, [](int64_t r, int64_t c) -> uint64_t {
    if (c == 0) return 0x67FFu;                                  // 2047
    if (c == 1) return fp16Of(static_cast<float>(2 + r));        // 2 + r
    return 0x63D0u;                                              // 1000 (outside the valid K)
  });
  args.tensors["b"] = bitsTensor(DType::FP16, 16, 16, [](int64_t, int64_t) { return 0x3C00u; });
  const RunResult res = runProgram(p, args);
  ASSERT_EQ(res.status, RunStatus::Ok) << res.diagnostic.message;
  const Tensor& out = res.final.tensors.at("out");
  const Tensor& out32 = res.final.tensors.at("out32");
  // FP32 Acc holds 2049 + i exactly; FP16 spacing in [2048, 4096) is 2, so odd values are ties:
  // 2049 -> 2048 (0x6800), 2051 -> 2052 (0x6802), 2050 -> 2050 (0x6801).
  EXPECT_EQ(f32At(out32, 0, 5), 2049.0f);
  EXPECT_EQ(f32At(out32, 2, 5), 2051.0f);
  EXPECT_EQ(bitsAt(out, 0, 5), 0x6800u);
  EXPECT_EQ(bitsAt(out, 1, 5), 0x6801u);
  EXPECT_EQ(bitsAt(out, 2, 5), 0x6802u);
}

// ---- reductions, transpose ----

TEST(TileOpsReduce, RowSumFoldsTheValidColumnsInOrderAndColMaxTheValidRows) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[16, 32], pl.FP32],\n"
      "               rs: pl.Out[pl.Tensor[[16, 1], pl.FP32]], cm: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> "
      "tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[1, 32], pl.FP32]]",
      "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[12, 20])\n"
      "        tmp = pl.tile.create([16, 32], dtype=pl.FP32)\n"
      "        s = pl.tile.row_sum(x, tmp)\n"
      "        m = pl.tile.col_max(x)\n"
      "        o1 = pl.tile.store(s, [0, 0], rs)\n"
      "        o2 = pl.tile.store(m, [0, 0], cm)\n"
      "        return o1, o2\n");
  const Program p = compileProgram(text);
  KernelArgs args = withOut(withOut({}, "rs", DType::FP32, 16, 1), "cm", DType::FP32, 1, 32);
  // Values whose FP32 sum depends on the order: big, small, -big, ...
  auto value = [](int64_t r, int64_t c) {
    if (c % 3 == 0) return 16777216.0f;
    if (c % 3 == 1) return 1.0f + static_cast<float>(r);
    return -16777216.0f;
  };
  args.tensors["a"] = fp32Tensor(16, 32, value);
  const RunResult res = runProgram(p, args);
  ASSERT_EQ(res.status, RunStatus::Ok) << res.diagnostic.message;
  const Tensor& rs = res.final.tensors.at("rs");
  for (int64_t r = 0; r < 16; ++r) {
    EXPECT_EQ(writtenAt(rs, r, 0), r < 12);
    if (r >= 12) continue;
    float acc = value(r, 0);
    for (int64_t c = 1; c < 20; ++c) acc = acc + value(r, c);
    EXPECT_EQ(f32At(rs, r, 0), acc) << r;
  }
  const Tensor& cm = res.final.tensors.at("cm");
  for (int64_t c = 0; c < 32; ++c) {
    EXPECT_EQ(writtenAt(cm, 0, c), c < 20);
    if (c < 20) {  // the max over rows 0..12
      EXPECT_EQ(f32At(cm, 0, c), value(11, c)) << c;
    }
  }
}

TEST(TileOpsTranspose, TransposeViewSwapsElementsAndValidExtents) {
  const std::string text = kernelProgram(
      "a: pl.Tensor[[8, 16], pl.FP32],\n"
      "               out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]",
      "        x = pl.tile.load(a, [0, 0], [8, 16], valid_shape=[8, 12])\n"
      "        t = pl.tile.transpose_view(x)\n"
      "        o = pl.tile.store(t, [0, 0], out)\n"
      "        return o\n");
  const Program p = compileProgram(text);
  KernelArgs args = withOut({}, "out", DType::FP32, 16, 8);
  args.tensors["a"] = fp32Tensor(8, 16, aValue);
  const RunResult res = runProgram(p, args);
  ASSERT_EQ(res.status, RunStatus::Ok) << res.diagnostic.message;
  const Tensor& out = res.final.tensors.at("out");
  EXPECT_EQ(writtenPrefix(out), std::make_pair(int64_t{12}, int64_t{8}));
  for (int64_t r = 0; r < 12; ++r)
    for (int64_t c = 0; c < 8; ++c) EXPECT_EQ(f32At(out, r, c), aValue(c, r));
}

}  // namespace
}  // namespace ptodiff::testing
