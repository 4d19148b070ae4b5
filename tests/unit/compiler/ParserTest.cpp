// Unit tests of the program text parser: each syntax form, argument binding and type parts.
// Error messages are covered by the diagnostic goldens (tests/golden/parse-errors); the few error
// tests here pin down locations (line and column) precisely.
#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

#include "compiler/text/Parser.h"

namespace ptodiff {

static void PrintTo(const SourceLoc& loc, std::ostream* os) { *os << loc.line << ":" << loc.col; }

namespace {

constexpr const char* kSpecTileExample = R"(# pypto.program: add_mul
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

constexpr const char* kSpecBufferExample = R"(@pl.program
class buf:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 0)
        b_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 2048)
        r_buf: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.alloc((), 4096)
        pl.buffer.load(a, [0, 0], [16, 32], a_buf)
        pl.buffer.load(b, [0, 0], [16, 32], b_buf)
        pl.buffer.add(a_buf, b_buf, r_buf)
        pl.buffer.store(r_buf, [0, 0], [16, 32], out)
        return out
)";

/// Wraps statements (indented by 8 spaces) into a one-function program.
std::string program(const std::string& body, const std::string& params = "x: pl.Scalar[pl.INDEX]") {
  return "@pl.program\nclass p:\n    @pl.function(type=pl.FunctionType.InCore)\n    def kernel(self, " + params +
         "):\n" + body;
}

const Function& onlyFunction(const Program& p) {
  EXPECT_EQ(p.functions.size(), 1u);
  return p.functions.at(0);
}

const Expr& assignedValue(const Function& f, size_t i) {
  return *f.body.at(i)->as<AssignStmt>().value;
}

/// Parses `x = EXPR` in a fresh program and returns EXPR.
ExprPtr parseExprText(const std::string& text) {
  Program p = parseProgramText(program("        v = " + text + "\n"));
  return p.functions.at(0).body.at(0)->as<AssignStmt>().value->clone();
}

Diagnostic parseError(const std::string& text) {
  try {
    parseProgramText(text, "t.py");
  } catch (const DiagnosticError& e) {
    return e.diagnostic();
  }
  ADD_FAILURE() << "expected a parse error";
  return {};
}

// ---- the spec's examples ----

TEST(ParserTest, SpecTileExample) {
  Program p = parseProgramText(kSpecTileExample, "add_mul.py");
  EXPECT_EQ(p.name, "add_mul");
  ASSERT_NE(p.source, nullptr);
  EXPECT_EQ(p.source->name, "add_mul.py");
  const Function& f = onlyFunction(p);
  EXPECT_EQ(f.name, "kernel");
  EXPECT_EQ(f.type, FunctionType::InCore);
  EXPECT_EQ(f.stage, FunctionStage::Tile);
  ASSERT_EQ(f.params.size(), 3u);
  EXPECT_EQ(f.params[0].name, "a");
  EXPECT_EQ(f.params[0].direction, ParamDirection::In);
  EXPECT_EQ(f.params[0].type, Type::tensor({16, 32}, DType::FP32));
  EXPECT_EQ(f.params[2].name, "out");
  EXPECT_EQ(f.params[2].direction, ParamDirection::Out);
  EXPECT_EQ(f.params[2].loc, (SourceLoc{10, 16}));
  ASSERT_EQ(f.results.size(), 1u);
  EXPECT_EQ(f.results[0], Type::tensor({16, 32}, DType::FP32));

  ASSERT_EQ(f.body.size(), 6u);
  const auto& lhs = f.body[0]->as<AssignStmt>();
  EXPECT_EQ(lhs.target.name, "lhs");
  ASSERT_TRUE(lhs.target.annotation.has_value());
  EXPECT_EQ(*lhs.target.annotation, Type::tile(16, 32, DType::FP32, MemSpace::Vec));
  EXPECT_EQ(lhs.loc, (SourceLoc{11, 9}));
  const Expr& load = *lhs.value;
  EXPECT_EQ(load.kind, Expr::Kind::Call);
  EXPECT_EQ(load.op, Opcode::TileLoad);
  EXPECT_EQ(load.loc, (SourceLoc{11, 55}));
  ASSERT_EQ(load.args.size(), 5u);  // one slot per registry parameter
  EXPECT_EQ(load.arg("tensor")->name, "a");
  EXPECT_EQ(load.arg("offsets")->kind, Expr::Kind::List);
  EXPECT_EQ(load.arg("shapes")->args.at(1)->intValue, 32);
  EXPECT_EQ(load.arg("valid_shape"), nullptr);
  EXPECT_EQ(load.arg("target_memory"), nullptr);
  EXPECT_FALSE(f.body[1]->as<AssignStmt>().target.annotation.has_value());
  EXPECT_EQ(assignedValue(f, 2).op, Opcode::TileAdd);
  EXPECT_EQ(assignedValue(f, 4).op, Opcode::TileStore);
  ASSERT_EQ(f.body[5]->kind, Stmt::Kind::Return);
  EXPECT_EQ(f.body[5]->as<ReturnStmt>().values.at(0)->name, "result");
}

