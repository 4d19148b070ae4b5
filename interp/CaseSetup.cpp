#include "interp/CaseSetup.h"
#include <stdexcept>
namespace ptodiff {
// Placeholder until case set-up lands (owner: tools helper).
KernelArgs buildKernelArgs(const Function&, const CaseSpec&, const ArgOverrides&) {
  throw std::logic_error("case set-up not implemented");
}
}  // namespace ptodiff
