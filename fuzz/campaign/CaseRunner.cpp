#include "fuzz/campaign/CaseRunner.h"

#include <algorithm>
#include <chrono>
#include <exception>

#include "compiler/passes/Pass.h"
#include "compiler/target/Target.h"
#include "compiler/verify/Verifier.h"
#include "interp/CaseSetup.h"
#include "interp/Hazard.h"
#include "interp/TileInterpreter.h"
#include "oracle/Compare.h"
#include "oracle/Differential.h"
#include "oracle/Oracle.h"

namespace ptodiff::fuzz {

std::string signatureOf(const Verdict& v) {
  auto part = [](const std::string& s) { return s.empty() ? std::string("-") : s; };
  return part(v.kind) + "/" + part(v.hazard) + "/" + part(v.stage) + "/" + part(v.op) + "/" + part(v.planner);
}

namespace {

int64_t countBlock(const Block& block) {
  int64_t n = 0;
  for (const StmtPtr& s : block) {
    ++n;
    switch (s->kind) {
      case Stmt::Kind::For: n += countBlock(s->as<ForStmt>().body); break;
      case Stmt::Kind::While: n += countBlock(s->as<WhileStmt>().body); break;
      case Stmt::Kind::If:
        n += countBlock(s->as<IfStmt>().thenBody) + countBlock(s->as<IfStmt>().elseBody);
        break;
      default: break;
    }
  }
  return n;
}

/// Times one phase into `outcome.phaseSeconds`.
class PhaseTimer {
 public:
  PhaseTimer(CaseOutcome& outcome, const char* phase)
      : outcome_(outcome), phase_(phase), start_(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() {
    outcome_.phaseSeconds[phase_] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  CaseOutcome& outcome_;
  const char* phase_;
  std::chrono::steady_clock::time_point start_;
};

Verdict runFailure(const RunResult& r, size_t set) {
  Verdict v;
  v.kind = std::string(runStatusName(r.status));
  if (r.hazard) v.hazard = std::string(hazardKindName(r.hazard->kind));
  v.stage = "tile";
  v.detail = r.diagnostic.message;
  v.scalarSet = set;
  return v;
}

}  // namespace

oracle::DifferentialOptions differentialOptionsFor(const CaseSpec& spec, uint64_t stepBudget) {
  oracle::DifferentialOptions options;
  options.planners.clear();
  for (const std::string& name : spec.planners)
    if (auto planner = parsePlanner(name)) options.planners.push_back(*planner);
  if (const Target* target = findTarget(spec.target)) options.target = target;
  options.stepBudget = stepBudget;
  options.blockNum = spec.blockNum;
  options.seed = spec.seed;
  options.faults.active = parseFault(spec.injectFault);
  options.expectSelected = spec.expectBufferPath;
  // Verify-each with its round trip doubles a case's compile time and the buffer-IR-off runs add a
  // third to a selected kernel's, so campaigns sample them by the case's input seed: a case file
  // carries its seed, so a replay or a reduction checks exactly what the campaign did (seed 0: both).
  options.checkLoweringLaws = spec.seed % kLoweringLawsEvery == 0;
  options.alsoWithoutBufferIR = spec.seed / kLoweringLawsEvery % kBufferIROffEvery == 0;
  options.symbolic = spec.symbolic;
  return options;
}

bool symbolicSampled(uint64_t inputSeed, uint64_t every) {
  if (every == 0) return false;
  uint64_t x = inputSeed + 0x9E3779B97F4A7C15ull;  // splitmix64: seeds are often consecutive
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return (x ^ (x >> 31)) % every == 0;
}

int64_t countStatements(const Program& p) {
  int64_t n = 0;
  for (const Function& f : p.functions) n += countBlock(f.body);
  return n;
}

CaseOutcome runTileAndOracle(Program program, const std::vector<CaseSpec>& sets, uint64_t stepBudget) {
  CaseOutcome outcome;
  Program& p = program;
  {
    PhaseTimer timer(outcome, "verify");
    std::vector<Diagnostic> problems = verifyProgram(p);
    if (!problems.empty()) {
      // A generated program that does not verify is a generator bug: the case is invalid.
      outcome.failures.push_back({"invalid-program", "", "verify", "", "", problems.front().message, 0});
      return outcome;
    }
  }
  for (size_t set = 0; set < sets.size(); ++set) {
    const CaseSpec& spec = sets[set];
    const Function* kernel = spec.function.empty() ? p.defaultKernel() : p.findFunction(spec.function);
    if (!kernel) {
      outcome.failures.push_back({"invalid-program", "", "setup", "", "", "no function '" + spec.function + "'", set});
      return outcome;
    }
    std::string stage = "setup";
    try {
      KernelArgs args = buildKernelArgs(*kernel, spec, {});
      RunConfig config;
      config.blockNum = spec.blockNum;
      config.seed = spec.seed;
      config.stepBudget = stepBudget;
      stage = "tile";
      RunResult run;
      {
        PhaseTimer timer(outcome, "tile");
        run = runTileKernel(p, *kernel, args, config);
        ++outcome.interpreterRuns;
      }
      if (run.status != RunStatus::Ok) {
        outcome.failures.push_back(runFailure(run, set));
        return outcome;
      }
      stage = "oracle";
      PhaseTimer timer(outcome, "oracle");
      oracle::OracleResult ref = oracle::evaluateOracle(p, *kernel, args, config);
      if (ref.status != RunStatus::Ok) {
        outcome.failures.push_back({"crash", "", "oracle", "", "",
                                    "the oracle's run ends in " + std::string(runStatusName(ref.status)) +
                                        " where the Tile interpreter passes: " + ref.diagnostic.message,
                                    set});
        return outcome;
      }
      for (const oracle::TensorVerdict& tv : oracle::compareOutputs(*kernel, run.final, ref.tensors)) {
        if (tv.pass()) continue;
        outcome.failures.push_back({tv.invalidProgram() ? "invalid-program" : "oracle", "", "oracle", "", "",
                                    oracle::describeVerdict(tv), set});
        return outcome;
      }
    } catch (const std::exception& e) {
      outcome.failures.push_back({"crash", "", stage, "", "", e.what(), set});
      return outcome;
    }
  }
  return outcome;
}

CaseOutcome runDifferentialCase(Program program, const std::vector<CaseSpec>& sets, uint64_t stepBudget) {
  CaseOutcome outcome;
  Program& p = program;
  {
    PhaseTimer timer(outcome, "verify");
    std::vector<Diagnostic> problems = verifyProgram(p);
    if (!problems.empty()) {
      outcome.failures.push_back({"invalid-program", "", "verify", "", "", problems.front().message, 0});
      return outcome;
    }
  }
  // The scalar sets share the program, so each planner's lowering is compiled once per case.
  oracle::LoweringCache lowerings;
  std::map<std::string, Tensor> firstTensors;  // the first set's inputs, which the others share
  for (size_t set = 0; set < sets.size(); ++set) {
    const CaseSpec& spec = sets[set];
    const Function* kernel = spec.function.empty() ? p.defaultKernel() : p.findFunction(spec.function);
    if (!kernel) {
      outcome.failures.push_back({"invalid-program", "", "setup", "", "", "no function '" + spec.function + "'", set});
      return outcome;
    }
    oracle::DifferentialOptions options = differentialOptionsFor(spec, stepBudget);
    options.lowerings = &lowerings;
    options.keepOutputs = false;  // the campaign counts runs; it never saves their tensors
    try {
      KernelArgs args;
      {
        PhaseTimer timer(outcome, "setup");
        ArgOverrides shared;
        if (set > 0 && sameTensorArguments(spec, sets[0])) shared.builtTensors = &firstTensors;
        args = buildKernelArgs(*kernel, spec, shared);
        if (set == 0 && sets.size() > 1) firstTensors = args.tensors;
      }
      // The library times its own stages; "differential" keeps what none of them covers
      // (comparisons, verdict rows).
      std::map<std::string, double> stages;
      options.phaseSeconds = &stages;
      const auto start = std::chrono::steady_clock::now();
      const oracle::DifferentialReport report = oracle::runDifferential({&p, kernel}, args, options);
      double rest = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (const auto& [phase, seconds] : stages) {
        outcome.phaseSeconds[phase] += seconds;
        rest -= seconds;
      }
      outcome.phaseSeconds["differential"] += std::max(rest, 0.0);
      outcome.interpreterRuns += report.runs;
      for (const oracle::StageVerdict& v : report.verdicts) {
        if (!v.failed()) continue;
        Verdict out{std::string(oracle::verdictKindName(v.kind)),
                    v.hazard ? std::string(hazardKindName(*v.hazard)) : std::string(),
                    v.failingAt.empty() ? v.stage : v.failingAt,
                    v.op,
                    v.planner,
                    v.detail,
                    set};
        outcome.failures.push_back(std::move(out));
      }
    } catch (const std::exception& e) {
      outcome.failures.push_back({"crash", "", "differential", "", "", e.what(), set});
    }
  }
  return outcome;
}

}  // namespace ptodiff::fuzz
