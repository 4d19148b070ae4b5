// `ptodiff compile`: run the reference lowering pipeline on a program and print the result (or the
// IR after chosen passes) in the text format.
#pragma once

#include <string>
#include <vector>

#include "tools/ptodiff/InterpCommand.h"

namespace CLI {
class App;
}

namespace ptodiff {

struct CompileOptions {
  std::string program;
  std::string planner = "PYPTO";
  std::string target = "a2a3";
  bool noBufferIR = false;
  std::string injectFault;  // a catalogue fault (compiler/faults); empty: none
  bool printAfterAll = false;
  std::vector<std::string> printAfter;
  std::string stopAfter;
  bool verifyEach = false;
  bool explainSelection = false;
};

/// Declares the `compile` subcommand and its options on `app`, binding them to `options`.
CLI::App* addCompileCommand(CLI::App& app, CompileOptions& options);

/// Runs the command; returns the exit status. Input errors and passes rejecting the program
/// propagate as DiagnosticError (exit 2 in main); a broken pass invariant or a pass that is not
/// available yet propagates as std::logic_error (exit 3).
int runCompileCommand(const CompileOptions& options, SourceRegistry& sources);

}  // namespace ptodiff
