// The generator's abstract domain (fuzz/gen/detail/Values.h): masks, intervals, and the static
// valid-extent rules, each compared exhaustively on small shapes with what the verifier infers for
// the same op in a real program.
#include <gtest/gtest.h>

#include <functional>

#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "fuzz/gen/detail/Values.h"

namespace ptodiff::fuzz::detail {
namespace {

// ---- masks and intervals ----

TEST(GenMask, RectanglesWindowsAndPaste) {
  Mask m = Mask::rect(4, 8, 2, 3);
  EXPECT_TRUE(m.covers(2, 3));
  EXPECT_FALSE(m.covers(3, 3));
  EXPECT_FALSE(m.covers(2, 4));
  EXPECT_EQ(m.widestCoveredCols(1), 3);
  EXPECT_EQ(m.widestCoveredCols(3), 0);
  EXPECT_TRUE(m.window(1, 1, 1, 2).full());
  EXPECT_FALSE(m.window(1, 2, 2, 2).at(0, 1));

  Mask t = Mask::all(4, 8);
  t.paste(1, 4, Mask::rect(2, 4, 1, 4));  // the source's second row is poison
  EXPECT_TRUE(t.at(1, 4));
  EXPECT_FALSE(t.at(2, 4));
  EXPECT_TRUE(t.at(3, 4));
  EXPECT_FALSE(t.full());
  EXPECT_TRUE(Mask::all(4, 8).contains(t));
  EXPECT_FALSE(t.contains(Mask::all(4, 8)));
  EXPECT_EQ(t.intersect(Mask::rect(4, 8, 4, 4)), Mask::rect(4, 8, 4, 4));
}

TEST(GenMask, TransposeAndReshapeKeepLanes) {
  Mask m = Mask::rect(2, 8, 1, 8);  // the first row
  EXPECT_EQ(m.transposed(), Mask::rect(8, 2, 8, 1));
  EXPECT_EQ(m.reshaped(4, 4), Mask::rect(4, 4, 2, 4));  // 8 row-major lanes = two rows of four
}

TEST(GenInterval, TransferFunctionsBoundTheirResults) {
  const Interval a = Interval::of(-2, 3), b = Interval::of(1, 4);
  EXPECT_EQ(intervalAdd(a, b).lo, -1);
  EXPECT_EQ(intervalAdd(a, b).hi, 7);
  EXPECT_EQ(intervalSub(a, b).lo, -6);
  EXPECT_EQ(intervalSub(a, b).hi, 2);
  EXPECT_EQ(intervalMul(a, b).lo, -8);
  EXPECT_EQ(intervalMul(a, b).hi, 12);
  EXPECT_EQ(intervalDiv(a, b).lo, -2);
  EXPECT_EQ(intervalDiv(a, b).hi, 3);
  EXPECT_EQ(intervalAbs(a).lo, 0);
  EXPECT_EQ(intervalAbs(a).hi, 3);
  EXPECT_EQ(intervalRelu(a).lo, 0);
  // lrelu with slope 0.5 over [-2, 3]: negative lanes shrink to [-1, 0].
  EXPECT_EQ(intervalLrelu(a, Interval::point(0.5)).lo, -1);
  EXPECT_EQ(intervalLrelu(a, Interval::point(0.5)).hi, 3);
  EXPECT_TRUE(b.awayFromZero(1.0));
  EXPECT_FALSE(a.awayFromZero(0.5));
  // Sampled: every lane combination lies inside.
  for (double x = -2; x <= 3; x += 0.5)
    for (double y = 1; y <= 4; y += 0.5) {
      EXPECT_TRUE(intervalMul(a, b).contains(Interval::point(x * y)));
      EXPECT_TRUE(intervalDiv(a, b).contains(Interval::point(x / y)));
    }
}

// ---- the valid rules against the verifier ----

/// Verifies `body` (statements of a kernel with one FP32 tensor `a`) and returns the inferred type
/// of the value bound to `target`, or nullopt when the verifier reports an error.
std::optional<Type> inferred(const std::string& body, const std::string& target) {
  const std::string text =
      "import pypto.language as pl\n\n@pl.program\nclass t:\n    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32]):\n" +
      body;
  Program p = parseProgramText(text);
  if (!verifyProgram(p).empty()) return std::nullopt;
  for (const StmtPtr& s : p.functions[0].body)
    if (s->kind == Stmt::Kind::Assign && s->as<AssignStmt>().target.name == target)
      return s->as<AssignStmt>().target.type;
  return std::nullopt;
}

std::string load(const std::string& name, int64_t rows, int64_t cols, int64_t vr, int64_t vc) {
  return "        " + name + " = pl.tile.load(a, [0, 0], [" + std::to_string(rows) + ", " + std::to_string(cols) +
         "], valid_shape=[" + std::to_string(vr) + ", " + std::to_string(vc) + "])\n";
}

TEST(GenValidRules, AssembleMatchesTheVerifier) {
  int checked = 0, rejected = 0;
  for (int64_t vr = 0; vr <= 4; ++vr)
    for (int64_t vc = 0; vc <= 16; vc += 4)
      for (int64_t svr = 0; svr <= 2; ++svr)
        for (int64_t svc = 0; svc <= 8; svc += 4)
          for (int64_t r0 = 0; r0 <= 2; ++r0)
            for (int64_t c0 = 0; c0 <= 8; c0 += 4) {
              const std::string body = load("x", 4, 16, vr, vc) + load("s", 2, 8, svr, svc) +
                                       "        y = pl.tile.assemble(x, s, [" + std::to_string(r0) + ", " +
                                       std::to_string(c0) + "])\n";
              const std::optional<Type> verifier = inferred(body, "y");
              const auto mine = assembleValid(4, 16, vr, vc, r0, c0, svr, svc);
              ASSERT_EQ(verifier.has_value(), mine.has_value()) << body;
              if (!mine) {
                ++rejected;
                continue;
              }
              EXPECT_EQ(*verifier, tileType(4, 16, DType::FP32, MemSpace::Vec, (*mine)[0], (*mine)[1])) << body;
              ++checked;
            }
  EXPECT_GT(checked, 500);
  EXPECT_GT(rejected, 100);
}

TEST(GenValidRules, ReshapeMatchesTheVerifier) {
  const std::array<int64_t, 2> shapes[] = {{8, 8}, {2, 32}, {1, 64}, {4, 16}};
  int checked = 0;
  for (int64_t vr = 0; vr <= 4; ++vr)
    for (int64_t vc = 0; vc <= 16; ++vc)
      for (const auto& [rows, cols] : shapes) {
        const std::string body = load("x", 4, 16, vr, vc) + "        y = pl.tile.reshape(x, [" +
                                 std::to_string(rows) + ", " + std::to_string(cols) + "])\n";
        const std::optional<Type> verifier = inferred(body, "y");
        const auto mine = reshapeValid(16, vr, vc, rows, cols);
        ASSERT_EQ(verifier.has_value(), mine.has_value()) << body;
        if (mine) {
          EXPECT_EQ(*verifier, tileType(rows, cols, DType::FP32, MemSpace::Vec, (*mine)[0], (*mine)[1])) << body;
          ++checked;
        }
      }
  EXPECT_GT(checked, 100);
}

TEST(GenValidRules, SliceMatchesTheVerifier) {
  for (int64_t vr = 0; vr <= 8; vr += 2)
    for (int64_t vc = 0; vc <= 16; vc += 4)
      for (int64_t r0 = 0; r0 <= 4; ++r0)
        for (int64_t c0 = 0; c0 <= 8; c0 += 8)
          for (int64_t req : {-1, 0, 3}) {
            const std::string valid = req < 0 ? "" : ", valid_shape=[" + std::to_string(req) + ", " + std::to_string(req) + "]";
            const std::string body = load("x", 8, 16, vr, vc) + "        y = pl.tile.slice(x, [4, 8], [" +
                                     std::to_string(r0) + ", " + std::to_string(c0) + "]" + valid + ")\n";
            const std::optional<Type> verifier = inferred(body, "y");
            ASSERT_TRUE(verifier.has_value()) << body;
            const std::optional<int64_t> r = req < 0 ? std::nullopt : std::optional<int64_t>(req);
            Type mine = Type::tile(4, 8, DType::FP32, MemSpace::Vec);
            setStaticValid(mine, windowValid(vr, r0, 4, r), windowValid(vc, c0, 8, r));
            EXPECT_EQ(*verifier, mine) << body;
          }
}

TEST(GenValidRules, PitchRuleMatchesTheVerifier) {
  for (DType dt : {DType::FP32, DType::FP16, DType::INT32})
    for (int64_t rows : {1, 2, 8, 16})
      for (int64_t cols : {1, 4, 8, 16, 24}) {
        const std::string body = "        y = pl.tile.create([" + std::to_string(rows) + ", " + std::to_string(cols) +
                                 "], dtype=pl." + std::string(dtypeName(dt)) + ")\n";
        EXPECT_EQ(inferred(body, "y").has_value(), vecPitchOk(rows, cols, dt)) << body;
      }
}

}  // namespace
}  // namespace ptodiff::fuzz::detail
