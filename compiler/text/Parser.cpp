#include "compiler/text/Parser.h"
#include <stdexcept>
namespace ptodiff {
// Placeholder until the parser lands (owner: text helper).
Program parseProgram(std::shared_ptr<const SourceFile>) { throw std::logic_error("parser not implemented"); }
Program parseProgramText(std::string, std::string) { throw std::logic_error("parser not implemented"); }
Program parseProgramFile(const std::string&) { throw std::logic_error("parser not implemented"); }
}  // namespace ptodiff
