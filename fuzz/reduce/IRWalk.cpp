#include "fuzz/reduce/IRWalk.h"

namespace ptodiff::fuzz {

void forEachSlot(Stmt& s, const std::function<void(ExprPtr&)>& fn) {
  switch (s.kind) {
    case Stmt::Kind::Assign: fn(s.as<AssignStmt>().value); break;
    case Stmt::Kind::Eval: fn(s.as<EvalStmt>().expr); break;
    case Stmt::Kind::Return: for (ExprPtr& e : s.as<ReturnStmt>().values) fn(e); break;
    case Stmt::Kind::Yield: for (ExprPtr& e : s.as<YieldStmt>().values) fn(e); break;
    case Stmt::Kind::For: {
      auto& loop = s.as<ForStmt>();
      fn(loop.start);
      fn(loop.stop);
      fn(loop.step);
      for (ExprPtr& e : loop.inits) fn(e);
      break;
    }
    case Stmt::Kind::If: fn(s.as<IfStmt>().cond); break;
    case Stmt::Kind::While: {
      auto& loop = s.as<WhileStmt>();
      for (ExprPtr& e : loop.inits) fn(e);
      fn(loop.cond);
      break;
    }
  }
}

void forEachBinder(Stmt& s, const std::function<void(Binder&)>& fn) {
  switch (s.kind) {
    case Stmt::Kind::Assign: fn(s.as<AssignStmt>().target); break;
    case Stmt::Kind::Yield: for (Binder& b : s.as<YieldStmt>().targets) fn(b); break;
    case Stmt::Kind::For: for (Binder& b : s.as<ForStmt>().iterArgs) fn(b); break;
    case Stmt::Kind::While: for (Binder& b : s.as<WhileStmt>().iterArgs) fn(b); break;
    default: break;
  }
}

std::vector<Block*> nestedBlocks(Stmt& s) {
  switch (s.kind) {
    case Stmt::Kind::For: return {&s.as<ForStmt>().body};
    case Stmt::Kind::While: return {&s.as<WhileStmt>().body};
    case Stmt::Kind::If: return {&s.as<IfStmt>().thenBody, &s.as<IfStmt>().elseBody};
    default: return {};
  }
}

void forEachStmtFrom(Block& block, size_t from, const std::function<void(Stmt&)>& fn) {
  for (size_t i = from; i < block.size(); ++i) {
    fn(*block[i]);
    for (Block* inner : nestedBlocks(*block[i])) forEachStmtFrom(*inner, 0, fn);
  }
}

void forEachExprDeep(ExprPtr& e, const std::function<void(ExprPtr&)>& fn) {
  if (!e) return;
  fn(e);
  if (!e) return;
  for (ExprPtr& a : e->args) forEachExprDeep(a, fn);
}

void forEachType(Program& p, const std::function<void(Type&)>& fn) {
  for (Function& f : p.functions) {
    for (Param& prm : f.params) fn(prm.type);
    for (Type& t : f.results) fn(t);
    forEachStmtFrom(f.body, 0, [&](Stmt& s) {
      forEachBinder(s, [&](Binder& b) {
        if (b.annotation) fn(*b.annotation);
        fn(b.type);
      });
    });
  }
}

std::vector<ExprPtr*> expressionSlots(Program& p) {
  std::vector<ExprPtr*> slots;
  for (Function& f : p.functions)
    forEachStmtFrom(f.body, 0, [&](Stmt& s) {
      forEachSlot(s, [&](ExprPtr& slot) { forEachExprDeep(slot, [&](ExprPtr& e) { slots.push_back(&e); }); });
    });
  return slots;
}

}  // namespace ptodiff::fuzz
