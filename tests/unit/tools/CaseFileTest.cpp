#include "compiler/text/CaseFile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/unit/tools/TempDir.h"

namespace ptodiff {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr const char* kCaseName = "cases/demo.case.json";

CaseSpec parse(const std::string& text) { return parseCaseFile(SourceFile{kCaseName, text}); }

/// Parses `text`, expecting an error at `line`:`col` whose message contains `what`; also checks
/// the printed form `FILE:LINE:COL: error: ...`.
void expectCaseError(const std::string& text, uint32_t line, uint32_t col, const std::string& what) {
  SCOPED_TRACE(text);
  try {
    parse(text);
    ADD_FAILURE() << "accepted; expected an error containing: " << what;
  } catch (const DiagnosticError& e) {
    const Diagnostic& d = e.diagnostic();
    EXPECT_EQ(d.file, kCaseName);
    EXPECT_EQ(d.loc.line, line) << d.message;
    EXPECT_EQ(d.loc.col, col) << d.message;
    EXPECT_THAT(d.message, HasSubstr(what));
    EXPECT_THAT(std::string(e.what()),
                StartsWith(std::string(kCaseName) + ":" + std::to_string(line) + ":" + std::to_string(col) +
                           ": error: "));
  }
}

TEST(CaseFile, EveryField) {
  const CaseSpec spec = parse(R"({
  "function": "kernel2",
  "target": "a5",
  "planners": ["PTOAS", "PYPTO"],
  "scalars": {"count": 3, "neg": -4, "scale": 0.5, "flag": true},
  "tensors": {
    "a":   {"init": "uniform", "low": -2.0, "high": 2.5, "seed": 7},
    "b":   {"file": "b.npy"},
    "c":   {"init": "normal", "mean": 1, "std": 0.25, "seed": 18446744073709551615},
    "d":   {"init": "iota"},
    "e":   {"init": "zeros"},
    "f":   {"init": "file", "file": "/abs/f.npy"},
    "out": {"init": "sentinel"}
  },
  "block_num": 4,
  "seed": 99
})");
  EXPECT_EQ(spec.function, "kernel2");
  EXPECT_EQ(spec.target, "a5");
  EXPECT_THAT(spec.planners, ElementsAre("PTOAS", "PYPTO"));
  EXPECT_EQ(spec.blockNum, 4);
  EXPECT_EQ(spec.seed, 99u);
  EXPECT_EQ(spec.sourceName, kCaseName);

  ASSERT_EQ(spec.scalars.size(), 4u);
  EXPECT_EQ(spec.scalars.at("count").kind, CaseScalar::Kind::Int);
  EXPECT_EQ(spec.scalars.at("count").i, 3);
  EXPECT_EQ(spec.scalars.at("neg").i, -4);
  EXPECT_EQ(spec.scalars.at("scale").kind, CaseScalar::Kind::Float);
  EXPECT_EQ(spec.scalars.at("scale").f, 0.5);
  EXPECT_EQ(spec.scalars.at("flag").kind, CaseScalar::Kind::Bool);
  EXPECT_TRUE(spec.scalars.at("flag").b);
  EXPECT_EQ(spec.scalars.at("count").loc, (SourceLoc{5, 24}));

  ASSERT_EQ(spec.tensors.size(), 7u);
  const TensorInit& a = spec.tensors.at("a");
  EXPECT_EQ(a.kind, TensorInit::Kind::Uniform);
  EXPECT_EQ(a.low, -2.0);
  EXPECT_EQ(a.high, 2.5);
  EXPECT_EQ(a.seed, 7u);
  EXPECT_EQ(a.loc, (SourceLoc{7, 5}));
  EXPECT_EQ(spec.tensors.at("b").kind, TensorInit::Kind::File);
  EXPECT_EQ(spec.tensors.at("b").file, "cases/b.npy");  // relative to the case file's folder
  const TensorInit& c = spec.tensors.at("c");
  EXPECT_EQ(c.kind, TensorInit::Kind::Normal);
  EXPECT_EQ(c.mean, 1.0);
  EXPECT_EQ(c.stddev, 0.25);
  EXPECT_EQ(c.seed, 18446744073709551615u);
  EXPECT_EQ(spec.tensors.at("d").kind, TensorInit::Kind::Iota);
  EXPECT_EQ(spec.tensors.at("e").kind, TensorInit::Kind::Zeros);
  EXPECT_EQ(spec.tensors.at("f").kind, TensorInit::Kind::File);
  EXPECT_EQ(spec.tensors.at("f").file, "/abs/f.npy");  // absolute paths stay as they are
  EXPECT_EQ(spec.tensors.at("out").kind, TensorInit::Kind::Sentinel);
}

