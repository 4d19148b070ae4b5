// libFuzzer target: Buffer program text -> parse -> verify -> the Buffer interpreter under an
// addressed planner's rules and under PTOAS's (the interpreter places addressless allocations).
#include <cstddef>
#include <cstdint>

#include "tools/fuzz-targets/FuzzTargetSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptodiff;
  fuzztarget::installFuzzLimits();
  try {
    const std::optional<fuzztarget::PreparedKernel> k = fuzztarget::prepareKernel(data, size, FunctionStage::Buffer);
    if (!k) return 0;
    for (bool addressed : {true, false}) {
      RunConfig config = fuzztarget::fuzzRunConfig(size);
      config.addressedPlanner = addressed;
      (void)runKernel(InterpreterKind::Buffer, k->program, *k->kernel, k->args, config);
    }
  } catch (const DiagnosticError&) {
    // bad input: an expected outcome
  }
  return 0;
}
