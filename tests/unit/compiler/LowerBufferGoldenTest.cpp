// LowerTileToBuffer goldens: tests/golden/lower-buffer/*.py.
//
// Each file is a planned Tile program (MemRefs on every tile; `addr=` roots for the addressed
// planners), a `# planner: NAME` line (default PYPTO), a `# rules: ...` line naming the
// contract-rules.md IDs it covers, and, after a `# ---- expected ----` marker, the expected Buffer
// program as comment lines. The test runs the pass, compares the printed result, and checks that the
// result verifies, round-trips through the parser, and that running the pass again changes nothing
// (C8). PTODIFF_BLESS=1 rewrites the expected section from the pass's output instead of comparing.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "compiler/passes/LowerTileToBuffer.h"
#include "compiler/passes/VerifyTileStorage.h"
#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kExpectedMarker = "# ---- expected ----";

struct GoldenFile {
  std::string name;
  fs::path path;
};

void PrintTo(const GoldenFile& f, std::ostream* os) { *os << f.path.string(); }

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<GoldenFile> collect() {
  fs::path dir = fs::path(PTODIFF_TESTS_DIR) / "golden" / "lower-buffer";
  std::vector<GoldenFile> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".py") continue;
    std::string name = entry.path().stem().string();
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    files.push_back({name, entry.path()});
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return files;
}

/// The value of a `# key: value` header line, or nullopt.
std::optional<std::string> header(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  const std::string prefix = "# " + key + ":";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(kExpectedMarker, 0) == 0) break;
    if (line.rfind(prefix, 0) == 0) {
      std::string value = line.substr(prefix.size());
      value.erase(0, value.find_first_not_of(' '));
      return value;
    }
  }
  return std::nullopt;
}

std::optional<std::string> expectedSection(const std::string& text) {
  size_t at = text.find(kExpectedMarker);
  if (at == std::string::npos) return std::nullopt;
  std::istringstream in(text.substr(at + kExpectedMarker.size()));
  std::string out, line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    if (line.rfind("# ", 0) == 0) out += line.substr(2);
    else if (line != "#") out += line;
    out += "\n";
  }
  return out;
}

void bless(const fs::path& path, const std::string& text, const std::string& printed) {
  size_t at = text.find(kExpectedMarker);
  std::string head = text.substr(0, at);
  while (!head.empty() && head.back() == '\n') head.pop_back();
  std::string out = head + "\n\n" + std::string(kExpectedMarker) + "\n";
  std::istringstream in(printed);
  for (std::string line; std::getline(in, line);) out += line.empty() ? "#\n" : "# " + line + "\n";
  std::ofstream(path, std::ios::binary) << out;
}

PassContext contextOf(const std::string& text) {
  PassContext context;
  context.verifyEach = true;
  if (std::optional<std::string> planner = header(text, "planner")) {
    std::optional<Planner> p = parsePlanner(*planner);
    if (!p) throw std::runtime_error("unknown planner '" + *planner + "'");
    context.planner = *p;
  }
  if (std::optional<std::string> target = header(text, "target")) {
    const Target* t = findTarget(*target);
    if (!t) throw std::runtime_error("unknown target '" + *target + "'");
    context.target = t;
  }
  return context;
}

class LowerBufferGoldenFile : public testing::TestWithParam<GoldenFile> {};

TEST_P(LowerBufferGoldenFile, LowersToTheExpectedBufferProgram) {
  const GoldenFile& f = GetParam();
  const std::string text = readFile(f.path);
  std::optional<std::string> rules = header(text, "rules");
  ASSERT_TRUE(rules && !rules->empty()) << f.path << " names no contract rules ('# rules: ...')";
  const PassContext context = contextOf(text);

  Program program = parseProgramText(text, f.path.filename().string());
  const Program input = program.clone();
  std::unique_ptr<Pass> pass = createLowerTileToBufferPass();
  bool changed = false;
  try {
    changed = pass->run(program, context);
  } catch (const DiagnosticError& e) {
    FAIL() << formatDiagnostic(e.diagnostic());
  }
  EXPECT_TRUE(changed) << "the pass converted nothing in " << f.path;
  const std::string printed = printProgram(program);

  // The output verifies, and the printer round-trips it.
  std::vector<Diagnostic> diags = verifyProgram(program);
  for (const Diagnostic& d : diags) ADD_FAILURE() << formatDiagnostic(d);
  Program reparsed = parseProgramText(printed, "printed");
  EXPECT_TRUE(structurallyEqual(program, reparsed)) << firstDifference(program, reparsed);
  EXPECT_TRUE(pass->checkPostcondition(program, context).empty());

  // C8: running the pass on its output changes nothing.
  Program again = program.clone();
  EXPECT_FALSE(pass->run(again, context));
  EXPECT_TRUE(structurallyEqual(again, program)) << firstDifference(again, program);

  if (std::getenv("PTODIFF_BLESS") != nullptr) {
    bless(f.path, text, printed);
    return;
  }
  std::optional<std::string> expected = expectedSection(text);
  ASSERT_TRUE(expected.has_value()) << f.path << " has no '" << kExpectedMarker
                                    << "' section; run with PTODIFF_BLESS=1 to add it";
  EXPECT_EQ(printed, *expected) << "the lowering of " << f.path << " changed; PTODIFF_BLESS=1 rewrites it";
}

/// The planned input is itself a legal placement under the golden's planner and target: storage
/// closure, capacity, alignment and no overlap of simultaneously live allocations (VerifyTileStorage,
/// P1/P14/P18), so each golden pins the lowering of a program the pipeline could have produced.
TEST_P(LowerBufferGoldenFile, InputPassesVerifyTileStorage) {
  const GoldenFile& f = GetParam();
  const std::string text = readFile(f.path);
  const PassContext context = contextOf(text);
  Program program = parseProgramText(text, f.path.filename().string());
  const std::vector<Diagnostic> invalid = verifyProgram(program);  // fills the slots StorageFacts reads
  ASSERT_TRUE(invalid.empty()) << formatDiagnostic(invalid.front());
  for (const Diagnostic& d : checkTileStorage(program, context)) ADD_FAILURE() << formatDiagnostic(d);
}

std::string fileName(const testing::TestParamInfo<GoldenFile>& info) { return info.param.name; }

// The prefix keeps every test name under the `LowerBufferGolden*` filter.
INSTANTIATE_TEST_SUITE_P(LowerBufferGolden, LowerBufferGoldenFile, testing::ValuesIn(collect()), fileName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LowerBufferGoldenFile);

TEST(LowerBufferGoldenSuite, EverySeedExampleHasAGolden) {
  // The seed's examples (representation for each planner kind, planned storage views, windows,
  // runtime valid extents, matrix storage, branches, loops) plus elementwise kernels.
  EXPECT_GE(collect().size(), 12u);
}

}  // namespace
}  // namespace ptodiff
