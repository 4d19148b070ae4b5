#include "compiler/verify/Verifier.h"
#include <stdexcept>
namespace ptodiff {
// Placeholder until the verifier lands (owner: verifier helper).
std::vector<Diagnostic> verifyProgram(Program&) { throw std::logic_error("verifier not implemented"); }
void verifyOrThrow(Program&) { throw std::logic_error("verifier not implemented"); }
}  // namespace ptodiff
