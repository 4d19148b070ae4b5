// Unit tests of the verifier's pure type rules (compiler/verify/TypeRules.h): fractal boxes, the
// storage rules of tile types, the window-read, write-union and flat-prefix valid rules, layout
// transposition and type comparison. Each rule is checked on its boundary cases directly, without
// parsing a program.
#include <gtest/gtest.h>

#include "compiler/verify/OpTypeRules.h"
#include "compiler/verify/TypeRules.h"

namespace ptodiff::verify {
namespace {

Extent K(int64_t v) { return Extent::constant(v); }

Type tile(int64_t r, int64_t c, DType dt = DType::FP32, MemSpace s = MemSpace::Vec) { return Type::tile(r, c, dt, s); }

Type withValid(Type t, Extent vr, Extent vc) {
  t.valid = std::array<Extent, 2>{std::move(vr), std::move(vc)};
  return t;
}

ValidShape valid(Extent vr, Extent vc) { return std::array<Extent, 2>{std::move(vr), std::move(vc)}; }

// ---- fractal boxes ----

TEST(VerifierRules, FractalBoxFollowsDTypeAndInnerOrder) {
  auto box = [](MemSpace s, DType dt) { return fractalBox(implicitLayout(s, 16, 16), dt); };
  ASSERT_TRUE(box(MemSpace::Mat, DType::FP32));
  EXPECT_EQ(box(MemSpace::Mat, DType::FP32)->rows, 16);  // NZ: 16 x 32/esize
  EXPECT_EQ(box(MemSpace::Mat, DType::FP32)->cols, 8);
  EXPECT_EQ(box(MemSpace::Left, DType::FP16)->cols, 16);
  EXPECT_EQ(box(MemSpace::Left, DType::INT8)->cols, 32);
  EXPECT_EQ(box(MemSpace::Right, DType::FP32)->rows, 8);  // ZN: 32/esize x 16
  EXPECT_EQ(box(MemSpace::Right, DType::FP32)->cols, 16);
  EXPECT_EQ(box(MemSpace::Right, DType::INT8)->rows, 32);
  EXPECT_EQ(box(MemSpace::Acc, DType::FP32)->rows, 16);  // fractal 1024
  EXPECT_EQ(box(MemSpace::Acc, DType::FP32)->cols, 16);
  EXPECT_EQ(box(MemSpace::Acc, DType::INT32)->cols, 16);
  EXPECT_FALSE(box(MemSpace::Vec, DType::FP32).has_value());
}

// ---- storage rules ----

TEST(VerifierRules, VecRowsMustBe32ByteMultiples) {
  EXPECT_EQ(tileTypeProblem(tile(16, 8), PitchRule::Check), "");
  EXPECT_EQ(tileTypeProblem(tile(1, 16, DType::FP16), PitchRule::Check), "");
  EXPECT_EQ(tileTypeProblem(tile(4, 32, DType::INT8), PitchRule::Check), "");
  EXPECT_EQ(tileTypeProblem(tile(16, 4), PitchRule::Check),
            "Vec tile [16, 4] has a row of 4 x FP32 = 16 bytes; expected a multiple of 32 bytes (8 columns of FP32)");
  EXPECT_NE(tileTypeProblem(tile(16, 8, DType::FP16), PitchRule::Check), "");
  EXPECT_NE(tileTypeProblem(tile(1, 1), PitchRule::Check), "");  // a [1, 1] tile is row-major
  // A window keeps its parent's pitch.
  EXPECT_EQ(tileTypeProblem(tile(16, 4), PitchRule::Exempt), "");
}

TEST(VerifierRules, VecColumnTilesNeed32ByteColumns) {
  EXPECT_EQ(tileTypeProblem(tile(8, 1), PitchRule::Check), "");  // 8 x 4 bytes, col-major
  EXPECT_EQ(tileTypeProblem(tile(16, 1, DType::FP16), PitchRule::Check), "");
  EXPECT_EQ(tileTypeProblem(tile(4, 1), PitchRule::Check),
            "Vec tile [4, 1] has a column of 4 x FP32 = 16 bytes; expected a multiple of 32 bytes (8 rows of FP32)");
}

TEST(VerifierRules, BoxedTilesHoldWholeBoxes) {
  EXPECT_EQ(tileTypeProblem(tile(16, 8, DType::FP32, MemSpace::Mat), PitchRule::Check), "");
  EXPECT_EQ(tileTypeProblem(tile(32, 16, DType::FP16, MemSpace::Left), PitchRule::Check), "");
  EXPECT_EQ(tileTypeProblem(tile(8, 16, DType::FP32, MemSpace::Right), PitchRule::Check), "");
  EXPECT_EQ(tileTypeProblem(tile(16, 20, DType::FP32, MemSpace::Mat), PitchRule::Check),
            "Mat tile [16, 20] is not a whole number of 16 x 8 FP32 boxes; expected rows a multiple of 16 and columns "
            "a multiple of 8");
  EXPECT_NE(tileTypeProblem(tile(8, 8, DType::FP32, MemSpace::Mat), PitchRule::Check), "");
  EXPECT_NE(tileTypeProblem(tile(16, 8, DType::FP32, MemSpace::Right), PitchRule::Check), "");  // ZN box is 8 x 16
  EXPECT_NE(tileTypeProblem(tile(16, 8, DType::FP32, MemSpace::Acc), PitchRule::Check), "");    // Acc box 16 x 16
  // The box rule holds for windows too (exemption is only from the Vec pitch rule).
  EXPECT_NE(tileTypeProblem(tile(16, 20, DType::FP32, MemSpace::Mat), PitchRule::Exempt), "");
}

TEST(VerifierRules, SpacesHoldTheirDTypes) {
  EXPECT_EQ(tileTypeProblem(tile(16, 16, DType::FP16, MemSpace::Acc), PitchRule::Check),
            "an Acc tile cannot hold FP16; expected FP32 or INT32");
  EXPECT_NE(tileTypeProblem(tile(16, 8, DType::INT32, MemSpace::Left), PitchRule::Check), "");
  EXPECT_EQ(tileTypeProblem(tile(16, 8, DType::INT32, MemSpace::Mat), PitchRule::Check), "");
  EXPECT_NE(tileTypeProblem(tile(16, 4, DType::INT64), PitchRule::Check), "");
  EXPECT_FALSE(isTileDType(DType::UINT8));
  EXPECT_EQ(bufferTypeProblem(Type::buffer(128, 32, DType::UINT8, MemSpace::Vec)), "");  // a byte root
  EXPECT_NE(bufferTypeProblem(Type::buffer(128, 32, DType::UINT8, MemSpace::Mat)), "");
}

TEST(VerifierRules, ValidExtentsLieInsideTheShape) {
  EXPECT_EQ(tileTypeProblem(withValid(tile(16, 32), K(0), K(32)), PitchRule::Check), "");
  EXPECT_EQ(tileTypeProblem(withValid(tile(16, 32), Extent::named("n"), Extent::dynamic()), PitchRule::Check), "");
  EXPECT_EQ(tileTypeProblem(withValid(tile(16, 32), K(17), K(32)), PitchRule::Check),
            "valid_shape [17, 32] lies outside the shape [16, 32]; expected 0 <= valid <= shape on each axis");
  EXPECT_NE(tileTypeProblem(withValid(tile(16, 32), K(8), K(-1)), PitchRule::Check), "");
  Type buf = Type::buffer(16, 32, DType::FP32, MemSpace::Vec);
  EXPECT_EQ(bufferTypeProblem(withValid(buf, Extent::dynamic(), Extent::dynamic())), "");
  EXPECT_NE(bufferTypeProblem(withValid(buf, K(16), K(40))), "");
}

// ---- window-read rule ----

TEST(VerifierRules, WindowValidClampsToTheSource) {
  // min(requested or window, clamp(sourceValid - offset, 0, window))
  EXPECT_EQ(windowValid(K(12), 16, K(8), 8, nullptr), K(4));
  EXPECT_EQ(windowValid(K(12), 16, K(12), 4, nullptr), K(0));
  EXPECT_EQ(windowValid(K(12), 16, K(0), 8, nullptr), K(8));
  Extent two = K(2), six = K(6);
  EXPECT_EQ(windowValid(K(12), 16, K(8), 8, &two), K(2));
  EXPECT_EQ(windowValid(K(12), 16, K(8), 8, &six), K(4));  // PyPTO clamps a request too
}

TEST(VerifierRules, WindowValidWithRuntimeParts) {
  Extent n = Extent::named("n"), m = Extent::named("m");
  EXPECT_EQ(windowValid(n, 16, K(0), 16, nullptr), n);  // the whole axis from 0
  EXPECT_EQ(windowValid(n, 16, K(0), 8, nullptr), Extent::dynamic());
  EXPECT_EQ(windowValid(K(16), 16, m, 8, nullptr), K(8));  // a full source covers any window
  EXPECT_EQ(windowValid(K(16), 16, m, 8, &n), n);
  EXPECT_EQ(windowValid(K(12), 16, m, 8, nullptr), Extent::dynamic());
  Extent four = K(4);
  EXPECT_EQ(windowValid(n, 16, K(0), 8, &four), Extent::dynamic());
}

// ---- assemble's write-union ----

TEST(VerifierRules, AssembleUnionGrowsOneAxis) {
  Type src8x32 = tile(8, 32), src16x8 = tile(16, 8);
  ValidOrError rows = assembleValid(withValid(tile(16, 32), K(8), K(32)), src8x32, {K(8), K(0)});
  EXPECT_EQ(rows.error, "");
  EXPECT_EQ(rows.valid, std::nullopt);  // (16, 32) is full
  ValidOrError overlap = assembleValid(withValid(tile(16, 32), K(16), K(12)), src16x8, {K(0), K(8)});
  EXPECT_EQ(overlap.valid, valid(K(16), K(16)));
  ValidOrError inside = assembleValid(withValid(tile(16, 32), K(8), K(32)), tile(8, 8), {K(0), K(16)});
  EXPECT_EQ(inside.valid, valid(K(8), K(32)));
  ValidOrError covers = assembleValid(withValid(tile(16, 32), K(4), K(4)), src8x32, {K(0), K(0)});
  EXPECT_EQ(covers.valid, valid(K(8), K(32)));
}

TEST(VerifierRules, AssembleIntoEmptyOrFullTargets) {
  EXPECT_EQ(assembleValid(tile(16, 32), tile(8, 8), {K(8), K(8)}).valid, std::nullopt);  // full stays full
  EXPECT_EQ(assembleValid(withValid(tile(16, 32), K(0), K(0)), tile(8, 8), {K(0), K(0)}).valid, valid(K(8), K(8)));
  EXPECT_NE(assembleValid(withValid(tile(16, 32), K(0), K(0)), tile(8, 8), {K(8), K(0)}).error, "");
  // An empty source writes no valid element.
  EXPECT_EQ(assembleValid(withValid(tile(16, 32), K(4), K(8)), withValid(tile(8, 8), K(0), K(8)), {K(8), K(8)}).valid,
            valid(K(4), K(8)));
}

TEST(VerifierRules, AssembleRejectsLShapesAndGaps) {
  Type target = withValid(tile(16, 32), K(8), K(16));
  ValidOrError lshape = assembleValid(target, tile(8, 16), {K(8), K(16)});
  EXPECT_EQ(lshape.error,
            "the union of the target's valid region [8, 16] and the written rectangle at [8, 16] of extent [8, 16] is "
            "not a prefix rectangle; expected the write to extend the valid region along one axis");
  EXPECT_NE(assembleValid(target, tile(8, 8), {K(0), K(24)}).error, "");  // a gap of 8 columns
  EXPECT_NE(assembleValid(target, tile(4, 8), {K(0), K(16)}).error, "");  // rows do not match
}

TEST(VerifierRules, AssembleWithRuntimeParts) {
  Extent n = Extent::named("n");
  ValidOrError sameRows =
      assembleValid(withValid(tile(16, 32), n, K(16)), withValid(tile(16, 16), n, K(16)), {K(0), K(16)});
  EXPECT_EQ(sameRows.valid, valid(n, K(32)));
  ValidOrError unknown = assembleValid(withValid(tile(16, 32), K(8), K(32)), tile(8, 32), {n, K(0)});
  EXPECT_EQ(unknown.valid, valid(Extent::dynamic(), Extent::dynamic()));
}

// ---- reshape's flat-prefix rule ----

TEST(VerifierRules, ReshapeMapsARowMajorPrefix) {
  EXPECT_EQ(reshapeValid(tile(16, 32), 8, 64).valid, std::nullopt);
  EXPECT_EQ(reshapeValid(withValid(tile(16, 32), K(4), K(32)), 8, 64).valid, valid(K(2), K(64)));
  EXPECT_EQ(reshapeValid(withValid(tile(16, 32), K(4), K(32)), 64, 8).valid, valid(K(16), K(8)));
  EXPECT_EQ(reshapeValid(withValid(tile(16, 32), K(1), K(24)), 8, 64).valid, valid(K(1), K(24)));
  EXPECT_EQ(reshapeValid(withValid(tile(16, 32), K(1), K(24)), 64, 8).valid, valid(K(3), K(8)));
  EXPECT_EQ(reshapeValid(withValid(tile(16, 32), K(0), K(7)), 64, 8).valid, valid(K(0), K(8)));
}

TEST(VerifierRules, ReshapeRejectsWhatIsNotAPrefixRectangle) {
  EXPECT_EQ(reshapeValid(withValid(tile(16, 32), K(4), K(16)), 32, 16).error,
            "valid_shape [4, 16] of a [16, 32] tile is not a row-major prefix; expected valid columns = 32 or one "
            "valid row");
  EXPECT_EQ(reshapeValid(withValid(tile(16, 32), K(1), K(20)), 64, 8).error,
            "the 20 valid elements of valid_shape [1, 20] of a [16, 32] tile are not a prefix rectangle of [64, 8]; "
            "expected 8 to divide 20 or at most 8 valid elements");
}

TEST(VerifierRules, ReshapeWithRuntimeRowsKeepsTheColumnCount) {
  Extent n = Extent::named("n");
  EXPECT_EQ(reshapeValid(withValid(tile(16, 32), n, K(32)), 16, 32).valid, valid(n, K(32)));
  EXPECT_NE(reshapeValid(withValid(tile(16, 32), n, K(32)), 32, 16).error, "");
  EXPECT_NE(reshapeValid(withValid(tile(16, 32), n, K(16)), 16, 32).error, "");
  EXPECT_NE(reshapeValid(withValid(tile(16, 32), K(1), n), 16, 32).error, "");
}

// ---- layouts and type comparison ----

TEST(VerifierRules, TransposeFlipsBothOrders) {
  const Layout nz = *layoutShorthand("NZ", 512), zn = *layoutShorthand("ZN", 512);
  const Layout nd = *layoutShorthand("ND", 512), dn = *layoutShorthand("DN", 512);
  EXPECT_EQ(transposedLayout(nz), zn);
  EXPECT_EQ(transposedLayout(zn), nz);
  EXPECT_EQ(transposedLayout(nd), dn);
  EXPECT_EQ(transposedLayout(dn), nd);
  Layout acc = implicitLayout(MemSpace::Acc, 16, 16);
  EXPECT_EQ(transposedLayout(acc).fractal, 1024);
}

TEST(VerifierRules, NamedExtentsAcceptDynamicOnesOnly) {
  Type named = withValid(tile(16, 32), Extent::named("n"), K(32));
  Type dynamic = withValid(tile(16, 32), Extent::dynamic(), K(32));
  Type constant = withValid(tile(16, 32), K(8), K(32));
  EXPECT_TRUE(typeAccepts(named, dynamic));
  EXPECT_FALSE(typeAccepts(dynamic, named));
  EXPECT_FALSE(typeAccepts(named, constant));
  EXPECT_FALSE(typeAccepts(constant, dynamic));
  EXPECT_FALSE(typeAccepts(withValid(tile(16, 32), Extent::named("m"), K(32)), named));
  Type planned = tile(16, 32);
  planned.memref = MemRef{"mem", K(0), 2048};
  EXPECT_TRUE(typeAccepts(planned, tile(16, 32)));  // MemRefs come from annotations
  EXPECT_EQ(typeDifference(tile(16, 32), tile(16, 32, DType::FP16)), "dtype FP32 vs FP16");
  EXPECT_EQ(typeDifference(constant, tile(16, 32)), "valid_shape [8, 32] vs full");
  EXPECT_EQ(typeDifference(named, dynamic), "");
}

TEST(VerifierRules, ExtentsOfIndexExpressions) {
  EXPECT_EQ(extentOfExpr(*Expr::intLit(12)), K(12));
  EXPECT_EQ(extentOfExpr(*Expr::unary(UnOp::Neg, Expr::intLit(3))), K(-3));
  EXPECT_EQ(extentOfExpr(*Expr::nameRef("n")), Extent::named("n"));
  EXPECT_EQ(extentOfExpr(*Expr::binary(BinOp::Add, Expr::nameRef("n"), Expr::intLit(1))), Extent::dynamic());
}

TEST(VerifierRules, ElementwiseDTypesPerOp) {
  EXPECT_TRUE(opAcceptsDType(Opcode::TileAdd, DType::INT32));
  EXPECT_TRUE(opAcceptsDType(Opcode::TileMaximums, DType::FP16));
  EXPECT_FALSE(opAcceptsDType(Opcode::TileAdd, DType::BF16));  // BF16 is transfer-only
  EXPECT_FALSE(opAcceptsDType(Opcode::TileAdd, DType::INT8));
  EXPECT_FALSE(opAcceptsDType(Opcode::TileDiv, DType::INT32));
  EXPECT_FALSE(opAcceptsDType(Opcode::TileExp, DType::INT32));
  EXPECT_FALSE(opAcceptsDType(Opcode::BufLrelu, DType::INT32));
  EXPECT_TRUE(opAcceptsDType(Opcode::BufSqrt, DType::FP32));
}

}  // namespace
}  // namespace ptodiff::verify
