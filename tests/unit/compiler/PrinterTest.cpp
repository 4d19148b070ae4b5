// Unit tests of the printer: exact canonical text for programs, op forms, types and expressions.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"

namespace ptodiff {
namespace {

/// Parses and prints; the canonical text of an input.
std::string canonical(const std::string& text) { return printProgram(parseProgramText(text)); }

std::string wrapBody(const std::string& body, const std::string& params = "x: pl.Scalar[pl.INDEX]") {
  return "@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.InCore)\n    def kernel(self, " + params +
         "):\n" + body;
}

std::string canonicalHeader() { return "# pypto.program: p\nimport pypto.language as pl\n\n"; }

TEST(PrinterTest, SpecTileExampleIsCanonical) {
  const std::string text = R"(# pypto.program: add_mul
import pypto.language as pl

@pl.program
class add_mul:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self,
               a: pl.Tensor[[16, 32], pl.FP32],
               b: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        lhs: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 32])
        rhs = pl.tile.load(b, [0, 0], [16, 32])
        total = pl.tile.add(lhs, rhs)
        prod = pl.tile.mul(total, rhs)
        result = pl.tile.store(prod, [0, 0], out)
        return result
)";
  EXPECT_EQ(canonical(text), text);
}

TEST(PrinterTest, NormalizesSpellingLayoutAndShortSignatures) {
  const std::string input = R"(@pl.program
class p:
    @pl.function(stage=pl.FunctionIRStage.Tile, type=pl.FunctionType.AIC)
    def f(self, n: pl.Scalar[pl.INT32],):   # a trailing comma and a comment
        t = pl.tile.full(value=1.5, shape=(16, 16), dtype=pl.FP32)
        return

    @pl.function(type=pl.FunctionType.AIV, stage=pl.FunctionIRStage.Buffer)
    def g(self) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.BOOL]]:
        return 1, True
)";
  const std::string expected = R"(# pypto.program: p
import pypto.language as pl

@pl.program
class p:
    @pl.function(type=pl.FunctionType.AIC)
    def f(self, n: pl.Scalar[pl.INT32]):
        t = pl.tile.full([16, 16], dtype=pl.FP32, value=1.5)
        return

    @pl.function(type=pl.FunctionType.AIV, stage=pl.FunctionIRStage.Buffer)
    def g(self) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.BOOL]]:
        return 1, True
)";
  EXPECT_EQ(canonical(input), expected);
}

TEST(PrinterTest, ControlFlowForms) {
  const std::string input = wrapBody(R"(        for i in pl.range(0, 8, 1):
            for j in pl.range(1, x):
                for k in pl.range(0, 8, 2):
                    pass
        for i, (a,) in pl.range(4, init_values=[x]):
            if i < 2:
                b = pl.yield_(a + i)
            else:
                b = pl.yield_(a)
            c = pl.yield_(b)
        for (u, v) in pl.while_(init_values=(c, 0)):
            pl.cond(u > 0)
            if v == 3:
                pl.yield_()
            u2, v2 = pl.yield_(u - 1, v + 1)
        return u2
)");
  const std::string expected = canonicalHeader() + wrapBody(R"(        for i in pl.range(8):
            for j in pl.range(1, x):
                for k in pl.range(0, 8, 2):
                    pass
        for i, (a,) in pl.range(4, init_values=(x,)):
            if i < 2:
                b = pl.yield_(a + i)
            else:
                b = pl.yield_(a)
            c = pl.yield_(b)
        for (u, v) in pl.while_(init_values=(c, 0)):
            pl.cond(u > 0)
            if v == 3:
                pl.yield_()
            u2, v2 = pl.yield_(u - 1, v + 1)
        return u2
)");
  EXPECT_EQ(canonical(input), expected);
}

