// Runner of the diagnostic goldens: tests/golden/parse-errors/*.py and tests/golden/verify-errors/*.py.
//
// A golden file holds several cases split by a line `# -----`. Each case is a whole program whose
// offending line carries a trailing comment `# error: <exact message>`; when the error points at a
// line that cannot carry a comment, `# error@+N: <exact message>` on a line N lines above it names
// that line. A case is parsed (and, if parsing succeeds, verified); its first diagnostic must be
// the expected one: same line, exact message. Line numbers are those of the golden file, so a
// failure points straight at the case.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;

struct Expectation {
  uint32_t line = 0;
  std::string message;
};

struct GoldenCase {
  std::string name;  // e.g. parse_errors_syntax_case3
  std::string path;  // the golden file
  std::string text;  // the case, preceded by blank lines so line numbers match the file
  std::vector<Expectation> expected;
};

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

std::string testName(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

std::vector<std::string> readLines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// Splits one golden file into its cases.
std::vector<GoldenCase> loadFile(const fs::path& path, const std::string& suite) {
  static const std::regex kExpectation(R"(#\s*error(@\+(\d+))?:\s*(.*\S)\s*$)");
  std::vector<std::string> lines = readLines(path);
  std::vector<GoldenCase> cases;
  size_t start = 0;
  auto flush = [&](size_t end) {  // lines [start, end)
    GoldenCase c;
    c.path = path.string();
    c.name = testName(suite + "_" + path.stem().string() + "_case" + std::to_string(cases.size() + 1));
    std::string text(start, '\n');
    bool hasCode = false;
    for (size_t i = start; i < end; ++i) {
      text += lines[i] + "\n";
      std::smatch m;
      if (std::regex_search(lines[i], m, kExpectation)) {
        uint32_t offset = m[2].matched ? static_cast<uint32_t>(std::stoul(m[2].str())) : 0;
        c.expected.push_back({static_cast<uint32_t>(i + 1) + offset, m[3].str()});
      }
      if (!lines[i].empty() && lines[i][0] != '#') hasCode = true;
    }
    c.text = std::move(text);
    if (hasCode) cases.push_back(std::move(c));
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("# -----", 0) == 0) {
      flush(i);
      start = i + 1;
    }
  }
  flush(lines.size());
  return cases;
}

std::vector<GoldenCase> loadSuite(const std::string& folder) {
  fs::path dir = fs::path(PTODIFF_TESTS_DIR) / "golden" / folder;
  std::vector<fs::path> files;
  if (fs::is_directory(dir))
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().extension() == ".py") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<GoldenCase> cases;
  for (const auto& f : files)
    for (auto& c : loadFile(f, folder)) cases.push_back(std::move(c));
  return cases;
}

/// The first diagnostic of a case: the parse error, or else the verifier's first.
std::optional<Diagnostic> firstDiagnostic(std::shared_ptr<SourceFile> source) {
  try {
    Program p = parseProgram(source);
    std::vector<Diagnostic> diags = verifyProgram(p);
    if (diags.empty()) return std::nullopt;
    return diags.front();
  } catch (const DiagnosticError& e) {
    return e.diagnostic();
  }
}

class DiagnosticGolden : public testing::TestWithParam<GoldenCase> {};

TEST_P(DiagnosticGolden, FirstDiagnosticMatches) {
  const GoldenCase& c = GetParam();
  ASSERT_EQ(c.expected.size(), 1u) << c.path << ": a case needs exactly one '# error:' annotation";
  const Expectation& want = c.expected[0];
  auto source = std::make_shared<SourceFile>();
  source->name = c.path;
  source->text = c.text;
  std::optional<Diagnostic> got = firstDiagnostic(source);
  ASSERT_TRUE(got.has_value()) << c.path << ":" << want.line << ": expected error '" << want.message
                               << "' but the case produced no diagnostic";
  EXPECT_EQ(got->loc.line, want.line) << formatDiagnostic(*got, source.get());
  EXPECT_EQ(got->message, want.message) << formatDiagnostic(*got, source.get());
}

std::string caseName(const testing::TestParamInfo<GoldenCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(ParseErrors, DiagnosticGolden, testing::ValuesIn(loadSuite("parse-errors")), caseName);
INSTANTIATE_TEST_SUITE_P(VerifyErrors, DiagnosticGolden, testing::ValuesIn(loadSuite("verify-errors")), caseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DiagnosticGolden);

TEST(DiagnosticGoldenSuite, ParseErrorSuiteIsNotEmpty) {
  EXPECT_GE(loadSuite("parse-errors").size(), 20u);
}

TEST(DiagnosticGoldenSuite, FormattedParseErrorQuotesTheLineWithACaret) {
  auto source = std::make_shared<SourceFile>();
  source->name = "bad.py";
  source->text = R"(@pl.program
class p:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[16, 32], pl.FP32]):
        t = pl.tile.lod(a, [0, 0], [16, 32])
)";
  try {
    parseProgram(source);
    FAIL() << "expected a parse error";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(formatDiagnostic(e.diagnostic(), source.get()),
              "bad.py:5:13: error: unknown op 'pl.tile.lod'\n"
              "          t = pl.tile.lod(a, [0, 0], [16, 32])\n"
              "              ^\n");
  }
}

}  // namespace
}  // namespace ptodiff
