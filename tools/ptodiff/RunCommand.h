// `ptodiff run`: one differential case (oracle/Differential.h) and its verdict table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/ptodiff/InterpCommand.h"

namespace CLI {
class App;
}

namespace ptodiff {

struct RunOptions {
  std::string program;
  std::string casePath;              // empty: PROGRAM's sibling NAME.case.json if it exists
  std::string planner;               // PYPTO, DSA_RP, PTOAS or all; empty: the case's planners
  std::string target;                // a2a3 or a5; empty: the case's target
  bool noBufferIR = false;
  std::string injectFault;           // a catalogue fault; empty: the case's ("inject_fault"), else none
  std::vector<std::string> inputs;   // NAME=FILE.npy
  std::vector<std::string> scalars;  // NAME=VALUE
  std::optional<int64_t> blockNum;
  std::string function;
  int64_t stepBudget = 1'000'000;
  std::string saveOutputs;
  bool json = false;
  std::string reference;             // a Tile program judging a Buffer file
  std::string toleranceProfile = "cpu";
  bool symbolic = false;             // also the case's "symbolic": true
};

/// Declares the `run` subcommand and its options on `app`, binding them to `options`.
CLI::App* addRunCommand(CLI::App& app, RunOptions& options);

/// Runs the command; returns the exit status (0 every verdict passes; 1 a failing verdict other
/// than invalid-program; 2 invalid-program). Input errors propagate as DiagnosticError.
int runRunCommand(const RunOptions& options, SourceRegistry& sources);

}  // namespace ptodiff
