// Unit tests of the verifier's positive side: the types it infers for each op family, the valid
// extents it computes (slice clamping, assemble's union, reshape's flat prefix, transpose swap),
// the slots and types it fills, and that every program under tests/programs/ verifies. Error
// messages are pinned by the goldens in tests/golden/verify-errors; the few error tests here cover
// what goldens cannot: collection order, notes, cascades, verifyOrThrow and IR the parser never
// produces.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"

namespace ptodiff {
namespace {

std::string formatAll(const std::vector<Diagnostic>& diags, const Program& p) {
  std::string out;
  for (const Diagnostic& d : diags) out += formatDiagnostic(d, p.source.get());
  return out;
}

/// A one-kernel Tile program with `body` (statements indented by 8 spaces).
std::string kernel(const std::string& params, const std::string& body, const std::string& results = "",
                   const std::string& stage = "") {
  return "@pl.program\nclass t:\n    @pl.function(type=pl.FunctionType.InCore" + stage + ")\n    def kernel(self, " +
         params + ")" + (results.empty() ? "" : " -> " + results) + ":\n" + body;
}

Program verified(const std::string& text) {
  Program p = parseProgramText(text, "test.py");
  std::vector<Diagnostic> diags = verifyProgram(p);
  EXPECT_TRUE(diags.empty()) << formatAll(diags, p) << "in:\n" << text;
  return p;
}

std::vector<Diagnostic> diagnosticsOf(const std::string& text) {
  Program p = parseProgramText(text, "test.py");
  return verifyProgram(p);
}

/// Calls `visit` on every binder of `block`, recursively, in source order.
void forEachBinder(Block& block, const std::function<void(Binder&)>& visit) {
  for (StmtPtr& s : block) {
    switch (s->kind) {
      case Stmt::Kind::Assign: visit(s->as<AssignStmt>().target); break;
      case Stmt::Kind::Yield:
        for (Binder& b : s->as<YieldStmt>().targets) visit(b);
        break;
      case Stmt::Kind::For: {
        auto& f = s->as<ForStmt>();
        visit(f.inductionVar);
        for (Binder& b : f.iterArgs) visit(b);
        forEachBinder(f.body, visit);
        break;
      }
      case Stmt::Kind::If:
        forEachBinder(s->as<IfStmt>().thenBody, visit);
        forEachBinder(s->as<IfStmt>().elseBody, visit);
        break;
      case Stmt::Kind::While: {
        auto& w = s->as<WhileStmt>();
        for (Binder& b : w.iterArgs) visit(b);
        forEachBinder(w.body, visit);
        break;
      }
      default: break;
    }
  }
}

void forEachExpr(Expr& e, const std::function<void(Expr&)>& visit) {
  visit(e);
  for (ExprPtr& a : e.args)
    if (a) forEachExpr(*a, visit);
}

/// Calls `visit` on every expression of `block` (top-level and nested), recursively.
void forEachExpr(Block& block, const std::function<void(Expr&)>& visit) {
  auto all = [&](std::vector<ExprPtr>& v) {
    for (ExprPtr& e : v)
      if (e) forEachExpr(*e, visit);
  };
  for (StmtPtr& s : block) {
    switch (s->kind) {
      case Stmt::Kind::Assign: forEachExpr(*s->as<AssignStmt>().value, visit); break;
      case Stmt::Kind::Eval: forEachExpr(*s->as<EvalStmt>().expr, visit); break;
      case Stmt::Kind::Return: all(s->as<ReturnStmt>().values); break;
      case Stmt::Kind::Yield: all(s->as<YieldStmt>().values); break;
      case Stmt::Kind::For: {
        auto& f = s->as<ForStmt>();
        forEachExpr(*f.start, visit);
        forEachExpr(*f.stop, visit);
        forEachExpr(*f.step, visit);
        all(f.inits);
        forEachExpr(f.body, visit);
        break;
      }
      case Stmt::Kind::If:
        forEachExpr(*s->as<IfStmt>().cond, visit);
        forEachExpr(s->as<IfStmt>().thenBody, visit);
        forEachExpr(s->as<IfStmt>().elseBody, visit);
        break;
      case Stmt::Kind::While: {
        auto& w = s->as<WhileStmt>();
        all(w.inits);
        forEachExpr(*w.cond, visit);
        forEachExpr(w.body, visit);
        break;
      }
    }
  }
}

/// The type the verifier gave the (first) binder named `name` in the program's only function.
Type typeOf(Program& p, const std::string& name) {
  std::optional<Type> found;
  forEachBinder(p.functions.at(0).body, [&](Binder& b) {
    if (!found && b.name == name) found = b.type;
  });
  EXPECT_TRUE(found.has_value()) << "no binder named " << name;
  return found.value_or(Type::none());
}

Type tileWithValid(int64_t r, int64_t c, DType dt, MemSpace s, Extent vr, Extent vc) {
  Type t = Type::tile(r, c, dt, s);
  t.valid = std::array<Extent, 2>{std::move(vr), std::move(vc)};
  t.canonicalizeValid();
  return t;
}

Extent K(int64_t v) { return Extent::constant(v); }

constexpr const char* kParams16x32 =
    "a: pl.Tensor[[16, 32], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]";

// ---- inferred types per op family ----

TEST(VerifierTypes, LoadTakesTensorDTypeAndValidExtents) {
  Program p = verified(kernel(kParams16x32,
                              "        full = pl.tile.load(a, [0, 0], [16, 32])\n"
                              "        lit = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[12, 24])\n"
                              "        sym = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[n, 32])\n"
                              "        dyn = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[n + 1, 32])\n"
                              "        mat = pl.tile.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"));
  EXPECT_EQ(typeOf(p, "full"), Type::tile(16, 32, DType::FP32, MemSpace::Vec));
  EXPECT_EQ(typeOf(p, "lit"), tileWithValid(16, 32, DType::FP32, MemSpace::Vec, K(12), K(24)));
  EXPECT_EQ(typeOf(p, "sym"), tileWithValid(16, 32, DType::FP32, MemSpace::Vec, Extent::named("n"), K(32)));
  EXPECT_EQ(typeOf(p, "dyn"), tileWithValid(16, 32, DType::FP32, MemSpace::Vec, Extent::dynamic(), K(32)));
  Type mat = typeOf(p, "mat");
  EXPECT_EQ(mat.space, MemSpace::Mat);
  EXPECT_EQ(mat.layout, (Layout{TileLayout::col_major, TileLayout::row_major, 512}));  // NZ
}

TEST(VerifierTypes, StoreReturnsTheOutputTensorAndChains) {
  Program p = verified(kernel(kParams16x32,
                              "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                              "        r1 = pl.tile.store(x, [0, 0], out)\n"
                              "        r2 = pl.tile.store(x, [0, 0], r1)\n"
                              "        return r2\n",
                              "pl.Tensor[[16, 32], pl.FP32]"));
  EXPECT_EQ(typeOf(p, "r2"), Type::tensor({16, 32}, DType::FP32));
}

TEST(VerifierTypes, ElementwiseResultsKeepLhsValid) {
  Program p = verified(kernel(kParams16x32,
                              "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[8, 32])\n"
                              "        y = pl.tile.load(a, [0, 0], [16, 32])\n"
                              "        s = pl.tile.add(x, y)\n"
                              "        t = pl.tile.sub(y, x)\n"
                              "        u = pl.tile.exp(x)\n"
                              "        v = pl.tile.adds(x, 2.0)\n"
                              "        w = pl.tile.lrelu(x, 0.1)\n"));
  Type partial = tileWithValid(16, 32, DType::FP32, MemSpace::Vec, K(8), K(32));
  EXPECT_EQ(typeOf(p, "s"), partial);
  EXPECT_EQ(typeOf(p, "t"), Type::tile(16, 32, DType::FP32, MemSpace::Vec));
  EXPECT_EQ(typeOf(p, "u"), partial);
  EXPECT_EQ(typeOf(p, "v"), partial);
  EXPECT_EQ(typeOf(p, "w"), partial);
}

TEST(VerifierTypes, FullAndCreate) {
  Program p = verified(kernel(kParams16x32,
                              "        f = pl.tile.full([16, 16], dtype=pl.FP16, value=1.0)\n"
                              "        c = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
                              "        v = pl.tile.create([8, 8], dtype=pl.INT32)\n"));
  EXPECT_EQ(typeOf(p, "f"), Type::tile(16, 16, DType::FP16, MemSpace::Vec));
  Type acc = typeOf(p, "c");
  EXPECT_EQ(acc, Type::tile(16, 16, DType::FP32, MemSpace::Acc));
  EXPECT_EQ(acc.layout.fractal, 1024);
  EXPECT_EQ(typeOf(p, "v"), Type::tile(8, 8, DType::INT32, MemSpace::Vec));
}

TEST(VerifierTypes, SliceClampsValidToTheSource) {
  Program p = verified(kernel(kParams16x32,
                              "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[12, 32])\n"
                              "        low = pl.tile.slice(x, [8, 32], [8, 0])\n"
                              "        high = pl.tile.slice(x, [4, 32], [12, 0])\n"
                              "        right = pl.tile.slice(x, [8, 16], [0, 16])\n"
                              "        asked = pl.tile.slice(x, [8, 16], [0, 0], valid_shape=[4, 8])\n"
                              "        capped = pl.tile.slice(x, [8, 32], [8, 0], valid_shape=[6, 32])\n"
                              "        s = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[n, 32])\n"
                              "        whole_rows = pl.tile.slice(s, [16, 16], [0, 0])\n"
                              "        moved = pl.tile.slice(s, [8, 16], [n, 0])\n"
                              "        f = pl.tile.load(a, [0, 0], [16, 32])\n"
                              "        runtime = pl.tile.slice(f, [8, 16], [n, 8], valid_shape=[n, 8])\n"));
  EXPECT_EQ(typeOf(p, "low"), tileWithValid(8, 32, DType::FP32, MemSpace::Vec, K(4), K(32)));   // 12 - 8
  EXPECT_EQ(typeOf(p, "high"), tileWithValid(4, 32, DType::FP32, MemSpace::Vec, K(0), K(32)));  // clamp at 0
  EXPECT_EQ(typeOf(p, "right"), tileWithValid(8, 16, DType::FP32, MemSpace::Vec, K(8), K(16)));
  EXPECT_EQ(typeOf(p, "asked"), tileWithValid(8, 16, DType::FP32, MemSpace::Vec, K(4), K(8)));
  EXPECT_EQ(typeOf(p, "capped"), tileWithValid(8, 32, DType::FP32, MemSpace::Vec, K(4), K(32)));  // min(6, 4)
  EXPECT_EQ(typeOf(p, "whole_rows").validExtent(0), Extent::named("n"));
  EXPECT_EQ(typeOf(p, "whole_rows").validExtent(1), K(16));
  EXPECT_EQ(typeOf(p, "moved").validExtent(0), Extent::dynamic());
  // A fully valid source: the window is inside it, so a requested runtime extent carries over.
  EXPECT_EQ(typeOf(p, "runtime").validExtent(0), Extent::named("n"));
  EXPECT_EQ(typeOf(p, "runtime").validExtent(1), K(8));
}

TEST(VerifierTypes, SliceIsAViewKeepingTheSourceLayout) {
  Program p = verified(kernel(kParams16x32,
                              "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                              "        col = pl.tile.slice(x, [16, 1], [0, 3])\n"));
  Type col = typeOf(p, "col");
  EXPECT_EQ(col.shape, (Shape{16, 1}));
  // Inherits the row-major parent (not the col-major implicit view of a [16, 1] tile), and the
  // 4-byte window row is exempt from the pitch rule: its pitch is the parent's 128 bytes.
  EXPECT_EQ(col.layout.blayout, TileLayout::row_major);
}

TEST(VerifierTypes, AssembleComputesTheWriteUnion) {
  Program p = verified(kernel(kParams16x32,
                              "        top = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[8, 32])\n"
                              "        band = pl.tile.load(a, [0, 0], [8, 32])\n"
                              "        rows = pl.tile.assemble(top, band, [8, 0])\n"
                              "        left = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[16, 8])\n"
                              "        strip = pl.tile.load(a, [0, 0], [16, 8])\n"
                              "        cols = pl.tile.assemble(left, strip, [0, 8])\n"
                              "        empty = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[0, 0])\n"
                              "        first = pl.tile.assemble(empty, band, [0, 0])\n"
                              "        small = pl.tile.load(a, [0, 0], [8, 8])\n"
                              "        inside = pl.tile.assemble(top, small, [0, 8])\n"
                              "        full = pl.tile.load(a, [0, 0], [16, 32])\n"
                              "        stays = pl.tile.assemble(full, band, [n, 0])\n"));
  EXPECT_EQ(typeOf(p, "rows"), Type::tile(16, 32, DType::FP32, MemSpace::Vec));
  EXPECT_EQ(typeOf(p, "cols"), tileWithValid(16, 32, DType::FP32, MemSpace::Vec, K(16), K(16)));
  EXPECT_EQ(typeOf(p, "first"), tileWithValid(16, 32, DType::FP32, MemSpace::Vec, K(8), K(32)));
  EXPECT_EQ(typeOf(p, "inside"), tileWithValid(16, 32, DType::FP32, MemSpace::Vec, K(8), K(32)));
  EXPECT_EQ(typeOf(p, "stays"), Type::tile(16, 32, DType::FP32, MemSpace::Vec));
}

TEST(VerifierTypes, ReshapeFollowsTheFlatPrefixRule) {
  Program p = verified(kernel(kParams16x32,
                              "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[4, 32])\n"
                              "        wide = pl.tile.reshape(x, [8, 64])\n"
                              "        narrow = pl.tile.reshape(x, [64, 8])\n"
                              "        z = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[1, 24])\n"
                              "        short = pl.tile.reshape(z, [8, 64])\n"
                              "        r = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[n, 32])\n"
                              "        same = pl.tile.reshape(r, [16, 32])\n"
                              "        f = pl.tile.load(a, [0, 0], [16, 32])\n"
                              "        column = pl.tile.reshape(f, [512, 1])\n"));
  EXPECT_EQ(typeOf(p, "wide"), tileWithValid(8, 64, DType::FP32, MemSpace::Vec, K(2), K(64)));
  EXPECT_EQ(typeOf(p, "narrow"), tileWithValid(64, 8, DType::FP32, MemSpace::Vec, K(16), K(8)));
  EXPECT_EQ(typeOf(p, "short"), tileWithValid(8, 64, DType::FP32, MemSpace::Vec, K(1), K(24)));
  EXPECT_EQ(typeOf(p, "same").validExtent(0), Extent::named("n"));
  Type column = typeOf(p, "column");
  EXPECT_EQ(column, Type::tile(512, 1, DType::FP32, MemSpace::Vec));
  EXPECT_EQ(column.layout.blayout, TileLayout::col_major);  // a fresh [R, 1] view is col-major
}

TEST(VerifierTypes, TransposeViewSwapsShapeValidAndLayout) {
  Program p =
      verified(kernel(kParams16x32,
                      "        m = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[12, 24], target_memory=pl.Mem.Mat)\n"
                      "        mt = pl.tile.transpose_view(m)\n"
                      "        v = pl.tile.load(a, [0, 0], [8, 16])\n"
                      "        vt = pl.tile.transpose_view(v)\n"));
  Type mt = typeOf(p, "mt");
  EXPECT_EQ(mt.shape, (Shape{32, 16}));
  EXPECT_EQ(mt.validExtent(0), K(24));
  EXPECT_EQ(mt.validExtent(1), K(12));
  EXPECT_EQ(mt.layout, (Layout{TileLayout::row_major, TileLayout::col_major, 512}));  // NZ -> ZN
  Type vt = typeOf(p, "vt");
  EXPECT_EQ(vt.shape, (Shape{16, 8}));
  EXPECT_EQ(vt.layout, (Layout{TileLayout::col_major, TileLayout::none_box, 512}));  // ND -> DN
}

TEST(VerifierTypes, MoveUsesTheDestinationsImplicitLayoutAndKeepsValid) {
  Program p =
      verified(kernel("a: pl.Tensor[[32, 32], pl.FP16]",
                      "        m = pl.tile.load(a, [0, 0], [32, 32], valid_shape=[20, 32], target_memory=pl.Mem.Mat)\n"
                      "        l = pl.tile.move(m, target_memory=pl.Mem.Left)\n"
                      "        r = pl.tile.move(m, target_memory=pl.Mem.Right)\n"
                      "        v = pl.tile.load(a, [0, 0], [32, 32])\n"
                      "        vm = pl.tile.move(v, target_memory=pl.Mem.Mat)\n"
                      "        vv = pl.tile.move(v, target_memory=pl.Mem.Vec)\n"));
  EXPECT_EQ(typeOf(p, "l"), tileWithValid(32, 32, DType::FP16, MemSpace::Left, K(20), K(32)));
  Type r = typeOf(p, "r");
  EXPECT_EQ(r.layout, (Layout{TileLayout::row_major, TileLayout::col_major, 512}));  // ZN
  EXPECT_EQ(r.validExtent(0), K(20));
  EXPECT_EQ(typeOf(p, "vm"), Type::tile(32, 32, DType::FP16, MemSpace::Mat));
  EXPECT_EQ(typeOf(p, "vv"), Type::tile(32, 32, DType::FP16, MemSpace::Vec));
}

TEST(VerifierTypes, ExtractUsesTheWindowRule) {
  Program p =
      verified(kernel("a: pl.Tensor[[32, 32], pl.FP16]",
                      "        m = pl.tile.load(a, [0, 0], [32, 32], valid_shape=[20, 24], target_memory=pl.Mem.Mat)\n"
                      "        l0 = pl.tile.extract(m, 0, 0, [16, 16], target_memory=pl.Mem.Left)\n"
                      "        l1 = pl.tile.extract(m, 16, 16, [16, 16], target_memory=pl.Mem.Left)\n"));
  EXPECT_EQ(typeOf(p, "l0"), Type::tile(16, 16, DType::FP16, MemSpace::Left));
  EXPECT_EQ(typeOf(p, "l1"), tileWithValid(16, 16, DType::FP16, MemSpace::Left, K(4), K(8)));
}

TEST(VerifierTypes, MatmulProducesAnAccumulator) {
  Program p =
      verified(kernel("a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], "
                      "i: pl.Tensor[[16, 32], pl.INT8], j: pl.Tensor[[32, 32], pl.INT8], flag: pl.Scalar[pl.BOOL]",
                      "        am = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[12, 24], target_memory=pl.Mem.Mat)\n"
                      "        bm = pl.tile.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat)\n"
                      "        l = pl.tile.move(am, target_memory=pl.Mem.Left)\n"
                      "        r = pl.tile.move(bm, target_memory=pl.Mem.Right)\n"
                      "        c = pl.tile.matmul(l, r)\n"
                      "        d = pl.tile.matmul_acc(c, l, r, init_cond=flag)\n"
                      "        im = pl.tile.load(i, [0, 0], [16, 32], target_memory=pl.Mem.Mat)\n"
                      "        jm = pl.tile.load(j, [0, 0], [32, 32], target_memory=pl.Mem.Mat)\n"
                      "        il = pl.tile.move(im, target_memory=pl.Mem.Left)\n"
                      "        jr = pl.tile.move(jm, target_memory=pl.Mem.Right)\n"
                      "        e = pl.tile.matmul(il, jr)\n"));
  Type c = tileWithValid(16, 16, DType::FP32, MemSpace::Acc, K(12), K(16));
  EXPECT_EQ(typeOf(p, "c"), c);
  EXPECT_EQ(typeOf(p, "d"), c);
  EXPECT_EQ(typeOf(p, "e"), Type::tile(16, 32, DType::INT32, MemSpace::Acc));
}

TEST(VerifierTypes, Reductions) {
  Program p = verified(kernel(kParams16x32,
                              "        x = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[12, 20])\n"
                              "        rs = pl.tile.row_max(x, x)\n"
                              "        cs = pl.tile.col_sum(x)\n"));
  Type rs = typeOf(p, "rs");
  EXPECT_EQ(rs, tileWithValid(16, 1, DType::FP32, MemSpace::Vec, K(12), K(1)));
  EXPECT_EQ(rs.layout.blayout, TileLayout::col_major);
  EXPECT_EQ(typeOf(p, "cs"), tileWithValid(1, 32, DType::FP32, MemSpace::Vec, K(1), K(20)));
}

TEST(VerifierTypes, SetValidShapeNamesItsExtents) {
  Program p = verified(kernel(kParams16x32,
                              "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                              "        y = pl.tile.set_validshape(x, n, 16)\n"
                              "        z = pl.tile.set_validshape(y, 16, 32)\n"));
  EXPECT_EQ(typeOf(p, "y"), tileWithValid(16, 32, DType::FP32, MemSpace::Vec, Extent::named("n"), K(16)));
  EXPECT_EQ(typeOf(p, "z"), Type::tile(16, 32, DType::FP32, MemSpace::Vec));  // canonical: full
}

TEST(VerifierTypes, ScalarExpressions) {
  Program p = verified(kernel("n: pl.Scalar[pl.INDEX], k: pl.Scalar[pl.INT32], f: pl.Scalar[pl.FP32]",
                              "        i = n * 2 + 1\n"
                              "        j = k + pl.const(1, pl.INT32)\n"
                              "        g = f * 2.0\n"
                              "        h = pl.const(3, pl.FP32)\n"
                              "        c = (n < 4) and not (k == pl.const(0, pl.INT32))\n"
                              "        q = n // 3 - n % 3\n"
                              "        b = pl.tile.get_block_idx() + pl.tile.get_block_num()\n"));
  EXPECT_EQ(typeOf(p, "i"), Type::scalar(DType::INDEX));
  EXPECT_EQ(typeOf(p, "j"), Type::scalar(DType::INT32));
  EXPECT_EQ(typeOf(p, "g"), Type::scalar(DType::FP32));
  EXPECT_EQ(typeOf(p, "h"), Type::scalar(DType::FP32));
  EXPECT_EQ(typeOf(p, "c"), Type::scalar(DType::BOOL));
  EXPECT_EQ(typeOf(p, "q"), Type::scalar(DType::INDEX));
  EXPECT_EQ(typeOf(p, "b"), Type::scalar(DType::INDEX));
}

// ---- annotations ----

TEST(VerifierAnnotations, NamedExtentAcceptsAnInferredDynamicOne) {
  Program p = verified(kernel(kParams16x32,
                              "        x: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 32])] = "
                              "pl.tile.load(a, [0, 0], [16, 32], valid_shape=[n + 0, 32])\n"));
  // The binder takes the annotation: the name is more precise than "dynamic".
  EXPECT_EQ(typeOf(p, "x").validExtent(0), Extent::named("n"));
}

TEST(VerifierAnnotations, DynamicDoesNotAcceptAConstant) {
  auto diags =
      diagnosticsOf(kernel(kParams16x32,
                           "        x: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 32])] = "
                           "pl.tile.load(a, [0, 0], [16, 32], valid_shape=[n + 0, 32])\n"));
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_NE(diags[0].message.find("annotation of 'x'"), std::string::npos) << diags[0].message;
}

TEST(VerifierAnnotations, MemRefIsTakenFromTheAnnotation) {
  Program p = verified(kernel(kParams16x32,
                              "        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=8192)\n"
                              "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 8192, 2048), pl.Mem.Vec] = "
                              "pl.tile.load(a, [0, 0], [16, 32])\n"
                              "        y: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 10240, 2048), pl.Mem.Vec] = "
                              "pl.tile.exp(x)\n"));
  EXPECT_EQ(typeOf(p, "mem_vec_0").kind, Type::Kind::Ptr);
  Type y = typeOf(p, "y");
  ASSERT_TRUE(y.memref.has_value());
  EXPECT_EQ(y.memref->base, "mem_vec_0");
  EXPECT_EQ(y.memref->offset, K(10240));
  EXPECT_EQ(y.memref->size, 2048);
}

TEST(VerifierAnnotations, MemRefRootMustBeInTheTilesSpace) {
  auto diags = diagnosticsOf(kernel(kParams16x32,
                                    "        mem_mat: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 4096)\n"
                                    "        x: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_mat, 0, 2048), pl.Mem.Vec] = "
                                    "pl.tile.load(a, [0, 0], [16, 32])\n"));
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].message,
            "annotation of 'x': MemRef base 'mem_mat' is a Mat root but the tile is in Vec; expected a root of the "
            "tile's memory space");
}

// ---- filled slots and types ----

TEST(VerifierFill, SlotsAreDistinctPerBinderAndSharedByIfResults) {
  Program p =
      verified(kernel("a: pl.Tensor[[16, 32], pl.FP32], flag: pl.Scalar[pl.BOOL], "
                      "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]",
                      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                      "        for i, (acc,) in pl.range(0, 4, 1, init_values=(x,)):\n"
                      "            if flag:\n"
                      "                t = pl.tile.exp(acc)\n"
                      "                r = pl.yield_(t)\n"
                      "            else:\n"
                      "                t = pl.tile.neg(acc)\n"
                      "                r = pl.yield_(t)\n"
                      "            nxt = pl.yield_(r)\n"
                      "        o = pl.tile.store(nxt, [0, 0], out)\n"
                      "        return o\n",
                      "pl.Tensor[[16, 32], pl.FP32]"));
  Function& f = p.functions.at(0);
  std::map<std::string, std::set<int>> slotsByName;
  std::set<int> all;
  for (const Param& prm : f.params) {
    EXPECT_GE(prm.slot, 0);
    all.insert(prm.slot);
    slotsByName[prm.name].insert(prm.slot);
  }
  int binders = 0;
  forEachBinder(f.body, [&](Binder& b) {
    ++binders;
    EXPECT_GE(b.slot, 0) << b.name;
    EXPECT_LT(b.slot, f.numSlots) << b.name;
    EXPECT_NE(b.type.kind, Type::Kind::None) << b.name;
    slotsByName[b.name].insert(b.slot);
    all.insert(b.slot);
  });
  // The if's result `r` is one value bound in both arms: one slot. The two `t`s are different
  // values in sibling arms and get their own slots.
  EXPECT_EQ(slotsByName["r"].size(), 1u);
  EXPECT_EQ(slotsByName["t"].size(), 2u);
  EXPECT_EQ(static_cast<int>(all.size()), f.numSlots);
  EXPECT_EQ(f.numSlots, static_cast<int>(f.params.size()) + binders - 1);  // minus the shared `r`

  // Every name refers to the slot of the binding in scope at that point.
  forEachExpr(f.body, [&](Expr& e) {
    if (e.kind != Expr::Kind::Name) return;
    ASSERT_EQ(slotsByName.count(e.name), 1u) << e.name;
    EXPECT_TRUE(slotsByName[e.name].count(e.slot)) << e.name << " has slot " << e.slot;
  });
}

TEST(VerifierFill, EveryValueExpressionGetsItsType) {
  Program p = verified(kernel(kParams16x32,
                              "        x = pl.tile.load(a, [0, n * 0], [16, 32])\n"
                              "        y = pl.tile.muls(x, 2.0)\n"
                              "        r = pl.tile.store(y, [0, 0], out)\n"
                              "        return r\n",
                              "pl.Tensor[[16, 32], pl.FP32]"));
  int checked = 0;
  forEachExpr(p.functions.at(0).body, [&](Expr& e) {
    bool valueLess = e.kind == Expr::Kind::List || e.kind == Expr::Kind::DTypeRef || e.kind == Expr::Kind::SpaceRef;
    if (valueLess) {
      EXPECT_EQ(e.type.kind, Type::Kind::None);
      return;
    }
    ++checked;
    EXPECT_NE(e.type.kind, Type::Kind::None) << "expression kind " << static_cast<int>(e.kind);
  });
  EXPECT_GE(checked, 12);
}

// ---- Buffer stage ----

constexpr const char* kBufferViews = R"(@pl.program
class buf_views:
    @pl.function(type=pl.FunctionType.InCore, stage=pl.FunctionIRStage.Buffer)
    def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], cols: pl.Scalar[pl.INDEX], flag: pl.Scalar[pl.BOOL],
               out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        root: pl.Buffer[[128, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.alloc((), 8192)
        window: pl.Buffer[[64, 32], pl.UINT8, pl.Mem.Vec] = pl.buffer.subview(root, [2, 0])
        value: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec] = pl.buffer.reshape(window)
        loaded: pl.Buffer[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc(())
        doubled: pl.Buffer[[16, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[-1, -1])] = pl.buffer.alloc(())
        pl.buffer.set_validshape(loaded, [16, cols])
        pl.buffer.load(x, [0, 0], [16, cols], loaded)
        pl.buffer.set_validshape(doubled, [16, cols])
        pl.buffer.add(loaded, loaded, doubled)
        part: pl.Buffer[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, -1])] = pl.buffer.subview(doubled, [0, 0], [16, cols])
        if flag:
            pl.buffer.muls(value, 2.0, value)
            off = pl.yield_(16)
        else:
            pl.buffer.copy(part, value)
            off = pl.yield_(0)
        for i, (row,) in pl.range(0, 2, 1, init_values=(0,)):
            pl.buffer.store(value, [row, off], [16, 32], out)
            row2 = pl.yield_(row + 8)
        a_mat: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Mat] = pl.buffer.alloc((), 0)
        a_l0: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Left] = pl.buffer.alloc((), 0)
        b_l0: pl.Buffer[[64, 64], pl.FP16, pl.Mem.Right] = pl.buffer.alloc((), 0)
        acc: pl.Buffer[[64, 64], pl.FP32, pl.Mem.Acc] = pl.buffer.alloc((), 0)
        pl.buffer.copy(a_mat, a_l0)
        pl.buffer.copy(a_mat, b_l0)
        pl.buffer.matmul(a_l0, b_l0, acc)
        pl.buffer.matmul_acc(a_l0, b_l0, acc)
        pl.buffer.full(1.0, value)
        return out
)";

