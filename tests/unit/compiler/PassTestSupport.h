// Helpers shared by the pass, selection, planner and storage tests: parse-and-verify, a pass
// context, running the pipeline up to a pass (always with verify-each), and the program suite.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/passes/Pipeline.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"

namespace ptodiff::testsupport {

inline Program parseVerified(const std::string& text, const std::string& name = "test.py") {
  Program p = parseProgramText(text, name);
  verifyOrThrow(p);
  return p;
}

inline PassContext contextFor(Planner planner = Planner::PYPTO, const Target& target = targetA2A3(),
                              bool enableBufferIR = true) {
  PassContext c;
  c.planner = planner;
  c.target = &target;
  c.enableBufferIR = enableBufferIR;
  c.verifyEach = true;
  return c;
}

/// The pipeline up to and including `stopAfter`, verify-each on.
inline Program lowerUpTo(const Program& p, const PassContext& context, const std::string& stopAfter) {
  PassManagerOptions o;
  o.verifyEach = true;
  o.stopAfter = stopAfter;
  return makeLoweringPassManager(o).run(p, context).program;
}

/// A one-kernel program around `body` (8-space indented statements) with parameters `params`.
inline std::string kernelProgram(const std::string& params, const std::string& body,
                                 const std::string& result = "pl.Tensor[[16, 32], pl.FP32]") {
  return "@pl.program\nclass t:\n    @pl.function(type=pl.FunctionType.InCore)\n    def kernel(self, " + params +
         ") -> " + result + ":\n" + body;
}

inline std::string readText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Every program of tests/programs (files holding a `@pl.program` line), sorted.
inline std::vector<std::filesystem::path> suitePrograms() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(PTODIFF_TESTS_DIR) / "programs")) {
    if (e.path().extension() != ".py") continue;
    if (readText(e.path()).find("\n@pl.program") == std::string::npos) continue;
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The program part of a golden file (everything before its first expected section).
inline std::string goldenInput(const std::string& text) {
  size_t at = text.find("# ---- expected");
  return at == std::string::npos ? text : text.substr(0, at);
}

/// Every golden input of tests/golden/lower, sorted.
inline std::vector<std::filesystem::path> lowerGoldens() {
  std::vector<std::filesystem::path> out;
  std::filesystem::path dir = std::filesystem::path(PTODIFF_TESTS_DIR) / "golden" / "lower";
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".py") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ptodiff::testsupport
