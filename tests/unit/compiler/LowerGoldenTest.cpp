// Runner of the lowering goldens: tests/golden/lower/*.py.
//
// A golden holds an input program, header lines choosing how far the pipeline runs and under what
// options, and the expected printed output per planner:
//
//   # test: lower
//   # stop-after: PlanMemory        (a pass name; required)
//   # target: a5                    (optional, default a2a3)
//   # buffer-ir: off                (optional, default on: enable_buffer_ir)
//   <program>
//   # ---- expected ----            (the output of every planner without a section of its own)
//   # <printed program, as comments>
//   # ---- expected PTOAS ----      (only where a planner's output differs)
//   # ...
//
// Every planner runs the pipeline with verify-each on (IR verifier, pass postconditions, text round
// trip after every pass). PTODIFF_BLESS=1 rewrites the expected sections: PYPTO's output as the
// default and a section for each planner whose output differs from it.
#include <cstdlib>
#include <regex>

#include <gtest/gtest.h>

#include "compiler/text/Printer.h"
#include "tests/unit/compiler/PassTestSupport.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;
using namespace testsupport;

constexpr std::string_view kMarker = "# ---- expected";
constexpr Planner kPlanners[] = {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS};

struct GoldenHeader {
  std::string stopAfter;
  const Target* target = &targetA2A3();
  bool bufferIR = true;
};

GoldenHeader readHeader(const std::string& text, const fs::path& path) {
  static const std::regex kLine(R"(^#\s*(stop-after|target|buffer-ir):\s*(\S+)\s*$)");
  GoldenHeader h;
  std::istringstream in(goldenInput(text));
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, kLine)) continue;
    if (m[1] == "stop-after") h.stopAfter = m[2];
    if (m[1] == "target") {
      h.target = findTarget(m[2].str());
      if (!h.target) ADD_FAILURE() << path << ": unknown target " << m[2];
    }
    if (m[1] == "buffer-ir") h.bufferIR = m[2] != "off";
  }
  if (!h.target) h.target = &targetA2A3();
  return h;
}

/// Expected sections by planner name ("" = the default section).
std::map<std::string, std::string> expectedSections(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line, current;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind(kMarker, 0) == 0) {
      std::string rest = line.substr(kMarker.size());
      static const std::regex kName(R"(^\s*(\w*)\s*-+\s*$)");
      std::smatch m;
      current = std::regex_match(rest, m, kName) ? m[1].str() : "?";
      out[current];
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("# ", 0) == 0) out[current] += line.substr(2);
    else if (line != "#") out[current] += line;
    out[current] += "\n";
  }
  return out;
}

std::string commented(const std::string& printed) {
  std::string out;
  std::istringstream in(printed);
  for (std::string line; std::getline(in, line);) out += line.empty() ? "#\n" : "# " + line + "\n";
  return out;
}

void bless(const fs::path& path, const std::string& text, const std::map<Planner, std::string>& printed) {
  std::string head = goldenInput(text);
  while (!head.empty() && head.back() == '\n') head.pop_back();
  std::string out = head + "\n\n" + std::string(kMarker) + " ----\n" + commented(printed.at(Planner::PYPTO));
  for (Planner p : {Planner::DSA_RP, Planner::PTOAS})
    if (printed.at(p) != printed.at(Planner::PYPTO))
      out += std::string(kMarker) + " " + std::string(plannerName(p)) + " ----\n" + commented(printed.at(p));
  std::ofstream(path, std::ios::binary) << out;
}

class LowerGoldenFile : public testing::TestWithParam<fs::path> {};

TEST_P(LowerGoldenFile, PrintsTheExpectedProgramForEveryPlanner) {
  const fs::path& path = GetParam();
  const std::string text = readText(path);
  const GoldenHeader header = readHeader(text, path);
  ASSERT_FALSE(header.stopAfter.empty()) << path << " has no '# stop-after: PASS' line";
  Program input = parseVerified(goldenInput(text), path.string());
  std::map<Planner, std::string> printed;
  for (Planner p : kPlanners) {
    PassContext context = contextFor(p, *header.target, header.bufferIR);
    printed[p] = printProgram(lowerUpTo(input, context, header.stopAfter));
  }
  if (std::getenv("PTODIFF_BLESS") != nullptr) {
    bless(path, text, printed);
    return;
  }
  std::map<std::string, std::string> expected = expectedSections(text);
  ASSERT_TRUE(expected.count("")) << path << " has no '# ---- expected ----' section; PTODIFF_BLESS=1 adds it";
  for (Planner p : kPlanners) {
    const std::string name(plannerName(p));
    const std::string& want = expected.count(name) ? expected[name] : expected[""];
    EXPECT_EQ(printed[p], want) << path << ": output of " << name << " changed; PTODIFF_BLESS=1 rewrites it";
  }
}

std::string fileName(const testing::TestParamInfo<fs::path>& info) {
  std::string s = info.param.stem().string();
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(LowerGolden, LowerGoldenFile, testing::ValuesIn(lowerGoldens()), fileName);

TEST(LowerGoldenSuite, HasGoldens) { EXPECT_GE(lowerGoldens().size(), 4u); }

}  // namespace
}  // namespace ptodiff
