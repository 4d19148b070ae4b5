// The IR verifier: runs on every parsed program before anything executes, and after every pass.
//
// Checks SSA and scoping, types and dtypes per op, shapes, 0 <= valid <= shape, the Vec row/column
// 32-byte rule, box-multiple shapes for Mat/Left/Right/Acc, yield/iter_arg/result arity and types,
// Out tensors written only through store. On success it fills every Expr::type, Expr::slot,
// Binder::slot/type, Param::slot and Function::numSlots (the interpreters rely on them).
#pragma once

#include <vector>

#include "compiler/ir/IR.h"

namespace ptodiff {

/// All problems found (errors first in source order); empty means the program verifies.
/// Annotates the program in place as far as it could resolve it.
std::vector<Diagnostic> verifyProgram(Program& p);

/// verifyProgram, throwing the first error as DiagnosticError (with the rest as notes).
void verifyOrThrow(Program& p);

}  // namespace ptodiff
