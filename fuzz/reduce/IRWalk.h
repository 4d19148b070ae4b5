// Walks over a program's statements, expression slots and types, shared by the reducer's
// transformations (Transforms.cpp, ShapeTransforms.cpp). Every walk is in program order, a
// compound statement before the statements inside it, so candidate lists are deterministic.
#pragma once

#include <functional>
#include <vector>

#include "compiler/ir/IR.h"

namespace ptodiff::fuzz {

/// The expression slots written directly in `s` (not those of nested blocks).
void forEachSlot(Stmt& s, const std::function<void(ExprPtr&)>& fn);

/// The binders written in `s` whose annotations may name values (not those of nested blocks).
void forEachBinder(Stmt& s, const std::function<void(Binder&)>& fn);

/// The blocks directly inside `s` (a loop's body, an If's arms).
std::vector<Block*> nestedBlocks(Stmt& s);

/// Visits every statement of block[from..], nested ones included, in program order.
void forEachStmtFrom(Block& block, size_t from, const std::function<void(Stmt&)>& fn);

/// Visits `e` and every expression below it (pre-order).
void forEachExprDeep(ExprPtr& e, const std::function<void(ExprPtr&)>& fn);

/// Every type written in `p`: parameters, results, binders (as written and as inferred).
void forEachType(Program& p, const std::function<void(Type&)>& fn);

/// Every expression slot of a program, deep, in program order.
std::vector<ExprPtr*> expressionSlots(Program& p);

}  // namespace ptodiff::fuzz
