// The DSA_RP planner (spec/lowering.md step 4): no opportunistic reuse: every allocation identity
// keeps its own root, and each root gets its own address from a lifetime-aware interval packing
// (largest first, lowest aligned address that overlaps no root it is live together with). Roots
// whose lifetimes are disjoint may so end up at the same address; roots live together never overlap.
// The in-place exception of Liveness is not used: DSA_RP never places an op's output over its input.
#pragma once

#include "compiler/faults/Faults.h"
#include "compiler/ir/IR.h"
#include "compiler/target/Target.h"

namespace ptodiff::storage {

/// Places one InitMemRef-planned kernel's roots; returns whether anything changed. Throws
/// DiagnosticError when a root cannot be placed inside the target's usable capacity.
bool planDsaRp(Function& kernel, const Program& program, const Target& target, FaultSwitch faults = {});

}  // namespace ptodiff::storage
