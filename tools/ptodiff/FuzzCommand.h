// `ptodiff fuzz`, `ptodiff fuzz merge` and `ptodiff replay`: the campaign driver's command line
// (docs/cli.md). The campaign itself lives in fuzz/campaign.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/campaign/CaseRunner.h"
#include "tools/ptodiff/InterpCommand.h"

namespace CLI {
class App;
}

namespace ptodiff {

struct FuzzOptions {
  std::string time;                // "60s", "5m", "1h", "90" (seconds); default 60s without --cases
  std::optional<uint64_t> cases;
  uint64_t seed = 1;
  int jobs = 0;                    // 0: every processor
  std::vector<std::string> planners;  // empty: all three
  std::string features;            // empty: swarm draw
  std::string target = "a2a3";
  std::string out = "fuzz-out";
  std::string shard = "0/1";
  bool resume = false;
  uint64_t stepBudget = 1'000'000;
  std::string shrinkTime = "10s";
  std::string progressInterval = "10s";
  std::string injectFault;         // a catalogue fault every case injects (compiler/faults); empty: none
  bool stopOnFailure = false;      // stop at the first failing case (qualification, ci/qualify)
  std::string caseTimeout = "60s"; // per-case wall-clock budget (supervised runs)
  bool inProcess = false;          // run cases in this process: no crash recovery, no --case-timeout
  uint64_t symbolicEvery = fuzz::kSymbolicEvery;  // symbolic equivalence on one case in N (0: off)
  // fuzz merge
  std::vector<std::string> mergeDirs;
  std::string mergeOut = "fuzz-merged";
};

struct ReplayOptions {
  std::string folder;
  uint64_t stepBudget = 1'000'000;
};

struct FuzzCommands {
  CLI::App* fuzz = nullptr;
  CLI::App* merge = nullptr;
  CLI::App* replay = nullptr;
};

/// Declares `fuzz` (with its `merge` subcommand) and `replay` on `app`.
FuzzCommands addFuzzCommands(CLI::App& app, FuzzOptions& fuzz, ReplayOptions& replay);

/// Exit status: 0 no failing case, 1 failures, 2 bad usage (unparsable time, shard, features,
/// planners; a checkpoint of another configuration) or an output folder that cannot be written.
/// Interrupted by SIGINT/SIGTERM, it reports what ran and exits 0 or 1 all the same.
int runFuzzCommand(const FuzzOptions& options);
int runFuzzMergeCommand(const FuzzOptions& options);
/// 0 the case passes; 1 a failing verdict other than invalid-program; 2 invalid-program or an
/// unreadable reproducer (program and case errors propagate as DiagnosticError).
int runReplayCommand(const ReplayOptions& options, SourceRegistry& sources);

/// "60s", "5m", "1h", "250ms", "90" -> seconds; nullopt when malformed or negative.
std::optional<double> parseDuration(const std::string& text);

}  // namespace ptodiff
