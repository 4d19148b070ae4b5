#include "interp/TileInterpreter.h"
#include <stdexcept>
namespace ptodiff {
// Placeholder until the interpreter lands (owner: interpreter helper).
std::string_view runStatusName(RunStatus) { throw std::logic_error("interpreter not implemented"); }
RunResult runTileKernel(const Program&, const Function&, const KernelArgs&, const RunConfig&) {
  throw std::logic_error("interpreter not implemented");
}
}  // namespace ptodiff
