// Device runners (docs/device.md, "The runner protocol"). A runner is any command run as
// `RUNNER BUNDLE OUTDIR` that runs every sub-case of BUNDLE and writes OUTDIR/SUB/NAME.npy for each
// Out/InOut tensor; exit status 0 means it ran, anything else (or a signal, or the timeout) is a
// runner failure, which the judge reports without judging the outputs. `sim` is the built-in runner:
// the bundle's lowered.py on ptodiff's Buffer (or planned-Tile) interpreter, standing in for a device.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ptodiff::device {

inline constexpr const char* kSimRunner = "sim";

struct RunnerOptions {
  std::string runner = kSimRunner;  // "sim" or a shell command (BUNDLE and OUTDIR are appended)
  int jobs = 1;                     // bundles run at once
  double timeoutSeconds = 600;      // per bundle; the runner's whole process group is killed after it
};

/// What running one bundle gave.
struct RunnerResult {
  std::string bundle;        // the bundle's folder name (OUTPUTS/BUNDLE holds its outputs)
  std::string status = "ok"; // "ok", "failed" (non-zero exit), "signal" (killed, or sh's exit 128 + N),
                             // "timeout", "error" (could not start)
  int exitCode = 0;
  int signal = 0;
  std::string message;       // the last lines the runner printed, or the sim runner's reason
  bool ok() const { return status == "ok"; }
};

/// Runs every bundle into OUTPUTS/<bundle>/ (recreated), the runner's stdout and stderr going to
/// OUTPUTS/<bundle>.log, and writes OUTPUTS/run.json. Results are in `bundles` order whatever `jobs`.
std::vector<RunnerResult> runBundles(const std::vector<std::filesystem::path>& bundles,
                                     const std::filesystem::path& outputs, const RunnerOptions& options);

/// The sim runner on one bundle. Throws (std::runtime_error or DiagnosticError) with the reason a
/// device run would fail: an unreadable bundle, or a lowered program that faults (hazard, timeout).
void runSim(const std::filesystem::path& bundle, const std::filesystem::path& outdir);

/// OUTPUTS/run.json read back (bundle name -> result); empty when there is none (outputs produced
/// without `ptodiff device run`, e.g. copied from a device host).
std::map<std::string, RunnerResult> readRunResults(const std::filesystem::path& outputs);

}  // namespace ptodiff::device