TEST(PrinterTest, OpCanonicalForms) {
  const std::string input = wrapBody(R"(        a = pl.tile.load(t, [0, 0], [16, 32], [8, x], pl.Mem.Mat)
        b = pl.tile.create([16, 16], pl.FP16, pl.Mem.Left)
        c = pl.tile.move(a, pl.Mem.Right)
        d = pl.tile.extract(a, 0, 16, [16, 16], pl.Mem.Left)
        e = pl.tile.matmul_acc(acc, b, c, x == 0)
        f = pl.tile.slice(a, [8, 8], [0, 8], [4, 4])
        g: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, 8192)
        h = pl.tile.load(t, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        i = pl.tile.set_validshape(a, 8, x)
        j = pl.const(-2, pl.INT64)
        pl.buffer.load(t, [0, 0], [16, x], dst)
        k = pl.buffer.alloc(())
        l = pl.buffer.alloc((8, x), 0)
        m = pl.buffer.subview(k, [0, 16], [8, 8])
        pl.buffer.full(0.0, dst)
        n = pl.buffer.get_block_idx()
)", "t: pl.Tensor[[16, 32], pl.FP32]");
  const std::string expected = canonicalHeader() + wrapBody(R"(        a = pl.tile.load(t, [0, 0], [16, 32], valid_shape=[8, x], target_memory=pl.Mem.Mat)
        b = pl.tile.create([16, 16], dtype=pl.FP16, target_memory=pl.Mem.Left)
        c = pl.tile.move(a, target_memory=pl.Mem.Right)
        d = pl.tile.extract(a, 0, 16, [16, 16], target_memory=pl.Mem.Left)
        e = pl.tile.matmul_acc(acc, b, c, init_cond=x == 0)
        f = pl.tile.slice(a, [8, 8], [0, 8], valid_shape=[4, 4])
        g: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=8192)
        h = pl.tile.load(t, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        i = pl.tile.set_validshape(a, 8, x)
        j = pl.const(-2, pl.INT64)
        pl.buffer.load(t, [0, 0], [16, x], dst)
        k = pl.buffer.alloc(())
        l = pl.buffer.alloc((8, x), 0)
        m = pl.buffer.subview(k, [0, 16], [8, 8])
        pl.buffer.full(0.0, dst)
        n = pl.buffer.get_block_idx()
)", "t: pl.Tensor[[16, 32], pl.FP32]");
  EXPECT_EQ(canonical(input), expected);
}

TEST(PrinterTest, OmittedArgumentForcesKeywordsAfterIt) {
  // buffer.subview prints positionally, but an argument after an omitted slot must be named.
  std::vector<ExprPtr> args;
  args.push_back(Expr::nameRef("t"));
  args.push_back(Expr::list({}));
  args.push_back(Expr::list({}));
  args.push_back(nullptr);
  args.push_back(Expr::spaceRef(MemSpace::Mat));
  EXPECT_EQ(printExpr(*Expr::call(Opcode::TileLoad, std::move(args))),
            "pl.tile.load(t, [], [], target_memory=pl.Mem.Mat)");
  std::vector<ExprPtr> alloc;
  alloc.push_back(Expr::list({}));
  alloc.push_back(Expr::intLit(64));
  EXPECT_EQ(printExpr(*Expr::call(Opcode::BufAlloc, std::move(alloc))), "pl.buffer.alloc((), 64)");
}

// ---- types ----

