// One differential case (DESIGN.md, "Data flow of one differential case"; semantics.md §5–§7):
// the Tile program on the value interpreter and the oracle, then per planner the reference
// lowering, the planned Tile program on the planned-Tile interpreter and, for a kernel the
// lowering selects, the Buffer program on the Buffer interpreter; every physical run is compared
// with the Tile run element by element and judged by its checkers.
//
// The result is one verdict per (planner, stage), each the first of DESIGN.md's order that the
// stage shows:
//   pass < invalid-program < crash < compile-error < timeout < hazard < race < sentinel < mismatch
//   < symbolic-mismatch < oracle
// ("first" = leftmost failing kind), with a signature "kind/hazard/stage/op/planner" (the
// fuzz campaign's dedup key, fuzz/campaign/CaseRunner.h) and a one-line replay command.
// docs/oracle.md, "Differential verdicts", lists the decisions taken where the spec is silent.
//
// Typical use (`ptodiff run`):
//   DifferentialReport r = runDifferential(DifferentialInput{&program, &kernel}, args, options);
//   for (const StageVerdict& v : r.verdicts) std::cout << v.stage << " " << verdictKindName(v.kind) << "\n";
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/IR.h"
#include "compiler/passes/Pass.h"
#include "compiler/target/Target.h"
#include "interp/Hazard.h"
#include "interp/Tensor.h"
#include "oracle/ToleranceProfile.h"

namespace ptodiff::oracle {

/// DESIGN.md's verdict kinds in their reporting order, plus Skipped for a stage that did not run
/// (the kernel stays on the Tile path, or an earlier stage of the same planner failed).
enum class VerdictKind : uint8_t {
  Pass,
  InvalidProgram,
  Crash,
  CompileError,
  Timeout,
  Hazard,
  Race,
  Sentinel,
  Mismatch,
  SymbolicMismatch,  // equal numbers, different formulas (DifferentialOptions::symbolic)
  Oracle,
  Skipped,
};
/// "pass", "invalid-program", "crash", "compile-error", "timeout", "hazard", "race", "sentinel",
/// "mismatch", "symbolic-mismatch", "oracle", "skipped".
std::string_view verdictKindName(VerdictKind k);
/// Whether `k` is a failure (neither pass nor skipped).
inline bool isFailure(VerdictKind k) { return k != VerdictKind::Pass && k != VerdictKind::Skipped; }

/// The first differing (or uninit, or sentinel-changed) element of a comparison.
struct ElementDifference {
  std::string tensor;
  DType dtype = DType::FP32;
  int64_t row = 0, col = 0;
  uint64_t expectedBits = 0, actualBits = 0;  // expected: the Tile run (sentinel: the initial bits)
  bool actualPoison = false;
  double ulps = 0.0;  // |ordered(actual) - ordered(expected)|; +Inf when either is NaN
  int64_t count = 0;  // how many elements of this tensor differ the same way
  /// symbolic-mismatch: the element's formula in the Tile run and in this run (interp/Symbolic.h).
  std::string expectedFormula, actualFormula;
};

/// The verdict of one (planner, stage).
struct StageVerdict {
  VerdictKind kind = VerdictKind::Pass;
  std::optional<HazardKind> hazard;  // kind == Hazard
  std::string stage;    // "tile", "oracle", "planned", "buffer"
  std::string failingAt;  // the signature's stage field: the failing pass for compile-error (and a
                          // crash inside a pass), else `stage`
  std::string op;       // the op involved ("tile.add"), when the failure is located at a statement
  std::string planner;  // "PYPTO", "DSA_RP", "PTOAS"; empty for planner-independent stages
  std::string detail;   // one line for people (the oracle row: every tensorDetails entry, "; "-joined)
  std::vector<std::string> tensorDetails;      // oracle row: one describeVerdict line per failing tensor
  std::optional<Diagnostic> diagnostic;        // located, when the failure has a statement
  std::optional<ElementDifference> difference;  // sentinel, mismatch, uninit
  std::string replay;   // the command that replays this row

