// The three interpreters behind one switch: which one runs a function by default (the rule of
// `ptodiff interp`, DESIGN.md) and one entry point that runs the chosen one, so the command line,
// the hazard suite and the differential driver pick interpreters the same way.
#pragma once

#include <optional>
#include <string_view>

#include "compiler/ir/IR.h"
#include "interp/Tensor.h"
#include "interp/TileInterpreter.h"

namespace ptodiff {

enum class InterpreterKind : uint8_t { Value, Planned, Buffer };

/// "value", "planned", "buffer".
std::string_view interpreterName(InterpreterKind k);
std::optional<InterpreterKind> parseInterpreter(std::string_view name);

/// A Buffer-stage function: Buffer; a Tile-stage function whose tiles all carry MemRefs:
/// Planned; any other Tile-stage function: Value.
InterpreterKind defaultInterpreter(const Function& kernel);

/// Whether `kernel` writes its storage both with and without addresses (Buffer allocs or planned
/// Tile roots): only such a program needs the planner to say whether it is addressed.
bool mixesAddressForms(const Function& kernel);

/// Runs `kernel` on interpreter `k` (see runTileKernel, runPlannedTileKernel, runBufferKernel).
RunResult runKernel(InterpreterKind k, const Program& program, const Function& kernel, const KernelArgs& args,
                    const RunConfig& config = {});

}  // namespace ptodiff