TEST(VerifierBuffer, ViewsDynamicValidScalarControlFlowAndCube) {
  Program p = verified(kBufferViews);
  Type value = typeOf(p, "value");
  EXPECT_EQ(value, Type::buffer(16, 32, DType::FP32, MemSpace::Vec));
  EXPECT_EQ(typeOf(p, "root"), Type::buffer(128, 32, DType::UINT8, MemSpace::Vec));
  EXPECT_EQ(typeOf(p, "loaded").validExtent(1), Extent::dynamic());
  EXPECT_EQ(typeOf(p, "off"), Type::scalar(DType::INDEX));
  EXPECT_EQ(typeOf(p, "row2"), Type::scalar(DType::INDEX));
}

// ---- whole programs ----

TEST(VerifierPrograms, EveryProgramUnderTestsProgramsVerifies) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(PTODIFF_TESTS_DIR) / "programs";
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  int programs = 0;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".py") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().find("@pl.program") == std::string::npos) continue;  // helper scripts
    ++programs;
    SCOPED_TRACE(entry.path().string());
    Program p = parseProgramFile(entry.path().string());
    std::vector<Diagnostic> diags = verifyProgram(p);
    EXPECT_TRUE(diags.empty()) << formatAll(diags, p);
    std::vector<int> slots;
    for (const Function& f : p.functions) {
      EXPECT_GT(f.numSlots, 0) << f.name;
      slots.push_back(f.numSlots);
    }
    // Verifying again (as after every pass) finds nothing new and fills the same frame sizes.
    EXPECT_TRUE(verifyProgram(p).empty());
    for (size_t i = 0; i < p.functions.size(); ++i) EXPECT_EQ(p.functions[i].numSlots, slots[i]);
  }
  EXPECT_GT(programs, 0);
}

