// Round-trip goldens: tests/golden/roundtrip/*.py and every program in tests/programs/*.py.
//
// For each program p: parse(print(p)) is structurally equal to p, and printing is a fixpoint
// (print(parse(print(p))) == print(p)). A golden in tests/golden/roundtrip also holds the expected
// canonical text after a `# ---- expected ----` marker, as comment lines; PTODIFF_BLESS=1 rewrites
// that section from the printer's output instead of comparing.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kExpectedMarker = "# ---- expected ----";

struct RoundTripFile {
  std::string name;  // test name
  fs::path path;
  bool isGolden = false;  // carries (or may be blessed with) an expected section
};

void PrintTo(const RoundTripFile& f, std::ostream* os) { *os << f.path.string(); }

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string testName(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

/// tests/programs also holds helper scripts; a program file is one with a `@pl.program` line.
bool isProgramFile(const fs::path& path) {
  std::istringstream in(readFile(path));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("@pl.program", 0) == 0) return true;
  return false;
}

std::vector<RoundTripFile> collect(const std::string& folder, bool golden) {
  fs::path dir = fs::path(PTODIFF_TESTS_DIR) / folder;
  std::vector<RoundTripFile> files;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".py" || !isProgramFile(entry.path())) continue;
    files.push_back({testName(folder + "_" + entry.path().stem().string()), entry.path(), golden});
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return files;
}

/// The text after the expected marker with the leading `# ` of each line removed; nullopt when the
/// file has no marker.
std::optional<std::string> expectedSection(const std::string& text) {
  size_t at = text.find(kExpectedMarker);
  if (at == std::string::npos) return std::nullopt;
  std::istringstream in(text.substr(at + kExpectedMarker.size()));
  std::string out, line;
  std::getline(in, line);  // rest of the marker line
  while (std::getline(in, line)) {
    if (line.rfind("# ", 0) == 0) out += line.substr(2);
    else if (line != "#") out += line;  // not a comment: kept so the comparison shows it
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

class RoundTrip : public testing::TestWithParam<RoundTripFile> {};

TEST_P(RoundTrip, PrintParseIsIdentityAndPrintingIsAFixpoint) {
  const RoundTripFile& f = GetParam();
  std::string text = readFile(f.path);
  Program original = parseProgramText(text, f.path.string());
  std::string printed = printProgram(original);
  Program reparsed = parseProgramText(printed, f.path.string() + " (printed)");
  EXPECT_TRUE(structurallyEqual(original, reparsed))
      << "first difference: " << firstDifference(original, reparsed) << "\nprinted text:\n" << printed;
  EXPECT_EQ(printProgram(reparsed), printed);
  if (!f.isGolden) return;
  if (std::getenv("PTODIFF_BLESS") != nullptr) {
    bless(f.path, text, printed);
    return;
  }
  std::optional<std::string> expected = expectedSection(text);
  ASSERT_TRUE(expected.has_value()) << f.path << " has no '" << kExpectedMarker
                                    << "' section; run with PTODIFF_BLESS=1 to add it";
  EXPECT_EQ(printed, *expected) << "canonical text of " << f.path << " changed; PTODIFF_BLESS=1 rewrites it";
}

std::string fileName(const testing::TestParamInfo<RoundTripFile>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Golden, RoundTrip, testing::ValuesIn(collect("golden/roundtrip", true)), fileName);
INSTANTIATE_TEST_SUITE_P(Programs, RoundTrip, testing::ValuesIn(collect("programs", false)), fileName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RoundTrip);

TEST(RoundTripSuite, GoldenFolderHasPrograms) { EXPECT_GE(collect("golden/roundtrip", true).size(), 5u); }

}  // namespace
}  // namespace ptodiff
