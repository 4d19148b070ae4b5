#include "interp/Npy.h"
#include <stdexcept>
namespace ptodiff {
// Placeholder until .npy I/O lands (owner: tools helper).
Tensor readNpy(const std::string&) { throw std::logic_error("npy not implemented"); }
void writeNpy(const std::string&, const Tensor&) { throw std::logic_error("npy not implemented"); }
void writeNpyPoison(const std::string&, const Tensor&) { throw std::logic_error("npy not implemented"); }
}  // namespace ptodiff
