// `ptodiff interp`: run one program as written on an interpreter and report its outputs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/ptodiff/CommandSupport.h"

namespace CLI {
class App;
}

namespace ptodiff {

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