TEST(CaseFile, AbsentFieldsTakeDefaults) {
  const CaseSpec spec = parse("{}");
  EXPECT_EQ(spec.function, "");
  EXPECT_EQ(spec.target, "a2a3");
  EXPECT_THAT(spec.planners, ElementsAre("PYPTO", "DSA_RP", "PTOAS"));
  EXPECT_TRUE(spec.scalars.empty());
  EXPECT_TRUE(spec.tensors.empty());
  EXPECT_EQ(spec.blockNum, 1);
  EXPECT_EQ(spec.seed, 0u);
  EXPECT_FALSE(spec.expectBufferPath.has_value());

  const TensorInit u = parse(R"({"tensors": {"x": {"init": "uniform"}}})").tensors.at("x");
  EXPECT_EQ(u.low, -1.0);
  EXPECT_EQ(u.high, 1.0);
  EXPECT_FALSE(u.seed.has_value());
  const TensorInit n = parse(R"({"tensors": {"x": {"init": "normal"}}})").tensors.at("x");
  EXPECT_EQ(n.mean, 0.0);
  EXPECT_EQ(n.stddev, 1.0);
}

TEST(CaseFile, ExpectedBufferPathIsABoolean) {
  EXPECT_EQ(parse(R"({"expect_buffer_path": true})").expectBufferPath, std::optional<bool>(true));
  EXPECT_EQ(parse(R"({"expect_buffer_path": false})").expectBufferPath, std::optional<bool>(false));
  expectCaseError(R"({"expect_buffer_path": 1})", 1, 24, "\"expect_buffer_path\" must be true or false, got an integer");
}

TEST(CaseFile, SymbolicIsABoolean) {
  EXPECT_FALSE(parse("{}").symbolic);
  EXPECT_TRUE(parse(R"({"symbolic": true})").symbolic);
  EXPECT_FALSE(parse(R"({"symbolic": false})").symbolic);
  expectCaseError(R"({"symbolic": "yes"})", 1, 14, "\"symbolic\" must be true or false, got a string");
}

TEST(CaseFile, FileNextToCaseWithoutFolder) {
  const CaseSpec spec = parseCaseFile(SourceFile{"demo.case.json", R"({"tensors": {"b": {"file": "in/b.npy"}}})"});
  EXPECT_EQ(spec.tensors.at("b").file, "in/b.npy");
}

TEST(CaseFileError, InvalidJsonIsLocated) {
  expectCaseError("{\n  \"target\": }\n", 2, 13, "invalid JSON: syntax error");
  expectCaseError("", 1, 1, "invalid JSON");
  expectCaseError("{\"seed\": 1,}", 1, 12, "invalid JSON");
  expectCaseError("{\"seed\": 1} trailing", 1, 13, "invalid JSON");
  expectCaseError("{\n  \"flag\": tru\n}", 2, 11, "invalid JSON: syntax error while parsing value - invalid literal");
}

TEST(CaseFileError, TopLevelMustBeAnObject) {
  expectCaseError("  [1, 2]", 1, 3, "a case file must be a JSON object");
}

