#include "tools/ptodiff/FuzzCommand.h"

#include <omp.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "fuzz/campaign/Campaign.h"
#include "fuzz/campaign/CaseRunner.h"
#include "fuzz/campaign/Report.h"
#include "fuzz/campaign/Reproducer.h"
#include "fuzz/campaign/Supervisor.h"
#include "tools/ptodiff/CommandSupport.h"

namespace ptodiff {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kFuzzSummary =
    "Run a fuzz campaign: generate random kernels, run each differential case, deduplicate failures by\n"
    "signature, save a reproducer per new signature and write report.json, report.md and junit.xml.";

constexpr const char* kFuzzDescription =
    "Case i is a pure function of (--seed, i, configuration, version), whatever --jobs is: the same seed\n"
    "and options give the same cases, verdicts and verdict_digest on every machine. --shard K/N (K from 0)\n"
    "runs cases K, K+N, K+2N, ...; 'ptodiff fuzz merge DIR...' combines the shards' outputs. A killed\n"
    "campaign continues from its last checkpoint with --resume (same options, same --out).\n"
    "Cases run in a worker process: a case that kills it with a signal gets a `crash` verdict, one that runs\n"
    "past --case-timeout a `timeout` verdict, and the campaign goes on. SIGINT/SIGTERM finish the batch in\n"
    "flight and write the reports for what ran.\n"
    "Exit status: 0 no failing case; 1 failing cases (reproducers in OUT/repro); 2 bad usage or an\n"
    "output folder that cannot be written.";

/// Set by SIGINT/SIGTERM: the campaign finishes its batch, checkpoints and reports.
std::atomic<bool> stopRequested{false};
extern "C" void requestStop(int) { stopRequested.store(true); }

const std::vector<std::string>& allPlanners() {
  static const std::vector<std::string> planners = {"PYPTO", "DSA_RP", "PTOAS"};
  return planners;
}

/// The per-case runner: the differential library (oracle/Differential.h) on every scalar set.
fuzz::CaseRunner makeRunner(uint64_t stepBudget) {
  return [stepBudget](Program program, const std::vector<CaseSpec>& sets) {
    return fuzz::runDifferentialCase(std::move(program), sets, stepBudget);
  };
}

int fuzzUsageError(const std::string& message) {
  std::cerr << "ptodiff fuzz: error: " << message << "\n";
  return kExitBadInput;
}

std::string clockText(double seconds) {
  const auto s = static_cast<long long>(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

/// The progress line: refreshed in place on a terminal, a plain line every `interval` otherwise.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(double interval) : terminal_(::isatty(STDERR_FILENO) != 0), interval_(interval) {}

  void update(const fuzz::CampaignState& s, bool final) {
    const double since = std::chrono::duration<double>(Clock::now() - last_).count();
    if (!final && since < (terminal_ ? 0.2 : interval_)) return;
    if (final && !terminal_ && printed_ == s.cases) return;  // the periodic line already said it
    last_ = Clock::now();
    printed_ = s.cases;
    size_t covered = 0;
    for (uint64_t n : s.featureCases) covered += n > 0 ? 1 : 0;
    std::ostringstream line;
    line << "[fuzz] " << s.cases << " cases, " << static_cast<long long>(fuzz::casesPerSecond(s)) << " cases/s, "
         << clockText(s.elapsedSeconds) << " elapsed, " << s.failingCases << " failures, " << s.signatures.size()
         << " signatures, features " << covered << "/" << fuzz::kNumFeatures;
    if (terminal_) std::cerr << "\r" << line.str() << "\033[K" << (final ? "\n" : "") << std::flush;
    else std::cerr << line.str() << "\n" << std::flush;
  }

 private:
  bool terminal_;
  double interval_;
  Clock::time_point last_ = Clock::now();
  uint64_t printed_ = ~uint64_t{0};
};

bool parseShard(const std::string& text, uint64_t& index, uint64_t& count) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) return false;
  try {
    size_t used = 0;
    index = std::stoull(text.substr(0, slash), &used);
    if (used != slash) return false;
    count = std::stoull(text.substr(slash + 1), &used);
    if (used != text.size() - slash - 1) return false;
  } catch (const std::exception&) {
    return false;
  }
  return count > 0 && index < count && text.find('-') == std::string::npos;
}

}  // namespace

std::optional<double> parseDuration(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::string unit = text.substr(used);
  double scale = 0.0;
  if (unit.empty() || unit == "s") scale = 1.0;
  else if (unit == "ms") scale = 0.001;
  else if (unit == "m") scale = 60.0;
  else if (unit == "h") scale = 3600.0;
  else return std::nullopt;
  if (!(value >= 0.0) || value * scale > 1e9) return std::nullopt;
  return value * scale;
}

