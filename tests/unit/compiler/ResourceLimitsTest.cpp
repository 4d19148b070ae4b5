// Resource limits (compiler/ir/ResourceLimits.h): input past a limit is a located `error:` from the
// parser or the verifier, never an allocation; inputs just inside a limit still pass.
#include <gtest/gtest.h>

#include <string>

#include "compiler/ir/ResourceLimits.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"

namespace ptodiff {
namespace {

std::string program(const std::string& params, const std::string& body) {
  return "import pypto.language as pl\n\n\n@pl.program\nclass limits:\n"
         "    @pl.function(type=pl.FunctionType.InCore)\n    def kernel(self, " +
         params + "):\n" + body;
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

/// The verifier's first error for `text` (which must parse), or an empty message.
Diagnostic firstVerifierError(const std::string& text) {
  Program p = parseProgramText(text, "t.py");
  std::vector<Diagnostic> diags = verifyProgram(p);
  return diags.empty() ? Diagnostic{} : diags.front();
}

TEST(ResourceLimits, CheckedElementsRefusesOverflowAndNegatives) {
  EXPECT_EQ(checkedElements(16, 32), 512);
  EXPECT_EQ(checkedElements(0, 5), 0);
  EXPECT_EQ(checkedElements(-1, 5), -1);
  EXPECT_EQ(checkedElements(int64_t{1} << 40, int64_t{1} << 40), -1);
}

TEST(ResourceLimits, OverLimitNamesTheLimit) {
  EXPECT_EQ(overLimit("x", 10, 4, 10, 40), "");
  EXPECT_EQ(overLimit("x", 11, 4, 10, 1000), "x has 11 elements, over the limit of 10 (expected a smaller shape)");
  EXPECT_EQ(overLimit("x", 10, 4, 10, 39), "x takes 40 bytes, over the limit of 39 (expected a smaller shape)");
  EXPECT_EQ(overLimit("x", -1, 4, 10, 40), "x has too many elements, over the limit of 10 (expected a smaller shape)");
}

TEST(ResourceLimits, ScopedLimitsRestoreTheDefaults) {
  const int64_t before = resourceLimits().maxTileElements;
  {
    ResourceLimits tight;
    tight.maxTileElements = 7;
    ScopedResourceLimits scope(tight);
    EXPECT_EQ(resourceLimits().maxTileElements, 7);
  }
  EXPECT_EQ(resourceLimits().maxTileElements, before);
  EXPECT_EQ(before, int64_t{1} << 20);
  EXPECT_EQ(resourceLimits().maxTensorElements, int64_t{1} << 26);
}

TEST(ResourceLimits, OversizedTensorParameterIsAVerifierError) {
  const std::string ok = program("a: pl.Tensor[[8192, 8192], pl.FP32]", "        return\n");  // 2^26 elements
  EXPECT_EQ(firstVerifierError(ok).message, "");
  const Diagnostic d = firstVerifierError(program("a: pl.Tensor[[100000, 100000], pl.FP32]", "        return\n"));
  EXPECT_EQ(d.message,
            "tensor 'a' of shape [100000, 100000] has 10000000000 elements, over the limit of 67108864 "
            "(expected a smaller shape)");
  EXPECT_EQ(d.loc.line, 7u);
  const Diagnostic overflow =
      firstVerifierError(program("a: pl.Tensor[[9223372036854775807, 9223372036854775807], pl.FP32]", "        return\n"));
  EXPECT_EQ(overflow.message,
            "tensor 'a' of shape [9223372036854775807, 9223372036854775807] has too many elements, over the limit of "
            "67108864 (expected a smaller shape)");
}

TEST(ResourceLimits, AllTensorParametersTogetherAreLimited) {
  ResourceLimits tight;
  tight.maxGmBytes = 3000;
  ScopedResourceLimits scope(tight);
  const Diagnostic d = firstVerifierError(
      program("a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32]", "        return\n"));
  EXPECT_EQ(d.message,
            "function 'kernel': its tensor parameters take 4096 bytes up to here, over the limit of 3000 (expected "
            "fewer or smaller values)");
}

TEST(ResourceLimits, OversizedTileIsAVerifierErrorEvenWithoutABinder) {
  const std::string body =
      "        t = pl.tile.full([2048, 1024], dtype=pl.FP32, value=1.0)\n"
      "        return\n";
  const Diagnostic d = firstVerifierError(program("x: pl.Scalar[pl.INDEX]", body));
  EXPECT_EQ(d.message,
            "the result of pl.tile.full of shape [2048, 1024] has 2097152 elements, over the limit of 1048576 "
            "(expected a smaller shape)");
}

TEST(ResourceLimits, TileValuesOfOneFunctionAreLimitedTogether) {
  ResourceLimits tight;
  tight.maxFrameTileBytes = 4096;
  ScopedResourceLimits scope(tight);
  const std::string body =
      "        t = pl.tile.full([16, 32], dtype=pl.FP32, value=1.0)\n"
      "        u = pl.tile.full([16, 32], dtype=pl.FP32, value=2.0)\n"
      "        v = pl.tile.full([16, 32], dtype=pl.FP32, value=3.0)\n"
      "        return\n";
  const Diagnostic d = firstVerifierError(program("x: pl.Scalar[pl.INDEX]", body));
  EXPECT_EQ(d.message,
            "function 'kernel': its tile and buffer values take 6144 bytes up to here, over the limit of 4096 (expected "
            "fewer or smaller values)");
  EXPECT_EQ(d.loc.line, 10u);  // v: the third 2048-byte tile passes 4096
}

TEST(ResourceLimits, StaticTripCountPastTheLimitIsAnErrorButABillionIsNot) {
  auto loop = [](const std::string& stop) {
    return program("x: pl.Scalar[pl.INDEX]", "        for i in pl.range(0, " + stop + ", 1):\n            pass\n        return\n");
  };
  EXPECT_EQ(firstVerifierError(loop("1000000000")).message, "");
  const Diagnostic d = firstVerifierError(loop("1099511627776"));
  EXPECT_EQ(d.message, "for: 1099511627776 iterations, over the limit of 2147483647 (expected a smaller static trip count)");
  EXPECT_EQ(d.loc.line, 8u);
}

TEST(ResourceLimits, OversizedStorageRootIsAnError) {
  const std::string body =
      "        r: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 1099511627776, addr=0)\n"
      "        return\n";
  const Diagnostic d = firstVerifierError(program("x: pl.Scalar[pl.INDEX]", body));
  EXPECT_EQ(d.message, "tile.alloc: size 1099511627776 is over the limit of 16777216 bytes; expected a smaller storage root");
}

TEST(ResourceLimits, ProgramTextPastTheByteLimitIsRefusedBeforeParsing) {
  ResourceLimits tight;
  tight.maxProgramBytes = 100;
  ScopedResourceLimits scope(tight);
  const std::string text = program("x: pl.Scalar[pl.INDEX]", "        return\n");
  const Diagnostic d = parseError(text);
  EXPECT_EQ(d.message, "program too large: " + std::to_string(text.size()) +
                           " bytes, over the limit of 100 (expected a smaller program)");
  EXPECT_EQ(d.file, "t.py");
}

TEST(ResourceLimits, TooManyStatementsIsAParseError) {
  ResourceLimits tight;
  tight.maxStatements = 3;
  ScopedResourceLimits scope(tight);
  const Diagnostic d = parseError(program("x: pl.Scalar[pl.INDEX]", "        pass\n        pass\n        pass\n        return\n"));
  EXPECT_EQ(d.message, "program too large: more than 3 statements (expected a smaller program)");
  EXPECT_EQ(d.loc, (SourceLoc{11, 9}));  // the fourth statement: return
}

TEST(ResourceLimits, DeepBlockNestingIsAParseErrorNotAStackOverflow) {
  auto nested = [](int depth) {
    std::string body;
    for (int i = 0; i < depth; ++i)
      body += std::string(8 + 4 * i, ' ') + "for i" + std::to_string(i) + " in pl.range(1):\n";
    body += std::string(8 + 4 * depth, ' ') + "pass\n        return\n";
    return program("x: pl.Scalar[pl.INDEX]", body);
  };
  EXPECT_NO_THROW(parseProgramText(nested(64), "t.py"));
  const Diagnostic d = parseError(nested(65));
  EXPECT_EQ(d.message, "blocks nested too deeply: more than 64 levels of for/while/if bodies (expected shallower control flow)");
  EXPECT_EQ(d.loc.line, 7u + 65u);
  const Diagnostic deep = parseError(nested(1000));
  EXPECT_EQ(deep.message, d.message);
}

TEST(ResourceLimits, LongOperatorChainIsBoundedLikeNesting) {
  std::string sum = "x";
  for (int i = 0; i < 100000; ++i) sum += " + x";
  const Diagnostic d = parseError(program("x: pl.Scalar[pl.INDEX]", "        y = " + sum + "\n        return\n"));
  EXPECT_EQ(d.message, "nested too deeply (more than 200 levels)");
  std::string shortSum = "x";
  for (int i = 0; i < 150; ++i) shortSum += " * x";
  EXPECT_NO_THROW(parseProgramText(program("x: pl.Scalar[pl.INDEX]", "        y = " + shortSum + "\n        return\n"), "t.py"));
}

}  // namespace
}  // namespace ptodiff
