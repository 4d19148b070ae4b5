// The campaign's view of one differential case: a runner takes a program and its scalar sets and
// returns the failing (planner, stage) verdicts with their signatures (DESIGN.md, "Data flow of one
// differential case"). The campaign only schedules, deduplicates and reports, so it is tested with
// fake runners and driven in production by the differential library (runDifferentialCase below).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/IR.h"
#include "compiler/text/CaseFile.h"
#include "oracle/Differential.h"

namespace ptodiff::fuzz {

/// One failing (planner, stage) of a case. Empty fields are "not applicable" (a planner-independent
/// stage has no planner; only hazards have a hazard kind).
struct Verdict {
  std::string kind;     // DESIGN.md verdict kinds: invalid-program, crash, compile-error, timeout, hazard, ...
  std::string hazard;   // the checker's kind when kind == "hazard" (semantics.md §5)
  std::string stage;    // "verify", "tile", "oracle", a pass name, "planned", "buffer", ...
  std::string op;       // the op kind involved, when known
  std::string planner;  // PYPTO, DSA_RP, PTOAS, or empty
  std::string detail;   // one line for people (not part of the signature)
  size_t scalarSet = 0; // the scalar set that showed it first (the reproducer's case.json)
};

/// The dedup key: "kind/hazard/stage/op/planner" with "-" for empty fields.
std::string signatureOf(const Verdict& v);

/// What running one case produced. `failures` is empty for a passing case.
struct CaseOutcome {
  std::vector<Verdict> failures;
  /// Seconds spent per phase ("verify", "lowering", "tile", "planned", "buffer", "oracle", ...);
  /// summed by the campaign for the report, never part of a result.
  std::map<std::string, double> phaseSeconds;
  uint64_t interpreterRuns = 0;  // interpreter executions (every set x planner x stage)
};

/// Runs one case: `program` is unverified and the runner's own (it verifies it in place, so a
/// caller that keeps its program passes a clone); `sets` holds one CaseSpec per runtime scalar set,
/// each naming the planners and target to use. Must be callable from several threads at once and
/// must not throw (a throw is reported by the campaign as `crash`).
using CaseRunner = std::function<CaseOutcome(Program program, const std::vector<CaseSpec>& sets)>;

/// The interim runner: verifies, runs the Tile interpreter on every set and judges the result
/// against the oracle (spec/fuzz.md properties 4 and the generator's own validity). It does not
/// lower; the differential library replaces it.
CaseOutcome runTileAndOracle(Program program, const std::vector<CaseSpec>& sets, uint64_t stepBudget);

/// The production runner: oracle/Differential.h's runDifferential on every scalar set (the Tile
/// interpreter and the oracle, then per planner the lowering, the planned-Tile and the Buffer
/// interpreters), each failing (planner, stage) row becoming a Verdict with the same signature.
/// Phase times: "verify", "setup" (inputs), the library's "compile", "tile", "oracle", "planned"
/// and "buffer", and "differential" (the rest of runDifferential: comparisons, verdict rows).
CaseOutcome runDifferentialCase(Program program, const std::vector<CaseSpec>& sets, uint64_t stepBudget);

/// spec/fuzz.md property 2 (verify-each, LowerTileToBuffer idempotent) is checked on the cases whose
/// input seed is a multiple of this.
inline constexpr uint64_t kLoweringLawsEvery = 8;
/// spec/fuzz.md property 3 with buffer IR off (DifferentialOptions::alsoWithoutBufferIR) is checked
/// on one case in this many (seed / kLoweringLawsEvery a multiple of it: independent of the laws).
inline constexpr uint64_t kBufferIROffEvery = 4;

/// The campaign's default for --symbolic-every (CampaignConfig::symbolicEvery): measured so that the
/// symbolic runs cost a campaign at most a quarter of its throughput (docs/fuzz.md).
inline constexpr uint64_t kSymbolicEvery = 4;
/// Whether the case of `inputSeed` runs symbolically with --symbolic-every `every` (0: never): a
/// hash of the seed decides, so the choice is independent of the other samplings above.
bool symbolicSampled(uint64_t inputSeed, uint64_t every);

/// The differential options a case file asks for: its planners, target, block count, input seed and
/// contract verdict (property 1), with the campaign's step budget; the lowering laws on one case in
/// kLoweringLawsEvery; planned Tile runs with buffer IR off on one in kBufferIROffEvery (property 3).
oracle::DifferentialOptions differentialOptionsFor(const CaseSpec& spec, uint64_t stepBudget);

/// Statements in every function of `p`, nested regions included (a reproducer's size).
int64_t countStatements(const Program& p);

}  // namespace ptodiff::fuzz
