// IR utilities: implicit layouts, valid canonicalization, clone, and structural equality.
#include <gtest/gtest.h>

#include "compiler/ir/IR.h"

namespace ptodiff {
namespace {

TEST(Layout, ImplicitViewsFollowPyPTO) {
  using L = TileLayout;
  EXPECT_EQ(implicitLayout(MemSpace::Vec, 16, 32), (Layout{L::row_major, L::none_box, 512}));
  EXPECT_EQ(implicitLayout(MemSpace::Vec, 16, 1), (Layout{L::col_major, L::none_box, 512}));  // [M,1], M>1
  EXPECT_EQ(implicitLayout(MemSpace::Vec, 1, 1), (Layout{L::row_major, L::none_box, 512}));
  EXPECT_EQ(implicitLayout(MemSpace::Mat, 16, 16), (Layout{L::col_major, L::row_major, 512}));
  EXPECT_EQ(implicitLayout(MemSpace::Left, 16, 16), (Layout{L::col_major, L::row_major, 512}));
  EXPECT_EQ(implicitLayout(MemSpace::Right, 16, 16), (Layout{L::row_major, L::col_major, 512}));
  EXPECT_EQ(implicitLayout(MemSpace::Acc, 16, 16), (Layout{L::col_major, L::row_major, 1024}));
}

TEST(Layout, ShorthandsRoundTrip) {
  for (std::string_view name : {"NZ", "ZN", "ZZ", "ND", "DN"}) {
    auto layout = layoutShorthand(name, 512);
    ASSERT_TRUE(layout) << name;
    EXPECT_EQ(layoutShorthandName(*layout), name);
  }
  EXPECT_FALSE(layoutShorthand("NN", 512));
  EXPECT_FALSE(layoutShorthandName(Layout{TileLayout::col_major, TileLayout::col_major, 512}));
}

TEST(Type, FullValidShapeIsCanonicallyAbsent) {
  Type t = Type::tile(16, 32, DType::FP32, MemSpace::Vec);
  t.valid = std::array{Extent::constant(16), Extent::constant(32)};
  t.canonicalizeValid();
  EXPECT_FALSE(t.valid.has_value());
  t.valid = std::array{Extent::constant(8), Extent::constant(32)};
  t.canonicalizeValid();
  ASSERT_TRUE(t.valid.has_value());
  EXPECT_EQ(t.validExtent(0), Extent::constant(8));
  t.valid = std::array{Extent::named("n"), Extent::constant(32)};
  t.canonicalizeValid();
  EXPECT_TRUE(t.valid.has_value());
}

// A shape holds its extents inline, at most [rows, cols]: the parser rejects any other rank with a
// diagnostic before a Type is built, so more extents are a harness bug, not bad input.
TEST(Type, ShapeHoldsUpToTwoExtentsAndComparesLikeAList) {
  Shape s;
  EXPECT_TRUE(s.empty());
  s.push_back(16);
  s.push_back(32);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], 16);
  EXPECT_EQ(s.at(1), 32);
  EXPECT_THROW(s.at(2), std::out_of_range);
  EXPECT_THROW(s.push_back(8), std::length_error);
  EXPECT_EQ(s, (Shape{16, 32}));
  EXPECT_NE(s, (Shape{16}));
  EXPECT_LT((Shape{16}), s);
  EXPECT_LT(s, (Shape{16, 33}));
  EXPECT_EQ(Shape(std::vector<int64_t>{4, 8}), (Shape{4, 8}));
  EXPECT_EQ(Type::tile(16, 32, DType::FP32, MemSpace::Vec).shape, s);
  EXPECT_NE(Type::tile(32, 16, DType::FP32, MemSpace::Vec), Type::tile(16, 32, DType::FP32, MemSpace::Vec));
}

ExprPtr pair(int64_t a, int64_t b) {
  std::vector<ExprPtr> elems;
  elems.push_back(Expr::intLit(a));
  elems.push_back(Expr::intLit(b));
  return Expr::list(std::move(elems));
}

Program smallProgram(int64_t literal) {
  Program p;
  p.name = "demo";
  Function f;
  f.name = "kernel";
  f.params.push_back(Param{"a", Type::tensor({16, 32}, DType::FP32), ParamDirection::In, {}, -1});
  auto assign = std::make_unique<AssignStmt>(SourceLoc{3, 9});
  assign->target.name = "x";
  std::vector<ExprPtr> args;
  args.push_back(Expr::nameRef("a"));
  args.push_back(pair(0, literal));
  args.push_back(pair(16, 32));
  args.push_back(nullptr);
  args.push_back(nullptr);
  assign->value = Expr::call(Opcode::TileLoad, std::move(args));
  f.body.push_back(std::move(assign));
  p.functions.push_back(std::move(f));
  return p;
}

TEST(StructuralEquality, CloneIsEqualAndIndependent) {
  Program p = smallProgram(0);
  Program q = p.clone();
  EXPECT_TRUE(structurallyEqual(p, q));
  EXPECT_EQ(firstDifference(p, q), "");
  q.functions[0].body[0]->as<AssignStmt>().target.name = "y";
  EXPECT_FALSE(structurallyEqual(p, q));
  EXPECT_EQ(p.functions[0].body[0]->as<AssignStmt>().target.name, "x");
}

TEST(StructuralEquality, IgnoresLocationsButNotLiterals) {
  Program p = smallProgram(0);
  Program q = smallProgram(0);
  q.functions[0].body[0]->loc = SourceLoc{99, 1};
  EXPECT_TRUE(structurallyEqual(p, q));
  Program r = smallProgram(8);
  EXPECT_FALSE(structurallyEqual(p, r));
  EXPECT_NE(firstDifference(p, r).find("int literal"), std::string::npos) << firstDifference(p, r);
}

TEST(StructuralEquality, FloatLiteralsCompareByBits) {
  auto a = smallProgram(0), b = smallProgram(0);
  a.functions[0].body[0]->as<AssignStmt>().value->args[1]->args[0] = Expr::floatLit(0.0);
  b.functions[0].body[0]->as<AssignStmt>().value->args[1]->args[0] = Expr::floatLit(-0.0);
  EXPECT_FALSE(structurallyEqual(a, b));
}

TEST(Call, ArgumentsAreFoundByParameterName) {
  Program p = smallProgram(0);
  const Expr& call = *p.functions[0].body[0]->as<AssignStmt>().value;
  EXPECT_EQ(call.arg("tensor")->name, "a");
  EXPECT_EQ(call.arg("valid_shape"), nullptr);
  EXPECT_THROW(call.arg("nope"), std::logic_error);
}

TEST(Diagnostic, FormatsLocationMessageAndCaret) {
  SourceFile src{"k.py", "line one\n    x = pl.tile.frob(a)\n"};
  Diagnostic d{Severity::Error, "k.py", SourceLoc{2, 9}, "unknown op 'tile.frob'", {}};
  EXPECT_EQ(formatDiagnostic(d, &src),
            "k.py:2:9: error: unknown op 'tile.frob'\n"
            "      x = pl.tile.frob(a)\n"
            "          ^\n");
  d.notes.push_back(Diagnostic{Severity::Note, "k.py", SourceLoc{1, 1}, "defined here", {}});
  EXPECT_NE(formatDiagnostic(d).find("k.py:1:1: note: defined here"), std::string::npos);
}

}  // namespace
}  // namespace ptodiff
