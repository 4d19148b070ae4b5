// The files of the storage hazard suite (tests/hazards/, docs/testing.md), shared by the tests that
// run it (interp/HazardSuiteTest) and reduce it (fuzz/ReduceHazardSuiteTest): each program carries
// its expected verdict in `# KEY: value` header comments.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace ptodiff::hazardsuite {

inline std::filesystem::path hazardsDir() { return std::filesystem::path(PTODIFF_TESTS_DIR) / "hazards"; }

/// The suite's programs, as paths relative to tests/hazards/ ("recip_in_place.py",
/// "clean/cube_fp16.py"), sorted.
inline std::vector<std::string> suitePrograms(const std::string& subdir = "") {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(hazardsDir() / subdir, ec))
    if (entry.path().extension() == ".py")
      names.push_back((subdir.empty() ? fs::path() : fs::path(subdir)) / entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

inline std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The value of the header comment `# KEY: value` (first occurrence), or nullopt.
inline std::optional<std::string> headerValue(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  const std::string prefix = "# " + key + ": ";
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
  return std::nullopt;
}

}  // namespace ptodiff::hazardsuite