// ---- collecting errors ----

TEST(VerifierErrors, CollectsEveryErrorInSourceOrder) {
  auto diags = diagnosticsOf(kernel(kParams16x32,
                                    "        x = pl.tile.load(a, [0, 0], [16, 4])\n"
                                    "        y = n + pl.const(1, pl.INT32)\n"
                                    "        z = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[17, 32])\n"));
  ASSERT_EQ(diags.size(), 3u);
  EXPECT_EQ(diags[0].loc.line, 5u);  // the body starts on line 5
  EXPECT_EQ(diags[1].loc.line, 6u);
  EXPECT_EQ(diags[2].loc.line, 7u);
  for (const Diagnostic& d : diags) EXPECT_EQ(d.file, "test.py");
}

TEST(VerifierErrors, AnUnknownValueDoesNotCascade) {
  // `missing` is reported once; x, y and the store depend on it and stay silent.
  auto diags = diagnosticsOf(kernel(kParams16x32,
                                    "        x = pl.tile.exp(missing)\n"
                                    "        y = pl.tile.add(x, missing)\n"
                                    "        r = pl.tile.store(y, [0, 0], out)\n"));
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].message, "undefined name 'missing'; expected a parameter or a value bound earlier");
}

TEST(VerifierErrors, EarlyUseHasANotePointingAtTheDefinition) {
  auto diags = diagnosticsOf(kernel(kParams16x32,
                                    "        y = pl.tile.exp(x)\n"
                                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"));
  ASSERT_EQ(diags.size(), 1u);
  ASSERT_EQ(diags[0].notes.size(), 1u);
  EXPECT_EQ(diags[0].notes[0].severity, Severity::Note);
  EXPECT_EQ(diags[0].notes[0].message, "'x' is defined here");
  EXPECT_EQ(diags[0].notes[0].loc, (SourceLoc{6, 9}));
}

TEST(VerifierErrors, AUseAfterItsRegionEndedHasANotePointingAtTheLatestBinding) {
  // `inner` is bound in two loop bodies that have both ended: the note names the second.
  auto diags = diagnosticsOf(kernel(kParams16x32,
                                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                    "        for i in pl.range(0, 4, 1):\n"
                                    "            inner = pl.tile.exp(x)\n"
                                    "        for j in pl.range(0, 4, 1):\n"
                                    "            inner = pl.tile.exp(x)\n"
                                    "        r = pl.tile.store(inner, [0, 0], out)\n"));
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].message,
            "'inner' is not in scope here; expected a value bound in this region or an enclosing one");
  ASSERT_EQ(diags[0].notes.size(), 1u);
  EXPECT_EQ(diags[0].notes[0].message, "'inner' is bound here, in a region that has ended");
  EXPECT_EQ(diags[0].notes[0].loc, (SourceLoc{9, 13}));  // not the first binding, 7:13
}

