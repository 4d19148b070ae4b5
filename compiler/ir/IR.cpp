#include "compiler/ir/IR.h"

#include <bit>
#include <sstream>
#include <stdexcept>

namespace ptodiff {

std::string_view binOpSpelling(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::FloorDiv: return "//";
    case BinOp::Mod: return "%";
    case BinOp::Lt: return "<";
    case BinOp::Le: return "<=";
    case BinOp::Gt: return ">";
    case BinOp::Ge: return ">=";
    case BinOp::Eq: return "==";
    case BinOp::Ne: return "!=";
    case BinOp::And: return "and";
    case BinOp::Or: return "or";
  }
  return "?";
}

std::string_view functionTypeName(FunctionType t) {
  switch (t) {
    case FunctionType::InCore: return "InCore";
    case FunctionType::AIC: return "AIC";
    case FunctionType::AIV: return "AIV";
    case FunctionType::Orchestration: return "Orchestration";
  }
  return "InCore";
}

// ---- Expr ----

ExprPtr Expr::intLit(int64_t v, SourceLoc l) { auto e = std::make_unique<Expr>(Kind::IntLit, l); e->intValue = v; return e; }
ExprPtr Expr::floatLit(double v, SourceLoc l) { auto e = std::make_unique<Expr>(Kind::FloatLit, l); e->floatValue = v; return e; }
ExprPtr Expr::boolLit(bool v, SourceLoc l) { auto e = std::make_unique<Expr>(Kind::BoolLit, l); e->boolValue = v; return e; }
ExprPtr Expr::nameRef(std::string n, SourceLoc l) { auto e = std::make_unique<Expr>(Kind::Name, l); e->name = std::move(n); return e; }
ExprPtr Expr::unary(UnOp op, ExprPtr a, SourceLoc l) {
  auto e = std::make_unique<Expr>(Kind::Unary, l);
  e->unop = op;
  e->args.push_back(std::move(a));
  return e;
}
ExprPtr Expr::binary(BinOp op, ExprPtr a, ExprPtr b, SourceLoc l) {
  auto e = std::make_unique<Expr>(Kind::Binary, l);
  e->binop = op;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}
ExprPtr Expr::call(Opcode op, std::vector<ExprPtr> args, SourceLoc l) {
  auto e = std::make_unique<Expr>(Kind::Call, l);
  e->op = op;
  e->args = std::move(args);
  return e;
}
ExprPtr Expr::list(std::vector<ExprPtr> elems, SourceLoc l) {
  auto e = std::make_unique<Expr>(Kind::List, l);
  e->args = std::move(elems);
  return e;
}
ExprPtr Expr::dtypeRef(DType d, SourceLoc l) { auto e = std::make_unique<Expr>(Kind::DTypeRef, l); e->dtype = d; return e; }
ExprPtr Expr::spaceRef(MemSpace s, SourceLoc l) { auto e = std::make_unique<Expr>(Kind::SpaceRef, l); e->space = s; return e; }

const Expr* Expr::arg(std::string_view paramName) const {
  int i = paramIndex(opInfo(op), paramName);
  if (kind != Kind::Call || i < 0)
    throw std::logic_error("Expr::arg: no parameter '" + std::string(paramName) + "'");
  return static_cast<size_t>(i) < args.size() ? args[i].get() : nullptr;
}

ExprPtr Expr::clone() const {
  auto e = std::make_unique<Expr>(kind, loc);
  e->intValue = intValue;
  e->floatValue = floatValue;
  e->boolValue = boolValue;
  e->name = name;
  e->unop = unop;
  e->binop = binop;
  e->op = op;
  e->dtype = dtype;
  e->space = space;
  e->slot = slot;
  e->type = type;
  e->args.reserve(args.size());  // one allocation, not a growth sequence per call
  for (const auto& a : args) e->args.push_back(a ? a->clone() : nullptr);
  return e;
}

// ---- Stmt ----

namespace {
std::vector<ExprPtr> cloneAll(const std::vector<ExprPtr>& v) {
  std::vector<ExprPtr> out;
  out.reserve(v.size());
  for (const auto& e : v) out.push_back(e ? e->clone() : nullptr);
  return out;
}
Block cloneBlock(const Block& b) {
  Block out;
  out.reserve(b.size());
  for (const auto& s : b) out.push_back(s->clone());
  return out;
}
}  // namespace

