// The numerical oracle (spec/oracle.md, docs/oracle.md): the independent judge of computed results.
//
// evaluateOracle runs a verified Tile-stage kernel under the Tile semantics (semantics.md §1–2,
// §6–7: valid regions, poison, control flow, scalars, blocks, GM written flags and sentinels) but
// evaluates every element in float64 (int64 for integer dtypes, wrapped where the dtype wraps) with
// Eigen arrays and Eigen matmul, and carries a bound on how far an implementation that rounds each
// op in its dtype within the profile's allowance may land (running error analysis, ErrorBound.h).
// It shares no arithmetic with the interpreters (interp/Arith, interp/TileOps are never called).
//
// Typical use (`ptodiff run`):
//   OracleResult ref = evaluateOracle(program, kernel, args, config, profile);
//   RunResult run = runTileKernel(program, kernel, args, config);
//   for (const TensorVerdict& v : compareOutputs(kernel, run.final, ref.tensors)) ...
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "compiler/ir/IR.h"
#include "interp/Tensor.h"
#include "interp/TileInterpreter.h"
#include "oracle/Compare.h"
#include "oracle/OracleTensor.h"
#include "oracle/ToleranceProfile.h"

namespace ptodiff::oracle {

struct OracleResult {
  /// The Tile semantics' verdict on the program itself, as runTileKernel decides it (a poison
  /// store, an out-of-bounds window, an INDEX overflow, a race, the step budget).
  RunStatus status = RunStatus::Ok;
  Diagnostic diagnostic;  // located, when status != Ok
  std::string profile;    // the name of the profile the bounds were computed with
  std::map<std::string, OracleTensor> tensors;  // every tensor parameter's final reference
  uint64_t steps = 0;
};

/// Evaluates `kernel` of `program` (annotated by verifyProgram) on `args`. Program faults are
/// statuses, never exceptions; an argument that does not fit the kernel's parameters throws
/// DiagnosticError, a broken harness invariant std::logic_error.
OracleResult evaluateOracle(const Program& program, const Function& kernel, const KernelArgs& args,
                            const RunConfig& config = {}, const ToleranceProfile& profile = cpuProfile());

}  // namespace ptodiff::oracle
