// `ptodiff reduce`: minimise a failing program or reproducer folder (fuzz/reduce/Reducer.h).
#pragma once

#include <cstdint>
#include <string>

#include "tools/ptodiff/CommandSupport.h"

namespace CLI {
class App;
}

namespace ptodiff {

struct ReduceCommandOptions {
  std::string input;      // PROGRAM.py or a reproducer folder
  std::string casePath;   // empty: the folder's case.json, or PROGRAM's sibling NAME.case.json
  std::string planner;    // PYPTO, DSA_RP, PTOAS or all; empty: the case's planners
  std::string target;     // a2a3 or a5; empty: the case's target
  std::string reference;  // a Tile program judging a Buffer INPUT (as `ptodiff run --reference`)
  std::string signature;  // the signature to keep; empty: the folder's, else the input's first failure
  std::string test;       // external interestingness command; empty: the same signature
  double testTimeout = 10.0;
  std::string time = "60s";
  int jobs = 1;
  std::string out;        // empty: INPUT's sibling NAME.reduced
  int64_t stepBudget = 1'000'000;
};

/// Declares the `reduce` subcommand and its options on `app`, binding them to `options`.
CLI::App* addReduceCommand(CLI::App& app, ReduceCommandOptions& options);

/// Runs the command; returns the exit status: 0 reduced (the output still shows the failure),
/// 2 bad usage, bad input, or an input that does not show the failure to keep. Input errors
/// propagate as DiagnosticError.
int runReduceCommand(const ReduceCommandOptions& options, SourceRegistry& sources);

}  // namespace ptodiff