TEST(PrinterTest, TileTypesPrintOnlyWhatDiffersFromTheImplicitView) {
  EXPECT_EQ(printType(Type::tile(16, 32, DType::FP32, MemSpace::Vec)), "pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec]");
  EXPECT_EQ(printType(Type::tile(16, 1, DType::FP32, MemSpace::Vec)), "pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec]");
  EXPECT_EQ(printType(Type::tile(16, 16, DType::FP32, MemSpace::Acc)), "pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc]");

  Type t = Type::tile(16, 32, DType::FP16, MemSpace::Left);
  t.valid = std::array<Extent, 2>{Extent::constant(8), Extent::named("n")};
  t.memref = MemRef{"mem_left_0", Extent::constant(512), 1024};
  t.layout.slayout = TileLayout::col_major;
  t.layout.fractal = 1024;
  EXPECT_EQ(printType(t),
            "pl.Tile[[16, 32], pl.FP16, pl.MemRef(mem_left_0, 512, 1024), pl.Mem.Left, "
            "pl.TileView(valid_shape=[8, n], slayout=pl.TileLayout.col_major, fractal=1024)]");

  Type full = Type::tile(16, 32, DType::FP32, MemSpace::Vec);
  full.valid = std::array<Extent, 2>{Extent::constant(16), Extent::constant(32)};
  EXPECT_EQ(printType(full), "pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec]");  // a full valid shape is not printed
}

TEST(PrinterTest, BufferTypesUseLayoutShorthands) {
  Type b = Type::buffer(16, 32, DType::FP32, MemSpace::Vec);
  EXPECT_EQ(printType(b), "pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec]");
  b.layout = *layoutShorthand("DN", 512);
  b.valid = std::array<Extent, 2>{Extent::dynamic(), Extent::constant(32)};
  EXPECT_EQ(printType(b), "pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.Layout.DN, pl.TileView(valid_shape=[-1, 32])]");

  Type noName = Type::buffer(16, 16, DType::FP32, MemSpace::Mat);
  noName.layout = Layout{TileLayout::col_major, TileLayout::col_major, 512};
  EXPECT_EQ(printType(noName), "pl.Buffer[[16, 16], pl.FP32, pl.Mem.Mat, pl.TileView(slayout=pl.TileLayout.col_major)]");

  Type acc = Type::buffer(16, 16, DType::FP32, MemSpace::Acc);
  acc.layout.fractal = 512;
  EXPECT_EQ(printType(acc), "pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc, pl.TileView(fractal=512)]");
  acc.layout = *layoutShorthand("ZZ", 1024);
  EXPECT_EQ(printType(acc), "pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc, pl.Layout.ZZ]");
}

TEST(PrinterTest, ScalarTensorAndPtrTypes) {
  EXPECT_EQ(printType(Type::scalar(DType::INDEX)), "pl.Scalar[pl.INDEX]");
  EXPECT_EQ(printType(Type::tensor({4, 8}, DType::BF16)), "pl.Tensor[[4, 8], pl.BF16]");
  EXPECT_EQ(printType(Type::ptr()), "pl.Ptr");
}

// ---- expressions ----

TEST(PrinterTest, ParenthesizesOnlyWherePrecedenceNeedsIt) {
  auto n = [](const char* s) { return Expr::nameRef(s); };
  auto bin = [](BinOp op, ExprPtr a, ExprPtr b) { return Expr::binary(op, std::move(a), std::move(b)); };
  EXPECT_EQ(printExpr(*bin(BinOp::Mul, bin(BinOp::Add, n("a"), n("b")), n("c"))), "(a + b) * c");
  EXPECT_EQ(printExpr(*bin(BinOp::Add, n("a"), bin(BinOp::Mul, n("b"), n("c")))), "a + b * c");
  EXPECT_EQ(printExpr(*bin(BinOp::Sub, bin(BinOp::Sub, n("a"), n("b")), n("c"))), "a - b - c");
  EXPECT_EQ(printExpr(*bin(BinOp::Sub, n("a"), bin(BinOp::Sub, n("b"), n("c")))), "a - (b - c)");
  EXPECT_EQ(printExpr(*Expr::unary(UnOp::Neg, bin(BinOp::Add, n("a"), n("b")))), "-(a + b)");
  EXPECT_EQ(printExpr(*Expr::unary(UnOp::Not, bin(BinOp::And, n("a"), n("b")))), "not (a and b)");
  EXPECT_EQ(printExpr(*bin(BinOp::Eq, bin(BinOp::Lt, n("a"), n("b")), n("c"))), "(a < b) == c");
  EXPECT_EQ(printExpr(*bin(BinOp::Lt, n("a"), Expr::unary(UnOp::Not, n("b")))), "a < (not b)");
  EXPECT_EQ(printExpr(*bin(BinOp::And, n("a"), bin(BinOp::Or, n("b"), n("c")))), "a and (b or c)");
  EXPECT_EQ(printExpr(*bin(BinOp::Or, bin(BinOp::And, n("a"), n("b")), n("c"))), "a and b or c");
  EXPECT_EQ(printExpr(*bin(BinOp::Sub, n("a"), Expr::unary(UnOp::Neg, Expr::intLit(2)))), "a - -2");
  EXPECT_EQ(printExpr(*bin(BinOp::FloorDiv, n("a"), bin(BinOp::Mod, n("b"), n("c")))), "a // (b % c)");
}

