// Shared by the libFuzzer targets: the tight resource limits they run under and the outcome rule.
//
// A target feeds one input through a path of ptodiff. Bad input must end in a DiagnosticError
// (the user's `error:`), a program fault in a RunResult status; anything else escaping — another
// exception, a signal, a sanitizer report, a leak, unbounded memory or time — is a bug the fuzzer
// reports. The limits are tighter than the defaults so every input runs in milliseconds and
// libFuzzer's memory limit stays far away; they exercise the same checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <optional>

#include "compiler/ir/IR.h"
#include "compiler/ir/ResourceLimits.h"
#include "compiler/text/CaseFile.h"
#include "compiler/text/Parser.h"
#include "compiler/verify/Verifier.h"
#include "interp/CaseSetup.h"
#include "interp/Interpreters.h"

namespace ptodiff::fuzztarget {

inline ResourceLimits fuzzLimits() {
  ResourceLimits l;
  l.maxProgramBytes = 64 << 10;
  l.maxStatements = 2000;
  l.maxNestingDepth = 16;
  l.maxExprDepth = 64;
  l.maxTensorElements = 1 << 16;
  l.maxTensorBytes = 1 << 18;
  l.maxGmBytes = 1 << 20;
  l.maxTileElements = 1 << 14;
  l.maxTileBytes = 1 << 16;
  l.maxFrameTileBytes = 16 << 20;
  l.maxStorageBytes = 1 << 20;
  l.maxBlockNum = 8;
  l.maxCaseFileBytes = 64 << 10;
  l.maxNpyHeaderBytes = 4 << 10;
  return l;
}

/// Installs fuzzLimits() for the whole process (once; the targets never restore the defaults).
inline void installFuzzLimits() {
  static ScopedResourceLimits limits(fuzzLimits());
}

/// Executed statements per interpreter run: enough for the committed programs, small enough that a
/// runaway loop costs milliseconds.
constexpr uint64_t kFuzzStepBudget = 20'000;

/// A value for every scalar parameter (kernels without a case file would stop at "has no value"):
/// small integers varying with the input, so offsets and valid extents stay plausible.
inline ArgOverrides scalarDefaults(const Function& kernel, size_t inputSize) {
  ArgOverrides o;
  for (const Param& p : kernel.params) {
    if (!p.type.isScalar()) continue;
    if (p.type.dtype == DType::BOOL) o.scalars[p.name] = inputSize % 2 ? "true" : "false";
    else if (p.type.dtype == DType::FP32) o.scalars[p.name] = "0.5";
    else o.scalars[p.name] = std::to_string(1 + inputSize % 16);
  }
  return o;
}

inline std::string inputText(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// The input as a verified program whose default kernel has `stage`, with arguments for it; nullopt
/// when it is none (an expected outcome). Throws DiagnosticError for bad text or arguments.
struct PreparedKernel {
  Program program;
  const Function* kernel = nullptr;
  KernelArgs args;
};
inline std::optional<PreparedKernel> prepareKernel(const uint8_t* data, size_t size, FunctionStage stage) {
  PreparedKernel k;
  k.program = parseProgramText(inputText(data, size), "fuzz.py");
  if (!verifyProgram(k.program).empty()) return std::nullopt;
  k.kernel = k.program.defaultKernel();
  if (!k.kernel || k.kernel->stage != stage) return std::nullopt;
  k.args = buildKernelArgs(*k.kernel, CaseSpec{}, scalarDefaults(*k.kernel, size));
  return k;
}

/// The small step budget, and two blocks now and then (GM races).
inline RunConfig fuzzRunConfig(size_t size) {
  RunConfig config;
  config.stepBudget = kFuzzStepBudget;
  config.blockNum = 1 + static_cast<int64_t>(size % 2);
  config.seed = size;
  return config;
}

}  // namespace ptodiff::fuzztarget
