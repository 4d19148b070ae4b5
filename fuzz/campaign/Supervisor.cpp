#include "fuzz/campaign/Supervisor.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fuzz/campaign/AtomicFiles.h"
#include "fuzz/campaign/Report.h"

namespace ptodiff::fuzz {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Worker exit statuses (a private protocol between the two processes).
constexpr int kWorkerDone = 0;
constexpr int kWorkerError = 2;
constexpr int kWorkerInterrupted = 3;

/// The shared in-flight table, unmapped when the supervisor returns.
class SharedTable {
 public:
  SharedTable() {
    void* p = ::mmap(nullptr, sizeof(InFlightTable), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error(std::string("cannot map the in-flight table: ") + std::strerror(errno));
    table_ = new (p) InFlightTable;
  }
  ~SharedTable() { ::munmap(table_, sizeof(InFlightTable)); }
  SharedTable(const SharedTable&) = delete;
  SharedTable& operator=(const SharedTable&) = delete;

  InFlightTable& operator*() const { return *table_; }
  InFlightTable* get() const { return table_; }

 private:
  InFlightTable* table_ = nullptr;
};

struct InFlightCase {
  uint64_t caseIndex = 0;
  CasePhase phase = CasePhase::Idle;
};

std::vector<InFlightCase> casesInFlight(const InFlightTable& table, int records) {
  std::vector<InFlightCase> out;
  for (int r = 0; r < records; ++r) {
    const auto phase = static_cast<CasePhase>(table.records[r].phase.load());
    if (phase != CasePhase::Idle) out.push_back({table.records[r].caseIndex.load(), phase});
  }
  return out;
}

/// The case that has run past its budget, if any (read twice: the worker may move on meanwhile).
std::optional<InFlightCase> overrunCase(const InFlightTable& table, int records, double caseSeconds,
                                        double consumeSeconds) {
  const int64_t now = InFlightTable::nowNs();
  for (int r = 0; r < records; ++r) {
    const InFlightRecord& rec = table.records[r];
    const auto phase = static_cast<CasePhase>(rec.phase.load());
    if (phase == CasePhase::Idle) continue;
    const uint64_t g = rec.caseIndex.load();
    const int64_t started = rec.startedNs.load();
    const double limit = phase == CasePhase::Consume ? consumeSeconds : caseSeconds;
    if (static_cast<double>(now - started) < limit * 1e9) continue;
    if (rec.phase.load() == static_cast<uint32_t>(phase) && rec.caseIndex.load() == g && rec.startedNs.load() == started)
      return InFlightCase{g, phase};
  }
  return std::nullopt;
}

[[noreturn]] void runWorker(const CampaignConfig& config, const CampaignHooks& hooks, InFlightTable& table,
                            const CampaignRestart& plan, pid_t supervisor) {
#ifdef __linux__
  // A supervisor killed outright (SIGKILL) takes its worker along: a resumed campaign must not
  // share the output folder with an orphan.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  if (::getppid() != supervisor) ::_exit(kWorkerError);
  // A crashing case is recorded with its reproducer; a core file per crash would only litter the
  // working folder of a long campaign (`ptodiff replay` of the reproducer crashes the same way).
  rlimit core{};
  if (::getrlimit(RLIMIT_CORE, &core) == 0) {
    core.rlim_cur = 0;
    ::setrlimit(RLIMIT_CORE, &core);
  }
  // A crash must end the worker by its signal, which is what the supervisor reads as the in-flight
  // case's verdict; a sanitizer's handler would instead print a report and exit with a status
  // (`ptodiff replay` of the reproducer under the sanitizer build gives the report).
  for (int crash : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(crash, SIG_DFL);
  int status = kWorkerDone;
  try {
    CampaignConfig workerConfig = config;
    workerConfig.resume = true;  // the supervisor wrote the run's checkpoint before the first fork
    CampaignHooks workerHooks = hooks;
    workerHooks.inFlight = &table;
    workerHooks.restart = &plan;
    const CampaignResult result = runCampaign(workerConfig, workerHooks);
    status = result.interrupted ? kWorkerInterrupted : kWorkerDone;
  } catch (const std::exception& e) {
    std::snprintf(table.error, sizeof table.error, "%s", e.what());
    status = kWorkerError;
  } catch (...) {
    std::snprintf(table.error, sizeof table.error, "%s", "the campaign worker failed with an unknown exception");
    status = kWorkerError;
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  // No exit handlers: they belong to the supervisor (and to a test harness around it).
  ::_exit(status);
}

struct WorkerEnd {
  int status = 0;
  std::optional<InFlightCase> overrun;  // the worker was killed for this case's wall-clock overrun
};

WorkerEnd watchWorker(pid_t worker, const InFlightTable& table, int records, const SupervisorOptions& options,
                      double consumeSeconds, const std::atomic<bool>* stop, bool& stopForwarded) {
  WorkerEnd end;
  for (;;) {
    const pid_t r = ::waitpid(worker, &end.status, end.overrun ? 0 : WNOHANG);
    if (r == worker) return end;
    if (r < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    if (end.overrun) continue;
    if (stop && stop->load() && !stopForwarded) {
      // A terminal's ^C reaches the worker too; a `kill` of the supervisor alone is passed on.
      ::kill(worker, SIGINT);
      stopForwarded = true;
    }
    if (auto overrun = overrunCase(table, records, options.caseTimeoutSeconds, consumeSeconds)) {
      end.overrun = overrun;
      ::kill(worker, SIGKILL);
      continue;
    }
    ::usleep(20'000);
  }
}

uint64_t localIndex(const CampaignConfig& config, uint64_t g) { return (g - config.shardIndex) / config.shardCount; }

const char* phaseText(CasePhase phase) {
  switch (phase) {
    case CasePhase::Generate: return "generating";
    case CasePhase::Run: return "running";
    case CasePhase::Consume: return "shrinking the first failure of";
    case CasePhase::Idle: break;
  }
  return "at";
}

}  // namespace

std::string signalName(int signal) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  if (const char* abbrev = ::sigabbrev_np(signal)) return std::string("SIG") + abbrev;
#endif
  return "signal " + std::to_string(signal);
}

Verdict signalVerdict(int signal, uint64_t caseIndex, CasePhase phase) {
  Verdict v;
  v.kind = "crash";
  v.stage = "signal-" + signalName(signal);
  for (char& c : v.stage)
    if (c == ' ') c = '-';
  v.detail = "the campaign worker process died from " + signalName(signal) + " (" + ::strsignal(signal) + ") while " +
             phaseText(phase) + " case " + std::to_string(caseIndex);
  return v;
}

Verdict wallClockVerdict(double budgetSeconds, uint64_t caseIndex, CasePhase phase) {
  Verdict v;
  v.kind = "timeout";
  v.stage = "wall-clock";
  char budget[32];
  std::snprintf(budget, sizeof budget, "%g", budgetSeconds);
  v.detail = std::string("the campaign worker was killed after ") + budget + " s of wall-clock time " +
             phaseText(phase) + " case " + std::to_string(caseIndex) + " (--case-timeout)";
  return v;
}

CampaignResult runSupervisedCampaign(const CampaignConfig& config, const CampaignHooks& hooks,
                                     const SupervisorOptions& options) {
  if (config.outDir.empty()) throw std::invalid_argument("a supervised campaign needs an output folder");
  if (!hooks.runner) throw std::logic_error("runSupervisedCampaign: no runner");
  if (config.shardCount == 0 || config.shardIndex >= config.shardCount)
    throw std::invalid_argument("shard index must be below the shard count");
  const int jobs = std::max(config.jobs, 1);
  if (jobs >= InFlightTable::kMaxRecords) throw std::invalid_argument("--jobs is at most 1024");
  const fs::path out = config.outDir;
  CampaignRestart plan;
  plan.runStart = Clock::now();
  CampaignState initial;
  if (config.resume) {
    initial = readCheckpoint(out, config);  // first: a refused --resume creates nothing
    plan.elapsedAtRunStart = initial.elapsedSeconds;
    ++initial.runs;
  } else {
    initial.fingerprint = configFingerprint(config);
  }
  checkWritableFolder(out);
  checkWritableFolder(out / "repro");
  // The run's own checkpoint: every worker continues it, so a restart is not a new run.
  writeCheckpoint(out, config, initial);
  plan.continuing = true;

  SharedTable table;
  const int records = jobs + 1;  // the worker threads and the consuming thread
  const double consumeSeconds = options.caseTimeoutSeconds + 2.0 * config.shrinkSeconds;
  std::set<std::pair<uint64_t, CasePhase>> blamed;
  bool stopForwarded = false;
  bool interrupted = false;
  for (;;) {
    for (InFlightRecord& r : (*table).records) r.phase.store(static_cast<uint32_t>(CasePhase::Idle));
    (*table).error[0] = '\0';
    std::cout.flush();
    std::cerr.flush();
    const pid_t supervisor = ::getpid();
    const pid_t worker = ::fork();
    if (worker < 0) throw std::runtime_error(std::string("cannot start the campaign worker: ") + std::strerror(errno));
    if (worker == 0) runWorker(config, hooks, *table, plan, supervisor);

    const WorkerEnd end = watchWorker(worker, *table, records, options, consumeSeconds, hooks.stop, stopForwarded);
    if (WIFEXITED(end.status)) {
      const int code = WEXITSTATUS(end.status);
      if (code == kWorkerDone) break;
      if (code == kWorkerInterrupted) {
        interrupted = true;
        break;
      }
      if (code == kWorkerError && (*table).error[0] != '\0') throw std::runtime_error((*table).error);
      throw std::runtime_error("the campaign worker exited with status " + std::to_string(code));
    }
    const int signal = WIFSIGNALED(end.status) ? WTERMSIG(end.status) : 0;
    std::optional<InFlightCase> culprit = end.overrun;
    Verdict verdict;
    if (culprit) {
      verdict = wallClockVerdict(culprit->phase == CasePhase::Consume ? consumeSeconds : options.caseTimeoutSeconds,
                                 culprit->caseIndex, culprit->phase);
    } else {
      const std::vector<InFlightCase> inFlight = casesInFlight(*table, records);
      if (inFlight.empty())
        throw std::runtime_error("the campaign worker died from " + signalName(signal) +
                                 " outside any case; --resume continues from the checkpoint in '" + out.string() + "'");
      if (inFlight.size() == 1) {
        culprit = inFlight.front();
        verdict = signalVerdict(signal, culprit->caseIndex, culprit->phase);
      } else {
        // Several cases were in flight: rerun them one at a time so the signal names one.
        uint64_t last = 0;
        for (const InFlightCase& c : inFlight) last = std::max(last, localIndex(config, c.caseIndex));
        plan.serialThrough = std::max(plan.serialThrough.value_or(0), last);
      }
    }
    if (culprit) {
      if (!blamed.insert({culprit->caseIndex, culprit->phase}).second)
        throw std::runtime_error("case " + std::to_string(culprit->caseIndex) + " stopped the campaign worker twice (" +
                                 verdict.detail + "); --resume continues from the checkpoint in '" + out.string() +
                                 "'");
      if (culprit->phase == CasePhase::Consume) {
        plan.unshrunk.insert(culprit->caseIndex);
      } else {
        plan.verdicts[culprit->caseIndex] = verdict;
        if (culprit->phase == CasePhase::Generate) plan.notGenerated.insert(culprit->caseIndex);
      }
      std::cerr << "[fuzz] case " << culprit->caseIndex << ": " << verdict.detail
                << (culprit->phase == CasePhase::Consume ? "; its reproducer is saved unshrunk"
                                                         : "; verdict " + signatureOf(verdict))
                << "; the worker restarts from the checkpoint\n";
    }
    if (hooks.stop && hooks.stop->load()) {
      interrupted = true;
      break;
    }
  }

  CampaignResult result;
  result.state = readCheckpoint(out, config);
  result.interrupted = interrupted && !(config.cases && result.state.nextLocal >= *config.cases);
  result.stoppedOnFailure = config.stopOnFailure && result.state.failingCases > 0;
  result.runSeconds = std::chrono::duration<double>(Clock::now() - plan.runStart).count();
  return result;
}

}  // namespace ptodiff::fuzz
