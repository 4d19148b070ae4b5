#include "fuzz/campaign/Campaign.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <rapidcheck/Random.h>
#include <rapidcheck/Seq.h>
#include <rapidcheck/Shrinkable.h>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "fuzz/campaign/AtomicFiles.h"
#include "fuzz/campaign/Digest.h"
#include "fuzz/campaign/Report.h"
#include "fuzz/campaign/Reproducer.h"
#include "fuzz/reduce/Reducer.h"

#ifndef PTODIFF_VERSION
#define PTODIFF_VERSION "unknown"
#endif

namespace ptodiff::fuzz {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// One case of a batch, filled by a worker thread and consumed in order by the calling thread.
struct Slot {
  GeneratedCase generated;
  bool generatedOk = false;
  uint64_t programHash = 0;
  CaseOutcome outcome;
  double generationSeconds = 0.0;
  double finishedAt = 0.0;  // seconds since the run's start when the worker finished the case
  bool decided = false;     // the verdict came from CampaignRestart::verdicts: the case never ran here
  bool notStarted = false;  // the batch ended early (deadline or stop request) before this case began
};

/// The kernel as its reproducer's program.py holds it, parsed back: runners see source locations,
/// so verdicts name the op and line, and a replay of the reproducer gives the same signature.
Program locatedProgram(const GeneratedCase& c) { return parseProgramText(printProgram(c.program), "program.py"); }

uint64_t hashCase(const GeneratedCase& c) {
  std::ostringstream os;
  showValue(c, os);  // features, blocks, input seed, scalar sets and the kernel text
  return fnv1a(os.str());
}

/// Marks a record of the in-flight table (when there is one) for as long as it lives.
class InFlightMark {
 public:
  InFlightMark(InFlightTable* table, int record) : table_(table), record_(record) {}
  ~InFlightMark() {
    if (table_) table_->leave(record_);
  }
  void enter(uint64_t g, CasePhase phase) {
    if (table_) table_->enter(record_, g, phase);
  }
  InFlightMark(const InFlightMark&) = delete;
  InFlightMark& operator=(const InFlightMark&) = delete;

