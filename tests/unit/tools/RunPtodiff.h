// Runs the built ptodiff binary as a user would (through the shell, inside a folder) and captures
// its exit status and both output streams, for the command-line tests.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/unit/tools/TempDir.h"

namespace ptodiff::testing {

struct Outcome {
  int exitCode = -1;  // 128 + signal number when ptodiff was killed
  std::string out, err;
};

/// Runs `ptodiff ARGS` inside `dir` (so file names in messages are the short relative ones), keeping
/// the captured streams in `scratch`.
inline Outcome runPtodiff(const std::filesystem::path& dir, const std::string& args,
                          const std::filesystem::path& scratch) {
  const std::string outFile = (scratch / ".stdout").string(), errFile = (scratch / ".stderr").string();
  const std::string command =
      "cd '" + dir.string() + "' && '" PTODIFF_BINARY "' " + args + " >'" + outFile + "' 2>'" + errFile + "'";
  const int status = std::system(command.c_str());
  Outcome o;
  o.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = readFileBytes(outFile);
  o.err = readFileBytes(errFile);
  return o;
}

inline Outcome runPtodiff(const TempDir& dir, const std::string& args) { return runPtodiff(dir.path(), args, dir.path()); }

}  // namespace ptodiff::testing
