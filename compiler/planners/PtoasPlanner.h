// The PTOAS planner (spec/lowering.md step 4): identities only, no addresses; the external
// assembler plans memory. What ptodiff can check is the total: the Buffer interpreter gives every
// addressless root its own range (semantics.md §3), so the planner rejects a kernel whose roots do
// not fit the target's usable capacity together.
#pragma once

#include "compiler/ir/IR.h"
#include "compiler/target/Target.h"

namespace ptodiff::storage {

/// Checks one InitMemRef-planned kernel; never changes it (returns false). Throws DiagnosticError
/// when the roots of a space exceed its usable capacity.
bool planPtoas(Function& kernel, const Program& program, const Target& target);

}  // namespace ptodiff::storage