 private:
  InFlightTable* table_;
  int record_;
};

/// Generates case g into `slot`; the generator's message when it throws (the slot then holds no case).
std::optional<std::string> generateInto(Slot& slot, uint64_t g, const CampaignConfig& config) {
  try {
    slot.generated = generateCase(caseSeed(config.seed, g), caseSize(g), config.gen);
  } catch (const std::exception& e) {
    slot.generatedOk = false;
    return std::string(e.what());
  }
  slot.generatedOk = true;
  return std::nullopt;
}

/// Generates and runs case g; never throws (a throw becomes a `crash` verdict of its stage). A
/// case the supervisor decided is regenerated (when its generation did not die) but not run.
void fillSlot(Slot& slot, uint64_t g, const CampaignConfig& config, const CampaignHooks& hooks, int record) {
  const CaseRunner& runner = hooks.runner;
  const CampaignRestart* restart = hooks.restart;
  InFlightMark mark(hooks.inFlight, record);
  const auto decided = restart ? restart->verdicts.find(g) : std::map<uint64_t, Verdict>::const_iterator{};
  if (restart && decided != restart->verdicts.end()) {
    slot.decided = true;
    slot.outcome.failures.push_back(decided->second);
    if (restart->notGenerated.count(g)) return;
    mark.enter(g, CasePhase::Generate);
    // It generated before; a failure now keeps the decided verdict regardless.
    if (!generateInto(slot, g, config)) slot.programHash = hashCase(slot.generated);
    return;
  }
  const auto t0 = Clock::now();
  mark.enter(g, CasePhase::Generate);
  if (const std::optional<std::string> error = generateInto(slot, g, config)) {
    slot.outcome.failures.push_back({"crash", "", "generate", "", "", *error, 0});
    return;
  }
  slot.generationSeconds = secondsSince(t0);
  slot.programHash = hashCase(slot.generated);
  mark.enter(g, CasePhase::Run);
  try {
    const auto t1 = Clock::now();
    Program located = locatedProgram(slot.generated);
    const double printParse = secondsSince(t1);
    slot.outcome = runner(std::move(located), caseSpecsFor(slot.generated, config));
    slot.outcome.phaseSeconds["print-parse"] += printParse;
  } catch (const std::exception& e) {
    slot.outcome = {};
    slot.outcome.failures.push_back({"crash", "", "runner", "", "", e.what(), 0});
  }
}

std::string verdictText(const CaseOutcome& outcome) {
  if (outcome.failures.empty()) return "pass";
  std::set<std::string> sigs;
  for (const Verdict& v : outcome.failures) sigs.insert(signatureOf(v));
  std::string text;
  for (const std::string& s : sigs) text += (text.empty() ? "" : ";") + s;
  return text;
}

bool showsSignature(const CaseOutcome& outcome, const std::string& signature, Verdict* found) {
  for (const Verdict& v : outcome.failures)
    if (signatureOf(v) == signature) {
      if (found) *found = v;
      return true;
    }
  return false;
}

struct Shrunk {
  GeneratedCase generated;
  Verdict verdict;
};

Shrunk shrinkTo(uint64_t seed, int size, const CampaignConfig& config, const CaseRunner& runner,
                const std::string& signature, double seconds, const GeneratedCase& original, const Verdict& verdict) {
  Shrunk best{original, verdict};
  if (seconds <= 0.0 || !runner) return best;
  const auto start = Clock::now();
  rc::Shrinkable<GeneratedCase> current = genCase(config.gen)(rc::Random(seed), std::clamp(size, 0, 100));
  for (bool improved = true; improved;) {
    improved = false;
    rc::Seq<rc::Shrinkable<GeneratedCase>> candidates = current.shrinks();
    while (rc::Maybe<rc::Shrinkable<GeneratedCase>> next = candidates.next()) {
      if (secondsSince(start) >= seconds) return best;
      GeneratedCase candidate = next->value();
      // RapidCheck regenerates every pick after a shrunk one, so a "simpler" choice can grow the
      // kernel: only candidates that are no larger are tried.
      if (countStatements(candidate.program) > countStatements(best.generated.program)) continue;
      Verdict found;
      CaseOutcome outcome;
      try {
        outcome = runner(locatedProgram(candidate), caseSpecsFor(candidate, config));
      } catch (const std::exception& e) {
        outcome.failures.push_back({"crash", "", "runner", "", "", e.what(), 0});
      }
      if (!showsSignature(outcome, signature, &found)) continue;
      best = Shrunk{std::move(candidate), found};
      current = *next;
      improved = true;
      break;
    }
  }
  return best;
}

/// The structural reducer judged by the campaign's own runner, so the reproducer keeps the
/// campaign's signature whatever runner is configured. `verdict` becomes the reduced program's.
ReduceState reduceWithRunner(ReduceState start, const CaseRunner& runner, const std::string& signature, double seconds,
                             Verdict& verdict) {
  auto shows = [&](const ReduceState& s, Verdict* out) {
    const CaseOutcome o = runner(s.program.clone(), {s.spec});
    for (const Verdict& f : o.failures)
      if (signatureOf(f) == signature) {
        if (out) *out = f;
        return true;
      }
    return false;
  };
  try {
    ReduceOptions options;
    options.seconds = seconds;
    ReduceResult r = reduceProgram(start, [&](const ReduceState& s) { return shows(s, nullptr); }, options);
    if (r.stats.accepted > 0 && shows(r.best, &verdict)) return std::move(r.best);
  } catch (const std::exception&) {
    // A program the reducer cannot take (it does not verify once re-parsed) stays as shrunk.
  }
  return start;
}

/// Consumes one slot in case order: counts, digest, dedup, shrinking and the reproducer.
void consume(Slot& slot, uint64_t g, const CampaignConfig& config, const CampaignHooks& hooks, CampaignState& state,
             CampaignResult& result, Clock::time_point start) {
  const CaseRunner& runner = hooks.runner;
  const bool keepRecords = hooks.keepCaseRecords;
  const std::string verdict = verdictText(slot.outcome);
  state.verdictDigest = fnv1a(std::to_string(g) + " " + hex64(slot.programHash) + " " + verdict + "\n", state.verdictDigest);
  if (keepRecords) result.records.push_back({g, slot.programHash, verdict});
  ++state.cases;
  ++state.nextLocal;
  state.interpreterRuns += slot.outcome.interpreterRuns;
  state.phaseSeconds["generation"] += slot.generationSeconds;
  for (const auto& [phase, seconds] : slot.outcome.phaseSeconds) state.phaseSeconds[phase] += seconds;
  if (slot.generatedOk) {
    for (Feature f : slot.generated.features.list()) ++state.featureCases[static_cast<size_t>(f)];
    if (!slot.generated.inContract || (slot.generated.sibling && !slot.generated.sibling->inContract))
      ++state.outOfContractCases;
  }
  if (slot.outcome.failures.empty()) return;
  ++state.failingCases;
  for (const Verdict& v : slot.outcome.failures) {
    ++state.verdictCounts[v.kind];
    const std::string signature = signatureOf(v);
    auto [it, isNew] = state.signatures.try_emplace(signature);
    SignatureRecord& rec = it->second;
    ++rec.count;
    if (!isNew) continue;
    rec.signature = signature;
    rec.first = v;
    rec.firstCase = g;
    rec.firstCaseSeed = caseSeed(config.seed, g);
    if (!slot.generatedOk) continue;
    rec.statementsBefore = rec.statementsAfter = countStatements(slot.generated.program);
    if (config.outDir.empty()) continue;
    // The consuming thread's record: a signal or a hang while shrinking names this case.
    InFlightMark mark(hooks.inFlight, std::max(config.jobs, 1));
    mark.enter(g, CasePhase::Consume);
    const auto shrinkStart = Clock::now();
    // Shrinking runs on the consuming thread; it never takes the campaign past its --time, except
    // when the campaign stops at this failure anyway (stopOnFailure).
    const bool capByTime = config.timeSeconds && !config.stopOnFailure;
    double budget = config.shrinkSeconds;
    if (capByTime) budget = std::min(budget, std::max(0.0, *config.timeSeconds - secondsSince(start)));
    // A decided verdict (a signal, a wall-clock overrun) would only recur while shrinking; an
    // interrupted campaign saves what it has.
    const bool unshrinkable = slot.decided || (hooks.restart && hooks.restart->unshrunk.count(g));
    if (unshrinkable || (hooks.stop && hooks.stop->load())) budget = 0.0;
    Shrunk shrunk = shrinkTo(rec.firstCaseSeed, caseSize(g), config, runner, signature, budget, slot.generated, v);
    const std::vector<CaseSpec> specs = caseSpecsFor(shrunk.generated, config);
    const size_t set = std::min(shrunk.verdict.scalarSet, specs.size() - 1);
    Verdict verdict = shrunk.verdict;
    // RapidCheck shrinks the generator's choices; the structural reducer then edits the program
    // itself, with the same cap (spec/fuzz.md, "Campaign").
    ReduceState reduced{shrunk.generated.program.clone(), specs[set]};
    if (capByTime) budget = std::min(budget, std::max(0.0, *config.timeSeconds - secondsSince(start)));
    if (hooks.stop && hooks.stop->load()) budget = 0.0;
    if (budget > 0) reduced = reduceWithRunner(std::move(reduced), runner, signature, budget, verdict);
    state.phaseSeconds["shrinking"] += secondsSince(shrinkStart);
    rec.statementsAfter = countStatements(reduced.program);
    const fs::path rel = fs::path("repro") / reproducerName(signature);
    rec.replayCommand = replayCommand(fs::path(config.outDir) / rel, config.stepBudget);
    ReproducerInfo info{signature,          verdict,             config.seed,       g, rec.firstCaseSeed,
                        rec.statementsBefore, rec.statementsAfter, rec.replayCommand};
    writeReproducer(fs::path(config.outDir) / rel, reduced.program, reduced.spec, info);
    rec.reproducer = rel.string();
  }
}

}  // namespace