TEST(ParserTest, SpecBufferExample) {
  Program p = parseProgramText(kSpecBufferExample);
  const Function& f = onlyFunction(p);
  EXPECT_EQ(f.stage, FunctionStage::Buffer);
  ASSERT_EQ(f.body.size(), 8u);
  const auto& alloc = f.body[1]->as<AssignStmt>();
  EXPECT_EQ(*alloc.target.annotation, Type::buffer(16, 32, DType::FP32, MemSpace::Vec));
  EXPECT_EQ(alloc.value->op, Opcode::BufAlloc);
  EXPECT_TRUE(alloc.value->arg("valid_shape")->args.empty());
  EXPECT_EQ(alloc.value->arg("addr")->intValue, 2048);
  ASSERT_EQ(f.body[3]->kind, Stmt::Kind::Eval);
  const Expr& load = *f.body[3]->as<EvalStmt>().expr;
  EXPECT_EQ(load.op, Opcode::BufLoad);
  EXPECT_EQ(load.arg("dst")->name, "a_buf");
  EXPECT_EQ(f.body[5]->as<EvalStmt>().expr->op, Opcode::BufAdd);
}

TEST(ParserTest, HeaderCommentAndImportAreOptional) {
  std::string withHeader = kSpecTileExample;
  std::string bare = withHeader.substr(withHeader.find("@pl.program"));
  EXPECT_TRUE(structurallyEqual(parseProgramText(withHeader), parseProgramText(bare)));
}