TEST(PrinterTest, FloatsAreShortestAndAlwaysReLexAsFloats) {
  EXPECT_EQ(printExpr(*Expr::floatLit(1.0)), "1.0");
  EXPECT_EQ(printExpr(*Expr::floatLit(0.1)), "0.1");
  EXPECT_EQ(printExpr(*Expr::floatLit(1e-5)), "1e-05");
  EXPECT_EQ(printExpr(*Expr::floatLit(1e16)), "1e+16");
  EXPECT_EQ(printExpr(*Expr::floatLit(123456.0)), "123456.0");
  EXPECT_EQ(printExpr(*Expr::floatLit(0.0)), "0.0");
  EXPECT_EQ(printExpr(*Expr::floatLit(std::numeric_limits<double>::infinity())), "1e999");
  EXPECT_THROW(printExpr(*Expr::floatLit(std::nan(""))), std::invalid_argument);
  // Every printed float reparses to the same bits.
  for (double v : {0.1, 1.0 / 3.0, 5e-324, 1.7976931348623157e308, 2.5e-10, 1e22, 3.0f * 1.0}) {
    ExprPtr back = parseProgramText(wrapBody("        v = " + printExpr(*Expr::floatLit(v)) + "\n"))
                       .functions[0].body[0]->as<AssignStmt>().value->clone();
    ASSERT_EQ(back->kind, Expr::Kind::FloatLit) << v;
    EXPECT_EQ(back->floatValue, v);
  }
}

TEST(PrinterTest, LongOpCallStatementsWrapInsideTheCall) {
  const std::string input = wrapBody(
      "        tile_with_a_long_name: pl.Tile[[16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(t, [0, 0], [16, 32], "
      "valid_shape=[8, x], target_memory=pl.Mem.Mat)\n"
      "        short = pl.tile.load(t, [0, 0], [16, 32], valid_shape=[8, x], target_memory=pl.Mem.Mat)\n",
      "t: pl.Tensor[[16, 32], pl.FP32]");
  const std::string expected = canonicalHeader() + wrapBody(R"(        tile_with_a_long_name: pl.Tile[[16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(
            t, [0, 0], [16, 32], valid_shape=[8, x], target_memory=pl.Mem.Mat
        )
        short = pl.tile.load(t, [0, 0], [16, 32], valid_shape=[8, x], target_memory=pl.Mem.Mat)
)", "t: pl.Tensor[[16, 32], pl.FP32]");
  EXPECT_EQ(canonical(input), expected);
  EXPECT_EQ(canonical(expected), expected);
}

TEST(PrinterTest, EmptyBodiesPrintPass) {
  Program p;
  p.name = "empty";
  EXPECT_EQ(printProgram(p), "# pypto.program: empty\nimport pypto.language as pl\n\n@pl.program\nclass empty:\n    pass\n");
  EXPECT_TRUE(structurallyEqual(parseProgramText(printProgram(p)), p));
}

}  // namespace
}  // namespace ptodiff
