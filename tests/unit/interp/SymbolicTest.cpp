// The symbolic element domain (interp/Symbolic.h): hash-consing, the node rules (operand order,
// poison absorbs, n-ary folds, byte reassembly), readable formulas, and symbolic runs of the Tile
// interpreter: the numbers of a symbolic run are the numeric run's, and each output element's
// formula is the one its program computes. Expected formulas are written by hand.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <array>
#include <bit>
#include <functional>
#include <set>
#include <vector>

#include "interp/Arith.h"
#include "interp/Symbolic.h"
#include "interp/TileInterpreter.h"
#include "tests/unit/interp/InterpTestSupport.h"

namespace ptodiff {
namespace {

using arith::BinaryKind;
using arith::ReduceKind;
using arith::UnaryKind;
using testing::compileProgram;
using testing::fp32Tensor;
using testing::kernelProgram;
using testing::runProgram;

TEST(ExprPool, EqualFormulasAreEqualIdsAndOperandOrderMatters) {
  ExprPool pool;
  const ExprId a = pool.input("a", DType::FP32, 3, 5), b = pool.input("b", DType::FP32, 3, 5);
  EXPECT_EQ(a, pool.input("a", DType::FP32, 3, 5));
  EXPECT_NE(a, pool.input("a", DType::FP32, 5, 3));
  EXPECT_NE(a, pool.input("a", DType::FP16, 3, 5));  // the dtype is part of the symbol
  const ExprId sum = pool.binary(BinaryKind::Add, DType::FP32, a, b);
  EXPECT_EQ(sum, pool.binary(BinaryKind::Add, DType::FP32, a, b));
  EXPECT_NE(sum, pool.binary(BinaryKind::Add, DType::FP32, b, a));  // no commuting: the lowering keeps order
  EXPECT_NE(sum, pool.binary(BinaryKind::Sub, DType::FP32, a, b));
  EXPECT_EQ(pool.constant(DType::FP32, 0x3F800000), pool.constant(DType::FP32, 0x3F800000));
  EXPECT_NE(pool.constant(DType::FP32, 0x3F800000), pool.constant(DType::INT32, 0x3F800000));
}

// inputs() makes a whole tensor's symbols as one block of ids outside the hash table; an input
// has one id whichever way, and in whichever order, it is asked for.
TEST(ExprPool, AnInputHasOneIdWhetherAskedForAloneOrWithItsTensor) {
  ExprPool pool;
  const std::vector<ExprId> a = pool.inputs("a", DType::FP32, 3, 4);  // a block
  EXPECT_EQ(a[static_cast<size_t>(2 * 4 + 1)], pool.input("a", DType::FP32, 2, 1));
  EXPECT_EQ(pool.text(a[static_cast<size_t>(2 * 4 + 1)]), "a[2, 1]");
  const ExprId outside = pool.input("a", DType::FP32, 5, 1);  // beyond the block: interned
  EXPECT_EQ(outside, pool.input("a", DType::FP32, 5, 1));
  EXPECT_EQ(pool.inputs("a", DType::FP32, 6, 4)[static_cast<size_t>(5 * 4 + 1)], outside);  // another shape
  EXPECT_EQ(pool.inputs("a", DType::FP32, 6, 4)[static_cast<size_t>(2 * 4 + 1)], a[static_cast<size_t>(2 * 4 + 1)]);
  EXPECT_NE(pool.inputs("a", DType::FP16, 3, 4)[0], a[0]);  // the dtype is part of the symbol

  const ExprId b01 = pool.input("b", DType::FP32, 0, 1);  // alone first: the tensor is then interned too
  const std::vector<ExprId> b = pool.inputs("b", DType::FP32, 2, 2);
  EXPECT_EQ(b[1], b01);
  EXPECT_EQ(b[3], pool.input("b", DType::FP32, 1, 1));
  std::set<ExprId> distinct(b.begin(), b.end());
  distinct.insert(a.begin(), a.end());
  EXPECT_EQ(distinct.size(), b.size() + a.size());
  // Formulas over block inputs are hash-consed like any other.
  const ExprId sum = pool.binary(BinaryKind::Add, DType::FP32, a[0], b[0]);
  EXPECT_EQ(sum, pool.binary(BinaryKind::Add, DType::FP32, pool.input("a", DType::FP32, 0, 0), b[0]));
  pool.clear();
  EXPECT_EQ(pool.inputs("a", DType::FP32, 3, 4), a);  // ids depend only on what the case interns
}

TEST(ExprPool, PoisonAbsorbsEveryOperation) {
  ExprPool pool;
  const ExprId a = pool.input("a", DType::FP32, 0, 0);
  const ExprId p = ExprPool::kPoison;
  EXPECT_EQ(pool.binary(BinaryKind::Mul, DType::FP32, a, p), p);
  EXPECT_EQ(pool.unary(UnaryKind::Exp, DType::FP32, p), p);
  EXPECT_EQ(pool.convert(DType::FP16, p), p);
  const std::array<ExprId, 2> row{a, p}, column{a, a};
  EXPECT_EQ(pool.vector(row), p);
  EXPECT_EQ(pool.dot(DType::FP32, pool.vector(column), p), p);
  const std::array<ExprId, 2> fold{a, p};
  EXPECT_EQ(pool.reduce(ReduceKind::Sum, DType::FP32, fold), p);
  EXPECT_EQ(pool.text(p), "poison");
}

// A dot is its two operand vectors: the same pairs give the same id however often they are built,
// and changing one pair, swapping the sides or the accumulator dtype gives another.
TEST(ExprPool, DotsAreEqualExactlyWhenTheirPairsAre) {
  ExprPool pool;
  const ExprId a = pool.input("a", DType::FP32, 0, 0), b = pool.input("b", DType::FP32, 0, 0);
  const ExprId c = pool.input("c", DType::FP32, 1, 0);
  const std::array<ExprId, 2> row{a, c}, column{b, a};  // pairs (a, b), (c, a)
  const ExprId d = pool.dot(DType::FP32, pool.vector(row), pool.vector(column));
  const std::array<ExprId, 2> rowAgain{a, c}, columnAgain{b, a};
  EXPECT_EQ(pool.dot(DType::FP32, pool.vector(rowAgain), pool.vector(columnAgain)), d);
  EXPECT_NE(pool.dot(DType::FP32, pool.vector(column), pool.vector(row)), d);
  const std::array<ExprId, 2> otherColumn{b, c};  // pairs (a, b), (c, c)
  EXPECT_NE(pool.dot(DType::FP32, pool.vector(row), pool.vector(otherColumn)), d);
  EXPECT_NE(pool.dot(DType::INT32, pool.vector(row), pool.vector(column)), d);
  const std::array<ExprId, 2> poisoned{a, ExprPool::kPoison};
  EXPECT_EQ(pool.dot(DType::FP32, pool.vector(row), pool.vector(poisoned)), ExprPool::kPoison);
}

// The symbolic matmul remembers its products per pool (interp/KernelMemo.h): a repeat gives the
// same ids, and after clear() equal operand ids name other formulas, so nothing stale comes back.
TEST(ExprPool, MatmulRepeatsGiveTheSameIdsAndClearForgetsTheProducts) {
  ExprPool pool;
  const auto product = [&](const std::array<ExprId, 2>& l, const std::array<ExprId, 2>& r) {
    const float zero[2] = {0, 0};
    float out[1] = {0};
    ExprId sym[1] = {ExprPool::kPoison};
    arith::matmulKernel(DType::FP32, {reinterpret_cast<const uint8_t*>(zero), 1, 2, 2, l.data()},
                        {reinterpret_cast<const uint8_t*>(zero), 2, 1, 1, r.data()},
                        {reinterpret_cast<uint8_t*>(out), 1, 1, 1, sym, &pool});
    return sym[0];
  };
  const ExprId a = pool.input("a", DType::FP32, 0, 0), b = pool.input("b", DType::FP32, 0, 0);
  const ExprId d = product({a, b}, {b, a});
  EXPECT_EQ(product({a, b}, {b, a}), d);
  EXPECT_EQ(pool.text(d), "dot(a[0, 0]*b[0, 0], b[0, 0]*a[0, 0])");
  EXPECT_NE(product({a, b}, {a, b}), d);
  pool.clear();
  // Interned the other way round, the same two ids now name b and a; one more node first moves the
  // product's fresh id away from the stale one.
  const ExprId b2 = pool.input("b", DType::FP32, 0, 0), a2 = pool.input("a", DType::FP32, 0, 0);
  ASSERT_EQ(b2, a);
  ASSERT_EQ(a2, b);
  pool.binary(BinaryKind::Add, DType::FP32, b2, a2);
  const ExprId fresh = product({a, b}, {b, a});
  EXPECT_NE(fresh, d);
  EXPECT_EQ(pool.text(fresh), "dot(b[0, 0]*a[0, 0], a[0, 0]*b[0, 0])");
}

// The symbolic elementwise kernels remember their results per pool (interp/KernelMemo.h). Law: a
// call gives what interning element by element gives, whether it repeats an earlier call or not.
// The calls draw their operands from three strided 2x3 arrays over a few formulas, so repeats of
// whole calls are common, and they vary every input of a result: the kernel, its op, the dtype,
// the scalar, the extents and each operand element. A pool clear() in the sequence renames the ids.
RC_GTEST_PROP(ExprPool, ElementwiseKernelsGiveWhatInterningGivesOnRepeatsToo, ()) {
  ExprPool pool;
  constexpr int64_t kStride = 4;  // rows of 3 ids in arrays of stride 4
  const auto freshArrays = [&] {
    std::vector<ExprId> base = {pool.input("a", DType::FP32, 0, 0), pool.input("b", DType::FP32, 0, 0),
                                pool.input("a", DType::FP32, 0, 1), ExprPool::kPoison};
    std::array<std::vector<ExprId>, 3> arrays;
    for (auto& a : arrays) a = *rc::gen::container<std::vector<ExprId>>(2 * kStride, rc::gen::elementOf(base));
    return arrays;
  };
  std::array<std::vector<ExprId>, 3> arrays = freshArrays();
  const float zeros[2 * kStride] = {};
  float out[2 * kStride] = {};
  const int calls = *rc::gen::inRange(1, 40);
  for (int call = 0; call < calls; ++call) {
    if (*rc::gen::inRange(0, 20) == 0) {
      pool.clear();
      arrays = freshArrays();
    }
    if (*rc::gen::inRange(0, 4) == 0) {  // one element of one operand changes
      auto& a = arrays[*rc::gen::inRange<size_t>(0, 3)];
      a[*rc::gen::inRange<size_t>(0, a.size())] = pool.input("c", DType::FP32, 0, *rc::gen::inRange(0, 3));
    }
    const int64_t rows = *rc::gen::inRange<int64_t>(1, 3), cols = *rc::gen::inRange<int64_t>(1, 4);
    const auto& l = arrays[*rc::gen::inRange<size_t>(0, 3)];
    const auto& r = arrays[*rc::gen::inRange<size_t>(0, 3)];
    const arith::ConstElems lhs{reinterpret_cast<const uint8_t*>(zeros), rows, cols, kStride, l.data()};
    const arith::ConstElems rhs{reinterpret_cast<const uint8_t*>(zeros), rows, cols, kStride, r.data()};
    std::vector<ExprId> got(2 * kStride, ExprPool::kPoison);
    const arith::MutElems dst{reinterpret_cast<uint8_t*>(out), rows, cols, kStride, got.data(), &pool};
    const DType dt = *rc::gen::element(DType::FP32, DType::FP16);
    const auto binaryKind = static_cast<BinaryKind>(*rc::gen::inRange(0, 7));
    const auto unaryKind = static_cast<UnaryKind>(*rc::gen::inRange(0, 7));
    const uint64_t scalarBits = *rc::gen::element<uint64_t>(0x3F800000u, 0x40000000u);
    std::function<ExprId(int64_t, int64_t)> expect;
    switch (*rc::gen::inRange(0, 4)) {
      case 0:
        symbolic::binary(binaryKind, dt, lhs, rhs, dst);
        expect = [&](int64_t i, int64_t j) { return pool.binary(binaryKind, dt, l[i * kStride + j], r[i * kStride + j]); };
        break;
      case 1:
        symbolic::binaryScalar(binaryKind, dt, lhs, scalarBits, dst);
        expect = [&](int64_t i, int64_t j) {
          return pool.binary(binaryKind, dt, l[i * kStride + j], pool.constant(dt, scalarBits));
        };
        break;
      case 2:
        symbolic::unary(unaryKind, dt, lhs, dst);
        expect = [&](int64_t i, int64_t j) { return pool.unary(unaryKind, dt, l[i * kStride + j]); };
        break;
      default:
        symbolic::convert(DType::FP32, dt, lhs, dst);
        expect = [&](int64_t i, int64_t j) { return pool.convert(dt, l[i * kStride + j]); };
        break;
    }
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < kStride; ++j) {
        const ExprId want = i < rows && j < cols ? expect(i, j) : ExprPool::kPoison;  // nothing outside
        RC_ASSERT(got[static_cast<size_t>(i * kStride + j)] == want);
      }
  }
}

TEST(ExprPool, FormulasPrintReadably) {
  ExprPool pool;
  const ExprId a = pool.input("a", DType::FP32, 3, 5), b = pool.input("b", DType::FP32, 3, 5);
  const ExprId e = pool.binary(BinaryKind::Mul, DType::FP32, pool.binary(BinaryKind::Add, DType::FP32, a, b), b);
  EXPECT_EQ(pool.text(e), "(a[3, 5] + b[3, 5]) * b[3, 5]");
  const ExprId m = pool.binary(BinaryKind::Max, DType::FP32, pool.unary(UnaryKind::Exp, DType::FP32, a),
                               pool.constant(DType::FP32, std::bit_cast<uint32_t>(0.5f)));
  EXPECT_EQ(pool.text(m), "maximum(exp(a[3, 5]), 0.5)");
  EXPECT_EQ(pool.text(pool.convert(DType::FP16, m)), "fp16(maximum(exp(a[3, 5]), 0.5))");
  const std::array<ExprId, 2> row{a, b}, column{b, a};
  EXPECT_EQ(pool.text(pool.dot(DType::FP32, pool.vector(row), pool.vector(column))),
            "dot(a[3, 5]*b[3, 5], b[3, 5]*a[3, 5])");
  const std::array<ExprId, 3> fold{a, b, a};
  EXPECT_EQ(pool.text(pool.reduce(ReduceKind::Max, DType::FP32, fold)), "max(a[3, 5], b[3, 5], a[3, 5])");
  // A long formula is cut, not rendered in full.
  ExprId chain = a;
  for (int i = 0; i < 200; ++i) chain = pool.binary(BinaryKind::Add, DType::FP32, chain, b);
  const std::string text = pool.text(chain, 60);
  EXPECT_EQ(text.size(), 63u);
  EXPECT_EQ(text.substr(60), "...");
}

TEST(ExprPool, FoldsOfOneElementAndSameDtypeConversionsAreTheElement) {
  ExprPool pool;
  const ExprId a = pool.input("a", DType::FP32, 0, 0);
  const std::array<ExprId, 1> one{a};
  EXPECT_EQ(pool.reduce(ReduceKind::Sum, DType::FP32, one), a);
  EXPECT_EQ(pool.convert(DType::FP32, a), a);
  EXPECT_NE(pool.convert(DType::BF16, a), a);
}

TEST(ExprPool, BytesInTheirOrderGiveTheirElementBackAndAnyOtherMixIsAReinterpretation) {
  ExprPool pool;
  const ExprId a = pool.input("a", DType::FP32, 0, 0), b = pool.input("b", DType::FP32, 0, 0);
  const std::array<ByteTag, 4> whole{byteTag(a, 0), byteTag(a, 1), byteTag(a, 2), byteTag(a, 3)};
  EXPECT_EQ(pool.fromBytes(DType::FP32, whole), a);
  const ExprId asInt = pool.fromBytes(DType::INT32, whole);  // same bytes, another dtype
  EXPECT_NE(asInt, a);
  EXPECT_EQ(pool.dtypeOf(asInt), DType::INT32);
  const std::array<ByteTag, 4> mixed{byteTag(a, 0), byteTag(a, 1), byteTag(b, 2), byteTag(b, 3)};
  const ExprId m = pool.fromBytes(DType::FP32, mixed);
  EXPECT_EQ(pool.text(m), "as_fp32(a[0, 0].byte0, a[0, 0].byte1, b[0, 0].byte2, b[0, 0].byte3)");
  const std::array<ByteTag, 4> swapped{byteTag(a, 1), byteTag(a, 0), byteTag(a, 2), byteTag(a, 3)};
  EXPECT_NE(pool.fromBytes(DType::FP32, swapped), a);
  // Through a UINT8 view and back: each byte read alone is a one-byte reinterpretation; written
  // back and read as FP32 again, the bytes are a's in order, so the formula is a's.
  std::array<ByteTag, 4> viaBytes{};
  for (int i = 0; i < 4; ++i) {
    const std::array<ByteTag, 1> one{byteTag(a, i)};
    viaBytes[static_cast<size_t>(i)] = byteTag(pool.fromBytes(DType::UINT8, one), 0);
  }
  EXPECT_EQ(pool.fromBytes(DType::FP32, viaBytes), a);
  const std::array<ByteTag, 4> poisoned{byteTag(a, 0), byteTag(ExprPool::kPoison, 0), byteTag(a, 2), byteTag(a, 3)};
  EXPECT_EQ(pool.fromBytes(DType::FP32, poisoned), ExprPool::kPoison);
}

// ---- symbolic runs of the Tile interpreter -------------------------------------------------------

constexpr const char* kSignature =
    "a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], "
    "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]";

KernelArgs args16x32() {
  KernelArgs args;
  args.tensors["a"] = fp32Tensor(16, 32, [](int64_t r, int64_t c) { return float(r) - float(c) / 8.0f; });
  args.tensors["b"] = fp32Tensor(16, 32, [](int64_t, int64_t c) { return float(c) * 0.25f + 1.0f; });
  args.tensors["out"] = Tensor(DType::FP32, 16, 32);
  return args;
}

TEST(SymbolicTileRun, NumbersEqualTheNumericRunAndEveryElementHasItsFormula) {
  const Program p = compileProgram(kernelProgram(kSignature,
                                                 "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                                 "        y = pl.tile.load(b, [0, 0], [16, 32])\n"
                                                 "        s = pl.tile.add(x, y)\n"
                                                 "        m = pl.tile.muls(s, 2.0)\n"
                                                 "        e = pl.tile.maximum(m, y)\n"
                                                 "        r = pl.tile.store(e, [0, 0], out)\n"
                                                 "        return r\n"));
  const RunResult numeric = runProgram(p, args16x32());
  ExprPool pool;
  RunConfig config;
  config.symbols = &pool;
  const RunResult symbolic = runProgram(p, args16x32(), config);
  ASSERT_EQ(numeric.status, RunStatus::Ok);
  ASSERT_EQ(symbolic.status, RunStatus::Ok);
  const Tensor& n = numeric.final.tensors.at("out");
  const Tensor& s = symbolic.final.tensors.at("out");
  EXPECT_EQ(n.bytes, s.bytes);
  EXPECT_EQ(n.poison, s.poison);
  EXPECT_TRUE(n.sym.empty());
  ASSERT_EQ(s.sym.size(), 512u);
  EXPECT_EQ(pool.text(s.sym[3 * 32 + 5]), "maximum((a[3, 5] + b[3, 5]) * 2, b[3, 5])");
  // Inputs keep their own symbols; an input nobody stores to is unchanged.
  EXPECT_EQ(pool.text(symbolic.final.tensors.at("a").sym[7]), "a[0, 7]");
}

TEST(SymbolicTileRun, ViewsMoveFormulasWithTheirElementsAndPartialTilesLeaveTheRestUnwritten) {
  // A transposed view of a window: out[r, c] of the stored 8 x 8 block is a[2 + c, 8 + r] + 1.
  const Program p = compileProgram(kernelProgram(kSignature,
                                                 "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                                 "        w = pl.tile.slice(x, [8, 8], [2, 8])\n"
                                                 "        t = pl.tile.transpose_view(w)\n"
                                                 "        s = pl.tile.adds(t, 1.0)\n"
                                                 "        r = pl.tile.store(s, [0, 0], out)\n"
                                                 "        return r\n"));
  ExprPool pool;
  RunConfig config;
  config.symbols = &pool;
  const RunResult run = runProgram(p, args16x32(), config);
  ASSERT_EQ(run.status, RunStatus::Ok) << run.diagnostic.message;
  const Tensor& out = run.final.tensors.at("out");
  EXPECT_EQ(pool.text(out.sym[2 * 32 + 5]), "a[7, 10] + 1");
  EXPECT_EQ(pool.text(out.sym[9 * 32 + 0]), "out[9, 0]");  // not written: the initial contents
}

TEST(SymbolicTileRun, ReductionsAndMatmulAreFoldsInTheirOrder) {
  const Program p = compileProgram(
      "import pypto.language as pl\n\n\n@pl.program\nclass t:\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def kernel(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],\n"
      "               out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        x = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        y = pl.tile.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "        l = pl.tile.move(x, target_memory=pl.Mem.Left)\n"
      "        r = pl.tile.move(y, target_memory=pl.Mem.Right)\n"
      "        c = pl.tile.matmul(l, r)\n"
      "        o = pl.tile.store(c, [0, 0], out)\n"
      "        return o\n");
  KernelArgs args;
  args.tensors["a"] = testing::bitsTensor(DType::FP16, 16, 16, [](int64_t, int64_t) { return 0x3C00; });
  args.tensors["b"] = testing::bitsTensor(DType::FP16, 16, 16, [](int64_t, int64_t) { return 0x3C00; });
  args.tensors["out"] = Tensor(DType::FP32, 16, 16);
  ExprPool pool;
  RunConfig config;
  config.symbols = &pool;
  const RunResult run = runProgram(p, args, config);
  ASSERT_EQ(run.status, RunStatus::Ok) << run.diagnostic.message;
  const std::string text = pool.text(run.final.tensors.at("out").sym[1 * 16 + 2], 1000);
  EXPECT_EQ(text.rfind("dot(a[1, 0]*b[0, 2], a[1, 1]*b[1, 2], a[1, 2]*b[2, 2], ", 0), 0u) << text;
  EXPECT_NE(text.find("a[1, 15]*b[15, 2])"), std::string::npos) << text;
}

}  // namespace
}  // namespace ptodiff