TEST(CaseFileError, UnknownFieldPointsAtKeyAndSuggests) {
  expectCaseError("{\n  \"seed\": 1,\n  \"fuction\": \"k\"\n}", 3, 3,
                  "unknown case field \"fuction\" (did you mean \"function\"?)");
  expectCaseError(R"({"blocks": 2})", 1, 2, "unknown case field \"blocks\"");
}

TEST(CaseFileError, WrongTypesPointAtValue) {
  expectCaseError(R"({"block_num": "2"})", 1, 15, "\"block_num\" must be a non-negative integer, got a string");
  expectCaseError(R"({"function": 3})", 1, 14, "\"function\" must be a string, got an integer");
  expectCaseError(R"({"seed": 1.5})", 1, 10, "\"seed\" must be a non-negative integer, got a number");
  expectCaseError(R"({"seed": -1})", 1, 10, "\"seed\" must be a non-negative integer, got -1");
  expectCaseError(R"({"seed": 100000000000000000000})", 1, 10, "\"seed\" does not fit 64 bits");
  expectCaseError(R"({"scalars": [1]})", 1, 13, "\"scalars\" must be an object");
  expectCaseError(R"({"tensors": {"a": "uniform"}})", 1, 19, "tensor \"a\" must be an object");
}

TEST(CaseFileError, BlockNumMustBePositive) {
  expectCaseError("{\n  \"block_num\": -3\n}", 2, 16, "\"block_num\" must be a positive integer, got -3");
  expectCaseError(R"({"block_num": 0})", 1, 15, "\"block_num\" must be a positive integer, got 0");
}

TEST(CaseFileError, TargetAndPlanners) {
  expectCaseError(R"({"target": "a3"})", 1, 12, "unknown \"target\" value \"a3\"");
  expectCaseError(R"({"planners": ["PYPTO", "DSARP"]})", 1, 24,
                  "unknown planner value \"DSARP\" (did you mean \"DSA_RP\"?)");
  expectCaseError(R"({"planners": ["PTOAS", "PTOAS"]})", 1, 24, "planner \"PTOAS\" is listed twice");
  expectCaseError(R"({"planners": []})", 1, 14, "must name at least one planner");
  expectCaseError(R"({"planners": "PTOAS"})", 1, 14, "\"planners\" must be an array");
}

TEST(CaseFileError, ScalarValues) {
  expectCaseError(R"({"scalars": {"n": "3"}})", 1, 19, "scalar \"n\" must be a number or a boolean, got a string");
  expectCaseError(R"({"scalars": {"n": 9223372036854775808}})", 1, 19, "out of the 64-bit signed integer range");
  expectCaseError(R"({"scalars": {"n": -99999999999999999999}})", 1, 19, "out of the 64-bit signed integer range");
  expectCaseError(R"({"scalars": {"x": 1e999}})", 1, 19, "number 1e999 overflows binary64 (expected a finite number)");
  expectCaseError(R"({"scalars": {"n": null}})", 1, 19, "got null");
}

TEST(CaseFileError, TensorInitKinds) {
  expectCaseError(R"({"tensors": {"a": {"init": "unifrom"}}})", 1, 28,
                  "unknown \"init\" value \"unifrom\" (did you mean \"uniform\"?)");
  expectCaseError(R"({"tensors": {"a": {"low": 0}}})", 1, 14,
                  "tensor \"a\" needs \"init\" (one of file, uniform, normal, iota, zeros, sentinel) or \"file\"");
  expectCaseError(R"({"tensors": {"a": {"init": "file"}}})", 1, 14, "has init \"file\" but no \"file\" path");
  expectCaseError(R"({"tensors": {"a": {"init": 3}}})", 1, 28, "\"init\" must be a string");
}

