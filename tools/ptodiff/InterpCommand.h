// `ptodiff interp`: run one program as written on an interpreter and report its outputs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/SourceLoc.h"

namespace CLI {
class App;
}

namespace ptodiff {

/// Exit statuses of the ptodiff program (DESIGN.md, "Command line").
enum ExitCode : int {
  kExitPass = 0,
  kExitFailingVerdict = 1,  // timeout, race: any failing verdict other than invalid-program
  kExitBadInput = 2,        // bad usage; unreadable or unverifiable program, case or .npy; invalid-program
  kExitInternalError = 3,   // a bug in ptodiff itself
};

/// The text files read so far, so a diagnostic can quote its line under a caret.
class SourceRegistry {
 public:
  void add(std::shared_ptr<const SourceFile> source) { sources_[source->name] = std::move(source); }
  /// The file that located diagnostics without a file name refer to.
  void setProgramFile(std::string name) { programFile_ = std::move(name); }
  const SourceFile* find(const std::string& name) const;
  /// formatDiagnostic with the diagnostic's own file quoted when it was read.
  std::string format(const Diagnostic& d) const;

 private:
  std::map<std::string, std::shared_ptr<const SourceFile>> sources_;
  std::string programFile_;
};

struct InterpOptions {
  std::string program;
  std::string casePath;               // empty: PROGRAM's sibling NAME.case.json if it exists
  std::vector<std::string> inputs;    // NAME=FILE.npy
  std::vector<std::string> scalars;   // NAME=VALUE
  std::optional<int64_t> blockNum;    // overrides the case's block_num
  std::string function;               // overrides the case's function
  int64_t stepBudget = 1'000'000;
  std::string saveOutputs;            // empty: do not save
  std::string interpreter;            // empty: chosen from the function's stage
};

/// Declares the `interp` subcommand and its options on `app`, binding them to `options`.
CLI::App* addInterpCommand(CLI::App& app, InterpOptions& options);

/// Runs the command; returns the exit status. Input errors propagate as DiagnosticError (the
/// caller formats them through `sources`, which holds every file read here).
int runInterpCommand(const InterpOptions& options, SourceRegistry& sources);

}  // namespace ptodiff