TEST(VerifierErrors, VerifyOrThrowCarriesTheRestAsNotes) {
  Program p = parseProgramText(kernel(kParams16x32,
                                      "        x = pl.tile.load(a, [0, 0], [16, 4])\n"
                                      "        y = pl.tile.load(a, [0, 0], [16, 32], valid_shape=[17, 32])\n"),
                               "test.py");
  try {
    verifyOrThrow(p);
    FAIL() << "expected a DiagnosticError";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().loc.line, 5u);
    ASSERT_EQ(e.diagnostic().notes.size(), 1u);
    EXPECT_EQ(e.diagnostic().notes[0].loc.line, 6u);
  }
  Program ok = parseProgramText(kernel(kParams16x32, "        x = pl.tile.load(a, [0, 0], [16, 32])\n"), "ok.py");
  EXPECT_NO_THROW(verifyOrThrow(ok));
}

TEST(VerifierErrors, CountsAreSpelledOut) {
  auto diags = diagnosticsOf(kernel(kParams16x32,
                                    "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                    "        for i, (c1, c2) in pl.range(0, 4, 1, init_values=(x, x)):\n"
                                    "            y = pl.tile.exp(c1)\n"));
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].message,
            "loop with 2 carries does not end with pl.yield_; expected its body to end with pl.yield_ of 2 values");
}