TEST(CaseFileError, TensorFields) {
  expectCaseError("{\"tensors\": {\"a\": {\"init\": \"uniform\",\n   \"lo\": 0}}}", 2, 4,
                  "unknown tensor field \"lo\" (did you mean \"low\"?)");
  expectCaseError(R"({"tensors": {"a": {"init": "uniform", "mean": 0}}})", 1, 39,
                  "field \"mean\" does not apply to init \"uniform\" (its fields: low, high, seed)");
  expectCaseError(R"({"tensors": {"a": {"init": "iota", "seed": 1}}})", 1, 36,
                  "field \"seed\" does not apply to init \"iota\" (it takes no fields)");
  expectCaseError(R"({"tensors": {"a": {"init": "uniform", "low": "0"}}})", 1, 46,
                  "\"low\" of tensor \"a\" must be a number, got a string");
  expectCaseError(R"({"tensors": {"a": {"init": "uniform", "low": 2, "high": 1}}})", 1, 14,
                  "uniform range is empty (low 2.0 > high 1.0)");
  expectCaseError(R"({"tensors": {"a": {"init": "uniform", "low": -1e308, "high": 1e308}}})", 1, 14,
                  "high - low overflows");
  expectCaseError(R"({"tensors": {"a": {"init": "normal", "std": -1}}})", 1, 45, "\"std\" of tensor \"a\" must be >= 0");
  expectCaseError(R"({"tensors": {"a": {"file": ""}}})", 1, 28, "\"file\" must be a non-empty path");
  expectCaseError(R"({"tensors": {"a": {"init": "normal", "seed": -2}}})", 1, 46, "must be a non-negative integer");
}

TEST(CaseFileError, DuplicateKeysAreRejected) {
  expectCaseError("{\n  \"seed\": 1,\n  \"seed\": 2\n}", 3, 3, "duplicate key \"seed\" (first given at line 2)");
  expectCaseError(R"({"tensors": {"a": {"init": "iota"}, "a": {"init": "zeros"}}})", 1, 37, "duplicate key \"a\"");
}

TEST(CaseFileError, DeepNestingIsRejectedNotACrash) {
  const std::string deep = "{\"function\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  expectCaseError(deep, 1, 77, "JSON nested more than 64 levels deep");
}

TEST(CaseFileError, FirstErrorInSourceOrder) {
  // Both fields are wrong; the earlier one in the text is reported.
  expectCaseError("{\n  \"target\": \"x\",\n  \"block_num\": 0\n}", 2, 13, "unknown \"target\"");
}

TEST(CaseFileError, EveryTruncationIsALocatedDiagnostic) {
  const std::string full = R"({
  "function": "kernel", "target": "a2a3", "planners": ["PYPTO"],
  "scalars": {"count": 3, "x": -1.5e-3, "flag": false},
  "tensors": {"a": {"init": "normal", "mean": 0, "std": 2, "seed": 4}, "b": {"file": "b.npy"}},
  "block_num": 2, "seed": 1
})";
  ASSERT_NO_THROW(parse(full));
  for (size_t len = 0; len < full.size() - 1; ++len) {
    const std::string prefix = full.substr(0, len);
    try {
      parse(prefix);
      ADD_FAILURE() << "accepted a truncated case: " << prefix;
    } catch (const DiagnosticError& e) {
      EXPECT_TRUE(e.diagnostic().loc.known()) << prefix;
    }
  }
}

TEST(CaseFilePath, ReadsFileAndResolvesRelativeToItsFolder) {
  testing::TempDir dir;
  const std::string path = dir.file("k.case.json");
  testing::writeFileBytes(path, R"({"tensors": {"b": {"file": "b.npy"}}, "seed": 5})");
  const CaseSpec spec = parseCaseFilePath(path);
  EXPECT_EQ(spec.seed, 5u);
  EXPECT_EQ(spec.sourceName, path);
  EXPECT_EQ(spec.tensors.at("b").file, dir.file("b.npy"));
}

TEST(CaseFilePath, UnreadableFileNamesIt) {
  testing::TempDir dir;
  const std::string path = dir.file("missing.case.json");
  try {
    parseCaseFilePath(path);
    ADD_FAILURE() << "a missing case file was accepted";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().file, path);
    EXPECT_THAT(e.diagnostic().message, HasSubstr("cannot read case file"));
  }
}

}  // namespace
}  // namespace ptodiff
