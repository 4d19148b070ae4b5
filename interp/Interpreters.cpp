#include "interp/Interpreters.h"

#include "interp/BufferInterpreter.h"
#include "interp/PlannedTileInterpreter.h"

namespace ptodiff {

std::string_view interpreterName(InterpreterKind k) {
  switch (k) {
    case InterpreterKind::Value: return "value";
    case InterpreterKind::Planned: return "planned";
    case InterpreterKind::Buffer: return "buffer";
  }
  return "?";
}

std::optional<InterpreterKind> parseInterpreter(std::string_view name) {
  for (InterpreterKind k : {InterpreterKind::Value, InterpreterKind::Planned, InterpreterKind::Buffer})
    if (interpreterName(k) == name) return k;
  return std::nullopt;
}

InterpreterKind defaultInterpreter(const Function& kernel) {
  if (kernel.stage == FunctionStage::Buffer) return InterpreterKind::Buffer;
  return isPlannedTileKernel(kernel) ? InterpreterKind::Planned : InterpreterKind::Value;
}

bool mixesAddressForms(const Function& kernel) {
  return kernel.stage == FunctionStage::Buffer ? allocFormsOf(kernel).mixed() : rootFormsOf(kernel).mixed();
}

RunResult runKernel(InterpreterKind k, const Program& program, const Function& kernel, const KernelArgs& args,
                    const RunConfig& config) {
  switch (k) {
    case InterpreterKind::Value: return runTileKernel(program, kernel, args, config);
    case InterpreterKind::Planned: return runPlannedTileKernel(program, kernel, args, config);
    case InterpreterKind::Buffer: return runBufferKernel(program, kernel, args, config);
  }
  return runTileKernel(program, kernel, args, config);
}

}  // namespace ptodiff
