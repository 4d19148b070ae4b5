// The Tile value interpreter: runs a verified Tile-stage kernel with the value semantics of
// semantics.md §1–2 (tiles are immutable values with valid regions and per-element poison;
// MemRefs, if present, are ignored).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/ir/IR.h"
#include "compiler/target/Target.h"
#include "interp/Hazard.h"
#include "interp/Tensor.h"

namespace ptodiff {

class ExprPool;  // interp/Symbolic.h

struct RunConfig {
  int64_t blockNum = 1;            // the kernel runs once per block, block 0 first
  uint64_t stepBudget = 1'000'000; // executed statements over all blocks; past it: Timeout

  // ---- the physical interpreters (planned Tile, Buffer); the value interpreter ignores these ----
  uint64_t seed = 0;                      // the case seed: garbage bytes of fresh storage
  TargetKind target = TargetKind::A2A3;   // capacities and reserved ranges
  /// The program comes from an addressed planner (PYPTO, DSA_RP): an allocation without an
  /// address is `hazard: addressless`. False for PTOAS, whose allocations the interpreter places.
  bool addressedPlanner = false;

  /// A symbolic run (interp/Symbolic.h) when set: every element also carries its formula in this
  /// pool, GM inputs start as fresh symbols, and RunResult::final's tensors carry `sym`. Runs that
  /// share a pool give equal formulas equal ids. The numbers are those of a numeric run.
  ExprPool* symbols = nullptr;
};

enum class RunStatus : uint8_t {
  Ok,
  InvalidProgram,  // a precondition of the Tile semantics broke (poison to GM, GM window out of bounds, INDEX overflow, ...)
  Timeout,         // step budget exhausted
  Race,            // a GM element written by two blocks, or read after another block wrote it
  Hazard,          // a storage checker fired (physical interpreters only); RunResult::hazard says which
};
std::string_view runStatusName(RunStatus s);  // "pass", "invalid-program", "timeout", "race", "hazard"

struct RunResult {
  RunStatus status = RunStatus::Ok;
  Diagnostic diagnostic;  // where and why, when status != Ok (located at the statement)
  /// status == Hazard: the hazard's kind, detail and location (the diagnostic has severity Hazard
  /// and the message "KIND: detail").
  std::optional<Hazard> hazard;
  KernelArgs final;       // every tensor parameter's final contents (scalars unchanged)
  uint64_t steps = 0;
};

/// Runs `kernel` of `program` (which verifyProgram has annotated) on `args`. Never throws for
/// program faults (they are RunResult statuses); throws std::logic_error for harness bugs and
/// DiagnosticError when `args` does not fit the kernel's parameters (missing or mistyped tensor or
/// scalar).
RunResult runTileKernel(const Program& program, const Function& kernel, const KernelArgs& args,
                        const RunConfig& config = {});

}  // namespace ptodiff
