// LowerTileToBuffer goldens: tests/golden/lower-buffer/*.py.
//
// Each file is a planned Tile program (MemRefs on every tile; `addr=` roots for the addressed
// planners) with header comments and, after the program, the expected Buffer program per planner:
//
//   # planners: PYPTO DSA_RP PTOAS   (required; the first names the planner the written plan is for)
//   # rules: P1 P2 ...                (the contract-rules.md IDs the file covers; required)
//   # target: a5                      (optional, default a2a3)
//   <planned program>
//   # ---- expected ----              (the first planner's output, and every planner's printing the same)
//   # <printed program, as comments>
//   # ---- expected PTOAS ----        (only for a planner whose output differs from the first's)
//
// Every listed planner lowers the plan in the form it states plans in: an addressed planner (PYPTO,
// DSA_RP) takes an addressed plan as written; PTOAS takes an addressed plan in its addressless form
// (the same roots without `addr=`, MemRef offsets relative to their root: semantics.md §3), which is
// the plan before address placement. An addressless plan cannot be given addresses, so it lists
// PTOAS only. Per planner, the test runs the pass, compares the printed result, checks that it
// verifies, round-trips through the parser and that running the pass again changes nothing (C8), and
// that the input passes VerifyTileStorage. PTODIFF_BLESS=1 rewrites the expected sections from the
// pass's output instead of comparing.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
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

constexpr std::string_view kExpectedMarker = "# ---- expected";

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

/// The program part of a golden (everything before its first expected section).
std::string inputOf(const std::string& text) { return text.substr(0, text.find(kExpectedMarker)); }

/// The value of a `# key: value` header line, or nullopt.
std::optional<std::string> header(const std::string& text, const std::string& key) {
  std::istringstream in(inputOf(text));
  const std::string prefix = "# " + key + ":";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) {
      std::string value = line.substr(prefix.size());
      value.erase(0, value.find_first_not_of(' '));
      return value;
    }
  }
  return std::nullopt;
}

/// The planners of the `# planners:` line, in order; the first is the written plan's planner.
std::vector<Planner> plannersOf(const std::string& text, const fs::path& path) {
  std::optional<std::string> line = header(text, "planners");
  if (!line) throw std::runtime_error(path.string() + " names no planners ('# planners: PYPTO PTOAS ...')");
  std::vector<Planner> out;
  std::istringstream in(*line);
  for (std::string name; in >> name;) {
    std::optional<Planner> p = parsePlanner(name);
    if (!p) throw std::runtime_error(path.string() + ": unknown planner '" + name + "'");
    out.push_back(*p);
  }
  if (out.empty()) throw std::runtime_error(path.string() + ": '# planners:' lists no planner");
  return out;
}