std::string configFingerprint(const CampaignConfig& c) {
  nlohmann::ordered_json j;
  j["version"] = PTODIFF_VERSION;
  j["seed"] = c.seed;
  j["planners"] = c.planners;
  j["target"] = c.target;
  j["features"] = c.gen.features ? c.gen.features->toString() : std::string("swarm");
  j["max_statements"] = c.gen.maxStatements;
  j["max_depth"] = c.gen.maxDepth;
  j["scalar_sets"] = c.gen.scalarSets;
  j["max_blocks"] = c.gen.maxBlocks;
  j["max_loop_trips"] = c.gen.maxLoopTrips;
  j["feature_percent"] = c.gen.featurePercent;
  j["max_tile_elements"] = c.gen.maxTileElements;
  j["second_kernel_every"] = c.gen.secondKernelEvery;
  j["step_budget"] = c.stepBudget;
  if (!c.injectFault.empty()) j["inject_fault"] = c.injectFault;
  j["symbolic_every"] = c.symbolicEvery;
  return j.dump();
}

std::vector<CaseSpec> caseSpecsFor(const GeneratedCase& c, const CampaignConfig& config) {
  // Property 1 one way only (caseSpecsOf): an in-contract kernel the lowering keeps on Tile is no
  // failure.
  std::vector<CaseSpec> specs = caseSpecsOf(c);
  for (CaseSpec& spec : specs) {
    spec.planners = config.planners;
    spec.target = config.target;
    spec.injectFault = config.injectFault;
    spec.symbolic = symbolicSampled(c.inputSeed, config.symbolicEvery);
  }
  return specs;
}

GeneratedCase shrinkCase(uint64_t seed, int size, const CampaignConfig& config, const CaseRunner& runner,
                         const std::string& signature, double seconds) {
  GeneratedCase original = generateCase(seed, size, config.gen);
  Verdict none;
  return shrinkTo(seed, size, config, runner, signature, seconds, original, none).generated;
}