// The parser rejects these forms; passes building IR by hand can still produce them.

TEST(VerifierErrors, ReturnMustBeTheLastStatementOfTheBody) {
  Program p = parseProgramText(kernel(kParams16x32,
                                      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                      "        return out\n",
                                      "pl.Tensor[[16, 32], pl.FP32]"),
                               "test.py");
  auto after = std::make_unique<EvalStmt>(SourceLoc{7, 9});
  after->expr = Expr::call(Opcode::TileGetBlockIdx, {}, SourceLoc{7, 9});
  p.functions.at(0).body.push_back(std::move(after));
  std::vector<Diagnostic> diags = verifyProgram(p);
  ASSERT_EQ(diags.size(), 1u);  // and no "does not end with return" on top
  EXPECT_EQ(diags[0].loc, (SourceLoc{6, 9}));
  EXPECT_EQ(diags[0].message,
            "return is followed by more statements; expected it to be the function body's last statement");
}

TEST(VerifierErrors, ValueArgumentsMustBeNames) {
  Program p = parseProgramText(kernel(kParams16x32,
                                      "        x = pl.tile.load(a, [0, 0], [16, 32])\n"
                                      "        y = pl.tile.exp(x)\n"),
                               "test.py");
  Block& body = p.functions.at(0).body;
  auto& y = body[1]->as<AssignStmt>();
  y.value->args[0] = body[0]->as<AssignStmt>().value->clone();  // pl.tile.exp(pl.tile.load(...))
  std::vector<Diagnostic> diags = verifyProgram(p);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(diags[0].message,
            "tile.exp: argument tile is not a name; expected the SSA name of a tile, tensor or buffer");
}

}  // namespace
}  // namespace ptodiff
