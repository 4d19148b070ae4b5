// The Tile value interpreter: runs a verified Tile-stage kernel with the value semantics of
// semantics.md §1–2 (tiles are immutable values with valid regions and per-element poison;
// MemRefs, if present, are ignored).
#pragma once

#include <cstdint>
#include <string>

#include "compiler/ir/IR.h"
#include "interp/Tensor.h"

namespace ptodiff {

struct RunConfig {
  int64_t blockNum = 1;            // the kernel runs once per block, block 0 first
  uint64_t stepBudget = 1'000'000; // executed statements over all blocks; past it: Timeout
};

enum class RunStatus : uint8_t {
  Ok,
  InvalidProgram,  // a precondition of the Tile semantics broke (poison to GM, GM window out of bounds, INDEX overflow, ...)
  Timeout,         // step budget exhausted
  Race,            // a GM element written by two blocks, or read after another block wrote it
};
std::string_view runStatusName(RunStatus s);  // "pass", "invalid-program", "timeout", "race"

struct RunResult {
  RunStatus status = RunStatus::Ok;
  Diagnostic diagnostic;  // where and why, when status != Ok (located at the statement)
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
