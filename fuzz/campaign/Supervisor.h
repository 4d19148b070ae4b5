// Crash- and hang-tolerant campaigns: `ptodiff fuzz` supervises a forked worker process that runs
// runCampaign (docs/robustness.md, "Fault tolerance of long runs").
//
// The worker records the case(s) it is busy with in shared memory (InFlight.h) and checkpoints as
// usual. When it dies from a signal, the supervisor blames the one case in flight and records a
// `crash` verdict with signature `crash/-/signal-SIGSEGV/-/-` (the signal's name as the stage);
// when a case overruns the per-case wall-clock budget, the supervisor kills the worker and records
// `timeout/-/wall-clock/-/-`. Then it forks a new worker that continues the run's checkpoint: the
// cases since the checkpoint run again (they are pure functions of (seed, g, configuration)), the
// blamed case is consumed with its decided verdict instead of running, and its reproducer is the
// case as generated (shrinking would only hit the fault again). When several cases were in flight,
// the new worker runs them one at a time until the culprit shows, so every verdict, count and the
// digest are the same for any --jobs; wall-clock timeouts are the one machine-dependent verdict.
//
// Stop requests (SIGINT/SIGTERM, hooks.stop) are forwarded to the worker, which finishes its batch,
// checkpoints and exits; the result is then read back from the checkpoint.
#pragma once

#include <string>

#include "fuzz/campaign/Campaign.h"

namespace ptodiff::fuzz {

struct SupervisorOptions {
  /// A case (or the shrinking of a new signature, which gets this plus twice the shrink budget)
  /// running longer than this is killed with a `timeout` verdict.
  double caseTimeoutSeconds = 60.0;
};

/// Runs `config` (which needs an outDir: the checkpoint carries the state between workers) in
/// forked worker processes and returns the final state as read back from the checkpoint
/// (`records` stays empty). Must be called before the process has run an OpenMP parallel region
/// (libgomp's thread pool does not survive fork). Throws std::runtime_error for an unwritable
/// output folder, a worker error (its message), or a worker that died outside any case or twice on
/// the same case.
CampaignResult runSupervisedCampaign(const CampaignConfig& config, const CampaignHooks& hooks,
                                     const SupervisorOptions& options);

/// The verdict recorded for a case whose worker died from `signal` in `phase`.
Verdict signalVerdict(int signal, uint64_t caseIndex, CasePhase phase);
/// The verdict recorded for a case that ran past the per-case wall-clock budget.
Verdict wallClockVerdict(double budgetSeconds, uint64_t caseIndex, CasePhase phase);

/// "SIGSEGV", "SIGABRT", ...; "signal N" when the number has no name.
std::string signalName(int signal);

}  // namespace ptodiff::fuzz
