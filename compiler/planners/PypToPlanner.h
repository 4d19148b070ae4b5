// The PYPTO planner (spec/lowering.md step 4; PyPTO's MemoryReuse + AllocateMemoryAddr): roots whose
// identities are never live together share one root (first fit, largest first, sized by its first
// member), then every surviving root gets the next 32-byte (box-) aligned address of its space.
//
// Sharing follows Liveness: lifetimes that do not intersect may share; a lifetime ending exactly
// where an in-place-safe elementwise op defines the other from exactly its storage may share the
// identical window; everything else may not (storage read inside a loop lives to the loop's end;
// recip, move, extract, matmul and reductions never write over their inputs). A root holding tiles
// with runtime valid extents only merges with roots of the same physical type used whole (V9).
#pragma once

#include "compiler/faults/Faults.h"
#include "compiler/ir/IR.h"
#include "compiler/target/Target.h"

namespace ptodiff::storage {

/// Plans one InitMemRef-planned kernel in place; returns whether anything changed. Throws
/// DiagnosticError when a space overflows the target's usable capacity.
bool planPyPto(Function& kernel, const Program& program, const Target& target, FaultSwitch faults = {});

}  // namespace ptodiff::storage
