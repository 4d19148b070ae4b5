// libFuzzer target: the .npy reader on arbitrary bytes (held in memory, the same parser as files).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "interp/Npy.h"
#include "tools/fuzz-targets/FuzzTargetSupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptodiff;
  fuzztarget::installFuzzLimits();
  try {
    const Tensor t = readNpyBytes(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.npy");
    if (t.bytes.size() != static_cast<size_t>(t.elements() * t.esize())) __builtin_trap();
  } catch (const DiagnosticError&) {
    // malformed file: expected
  }
  return 0;
}