TEST(ParserTest, CommentsBlankLinesAndBracketContinuation) {
  Program p = parseProgramText(program(R"(
        # a comment line

        t = pl.tile.load(a,   # trailing comment inside brackets
                         [0,
           0],  # odd indentation is fine inside brackets
                         [16, 32])

        return t  # done
)", "a: pl.Tensor[[16, 32], pl.FP32]"));
  const Function& f = onlyFunction(p);
  ASSERT_EQ(f.body.size(), 2u);
  EXPECT_EQ(f.body[0]->as<AssignStmt>().value->op, Opcode::TileLoad);
  EXPECT_EQ(f.body[1]->loc, (SourceLoc{13, 9}));
}

TEST(ParserTest, SeveralFunctionsAndResultTuple) {
  Program p = parseProgramText(R"(@pl.program
class two:
    @pl.function(type=pl.FunctionType.AIV)
    def first(self, n: pl.Scalar[pl.INT32], io: pl.InOut[pl.Tensor[[8, 8], pl.FP16]]) -> tuple[pl.Scalar[pl.INT32], pl.Tensor[[8, 8], pl.FP16]]:
        return n, io

    @pl.function(type=pl.FunctionType.Orchestration)
    def second(self):
        pass
)");
  ASSERT_EQ(p.functions.size(), 2u);
  const Function& f = p.functions[0];
  EXPECT_EQ(f.type, FunctionType::AIV);
  EXPECT_EQ(f.params[0].type, Type::scalar(DType::INT32));
  EXPECT_EQ(f.params[1].direction, ParamDirection::InOut);
  ASSERT_EQ(f.results.size(), 2u);
  EXPECT_EQ(f.results[1], Type::tensor({8, 8}, DType::FP16));
  EXPECT_EQ(f.body[0]->as<ReturnStmt>().values.size(), 2u);
  EXPECT_EQ(p.functions[1].type, FunctionType::Orchestration);
  EXPECT_TRUE(p.functions[1].body.empty());
  EXPECT_TRUE(p.functions[1].results.empty());
}

// ---- statements ----

TEST(ParserTest, RangeArities) {
  Program p = parseProgramText(program(R"(        for i in pl.range(8):
            pass
        for j in pl.range(2, 8):
            pass
        for k in pl.range(x, 8, 2):
            pass
)"));
  const Function& f = onlyFunction(p);
  const auto& one = f.body[0]->as<ForStmt>();
  EXPECT_EQ(one.inductionVar.name, "i");
  EXPECT_EQ(one.start->intValue, 0);
  EXPECT_EQ(one.stop->intValue, 8);
  EXPECT_EQ(one.step->intValue, 1);
  EXPECT_EQ(one.start->kind, Expr::Kind::IntLit);
  const auto& two = f.body[1]->as<ForStmt>();
  EXPECT_EQ(two.start->intValue, 2);
  EXPECT_EQ(two.stop->intValue, 8);
  EXPECT_EQ(two.step->intValue, 1);
  const auto& three = f.body[2]->as<ForStmt>();
  EXPECT_EQ(three.start->name, "x");
  EXPECT_EQ(three.step->intValue, 2);
  EXPECT_TRUE(three.body.empty());
}

TEST(ParserTest, RangeWithCarriesAndYield) {
  Program p = parseProgramText(program(R"(        for i, (acc, n) in pl.range(0, 4, 1, init_values=(x, 0)):
            acc2 = acc + i
            acc3, n2 = pl.yield_(acc2, n + 1)
        return acc3
)"));
  const auto& loop = onlyFunction(p).body[0]->as<ForStmt>();
  ASSERT_EQ(loop.iterArgs.size(), 2u);
  EXPECT_EQ(loop.iterArgs[1].name, "n");
  EXPECT_EQ(loop.iterArgs[1].loc, (SourceLoc{5, 22}));
  ASSERT_EQ(loop.inits.size(), 2u);
  EXPECT_EQ(loop.inits[0]->name, "x");
  ASSERT_EQ(loop.body.size(), 2u);
  const YieldStmt* y = trailingYield(loop.body);
  ASSERT_NE(y, nullptr);
  ASSERT_EQ(y->targets.size(), 2u);
  EXPECT_EQ(y->targets[0].name, "acc3");
  EXPECT_EQ(y->values[1]->kind, Expr::Kind::Binary);
  EXPECT_EQ(resultsOf(loop).size(), 2u);
}

TEST(ParserTest, SingleCarryTuple) {
  Program p = parseProgramText(program(R"(        for i, (c,) in pl.range(3, init_values=[x]):
            c2: pl.Scalar[pl.INDEX] = pl.yield_(c)
)"));
  const auto& loop = onlyFunction(p).body[0]->as<ForStmt>();
  ASSERT_EQ(loop.iterArgs.size(), 1u);
  ASSERT_EQ(loop.inits.size(), 1u);
  const YieldStmt* y = trailingYield(loop.body);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->targets[0].annotation, Type::scalar(DType::INDEX));
}

TEST(ParserTest, IfElseWithYields) {
  Program p = parseProgramText(program(R"(        if x < 4:
            r = pl.yield_(1)
        else:
            r = pl.yield_(2)
        if x == 0:
            pl.yield_()
)"));
  const Function& f = onlyFunction(p);
  const auto& s = f.body[0]->as<IfStmt>();
  EXPECT_EQ(s.cond->binop, BinOp::Lt);
  EXPECT_EQ(s.thenBody.size(), 1u);
  EXPECT_EQ(s.elseBody.size(), 1u);
  EXPECT_EQ(trailingYield(s.elseBody)->values[0]->intValue, 2);
  const auto& noElse = f.body[1]->as<IfStmt>();
  EXPECT_TRUE(noElse.elseBody.empty());
  EXPECT_TRUE(trailingYield(noElse.thenBody)->targets.empty());
  EXPECT_TRUE(trailingYield(noElse.thenBody)->values.empty());
}

TEST(ParserTest, WhileKeepsCondApartFromBody) {
  Program p = parseProgramText(program(R"(        for (c, d) in pl.while_(init_values=(x, 1)):
            pl.cond(c < 10 and d > 0)
            c2, d2 = pl.yield_(c + d, d)
)"));
  const auto& w = onlyFunction(p).body[0]->as<WhileStmt>();
  ASSERT_EQ(w.iterArgs.size(), 2u);
  EXPECT_EQ(w.inits.size(), 2u);
  EXPECT_EQ(w.cond->binop, BinOp::And);
  EXPECT_EQ(w.condLoc, (SourceLoc{6, 13}));
  ASSERT_EQ(w.body.size(), 1u);
  EXPECT_EQ(w.body[0]->kind, Stmt::Kind::Yield);
}

TEST(ParserTest, NestedIfInFor) {
  Program p = parseProgramText(program(R"(        for i in pl.range(4):
            if i % 2 == 0:
                if i > 1:
                    pass
)"));
  const auto& loop = onlyFunction(p).body[0]->as<ForStmt>();
  const auto& outer = loop.body.at(0)->as<IfStmt>();
  EXPECT_EQ(outer.thenBody.at(0)->kind, Stmt::Kind::If);
  EXPECT_EQ(outer.thenBody.at(0)->loc, (SourceLoc{7, 17}));
}

// ---- expressions ----

TEST(ParserTest, Precedence) {
  ExprPtr e = parseExprText("1 + 2 * 3 - 4");
  ASSERT_EQ(e->binop, BinOp::Sub);
  EXPECT_EQ(e->args[0]->binop, BinOp::Add);
  EXPECT_EQ(e->args[0]->args[1]->binop, BinOp::Mul);
  ExprPtr g = parseExprText("not x < 2 or x >= 3 and True");
  ASSERT_EQ(g->binop, BinOp::Or);
  EXPECT_EQ(g->args[0]->kind, Expr::Kind::Unary);
  EXPECT_EQ(g->args[0]->unop, UnOp::Not);
  EXPECT_EQ(g->args[0]->args[0]->binop, BinOp::Lt);
  EXPECT_EQ(g->args[1]->binop, BinOp::And);
  ExprPtr h = parseExprText("(x + 1) // 2 % 3");
  ASSERT_EQ(h->binop, BinOp::Mod);
  EXPECT_EQ(h->args[0]->binop, BinOp::FloorDiv);
  EXPECT_EQ(h->args[0]->args[0]->binop, BinOp::Add);
}

TEST(ParserTest, NegativeLiteralIsUnaryNeg) {
  ExprPtr e = parseExprText("-2");
  ASSERT_EQ(e->kind, Expr::Kind::Unary);
  EXPECT_EQ(e->unop, UnOp::Neg);
  EXPECT_EQ(e->args[0]->kind, Expr::Kind::IntLit);
  EXPECT_EQ(e->args[0]->intValue, 2);
  ExprPtr m = parseExprText("-x * 3");
  EXPECT_EQ(m->binop, BinOp::Mul);  // unary minus binds tighter than '*', as in Python
  EXPECT_EQ(m->args[0]->unop, UnOp::Neg);
}

TEST(ParserTest, Literals) {
  EXPECT_EQ(parseExprText("1.0")->floatValue, 1.0);
  EXPECT_EQ(parseExprText("1e-3")->floatValue, 1e-3);
  EXPECT_EQ(parseExprText("2.")->floatValue, 2.0);
  EXPECT_EQ(parseExprText(".5")->floatValue, 0.5);
  EXPECT_EQ(parseExprText("2.5E+2")->floatValue, 250.0);
  EXPECT_TRUE(std::isinf(parseExprText("1e999")->floatValue));
  EXPECT_EQ(parseExprText("1e-3")->kind, Expr::Kind::FloatLit);
  EXPECT_EQ(parseExprText("9223372036854775807")->intValue, INT64_MAX);
  EXPECT_EQ(parseExprText("True")->boolValue, true);
  EXPECT_EQ(parseExprText("False")->kind, Expr::Kind::BoolLit);
}

TEST(ParserTest, ConstAndBlockQueries) {
  ExprPtr c = parseExprText("pl.const(-3, pl.INT32)");
  ASSERT_EQ(c->op, Opcode::Const);
  EXPECT_EQ(c->arg("value")->unop, UnOp::Neg);
  EXPECT_EQ(c->arg("dtype")->dtype, DType::INT32);
  ExprPtr q = parseExprText("pl.tile.get_block_idx() + 1");
  EXPECT_EQ(q->args[0]->op, Opcode::TileGetBlockIdx);
  EXPECT_TRUE(q->args[0]->args.empty());
}

// ---- argument binding ----

TEST(ParserTest, KeywordAndPositionalBindToTheSameSlots) {
  ExprPtr keywords = parseExprText(
      "pl.tile.load(a, shapes=(16, 32), target_memory=pl.MemorySpace.Mat, offsets=[0, 0], valid_shape=(8, x))");
  Program a = parseProgramText(program("        v = pl.tile.load(a, [0, 0], [16, 32], [8, x], pl.Mem.Mat)\n"));
  Program b = parseProgramText(program(
      "        v = pl.tile.load(a, shapes=(16, 32), target_memory=pl.MemorySpace.Mat, offsets=[0, 0], valid_shape=(8, x))\n"));
  EXPECT_TRUE(structurallyEqual(a, b)) << firstDifference(a, b);
  EXPECT_EQ(keywords->arg("target_memory")->space, MemSpace::Mat);
  EXPECT_EQ(keywords->arg("valid_shape")->args.at(1)->name, "x");
}

TEST(ParserTest, NoneOmitsAnOptionalArgument) {
  ExprPtr e = parseExprText("pl.tile.load(a, [0, 0], [16, 32], None, target_memory=pl.Mem.Vec)");
  EXPECT_EQ(e->arg("valid_shape"), nullptr);
  EXPECT_EQ(e->arg("target_memory")->space, MemSpace::Vec);
  ExprPtr m = parseExprText("pl.tile.matmul_acc(c, l, r, init_cond=None)");
  EXPECT_EQ(m->arg("init_cond"), nullptr);
}

TEST(ParserTest, ArgumentErrorsNameTheOpAndItsParameters) {
  Diagnostic d = parseError(program("        v = pl.tile.add(a, b, c)\n"));
  EXPECT_EQ(d.message, "pl.tile.add takes 2 arguments, found 3; expected pl.tile.add(lhs, rhs)");
  EXPECT_EQ(d.loc, (SourceLoc{5, 31}));
  Diagnostic k = parseError(program("        v = pl.tile.load(a, [0, 0], [16, 32], space=pl.Mem.Vec)\n"));
  EXPECT_EQ(k.message,
            "unknown keyword argument 'space' of pl.tile.load; expected one of: tensor, offsets, shapes, "
            "valid_shape, target_memory");
  EXPECT_EQ(k.loc, (SourceLoc{5, 47}));
  Diagnostic m = parseError(program("        v = pl.tile.load(a, [0, 0])\n"));
  EXPECT_EQ(m.message,
            "missing argument 'shapes' of pl.tile.load; expected pl.tile.load(tensor, offsets, shapes, "
            "valid_shape=None, target_memory=None)");
  EXPECT_EQ(m.loc, (SourceLoc{5, 13}));
}

// ---- types ----

TEST(ParserTest, TilePartsInAnyOrder) {
  auto parseAnnotation = [](const std::string& type) {
    Program p = parseProgramText(program("        t: " + type + " = x\n"));
    return *p.functions.at(0).body.at(0)->as<AssignStmt>().target.annotation;
  };
  Type a = parseAnnotation(
      "pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 256, 2048), pl.Mem.Vec, pl.TileView(valid_shape=[8, n])]");
  Type b = parseAnnotation(
      "pl.Tile[[16, 32], pl.FP32, pl.TileView(valid_shape=[8, n]), pl.MemorySpace.Vec, pl.MemRef(mem_vec_0, 256, 2048)]");
  EXPECT_EQ(a, b);
  ASSERT_TRUE(a.memref.has_value());
  EXPECT_EQ(a.memref->base, "mem_vec_0");
  EXPECT_EQ(a.memref->offset, Extent::constant(256));
  EXPECT_EQ(a.memref->size, 2048);
  ASSERT_TRUE(a.valid.has_value());
  EXPECT_EQ((*a.valid)[0], Extent::constant(8));
  EXPECT_EQ((*a.valid)[1], Extent::named("n"));
  EXPECT_EQ(a.layout, implicitLayout(MemSpace::Vec, 16, 32));
}

TEST(ParserTest, TileViewFieldsOverrideTheImplicitView) {
  Program p = parseProgramText(program(R"(        t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Left, pl.TileView(valid_shape=[16, 16], slayout=pl.TileLayout.col_major)] = x
        u: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = x
        w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc, pl.TileView(fractal=512, blayout=pl.TileLayout.row_major, pad=pl.PadValue.null)] = x
)"));
  const Function& f = onlyFunction(p);
  const Type& t = *f.body[0]->as<AssignStmt>().target.annotation;
  EXPECT_FALSE(t.valid.has_value());  // a full valid_shape is canonicalized away
  EXPECT_EQ(t.layout.blayout, TileLayout::col_major);  // Left's implicit NZ blayout kept
  EXPECT_EQ(t.layout.slayout, TileLayout::col_major);
  const Type& u = *f.body[1]->as<AssignStmt>().target.annotation;
  EXPECT_EQ(u.layout.blayout, TileLayout::col_major);  // a [M, 1] Vec column is col-major
  const Type& w = *f.body[2]->as<AssignStmt>().target.annotation;
  EXPECT_EQ(w.layout, (Layout{TileLayout::row_major, TileLayout::row_major, 512}));
}

TEST(ParserTest, BufferLayoutShorthandAndDynamicValid) {
  Program p = parseProgramText(program(R"(        b: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.Layout.DN, pl.TileView(valid_shape=[-1, -1])] = x
        c: pl.Buffer[[16, 16], pl.FP32, pl.Mem.Acc] = x
        d: pl.Buffer[[16, 16], pl.FP32, pl.TileView(fractal=512), pl.Layout.ZZ, pl.Mem.Mat] = x
)"));
  const Function& f = onlyFunction(p);
  const Type& b = *f.body[0]->as<AssignStmt>().target.annotation;
  EXPECT_EQ(b.kind, Type::Kind::Buffer);
  EXPECT_EQ(b.layout, (Layout{TileLayout::col_major, TileLayout::none_box, 512}));
  ASSERT_TRUE(b.valid.has_value());
  EXPECT_EQ((*b.valid)[0], Extent::dynamic());
  const Type& c = *f.body[1]->as<AssignStmt>().target.annotation;
  EXPECT_EQ(c.layout, (Layout{TileLayout::col_major, TileLayout::row_major, 1024}));
  const Type& d = *f.body[2]->as<AssignStmt>().target.annotation;
  EXPECT_EQ(d.layout, (Layout{TileLayout::row_major, TileLayout::row_major, 512}));
  EXPECT_EQ(d.space, MemSpace::Mat);
}

TEST(ParserTest, ScalarPtrAndTensorAnnotations) {
  Program p = parseProgramText(program(R"(        s: pl.Scalar[pl.BOOL] = True
        r: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048, addr=0)
        t: pl.Tensor[[4, 4], pl.INT64] = x
)"));
  const Function& f = onlyFunction(p);
  EXPECT_EQ(*f.body[0]->as<AssignStmt>().target.annotation, Type::scalar(DType::BOOL));
  EXPECT_EQ(*f.body[1]->as<AssignStmt>().target.annotation, Type::ptr());
  EXPECT_EQ(f.body[1]->as<AssignStmt>().value->arg("addr")->intValue, 0);
  EXPECT_EQ(*f.body[2]->as<AssignStmt>().target.annotation, Type::tensor({4, 4}, DType::INT64));
}

// ---- error locations ----

TEST(ParserTest, ErrorsCarryFileLineAndColumn) {
  Diagnostic d = parseError(program("        for i in pl.range(4)\n            pass\n"));
  EXPECT_EQ(d.file, "t.py");
  EXPECT_EQ(d.message, "expected ':' after the for header, found NEWLINE");
  EXPECT_EQ(d.loc, (SourceLoc{5, 29}));
  Diagnostic e = parseError(program("        v = x $ 2\n"));
  EXPECT_EQ(e.message, "unexpected character '$'");
  EXPECT_EQ(e.loc, (SourceLoc{5, 15}));
}

TEST(ParserTest, HostileNestingIsAnErrorNotACrash) {
  Diagnostic parens = parseError(program("        v = " + std::string(100000, '(') + "1" + std::string(100000, ')') + "\n"));
  EXPECT_EQ(parens.message, "nested too deeply (more than 200 levels)");
  EXPECT_EQ(parens.loc.line, 5u);
  Diagnostic minus = parseError(program("        v = " + std::string(100000, '-') + "1\n"));
  EXPECT_EQ(minus.message, "nested too deeply (more than 200 levels)");
  Diagnostic nots = parseError(program("        v = " + [] {
    std::string s;
    for (int i = 0; i < 100000; ++i) s += "not ";
    return s;
  }() + "x\n"));
  EXPECT_EQ(nots.message, "nested too deeply (more than 200 levels)");
}

TEST(ParserTest, UnreadableFileIsADiagnostic) {
  try {
    parseProgramFile("/nonexistent/dir/prog.py");
    FAIL() << "expected an error";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().file, "/nonexistent/dir/prog.py");
    EXPECT_NE(e.diagnostic().message.find("cannot open"), std::string::npos);
  }
}

}  // namespace
}  // namespace ptodiff