StmtPtr Stmt::clone() const {
  switch (kind) {
    case Kind::Assign: {
      auto& s = as<AssignStmt>();
      auto c = std::make_unique<AssignStmt>(loc);
      c->target = s.target;
      c->value = s.value->clone();
      return c;
    }
    case Kind::Eval: {
      auto c = std::make_unique<EvalStmt>(loc);
      c->expr = as<EvalStmt>().expr->clone();
      return c;
    }
    case Kind::Return: {
      auto c = std::make_unique<ReturnStmt>(loc);
      c->values = cloneAll(as<ReturnStmt>().values);
      return c;
    }
    case Kind::Yield: {
      auto& s = as<YieldStmt>();
      auto c = std::make_unique<YieldStmt>(loc);
      c->targets = s.targets;
      c->values = cloneAll(s.values);
      return c;
    }
    case Kind::For: {
      auto& s = as<ForStmt>();
      auto c = std::make_unique<ForStmt>(loc);
      c->inductionVar = s.inductionVar;
      c->start = s.start->clone();
      c->stop = s.stop->clone();
      c->step = s.step->clone();
      c->iterArgs = s.iterArgs;
      c->inits = cloneAll(s.inits);
      c->body = cloneBlock(s.body);
      return c;
    }
    case Kind::If: {
      auto& s = as<IfStmt>();
      auto c = std::make_unique<IfStmt>(loc);
      c->cond = s.cond->clone();
      c->thenBody = cloneBlock(s.thenBody);
      c->elseBody = cloneBlock(s.elseBody);
      return c;
    }
    case Kind::While: {
      auto& s = as<WhileStmt>();
      auto c = std::make_unique<WhileStmt>(loc);
      c->iterArgs = s.iterArgs;
      c->inits = cloneAll(s.inits);
      c->cond = s.cond->clone();
      c->condLoc = s.condLoc;
      c->body = cloneBlock(s.body);
      return c;
    }
  }
  throw std::logic_error("Stmt::clone: unknown kind");
}

const YieldStmt* trailingYield(const Block& body) {
  if (body.empty() || body.back()->kind != Stmt::Kind::Yield) return nullptr;
  return &body.back()->as<YieldStmt>();
}

std::vector<const Binder*> resultsOf(const Stmt& s) {
  const Block* body = nullptr;
  switch (s.kind) {
    case Stmt::Kind::For: body = &s.as<ForStmt>().body; break;
    case Stmt::Kind::If: body = &s.as<IfStmt>().thenBody; break;
    case Stmt::Kind::While: body = &s.as<WhileStmt>().body; break;
    default: return {};
  }
  std::vector<const Binder*> out;
  if (const YieldStmt* y = trailingYield(*body))
    for (const auto& t : y->targets) out.push_back(&t);
  return out;
}

Function Function::clone() const {
  Function f;
  f.name = name;
  f.type = type;
  f.stage = stage;
  f.bufferIRSelected = bufferIRSelected;
  f.params = params;
  f.results = results;
  f.body = cloneBlock(body);
  f.loc = loc;
  f.numSlots = numSlots;
  return f;
}

Program Program::clone() const {
  Program p;
  p.name = name;
  p.source = source;
  for (const auto& f : functions) p.functions.push_back(f.clone());
  return p;
}

const Function* Program::findFunction(std::string_view n) const {
  for (const auto& f : functions)
    if (f.name == n) return &f;
  return nullptr;
}

const Function* Program::defaultKernel() const {
  const Function* only = nullptr;
  int kernels = 0;
  for (const auto& f : functions)
    if (f.type != FunctionType::Orchestration) {
      only = &f;
      ++kernels;
    }
  if (kernels == 1) return only;
  return findFunction("kernel");
}

// ---- structural equality ----

namespace {
struct Differ {
  std::string diff;  // first difference found; empty while equal
  /// Where the comparison is: "function NAME", "stmtN", "argN" steps, spelled only for a difference
  /// (verify-each compares whole programs after every pass).
  struct Step {
    const char* label;
    size_t index;
    const std::string* name;  // a function's, else null
  };
  std::vector<Step> path;

  bool fail(const std::string& what) {
    if (diff.empty()) {
      std::ostringstream os;
      for (const Step& p : path) {
        if (p.name)
          os << p.label << *p.name << "/";
        else
          os << p.label << p.index << "/";
      }
      os << what;
      diff = os.str();
    }
    return false;
  }
  struct Scope {
    Differ& d;
    Scope(Differ& d, Step step) : d(d) { d.path.push_back(step); }
    ~Scope() { d.path.pop_back(); }
  };

  bool type(const Type& a, const Type& b) { return a == b || fail("type"); }

  bool binder(const Binder& a, const Binder& b) {
    if (a.name != b.name) return fail("binder name '" + a.name + "' vs '" + b.name + "'");
    if (a.annotation.has_value() != b.annotation.has_value()) return fail("annotation of " + a.name);
    if (a.annotation && !(*a.annotation == *b.annotation)) return fail("annotation of " + a.name);
    return true;
  }
  bool binders(const std::vector<Binder>& a, const std::vector<Binder>& b) {
    if (a.size() != b.size()) return fail("binder count");
    for (size_t i = 0; i < a.size(); ++i)
      if (!binder(a[i], b[i])) return false;
    return true;
  }

