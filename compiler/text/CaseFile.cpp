#include "compiler/text/CaseFile.h"
#include <stdexcept>
namespace ptodiff {
// Placeholder until the case file parser lands (owner: tools helper).
CaseSpec parseCaseFile(const SourceFile&) { throw std::logic_error("case files not implemented"); }
CaseSpec parseCaseFilePath(const std::string&) { throw std::logic_error("case files not implemented"); }
}  // namespace ptodiff