CampaignResult runCampaign(const CampaignConfig& config, const CampaignHooks& hooks) {
  if (!hooks.runner) throw std::logic_error("runCampaign: no runner");
  if (config.shardCount == 0 || config.shardIndex >= config.shardCount)
    throw std::invalid_argument("shard index must be below the shard count");
  CampaignResult result;
  CampaignState& state = result.state;
  const fs::path out = config.outDir;
  const CampaignRestart* restart = hooks.restart;
  if (config.resume) {
    if (out.empty()) throw std::invalid_argument("--resume needs --out");
    state = readCheckpoint(out, config);
    if (!restart || !restart->continuing) ++state.runs;
  } else {
    state.fingerprint = configFingerprint(config);
  }
  if (!out.empty()) {
    checkWritableFolder(out);
    checkWritableFolder(out / "repro");
    // A kill leaves at most temporaries behind (AtomicFiles.h); they are never part of a result.
    removeStaleTemporaries(out);
    removeStaleTemporaries(out / "repro");
  }

  const int jobs = std::max(config.jobs, 1);
  const auto start = restart ? restart->runStart : Clock::now();
  const double elapsedBefore = restart ? restart->elapsedAtRunStart : state.elapsedSeconds;
  auto lastCheckpoint = Clock::now();
  std::vector<Slot> slots;
  for (;;) {
    if (config.cases && state.nextLocal >= *config.cases) break;
    if (config.timeSeconds && secondsSince(start) >= *config.timeSeconds) break;
    if (config.stopOnFailure && state.failingCases > 0) break;
    if (hooks.stop && hooks.stop->load()) {
      result.interrupted = true;
      break;
    }
    const uint64_t firstLocal = state.nextLocal;
    // Looking for the culprit among cases that were in flight together: one case per batch and a
    // checkpoint after each, so the next signal names one case and a restart repeats nothing.
    const bool serial = restart && restart->serialThrough && firstLocal <= *restart->serialThrough;
    const int threads = serial ? 1 : jobs;
    uint64_t batch = serial ? 1 : static_cast<uint64_t>(jobs) * static_cast<uint64_t>(std::max(config.batchPerJob, 1));
    if (config.cases) batch = std::min(batch, *config.cases - state.nextLocal);
    slots.assign(batch, Slot{});
    // A batch is long against one case (each batch ends in a barrier, where a thread idles behind the
    // other's long case), so it ends early at the deadline, a stop request or after batchSeconds: no
    // case starts after them, the cases begun finish, and the finished prefix is consumed (a later
    // case that began first is dropped, and runs again in the next batch or on --resume).
    const auto batchStart = Clock::now();
    const auto mustStop = [&](int64_t k) {
      return (config.timeSeconds && secondsSince(start) >= *config.timeSeconds) ||
             (hooks.stop && hooks.stop->load()) || (k > 0 && secondsSince(batchStart) >= config.batchSeconds);
    };
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int64_t k = 0; k < static_cast<int64_t>(batch); ++k) {
      Slot& slot = slots[static_cast<size_t>(k)];
      if (mustStop(k)) {
        slot.notStarted = true;
        continue;
      }
      fillSlot(slot, globalCaseIndex(config, firstLocal + static_cast<uint64_t>(k)), config, hooks,
               omp_get_thread_num());
      slot.finishedAt = secondsSince(start);
    }
    // A case's verdict is final in case order once it and every case before it have finished.
    double knownAt = 0.0;
    for (uint64_t k = 0; k < batch && !slots[k].notStarted; ++k) {
      knownAt = std::max(knownAt, slots[k].finishedAt);
      const bool firstFailure = !state.firstFailingCase && !slots[k].outcome.failures.empty();
      if (firstFailure) {
        state.firstFailingCase = globalCaseIndex(config, firstLocal + k);
        state.firstFailureSeconds = elapsedBefore + knownAt;
      }
      consume(slots[k], globalCaseIndex(config, firstLocal + k), config, hooks, state, result, start);
      if (config.stopOnFailure && state.failingCases > 0) break;
    }
    state.elapsedSeconds = elapsedBefore + secondsSince(start);
    if (!out.empty() && (serial || secondsSince(lastCheckpoint) >= config.checkpointSeconds)) {
      writeCheckpoint(out, config, state);
      lastCheckpoint = Clock::now();
    }
    if (hooks.progress) hooks.progress(state);
  }
  result.stoppedOnFailure = config.stopOnFailure && state.failingCases > 0;
  result.runSeconds = secondsSince(start);
  state.elapsedSeconds = elapsedBefore + result.runSeconds;
  if (!out.empty()) writeCheckpoint(out, config, state);
  if (hooks.progress) hooks.progress(state);
  return result;
}

}  // namespace ptodiff::fuzz
