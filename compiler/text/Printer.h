// The printer: emits the canonical text form, which parseProgram reads back to a structurally
// equal program (parse(print(p)) == p).
#pragma once

#include <string>

#include "compiler/ir/IR.h"

namespace ptodiff {

std::string printProgram(const Program& p);
/// `pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec]`, `pl.Buffer[...]`, `pl.Tensor[...]`, `pl.Scalar[pl.INDEX]`.
std::string printType(const Type& t);
std::string printExpr(const Expr& e);

}  // namespace ptodiff