  bool expr(const Expr* a, const Expr* b) {
    if (!a || !b) return (a == b) || fail("omitted argument");
    if (a->kind != b->kind) return fail("expression kind");
    switch (a->kind) {
      case Expr::Kind::IntLit: if (a->intValue != b->intValue) return fail("int literal"); break;
      case Expr::Kind::FloatLit:
        // Bitwise: -0.0 and 0.0 differ, NaN equals itself.
        if (std::bit_cast<uint64_t>(a->floatValue) != std::bit_cast<uint64_t>(b->floatValue))
          return fail("float literal");
        break;
      case Expr::Kind::BoolLit: if (a->boolValue != b->boolValue) return fail("bool literal"); break;
      case Expr::Kind::Name: if (a->name != b->name) return fail("name '" + a->name + "' vs '" + b->name + "'"); break;
      case Expr::Kind::Unary: if (a->unop != b->unop) return fail("unary op"); break;
      case Expr::Kind::Binary: if (a->binop != b->binop) return fail("binary op"); break;
      case Expr::Kind::Call:
        if (a->op != b->op)
          return fail("op " + std::string(opInfo(a->op).spelling) + " vs " + std::string(opInfo(b->op).spelling));
        break;
      case Expr::Kind::List: break;
      case Expr::Kind::DTypeRef: if (a->dtype != b->dtype) return fail("dtype"); break;
      case Expr::Kind::SpaceRef: if (a->space != b->space) return fail("memory space"); break;
    }
    if (a->args.size() != b->args.size()) return fail("argument count");
    for (size_t i = 0; i < a->args.size(); ++i) {
      Scope s(*this, {"arg", i, nullptr});
      if (!expr(a->args[i].get(), b->args[i].get())) return false;
    }
    return true;
  }
  bool exprs(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) {
    if (a.size() != b.size()) return fail("value count");
    for (size_t i = 0; i < a.size(); ++i)
      if (!expr(a[i].get(), b[i].get())) return false;
    return true;
  }

  bool block(const Block& a, const Block& b) {
    if (a.size() != b.size()) return fail("statement count " + std::to_string(a.size()) + " vs " + std::to_string(b.size()));
    for (size_t i = 0; i < a.size(); ++i) {
      Scope s(*this, {"stmt", i, nullptr});
      if (!stmt(*a[i], *b[i])) return false;
    }
    return true;
  }

  bool stmt(const Stmt& a, const Stmt& b) {
    if (a.kind != b.kind) return fail("statement kind");
    switch (a.kind) {
      case Stmt::Kind::Assign: {
        auto &x = a.as<AssignStmt>(), &y = b.as<AssignStmt>();
        return binder(x.target, y.target) && expr(x.value.get(), y.value.get());
      }
      case Stmt::Kind::Eval: return expr(a.as<EvalStmt>().expr.get(), b.as<EvalStmt>().expr.get());
      case Stmt::Kind::Return: return exprs(a.as<ReturnStmt>().values, b.as<ReturnStmt>().values);
      case Stmt::Kind::Yield: {
        auto &x = a.as<YieldStmt>(), &y = b.as<YieldStmt>();
        return binders(x.targets, y.targets) && exprs(x.values, y.values);
      }
      case Stmt::Kind::For: {
        auto &x = a.as<ForStmt>(), &y = b.as<ForStmt>();
        return binder(x.inductionVar, y.inductionVar) && expr(x.start.get(), y.start.get()) &&
               expr(x.stop.get(), y.stop.get()) && expr(x.step.get(), y.step.get()) &&
               binders(x.iterArgs, y.iterArgs) && exprs(x.inits, y.inits) && block(x.body, y.body);
      }
      case Stmt::Kind::If: {
        auto &x = a.as<IfStmt>(), &y = b.as<IfStmt>();
        return expr(x.cond.get(), y.cond.get()) && block(x.thenBody, y.thenBody) && block(x.elseBody, y.elseBody);
      }
      case Stmt::Kind::While: {
        auto &x = a.as<WhileStmt>(), &y = b.as<WhileStmt>();
        return binders(x.iterArgs, y.iterArgs) && exprs(x.inits, y.inits) && expr(x.cond.get(), y.cond.get()) &&
               block(x.body, y.body);
      }
    }
    return fail("unknown statement");
  }

  bool function(const Function& a, const Function& b) {
    Scope s(*this, {"function ", 0, &a.name});
    if (a.name != b.name) return fail("function name");
    if (a.type != b.type) return fail("function type");
    if (a.stage != b.stage) return fail("function stage");
    if (a.bufferIRSelected != b.bufferIRSelected) return fail("buffer_ir_selected");
    if (a.params.size() != b.params.size()) return fail("parameter count");
    for (size_t i = 0; i < a.params.size(); ++i) {
      const auto &p = a.params[i], &q = b.params[i];
      if (p.name != q.name || p.direction != q.direction || !(p.type == q.type))
        return fail("parameter " + p.name);
    }
    if (a.results != b.results) return fail("result types");
    return block(a.body, b.body);
  }

  bool program(const Program& a, const Program& b) {
    if (a.name != b.name) return fail("program name");
    if (a.functions.size() != b.functions.size()) return fail("function count");
    for (size_t i = 0; i < a.functions.size(); ++i)
      if (!function(a.functions[i], b.functions[i])) return false;
    return true;
  }
};
}  // namespace

bool structurallyEqual(const Program& a, const Program& b) { return Differ{}.program(a, b); }

std::string firstDifference(const Program& a, const Program& b) {
  Differ d;
  d.program(a, b);
  return d.diff;
}

}  // namespace ptodiff