FuzzCommands addFuzzCommands(CLI::App& app, FuzzOptions& o, ReplayOptions& r) {
  FuzzCommands cmds;
  CLI::App* fuzz = app.add_subcommand("fuzz", kFuzzSummary);
  fuzz->footer(std::string(kFuzzDescription));
  auto* time = fuzz->add_option("--time", o.time, "Wall-clock budget: 60s, 5m, 1h (default 60s without --cases)");
  auto* cases = fuzz->add_option("--cases", o.cases, "Run exactly N cases (in this shard)");
  time->excludes(cases);
  fuzz->add_option("--seed", o.seed, "Campaign seed")->capture_default_str();
  fuzz->add_option("--jobs,-j", o.jobs, "Worker threads (default: every processor)")->check(CLI::Range(0, 1024));
  fuzz->add_option("--planners", o.planners, "Planners to lower with: PYPTO, DSA_RP, PTOAS (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"PYPTO", "DSA_RP", "PTOAS"}));
  fuzz->add_option("--features", o.features,
                   "A fixed feature subset instead of the swarm draw: comma-separated names (docs/fuzz.md)");
  fuzz->add_option("--target", o.target, "Target: a2a3 or a5")->check(CLI::IsMember({"a2a3", "a5"}))->capture_default_str();
  fuzz->add_option("--out", o.out, "Output folder: reports, checkpoint, repro/")->capture_default_str();
  fuzz->add_option("--shard", o.shard, "Run the K-th (from 0) of N disjoint slices of the cases")->capture_default_str();
  fuzz->add_flag("--resume", o.resume, "Continue the campaign in --out from its checkpoint");
  addInjectFaultOption(fuzz, o.injectFault);
  fuzz->add_flag("--stop-on-failure", o.stopOnFailure,
                 "Stop after the first failing case (still shrunk and reported); report.json's first_failing_case "
                 "is the same for any --jobs, first_failure_seconds is wall-clock");
  fuzz->add_option("--step-budget", o.stepBudget, "Executed statements per interpreter run before `timeout`")
      ->capture_default_str();
  fuzz->add_option("--symbolic-every", o.symbolicEvery,
                   "Check symbolic equivalence (formula for formula) on one case in N, chosen by input seed; 0: never")
      ->capture_default_str();
  fuzz->add_option("--shrink-time", o.shrinkTime, "Shrinking budget per new signature (0 disables)")
      ->capture_default_str();
  fuzz->add_option("--progress-interval", o.progressInterval, "Period of the progress line when stderr is not a terminal")
      ->capture_default_str();
  fuzz->add_option("--case-timeout", o.caseTimeout,
                   "Wall-clock budget per case: a case running longer is killed with a `timeout` verdict")
      ->capture_default_str();
  fuzz->add_flag("--in-process", o.inProcess,
                 "Run the cases in this process (for a debugger): a crashing case ends the campaign, no --case-timeout");
  CLI::App* merge = fuzz->add_subcommand("merge", "Merge the outputs of the shards of one campaign");
  merge->add_option("DIR", o.mergeDirs, "Output folders of the shards")->required()->check(CLI::ExistingDirectory);
  merge->add_option("--out", o.mergeOut, "Folder for the merged reports and reproducers")->capture_default_str();
  CLI::App* replay = app.add_subcommand("replay", "Re-run a saved reproducer folder and print its verdict");
  replay->add_option("DIR", r.folder, "Reproducer folder (program.py, case.json, .npy inputs)")
      ->required()
      ->check(CLI::ExistingDirectory);
  replay->add_option("--step-budget", r.stepBudget, "Executed statements per interpreter run before `timeout`")
      ->capture_default_str();
  cmds.fuzz = fuzz;
  cmds.merge = merge;
  cmds.replay = replay;
  return cmds;
}

int runFuzzCommand(const FuzzOptions& o) {
  fuzz::CampaignConfig config;
  config.seed = o.seed;
  config.cases = o.cases;
  if (!o.cases) {
    const auto seconds = parseDuration(o.time.empty() ? "60s" : o.time);
    if (!seconds) return fuzzUsageError("--time: '" + o.time + "' is not a duration such as 60s, 5m or 1h");
    config.timeSeconds = *seconds;
  }
  config.jobs = o.jobs > 0 ? o.jobs : omp_get_num_procs();
  config.planners = o.planners.empty() ? allPlanners() : o.planners;
  config.target = o.target;
  if (!o.features.empty()) {
    std::string bad;
    auto set = fuzz::FeatureSet::parse(o.features, &bad);
    if (!set) return fuzzUsageError("--features: unknown feature '" + bad + "'");
    config.gen.features = *set;
  }
  if (!parseShard(o.shard, config.shardIndex, config.shardCount))
    return fuzzUsageError("--shard: '" + o.shard + "' is not K/N with 0 <= K < N");
  const auto shrink = parseDuration(o.shrinkTime);
  if (!shrink) return fuzzUsageError("--shrink-time: '" + o.shrinkTime + "' is not a duration");
  config.shrinkSeconds = *shrink;
  const auto interval = parseDuration(o.progressInterval);
  if (!interval) return fuzzUsageError("--progress-interval: '" + o.progressInterval + "' is not a duration");
  config.outDir = o.out;
  config.resume = o.resume;
  config.stepBudget = o.stepBudget;
  if (!o.injectFault.empty() && !parseFault(o.injectFault))
    return fuzzUsageError("--inject-fault " + o.injectFault + ": unknown fault; expected one of " + faultNames());
  config.injectFault = o.injectFault;
  config.stopOnFailure = o.stopOnFailure;
  config.symbolicEvery = o.symbolicEvery;
  const auto caseTimeout = parseDuration(o.caseTimeout);
  if (!caseTimeout || *caseTimeout <= 0.0)
    return fuzzUsageError("--case-timeout: '" + o.caseTimeout + "' is not a positive duration");
  if (!o.resume && std::filesystem::exists(std::filesystem::path(o.out) / "checkpoint.json"))
    return fuzzUsageError("--out '" + o.out + "' holds a campaign already: add --resume to continue it, or choose another folder");

  ProgressPrinter progress(*interval);
  fuzz::CampaignHooks hooks;
  hooks.runner = makeRunner(config.stepBudget);
  hooks.progress = [&](const fuzz::CampaignState& s) { progress.update(s, false); };
  stopRequested.store(false);
  hooks.stop = &stopRequested;
  std::signal(SIGINT, requestStop);
  std::signal(SIGTERM, requestStop);
  // A file-size limit (ulimit -f) then fails the write with EFBIG, reported like a full disk.
  std::signal(SIGXFSZ, SIG_IGN);

  fuzz::CampaignResult result;
  try {
    if (o.inProcess) {
      result = fuzz::runCampaign(config, hooks);
    } else {
      fuzz::SupervisorOptions supervision;
      supervision.caseTimeoutSeconds = *caseTimeout;
      result = fuzz::runSupervisedCampaign(config, hooks, supervision);
    }
    fuzz::writeReports(config, result.state);
  } catch (const std::invalid_argument& e) {
    return fuzzUsageError(e.what());
  } catch (const std::runtime_error& e) {
    return fuzzUsageError(e.what());
  }
  progress.update(result.state, true);
  const fuzz::CampaignState& s = result.state;
  std::cout << "ptodiff fuzz: " << s.cases << " cases (" << s.interpreterRuns << " interpreter runs) in "
            << clockText(s.elapsedSeconds) << ", " << static_cast<long long>(fuzz::casesPerSecond(s))
            << " cases/s with " << config.jobs << " jobs; " << s.failingCases << " failing cases, "
            << s.signatures.size() << " distinct signatures"
            << (result.interrupted ? " (interrupted: continue with --resume)" : "")
            << (result.stoppedOnFailure ? " (stopped at the first failing case)" : "") << "\n";
  if (config.stopOnFailure && s.firstFailingCase)
    std::cout << "  first failing case " << *s.firstFailingCase << " after " << std::fixed << std::setprecision(1)
              << s.firstFailureSeconds.value_or(0.0) << " s\n" << std::defaultfloat;
  for (const fuzz::SignatureRecord* r : fuzz::signaturesInCaseOrder(s))
    std::cout << "  " << r->signature << " (first case " << r->firstCase << ", " << r->count << "x): "
              << (r->replayCommand.empty() ? "no reproducer" : r->replayCommand) << "\n";
  std::cout << "report: " << (std::filesystem::path(config.outDir) / "report.md").string() << "\n";
  return s.failingCases > 0 ? kExitFailingVerdict : kExitPass;
}

int runFuzzMergeCommand(const FuzzOptions& o) {
  std::vector<std::filesystem::path> dirs(o.mergeDirs.begin(), o.mergeDirs.end());
  fuzz::CampaignState merged;
  try {
    merged = fuzz::mergeShards(dirs, o.mergeOut);
  } catch (const std::exception& e) {
    return fuzzUsageError(e.what());
  }
  std::cout << "ptodiff fuzz merge: " << dirs.size() << " shards, " << merged.cases << " cases, "
            << merged.failingCases << " failing cases, " << merged.signatures.size() << " distinct signatures\n"
            << "report: " << (std::filesystem::path(o.mergeOut) / "report.md").string() << "\n";
  return merged.failingCases > 0 ? kExitFailingVerdict : kExitPass;
}

int runReplayCommand(const ReplayOptions& o, SourceRegistry& sources) {
  sources.setProgramFile((std::filesystem::path(o.folder) / "program.py").string());
  fuzz::LoadedReproducer repro = fuzz::loadReproducer(o.folder);
  if (repro.program.source) sources.add(repro.program.source);
  const fuzz::CaseOutcome outcome = makeRunner(o.stepBudget)(repro.program.clone(), {repro.spec});
  std::set<std::string> seen;
  bool failing = false, invalid = false;
  for (const fuzz::Verdict& v : outcome.failures) {
    const std::string sig = fuzz::signatureOf(v);
    seen.insert(sig);
    (v.kind == "invalid-program" ? invalid : failing) = true;
    std::cout << sig << ": " << v.detail << "\n";
  }
  if (outcome.failures.empty()) std::cout << "pass\n";
  if (!repro.signature.empty())
    std::cout << (seen.count(repro.signature) ? "reproduced: " : "not reproduced: expected ") << repro.signature << "\n";
  if (failing) return kExitFailingVerdict;
  return invalid ? kExitBadInput : kExitPass;
}

}  // namespace ptodiff
