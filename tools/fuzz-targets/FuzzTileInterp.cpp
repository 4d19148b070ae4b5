// libFuzzer target: program text -> parse -> verify -> the Tile interpreters (value, or planned for
// a program whose tiles all carry MemRefs) with default arguments and a small step budget.
#include <cstddef>
#include <cstdint>

#include "tools/fuzz-targets/FuzzTargetSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptodiff;
  fuzztarget::installFuzzLimits();
  try {
    const std::optional<fuzztarget::PreparedKernel> k = fuzztarget::prepareKernel(data, size, FunctionStage::Tile);
    if (!k) return 0;
    (void)runKernel(defaultInterpreter(*k->kernel), k->program, *k->kernel, k->args, fuzztarget::fuzzRunConfig(size));
  } catch (const DiagnosticError&) {
    // bad input, reported to the user as `error:`: an expected outcome
  }
  return 0;
}
