// The campaign driver behind `ptodiff fuzz` (spec/fuzz.md "Campaign", DESIGN.md "Scale beyond one
// machine").
//
// Case g (the global index) is a pure function of (campaign seed, g, configuration, version): its
// generator seed is caseSeed(seed, g) and its size g % 100 + 1. Shard K/N runs g = K, K + N, ...
// Cases run in parallel batches (OpenMP) but are consumed strictly in case order, so counts,
// first occurrences of signatures, reproducers and the verdict digest are the same for any --jobs.
// Only timing fields (elapsed, cases/s, phase seconds) depend on the machine.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fuzz/campaign/CaseRunner.h"
#include "fuzz/campaign/InFlight.h"
#include "fuzz/gen/Features.h"
#include "fuzz/gen/ProgramGen.h"

namespace ptodiff::fuzz {

struct CampaignConfig {
  uint64_t seed = 1;
  std::optional<uint64_t> cases;      // cases this shard runs; unset: until timeSeconds
  std::optional<double> timeSeconds;  // wall-clock budget of this run (a resumed run gets a new one)
  int jobs = 1;
  std::vector<std::string> planners = {"PYPTO", "DSA_RP", "PTOAS"};
  std::string target = "a2a3";
  GenConfig gen;                      // gen.features set by --features
  uint64_t shardIndex = 0, shardCount = 1;
  std::string outDir;                 // empty: keep results in memory only (tests)
  bool resume = false;
  uint64_t stepBudget = 1'000'000;    // per interpreter run
  double shrinkSeconds = 10.0;        // shrinking budget per new signature (0: no shrinking)
  double checkpointSeconds = 1.0;     // at most this long between checkpoints
  int batchPerJob = 128;              // cases per worker and batch, at most
  /// A batch starts no case after this long (its first case always starts), so checkpoints, progress
  /// lines and a crashed worker's restart come about this often however slow the cases are.
  double batchSeconds = 2.0;
  std::string injectFault;            // a catalogue fault every case's lowering injects ("": none)
  /// Stop right after the first failing case in case order (qualification, `--stop-on-failure`):
  /// the cases after it in its batch are discarded uncounted, so `cases` is that case's local index
  /// + 1 for any --jobs. Its signatures are still shrunk and reduced, with the full shrinkSeconds
  /// even past timeSeconds (the campaign ends there anyway, and the reduced size is what is measured).
  bool stopOnFailure = false;
  /// Issue 11's symbolic equivalence on one case in this many (chosen by the case's input seed and
  /// written into its case files as `"symbolic": true`); 0: never.
  uint64_t symbolicEvery = kSymbolicEvery;
};

/// Everything that decides the cases and their verdicts (not jobs, time, output folder): a resumed
/// or merged campaign must have the same fingerprint. Includes the ptodiff version.
std::string configFingerprint(const CampaignConfig& config);

/// One deduplicated failure: its first occurrence in case order and how often it was seen.
struct SignatureRecord {
  std::string signature;
  Verdict first;                   // the verdict of the first case that showed it
  uint64_t firstCase = 0;          // global case index
  uint64_t firstCaseSeed = 0;
  uint64_t count = 0;              // failing (case, planner, stage) occurrences
  std::string reproducer;          // folder relative to the output folder ("" without --out)
  int64_t statementsBefore = 0, statementsAfter = 0;
  std::string replayCommand;
};

/// The campaign's running totals; also its checkpoint (Report.h serializes it).
struct CampaignState {
  std::string fingerprint;
  uint64_t nextLocal = 0;        // cases consumed so far in this shard (the resume point)
  uint64_t cases = 0;
  uint64_t failingCases = 0;
  uint64_t outOfContractCases = 0;
  uint64_t interpreterRuns = 0;
  uint64_t verdictDigest = 0xcbf29ce484222325ull;  // FNV-1a over "g programHash verdict\n" in case order
  std::map<std::string, uint64_t> verdictCounts;    // failing verdict kind -> occurrences
  std::array<uint64_t, kNumFeatures> featureCases{};  // cases whose swarm subset held the feature
  std::map<std::string, SignatureRecord> signatures;
  std::map<std::string, double> phaseSeconds;       // generation, shrinking and the runner's phases
  double elapsedSeconds = 0.0;                      // over every (resumed) run
  std::optional<uint64_t> firstFailingCase;         // global index of the first failing case in case order
  /// Wall-clock seconds (steady clock, over every run) from the campaign's start until the first
  /// failing case was known: every case before it, and it, had finished. Machine-dependent timing,
  /// like elapsedSeconds; the case index above is the deterministic part.
  std::optional<double> firstFailureSeconds;
  uint64_t runs = 1;                                // 1 + number of resumes
};

/// One consumed case, kept when CampaignHooks::keepCaseRecords is set (tests, shard checks).
struct CaseRecord {
  uint64_t index = 0;        // global
  uint64_t programHash = 0;  // FNV-1a of the case as showValue prints it
  std::string verdict;       // "pass" or the sorted signatures joined by ";"
};

/// What a supervisor (Supervisor.h) tells the worker process it forks after an earlier worker died:
/// the verdicts it decided itself and how to find the culprit among several cases in flight.
struct CampaignRestart {
  /// Cases (global index) whose verdict is decided (`crash` from a signal, `timeout` from the
  /// wall clock): consumed with that verdict, never run again, their reproducer not shrunk.
  std::map<uint64_t, Verdict> verdicts;
  std::set<uint64_t> notGenerated;  // of those, cases whose generation itself died
  std::set<uint64_t> unshrunk;      // first occurrences whose shrinking died: saved as generated
  /// Batches starting at or before this local index run one case at a time, so that a signal names
  /// exactly one case in flight.
  std::optional<uint64_t> serialThrough;
  /// The checkpoint is this run's own (written by the supervisor or an earlier worker): resuming it
  /// does not count as a new run.
  bool continuing = false;
  std::chrono::steady_clock::time_point runStart;  // the run's start: --time and elapsed count from it
  double elapsedAtRunStart = 0.0;                  // elapsedSeconds of the checkpoint the run began from
};

struct CampaignHooks {
  CaseRunner runner;
  /// Called after every batch (and once at the end) from the calling thread.
  std::function<void(const CampaignState&)> progress;
  /// Set from a signal handler: finish the current batch, checkpoint, report, return.
  const std::atomic<bool>* stop = nullptr;
  bool keepCaseRecords = false;
  /// Set in a worker process of Supervisor.h: the cases in flight are recorded here...
  InFlightTable* inFlight = nullptr;
  /// ... and the supervisor's decisions after a worker died are taken from here.
  const CampaignRestart* restart = nullptr;
};

struct CampaignResult {
  CampaignState state;
  std::vector<CaseRecord> records;
  bool interrupted = false;  // stopped by `stop` before its cases or time ran out
  bool stoppedOnFailure = false;  // stopped by config.stopOnFailure
  double runSeconds = 0.0;   // this run only
};

/// The global index of local case `local` of the configured shard.
inline uint64_t globalCaseIndex(const CampaignConfig& c, uint64_t local) { return c.shardIndex + c.shardCount * local; }
/// The generator size of case g.
inline int caseSize(uint64_t g) { return static_cast<int>(g % 100) + 1; }

/// The case specs (one per scalar set) a campaign runs `c` with.
std::vector<CaseSpec> caseSpecsFor(const GeneratedCase& c, const CampaignConfig& config);

/// Runs the campaign. With outDir: resumes from OUT/checkpoint.json when config.resume (throws
/// std::runtime_error when it is missing or its fingerprint differs), writes a reproducer per new
/// signature into OUT/repro/ and a checkpoint at least every checkpointSeconds. Reports are
/// written by the caller (Report.h).
CampaignResult runCampaign(const CampaignConfig& config, const CampaignHooks& hooks);

/// Shrinks case (seed, size) with RapidCheck's shrink tree of the generator's choices, greedily
/// keeping the first smaller case that still shows `signature`, until none does or `seconds`
/// pass. Returns the smallest case found (the original when none). Not thread-safe (generation).
GeneratedCase shrinkCase(uint64_t seed, int size, const CampaignConfig& config, const CaseRunner& runner,
                         const std::string& signature, double seconds);

}  // namespace ptodiff::fuzz
