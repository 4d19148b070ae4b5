// `ptodiff device export|run|judge`: on-device validation runs (docs/device.md). Argument parsing
// only; bundles, runners and judging live in device/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tools/ptodiff/CommandSupport.h"

namespace CLI {
class App;
}

namespace ptodiff {

struct DeviceOptions {
  // export
  std::string program;
  std::string casePath;
  std::string function;
  std::string fromCampaign;
  std::optional<uint64_t> generate;
  uint64_t seed = 1;
  std::string planner = "PYPTO";
  std::string target = "a2a3";
  std::string exportProfile;  // empty: the target's
  std::string out;
  bool noMatrix = false;
  int64_t stepBudget = 1'000'000;
  // run
  std::string bundles;
  std::string runner;
  int jobs = 1;
  double timeout = 600;
  // judge
  std::string outputs;
  std::string judgeProfile;
  std::string reportDir;
};

struct DeviceCommands {
  CLI::App* device = nullptr;
  CLI::App* exportCmd = nullptr;
  CLI::App* run = nullptr;
  CLI::App* judge = nullptr;
};

/// Declares `device` and its three subcommands on `app`, binding them to `options`.
DeviceCommands addDeviceCommands(CLI::App& app, DeviceOptions& options);

/// export: 0 every requested bundle written; 2 bad input (or a program file that cannot be a bundle).
int runDeviceExport(const DeviceOptions& options, SourceRegistry& sources);
/// run: 0 every runner exit 0; 1 a runner failure.
int runDeviceRun(const DeviceOptions& options);
/// judge: 0 every sub-case passes; 1 a failing sub-case; 2 bad input.
int runDeviceJudge(const DeviceOptions& options);

}  // namespace ptodiff