/// Expected sections by planner name ("" = the first planner's section).
std::map<std::string, std::string> expectedSections(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line, current;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind(kExpectedMarker, 0) == 0) {
      static const std::regex kName(R"(^\s*(\w*)\s*-+\s*$)");
      std::smatch m;
      const std::string rest = line.substr(kExpectedMarker.size());
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

/// Rewrites the expected sections: the first planner's output, then a section for each planner
/// whose output differs from it.
void bless(const fs::path& path, const std::string& text, const std::vector<Planner>& planners,
           const std::map<Planner, std::string>& printed) {
  std::string head = inputOf(text);
  while (!head.empty() && head.back() == '\n') head.pop_back();
  const std::string& first = printed.at(planners.front());
  std::string out = head + "\n\n" + std::string(kExpectedMarker) + " ----\n" + commented(first);
  for (Planner p : planners)
    if (printed.at(p) != first)
      out += std::string(kExpectedMarker) + " " + std::string(plannerName(p)) + " ----\n" + commented(printed.at(p));
  std::ofstream(path, std::ios::binary) << out;
}

/// An addressed plan as PTOAS states it: each root loses its `addr=`, and each MemRef offset,
/// absolute under an addressed root, becomes relative to the root (semantics.md §3). A runtime
/// offset (-1) stays unknown. Edits stay within their lines, so source locations are unchanged.
std::string addresslessForm(const std::string& input, const fs::path& path) {
  static const std::regex kRoot(R"((\w+): pl\.Ptr = pl\.tile\.alloc\((pl\.Mem\.\w+), (\d+), addr=(\d+)\))");
  static const std::regex kMemRef(R"(pl\.MemRef\((\w+), ([^,()]+), (\d+)\))");
  std::map<std::string, int64_t> base;
  for (auto it = std::sregex_iterator(input.begin(), input.end(), kRoot); it != std::sregex_iterator(); ++it)
    base[(*it)[1].str()] = std::stoll((*it)[4].str());
  std::string out = std::regex_replace(input, kRoot, "$1: pl.Ptr = pl.tile.alloc($2, $3)");
  std::string rewritten;
  auto last = out.cbegin();
  for (auto it = std::sregex_iterator(out.begin(), out.end(), kMemRef); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    rewritten.append(last, m[0].first);
    last = m[0].second;
    const std::string root = m[1].str(), offset = m[2].str();
    if (!base.count(root)) throw std::runtime_error(path.string() + ": MemRef root '" + root + "' has no addr=");
    if (offset == "-1") {
      rewritten += m[0].str();
      continue;
    }
    if (!std::regex_match(offset, std::regex(R"(\d+)")))
      throw std::runtime_error(path.string() + ": cannot make the symbolic MemRef offset '" + offset +
                               "' relative to its root; expected a constant or -1");
    rewritten += "pl.MemRef(" + root + ", " + std::to_string(std::stoll(offset) - base.at(root)) + ", " +
                 m[3].str() + ")";
  }
  rewritten.append(last, out.cend());
  return rewritten;
}

/// The planned input `planner` lowers: the written plan, or its addressless form for PTOAS.
std::string inputFor(Planner planner, const std::string& text, const std::vector<Planner>& planners,
                     const fs::path& path) {
  const bool writtenAddressed = plannerAssignsAddresses(planners.front());
  if (plannerAssignsAddresses(planner) == writtenAddressed) return inputOf(text);
  if (writtenAddressed) return addresslessForm(inputOf(text), path);
  throw std::runtime_error(path.string() + ": the " + std::string(plannerName(planner)) +
                           " planner needs addresses, which an addressless plan does not give; list PTOAS only");
}

PassContext contextOf(const std::string& text, Planner planner) {
  PassContext context;
  context.verifyEach = true;
  context.planner = planner;
  if (std::optional<std::string> target = header(text, "target")) {
    const Target* t = findTarget(*target);
    if (!t) throw std::runtime_error("unknown target '" + *target + "'");
    context.target = t;
  }
  return context;
}

/// Lowers `input` under `context`, checks the output (verifies, round-trips, postcondition, C8) and
/// returns its print.
std::string lowerChecked(const std::string& input, const PassContext& context, const fs::path& path) {
  Program program = parseProgramText(input, path.filename().string());
  std::unique_ptr<Pass> pass = createLowerTileToBufferPass();
  bool changed = false;
  try {
    changed = pass->run(program, context);
  } catch (const DiagnosticError& e) {
    ADD_FAILURE() << formatDiagnostic(e.diagnostic());
    return {};
  }
  EXPECT_TRUE(changed) << "the pass converted nothing";
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
  return printed;
}

class LowerBufferGoldenFile : public testing::TestWithParam<GoldenFile> {};

TEST_P(LowerBufferGoldenFile, LowersToTheExpectedBufferProgramForEveryPlanner) {
  const GoldenFile& f = GetParam();
  const std::string text = readFile(f.path);
  std::optional<std::string> rules = header(text, "rules");
  ASSERT_TRUE(rules && !rules->empty()) << f.path << " names no contract rules ('# rules: ...')";
  const std::vector<Planner> planners = plannersOf(text, f.path);

  std::map<Planner, std::string> printed;
  for (Planner p : planners) {
    SCOPED_TRACE(std::string(plannerName(p)));
    printed[p] = lowerChecked(inputFor(p, text, planners, f.path), contextOf(text, p), f.path);
  }
  if (::testing::Test::HasFailure()) return;  // a failed lowering is not blessed
  if (std::getenv("PTODIFF_BLESS") != nullptr) {
    bless(f.path, text, planners, printed);
    return;
  }
  std::map<std::string, std::string> expected = expectedSections(text);
  ASSERT_TRUE(expected.count("")) << f.path << " has no '# ---- expected ----' section; PTODIFF_BLESS=1 adds it";
  for (const auto& [name, section] : expected) {
    const bool listed = name.empty() || std::any_of(planners.begin(), planners.end(),
                                                    [&](Planner p) { return plannerName(p) == name; });
    EXPECT_TRUE(listed) << f.path << " has an expected section for " << name << ", which '# planners:' does not list";
    if (name == plannerName(planners.front()))
      ADD_FAILURE() << f.path << ": the first planner's output is the '# ---- expected ----' section";
  }
  for (Planner p : planners) {
    const std::string name(plannerName(p));
    const std::string& want = expected.count(name) ? expected[name] : expected[""];
    EXPECT_EQ(printed[p], want) << "the lowering of " << f.path << " under " << name
                                << " changed; PTODIFF_BLESS=1 rewrites it";
  }
}

/// Each planner's input is itself a legal placement under that planner and the golden's target:
/// storage closure, capacity, alignment and no overlap of simultaneously live allocations
/// (VerifyTileStorage, P1/P14/P18), so each golden pins the lowering of a program the pipeline could
/// have produced.
TEST_P(LowerBufferGoldenFile, InputPassesVerifyTileStorageForEveryPlanner) {
  const GoldenFile& f = GetParam();
  const std::string text = readFile(f.path);
  const std::vector<Planner> planners = plannersOf(text, f.path);
  for (Planner p : planners) {
    SCOPED_TRACE(std::string(plannerName(p)));
    Program program = parseProgramText(inputFor(p, text, planners, f.path), f.path.filename().string());
    const std::vector<Diagnostic> invalid = verifyProgram(program);  // fills the slots StorageFacts reads
    ASSERT_TRUE(invalid.empty()) << formatDiagnostic(invalid.front());
    for (const Diagnostic& d : checkTileStorage(program, contextOf(text, p))) ADD_FAILURE() << formatDiagnostic(d);
  }
}

TEST(LowerBufferGoldenDerivation, AnAddressedPlanLosesItsAddressesAndKeepsItsOffsetsRelative) {
  const std::string planned =
      "        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=8192)\n"
      "        v: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 8256, 2048), pl.Mem.Vec] = f()\n"
      "        w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, -1, 3968), pl.Mem.Vec] = g()\n";
  EXPECT_EQ(addresslessForm(planned, "t.py"),
            "        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)\n"
            "        v: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, 64, 2048), pl.Mem.Vec] = f()\n"
            "        w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, -1, 3968), pl.Mem.Vec] = g()\n");
  try {
    addresslessForm("        v: pl.Tile[[16, 32], pl.FP32, pl.MemRef(mem_vec_0, n, 2048), pl.Mem.Vec] = f()\n"
                    "        mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096, addr=0)\n",
                    "t.py");
    ADD_FAILURE() << "a symbolic offset was made relative";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "t.py: cannot make the symbolic MemRef offset 'n' relative to its root; expected a constant or -1");
  }
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

TEST(LowerBufferGoldenSuite, SeedExamplesPinBothAddressedAndAddresslessOutput) {
  // Seed 000's examples, where addressed planners print `addr=` and PTOAS prints none: each golden
  // lists an addressed planner and PTOAS.
  const fs::path dir = fs::path(PTODIFF_TESTS_DIR) / "golden" / "lower-buffer";
  for (const char* example : {"representation.py", "planned_storage_views.py", "windows_slice_assemble.py",
                              "runtime_valid.py", "matrix_cube.py", "branches.py", "loops.py"}) {
    const std::vector<Planner> planners = plannersOf(readFile(dir / example), dir / example);
    EXPECT_TRUE(std::any_of(planners.begin(), planners.end(), plannerAssignsAddresses)) << example;
    EXPECT_TRUE(std::count(planners.begin(), planners.end(), Planner::PTOAS)) << example;
  }
}

}  // namespace
}  // namespace ptodiff
