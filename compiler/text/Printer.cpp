#include "compiler/text/Printer.h"
#include <stdexcept>
namespace ptodiff {
// Placeholder until the printer lands (owner: text helper).
std::string printProgram(const Program&) { throw std::logic_error("printer not implemented"); }
std::string printType(const Type&) { throw std::logic_error("printer not implemented"); }
std::string printExpr(const Expr&) { throw std::logic_error("printer not implemented"); }
}  // namespace ptodiff