  /// "kind/hazard/stage/op/planner", "-" for an empty field (the fuzz campaign's format).
  std::string signature() const;
  bool failed() const { return isFailure(kind); }
};

/// Lowerings kept across runDifferential calls on the same program (the campaign's scalar sets,
/// whichever kernel of the program each runs): the lowering converts every kernel of the program
/// and depends on the program, planner, target, enable_buffer_ir, the injected fault and whether
/// the lowering laws are checked, never on the case's inputs, so each is compiled (and verified
/// after every pass) once and its planned and Buffer programs are rerun. Entries are
/// oracle/Differential.cpp's; an empty cache is valid.
/// The programs the entries name must outlive the cache's use.
struct LoweringCache {
  struct Entry;
  struct Head;  // the pipeline's planner-independent passes, shared by every planner's Entry
  std::vector<std::shared_ptr<const Entry>> entries;
  std::vector<std::shared_ptr<Head>> heads;
};

struct DifferentialOptions {
  std::vector<Planner> planners = {Planner::PYPTO, Planner::DSA_RP, Planner::PTOAS};
  const Target* target = &targetA2A3();
  bool enableBufferIR = true;
  ToleranceProfile profile = cpuProfile();  // judges the Tile run (oracle.md)
  uint64_t stepBudget = 1'000'000;
  int64_t blockNum = 1;
  uint64_t seed = 0;
  FaultSwitch faults;  // a catalogue miscompile the lowering injects (compiler/faults); none by default
  /// The replay command without --planner/--target/--no-buffer-ir (e.g. "ptodiff run add.py
  /// --case add.case.json"); each verdict's replay appends the options that select its row.
  std::string replayBase;
  /// When set, seconds of steady-clock time are added per phase: "compile" (the lowering
  /// pipeline, verify-each included), "tile", "oracle", "planned", "buffer". For throughput
  /// reports only: never part of a verdict.
  std::map<std::string, double>* phaseSeconds = nullptr;
  /// When set, lowerings are looked up here before compiling and stored after (LoweringCache).
  LoweringCache* lowerings = nullptr;
  /// spec/fuzz.md property 2 on this case's lowerings: every pass's postcondition and the text round
  /// trip after every pass (PassContext::verifyEach; the IR verifier runs after every pass anyway),
  /// and LowerTileToBuffer idempotent on its own output (C8). A broken law is the buffer row's
  /// compile-error (a postcondition: a crash) at the pass that broke it.
  bool checkLoweringLaws = false;
  /// spec/fuzz.md property 1 with enableBufferIR: whether the kernel must reach the Buffer path (the
  /// generator's contract verdict); a lowering that decides otherwise is the buffer row's
  /// compile-error at SelectBufferIRFunctions. Unset: any decision is accepted.
  std::optional<bool> expectSelected;
  /// spec/fuzz.md property 3 with enable_buffer_ir off as well: when enableBufferIR is on and some
  /// planner lowered the kernel to Buffer, each planner's planned Tile program is made again with
  /// buffer IR off and run against the same Tile run (rows of stage "planned-no-buffer-ir"). A
  /// kernel no planner selects is lowered identically either way, so it is not run twice.
  bool alsoWithoutBufferIR = false;
  /// Issue 11's symbolic equivalence: every run of the case (one runtime path) also carries each
  /// element's formula in one shared ExprPool, and a physical run whose outputs equal the Tile
  /// run's numerically must equal them formula for formula too; else the row is symbolic-mismatch
  /// with the first differing element's two formulas. The numbers are unchanged.
  bool symbolic = false;
  /// Whether DifferentialReport::outputs keeps every run's final tensors (--save-outputs, the
  /// report's JSON); a campaign only counts the runs and skips the copies.
  bool keepOutputs = true;
};

/// What the case runs on. `program`/`kernel` is the file as given: a Tile program (full flow), a
/// planned Tile program (its value run against its planned run) or a Buffer program (against
/// `reference`, a Tile program, when given; else only the checkers judge). All programs must be
/// verified (verifyProgram) and outlive the call.
struct DifferentialInput {
  const Program* program = nullptr;
  const Function* kernel = nullptr;
  const Program* reference = nullptr;
  const Function* referenceKernel = nullptr;
};

/// The final tensors of one run, for --save-outputs ("tile", "PYPTO-planned", "buffer", ...).
struct RunOutputs {
  std::string name;
  KernelArgs final;
};

struct DifferentialReport {
  std::vector<StageVerdict> verdicts;  // table order: tile, oracle, then per planner planned, buffer
  std::vector<RunOutputs> outputs;     // every run that produced outputs, in run order (keepOutputs)
  int64_t runs = 0;                    // interpreter runs that produced outputs (kept or not)

  /// The first failing kind of DESIGN.md's order over all rows (Pass when none fails).
  VerdictKind overall() const;
  bool pass() const { return overall() == VerdictKind::Pass; }
};

/// Runs the case. Program faults, hazards, lowering rejections and exceptions of a lowering or an
/// interpreter are verdicts, never exceptions. Throws DiagnosticError when `args` does not fit the
/// kernel or a --reference kernel's parameters differ from the kernel's (bad input), and
/// std::invalid_argument for a malformed input (null kernel, an Orchestration function).
DifferentialReport runDifferential(const DifferentialInput& input, const KernelArgs& args,
                                   const DifferentialOptions& options);

/// |ordered(a) - ordered(b)| for two element bit patterns of a float dtype (adjacent floats are 1
/// apart, +0 and -0 are 0 apart), |a - b| for integers; +Inf when either float is NaN.
double ulpDistance(DType dt, uint64_t a, uint64_t b);

/// "1.5 (0x3fc00000)", or "poison (0x...)".
std::string describeElement(DType dt, uint64_t bits, bool poison = false);

}  // namespace ptodiff::oracle
