// Tolerance profiles: the built-in cpu/a2a3/a5 values, the file format's defaults and overrides,
// and FILE:LINE:COL errors for every kind of bad file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "compiler/ir/SourceLoc.h"
#include "oracle/ToleranceProfile.h"

namespace ptodiff::oracle {
namespace {

namespace fs = std::filesystem;

fs::path profilesDir() { return fs::path(PTODIFF_TESTS_DIR).parent_path() / "oracle" / "profiles"; }

/// The formatted first line of the diagnostic a bad profile text raises ("" if none).
std::string errorOf(const std::string& text) {
  try {
    parseToleranceProfile(text, "p.json");
  } catch (const DiagnosticError& e) {
    std::string text = formatDiagnostic(e.diagnostic());
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }
  return "";
}

TEST(ToleranceProfile, CpuIsWhatTheInterpretersMustMeet) {
  const ToleranceProfile& cpu = cpuProfile();
  EXPECT_EQ(cpu.name, "cpu");
  for (DType dt : {DType::FP32, DType::FP16, DType::BF16}) {
    for (RoundedOp op : {RoundedOp::Add, RoundedOp::Sub, RoundedOp::Mul, RoundedOp::Div, RoundedOp::Sqrt,
                         RoundedOp::Convert, RoundedOp::Matmul})
      EXPECT_EQ(cpu.ulpsFor(op, dt), 0.5) << roundedOpName(op);
    for (RoundedOp op : {RoundedOp::Exp, RoundedOp::Log, RoundedOp::Recip}) EXPECT_EQ(cpu.ulpsFor(op, dt), 1.0);
  }
  EXPECT_FALSE(cpu.sources.at("exp").empty());
}

TEST(ToleranceProfile, BuiltinsMatchTheirFiles) {
  for (const std::string& name : builtinProfileNames()) {
    const ToleranceProfile builtin = *builtinProfile(name);
    const ToleranceProfile file = loadToleranceProfile((profilesDir() / (name + ".json")).string());
    EXPECT_EQ(builtin.name, name);
    EXPECT_EQ(builtin.ulps, file.ulps) << name;
    EXPECT_EQ(builtin.sources, file.sources) << name;
    EXPECT_EQ(builtin.origin, "built-in");
  }
  EXPECT_EQ(builtinProfileNames(), (std::vector<std::string>{"cpu", "a2a3", "a5"}));
  EXPECT_FALSE(builtinProfile("a9").has_value());
}

TEST(ToleranceProfile, DeviceProfilesAreLooserWhereDocumented) {
  for (const char* name : {"a2a3", "a5"}) {
    const ToleranceProfile p = *builtinProfile(name);
    EXPECT_EQ(p.ulpsFor(RoundedOp::Exp, DType::FP32), 839) << name;  // ceil(1e-4 * 2^23)
    EXPECT_EQ(p.ulpsFor(RoundedOp::Exp, DType::FP16), 2) << name;    // ceil(1e-3 * 2^10)
    EXPECT_EQ(p.ulpsFor(RoundedOp::Sqrt, DType::BF16), 3) << name;   // ceil(2e-2 * 2^7)
    EXPECT_EQ(p.ulpsFor(RoundedOp::Matmul, DType::FP32), 1) << name;
    EXPECT_EQ(p.ulpsFor(RoundedOp::Convert, DType::FP16), 0.5) << name;
    for (int op = 0; op < kRoundedOpCount; ++op)
      for (DType dt : {DType::FP32, DType::FP16, DType::BF16})
        EXPECT_GE(p.ulpsFor(static_cast<RoundedOp>(op), dt), cpuProfile().ulpsFor(static_cast<RoundedOp>(op), dt))
            << name << " " << roundedOpName(static_cast<RoundedOp>(op));
    EXPECT_NE(p.sources.at("sqrt").find("rsqrt"), std::string::npos) << name;
  }
}

TEST(ToleranceProfile, OmittedOpsKeepCpuDefaultsAndDTypeOverridesWin) {
  const ToleranceProfile p = parseToleranceProfile(
      R"({"dtype_ulps": {"FP16": {"exp": 3}}, "profile": "mine", "ulps": {"exp": 4, "add": 1}})", "mine.json");
  EXPECT_EQ(p.name, "mine");
  EXPECT_EQ(p.origin, "mine.json");
  EXPECT_EQ(p.ulpsFor(RoundedOp::Exp, DType::FP32), 4);
  EXPECT_EQ(p.ulpsFor(RoundedOp::Exp, DType::BF16), 4);
  EXPECT_EQ(p.ulpsFor(RoundedOp::Exp, DType::FP16), 3);  // given before "ulps" in the file, still wins
  EXPECT_EQ(p.ulpsFor(RoundedOp::Add, DType::FP16), 1);
  EXPECT_EQ(p.ulpsFor(RoundedOp::Mul, DType::FP32), 0.5);
  EXPECT_EQ(p.ulpsFor(RoundedOp::Log, DType::FP32), 1.0);
  EXPECT_THROW(p.ulpsFor(RoundedOp::Add, DType::INT32), std::invalid_argument);
}

TEST(ToleranceProfile, ErrorsAreLocated) {
  EXPECT_EQ(errorOf("{\"profile\": \"x\",\n \"ulps\": {\"rsqrt\": 2}}"),
            "p.json:2:11: error: unknown op \"rsqrt\"; expected one of add, sub, mul, div, sqrt, exp, log, recip, "
            "convert, matmul (abs, neg, max, min and relu do not round)");
  EXPECT_EQ(errorOf("{\"profile\": \"x\", \"ulps\": {\"add\": -1}}"),
            "p.json:1:34: error: the allowance of \"add\" is -1.000000 ulps; expected a number in [0, 1e9]");
  EXPECT_EQ(errorOf("{\"profile\": \"x\", \"ulps\": {\"add\": \"half\"}}"),
            "p.json:1:34: error: the allowance of \"add\" must be a number of ulps, got a string");
  EXPECT_EQ(errorOf("{\"profile\": \"x\",\n  \"ulps\": {\"add\": 1,}}"),
            "p.json:2:21: error: invalid JSON: expected a member name in double quotes");
  EXPECT_EQ(errorOf("{\"ulps\": {}}"),
            "p.json:1:1: error: missing \"profile\": every profile names itself, e.g. \"profile\": \"a2a3\"");
  EXPECT_EQ(errorOf("{\"profile\": \"x\", \"profile\": \"y\"}"),
            "p.json:1:18: error: invalid JSON: duplicate key \"profile\" (first given at line 1)");
  EXPECT_EQ(errorOf("{\"profile\": \"x\", \"dtype_ulps\": {\"INT32\": {}}}"),
            "p.json:1:33: error: unknown float dtype \"INT32\"; expected FP32, FP16 or BF16");
  EXPECT_EQ(errorOf("{\"profile\": \"x\", \"tolerance\": 1}"),
            "p.json:1:18: error: unknown key \"tolerance\"; expected one of \"profile\", \"description\", \"ulps\", "
            "\"dtype_ulps\", \"sources\"");
  EXPECT_EQ(errorOf("[1, 2]"), "p.json:1:1: error: a tolerance profile must be a JSON object {...}, got an array");
  EXPECT_EQ(errorOf(""), "p.json:1:1: error: invalid JSON: the file is empty; expected a JSON object {...}");
  EXPECT_EQ(errorOf("{\"profile\": 7}"), "p.json:1:13: error: \"profile\" must be a string, got a number");
  EXPECT_EQ(errorOf("{\"profile\": \"x\", \"sources\": {\"fma\": \"?\"}}"),
            "p.json:1:30: error: unknown source key \"fma\"; expected \"general\", an op (add, sub, mul, div, sqrt, "
            "exp, log, recip, convert, matmul) or a float dtype (FP32, FP16, BF16)");
}

TEST(ToleranceProfile, JsonSyntaxDetails) {
  // Escapes and unicode in strings, exponents in numbers.
  const ToleranceProfile p = parseToleranceProfile(
      R"({"profile": "a\"b\u00e9", "description": "tab\there", "ulps": {"exp": 2.5e0}})", "q.json");
  EXPECT_EQ(p.name, "a\"b\xC3\xA9");
  EXPECT_EQ(p.description, "tab\there");
  EXPECT_EQ(p.ulpsFor(RoundedOp::Exp, DType::FP32), 2.5);
  EXPECT_EQ(errorOf("{\"profile\": \"x\"} 1"), "p.json:1:18: error: invalid JSON: unexpected text after the JSON value; "
                                               "expected the end of the file");
  EXPECT_EQ(errorOf("{\"profile\": 01}"), "p.json:1:14: error: invalid JSON: expected ',' or '}' after an object member");
  EXPECT_EQ(errorOf("{\"profile\": \"x"), "p.json:1:13: error: invalid JSON: unterminated string");
}

TEST(ToleranceProfile, ResolveNamesAndFiles) {
  EXPECT_EQ(resolveToleranceProfile("a5").name, "a5");
  const fs::path file = fs::temp_directory_path() / "ptodiff_oracle_profile_test.json";
  {
    std::ofstream out(file);
    out << R"({"profile": "tmp", "ulps": {"div": 3}})";
  }
  const ToleranceProfile p = resolveToleranceProfile(file.string());
  EXPECT_EQ(p.name, "tmp");
  EXPECT_EQ(p.ulpsFor(RoundedOp::Div, DType::FP16), 3);
  fs::remove(file);
  try {
    resolveToleranceProfile("/nonexistent/profile.json");
    FAIL() << "expected a DiagnosticError";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(formatDiagnostic(e.diagnostic()),
              "/nonexistent/profile.json: error: cannot read the tolerance profile file; expected a readable JSON "
              "file\n");
  }
}

}  // namespace
}  // namespace ptodiff::oracle
