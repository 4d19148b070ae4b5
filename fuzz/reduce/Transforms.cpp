#include "fuzz/reduce/Transforms.h"

#include <array>
#include <functional>
#include <optional>
#include <set>

#include "compiler/text/Printer.h"
#include "fuzz/campaign/CaseRunner.h"
#include "fuzz/reduce/IRWalk.h"
#include "fuzz/reduce/ShapeTransforms.h"

namespace ptodiff::fuzz {
namespace {

// ---- walking and renaming ----

/// A value bound before a statement and visible at it.
struct Visible {
  std::string name;
  Type type;
};

/// One statement of a program and what is in scope just before it.
struct Site {
  Function* function = nullptr;
  Block* block = nullptr;
  size_t index = 0;
  std::vector<Visible> visible;  // outermost first, so the nearest value is the last
};

void addBinder(std::vector<Visible>& visible, const Binder& b) { visible.push_back({b.name, b.type}); }

void collectSites(Function& f, Block& block, std::vector<Visible> visible, std::vector<Site>& out) {
  for (size_t i = 0; i < block.size(); ++i) {
    out.push_back({&f, &block, i, visible});
    Stmt& s = *block[i];
    switch (s.kind) {
      case Stmt::Kind::For: {
        auto& loop = s.as<ForStmt>();
        std::vector<Visible> inner = visible;
        addBinder(inner, loop.inductionVar);
        for (const Binder& b : loop.iterArgs) addBinder(inner, b);
        collectSites(f, loop.body, std::move(inner), out);
        break;
      }
      case Stmt::Kind::While: {
        auto& loop = s.as<WhileStmt>();
        std::vector<Visible> inner = visible;
        for (const Binder& b : loop.iterArgs) addBinder(inner, b);
        collectSites(f, loop.body, std::move(inner), out);
        break;
      }
      case Stmt::Kind::If:
        collectSites(f, s.as<IfStmt>().thenBody, visible, out);
        collectSites(f, s.as<IfStmt>().elseBody, visible, out);
        break;
      default: break;
    }
    if (s.kind == Stmt::Kind::Assign) addBinder(visible, s.as<AssignStmt>().target);
    for (const Binder* b : resultsOf(s)) addBinder(visible, *b);
  }
}

/// Every statement of every function, in program order.
std::vector<Site> collectSites(Program& p) {
  std::vector<Site> sites;
  for (Function& f : p.functions) {
    std::vector<Visible> params;
    for (const Param& prm : f.params) params.push_back({prm.name, prm.type});
    collectSites(f, f.body, std::move(params), sites);
  }
  return sites;
}

bool extentNames(const Extent& x, const std::string& name) { return x.kind == Extent::Kind::Symbol && x.symbol == name; }

bool typeNames(const Type& t, const std::string& name) {
  if (t.valid && (extentNames((*t.valid)[0], name) || extentNames((*t.valid)[1], name))) return true;
  return t.memref && (t.memref->base == name || extentNames(t.memref->offset, name));
}

/// `x` naming `name` becomes what `replacement` denotes, when a type can hold it (a name or an
/// integer literal); otherwise it is left for the verifier to reject.
void replaceInExtent(Extent& x, const std::string& name, const Expr& replacement) {
  if (!extentNames(x, name)) return;
  if (replacement.kind == Expr::Kind::Name) x = Extent::named(replacement.name);
  if (replacement.kind == Expr::Kind::IntLit) x = Extent::constant(replacement.intValue);
}

void replaceInType(Type& t, const std::string& name, const Expr& replacement) {
  if (t.valid) {
    replaceInExtent((*t.valid)[0], name, replacement);
    replaceInExtent((*t.valid)[1], name, replacement);
  }
  if (t.memref) {
    if (t.memref->base == name && replacement.kind == Expr::Kind::Name) t.memref->base = replacement.name;
    replaceInExtent(t.memref->offset, name, replacement);
  }
}

void replaceInStmt(Stmt& s, const std::string& name, const Expr& replacement) {
  forEachSlot(s, [&](ExprPtr& slot) {
    forEachExprDeep(slot, [&](ExprPtr& e) {
      if (e->kind == Expr::Kind::Name && e->name == name) e = replacement.clone();
    });
  });
  forEachBinder(s, [&](Binder& b) {
    if (b.annotation) replaceInType(*b.annotation, name, replacement);
    replaceInType(b.type, name, replacement);
  });
}

/// Replaces every use of `name` in block[from..] (nested blocks included) by `replacement`.
void replaceUsesFrom(Block& block, size_t from, const std::string& name, const Expr& replacement) {
  forEachStmtFrom(block, from, [&](Stmt& s) { replaceInStmt(s, name, replacement); });
}

bool usedFrom(Block& block, size_t from, const std::string& name) {
  bool used = false;
  forEachStmtFrom(block, from, [&](Stmt& s) {
    forEachSlot(s, [&](ExprPtr& slot) {
      forEachExprDeep(slot, [&](ExprPtr& e) { used = used || (e->kind == Expr::Kind::Name && e->name == name); });
    });
    forEachBinder(s, [&](Binder& b) { used = used || (b.annotation && typeNames(*b.annotation, name)); });
  });
  return used;
}

/// Same value type for a replacement: a planned tile's MemRef may differ (the candidate's run then
/// decides whether the failure survives).
bool sameValueType(const Type& a, const Type& b) {
  if (a.kind != b.kind || a.kind == Type::Kind::None) return false;
  Type x = a, y = b;
  x.memref.reset();
  y.memref.reset();
  return x == y;
}

/// The literal `value` of scalar dtype `dt`, or nullptr when the text format has none.
ExprPtr scalarLiteral(DType dt, double value) {
  switch (dt) {
    case DType::INDEX: return Expr::intLit(static_cast<int64_t>(value));
    case DType::BOOL: return Expr::boolLit(value != 0.0);
    case DType::FP32: return Expr::floatLit(value);
    default: break;
  }
  std::vector<ExprPtr> args;
  args.push_back(isFloat(dt) ? Expr::floatLit(value) : Expr::intLit(static_cast<int64_t>(value)));
  args.push_back(Expr::dtypeRef(dt));
  return Expr::call(Opcode::Const, std::move(args));
}

std::string locText(const SourceLoc& loc) {
  return loc.known() ? std::to_string(loc.line) + ":" + std::to_string(loc.col) : std::string("?");
}

std::string stmtText(const Stmt& s) {
  switch (s.kind) {
    case Stmt::Kind::Assign: {
      const auto& a = s.as<AssignStmt>();
      const std::string op = a.value && a.value->kind == Expr::Kind::Call ? std::string(opInfo(a.value->op).spelling)
                                                                            : std::string("expr");
      return a.target.name + " = " + op;
    }
    case Stmt::Kind::Eval: {
      const auto& e = s.as<EvalStmt>();
      return e.expr && e.expr->kind == Expr::Kind::Call ? std::string(opInfo(e.expr->op).spelling) : "expr";
    }
    case Stmt::Kind::For: return "for";
    case Stmt::Kind::While: return "while";
    case Stmt::Kind::If: return "if";
    case Stmt::Kind::Return: return "return";
    case Stmt::Kind::Yield: return "yield";
  }
  return "?";
}

std::string describe(Transform t, const Stmt& s, const std::string& extra = "") {
  return std::string(transformName(t)) + " at " + locText(s.loc) + " (" + stmtText(s) + ")" +
         (extra.empty() ? "" : " " + extra);
}

/// Builds one candidate per site index: `edit` mutates a fresh clone's site and returns a
/// description, or nullopt when it does not apply.
template <class Edit>
void perSite(const ReduceState& state, size_t variants, std::vector<Candidate>& out, Edit edit) {
  ReduceState probe = state.clone();
  const size_t count = collectSites(probe.program).size();
  for (size_t k = 0; k < count; ++k)
    for (size_t v = 0; v < variants; ++v) {
      ReduceState next = state.clone();
      std::vector<Site> sites = collectSites(next.program);
      std::optional<std::string> what = edit(next, sites[k], v);
      if (what) out.push_back({std::move(*what), std::move(next)});
    }
}

/// Removes the trailing yield of `body` and returns it (nullptr when there is none).
std::unique_ptr<YieldStmt> takeYield(Block& body) {
  if (body.empty() || body.back()->kind != Stmt::Kind::Yield) return nullptr;
  std::unique_ptr<YieldStmt> y(static_cast<YieldStmt*>(body.back().release()));
  body.pop_back();
  return y;
}

/// Replaces block[index] by `replacement` and binds each result of the removed statement to the
/// matching value: a name's uses are renamed, any other expression gets an assignment.
void spliceWithResults(Block& block, size_t index, Block replacement, std::vector<Binder> results,
                       std::vector<ExprPtr> values) {
  const size_t n = replacement.size();
  block.erase(block.begin() + static_cast<std::ptrdiff_t>(index));
  for (size_t i = 0; i < n; ++i)
    block.insert(block.begin() + static_cast<std::ptrdiff_t>(index + i), std::move(replacement[i]));
  size_t after = index + n;
  for (size_t j = 0; j < results.size() && j < values.size(); ++j) {
    if (values[j]->kind == Expr::Kind::Name || values[j]->kind == Expr::Kind::IntLit) {
      replaceUsesFrom(block, after, results[j].name, *values[j]);
      continue;
    }
    auto assign = std::make_unique<AssignStmt>(results[j].loc);
    assign->target = results[j];
    assign->value = std::move(values[j]);
    block.insert(block.begin() + static_cast<std::ptrdiff_t>(after), std::move(assign));
    ++after;
  }
}

// ---- the transformations ----

void dropFunctions(const ReduceState& state, std::vector<Candidate>& out) {
  const Function* kernel =
      state.spec.function.empty() ? state.program.defaultKernel() : state.program.findFunction(state.spec.function);
  if (!kernel || state.program.functions.size() < 2) return;
  for (size_t i = 0; i < state.program.functions.size(); ++i) {
    if (&state.program.functions[i] == kernel) continue;
    ReduceState next = state.clone();
    next.spec.function = kernel->name;  // the default kernel may change once others are gone
    const std::string name = next.program.functions[i].name;
    next.program.functions.erase(next.program.functions.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back({"drop-function " + name, std::move(next)});
  }
}

/// The replacement of bound value `b` for variant `v` at `site`: 0 = the preferred value (a loop's
/// initial value, else an operand of the same type, else the nearest live value), 1 = the nearest
/// live value of the same type, 2 = a literal (scalars only).
ExprPtr replacementFor(const Site& site, const Stmt& s, const Binder& b, size_t resultIndex, size_t v) {
  if (v == 2) return b.type.isScalar() ? scalarLiteral(b.type.dtype, 0) : nullptr;
  if (v == 0) {
    const std::vector<ExprPtr>* inits = nullptr;
    if (s.kind == Stmt::Kind::For) inits = &s.as<ForStmt>().inits;
    if (s.kind == Stmt::Kind::While) inits = &s.as<WhileStmt>().inits;
    if (inits && resultIndex < inits->size()) return (*inits)[resultIndex]->clone();
    if (s.kind == Stmt::Kind::Assign && s.as<AssignStmt>().value->kind == Expr::Kind::Call)
      for (const ExprPtr& a : s.as<AssignStmt>().value->args)
        if (a && a->kind == Expr::Kind::Name && sameValueType(a->type, b.type)) return a->clone();
  }
  for (auto it = site.visible.rbegin(); it != site.visible.rend(); ++it)
    if (it->name != b.name && sameValueType(it->type, b.type)) return Expr::nameRef(it->name);
  return nullptr;
}

std::optional<std::string> deleteStatement(ReduceState&, Site& site, size_t v) {
  Block& block = *site.block;
  Stmt& s = *block[site.index];
  if (s.kind == Stmt::Kind::Return || s.kind == Stmt::Kind::Yield) return std::nullopt;
  std::vector<Binder> bound;
  if (s.kind == Stmt::Kind::Assign) bound.push_back(s.as<AssignStmt>().target);
  for (const Binder* b : resultsOf(s)) bound.push_back(*b);
  std::vector<std::pair<std::string, ExprPtr>> replacements;
  bool anyUsed = false;
  for (size_t j = 0; j < bound.size(); ++j) {
    if (!usedFrom(block, site.index + 1, bound[j].name)) continue;
    anyUsed = true;
    ExprPtr r = replacementFor(site, s, bound[j], j, v);
    if (!r) return std::nullopt;
    replacements.emplace_back(bound[j].name, std::move(r));
  }
  if (!anyUsed && v > 0) return std::nullopt;  // nothing to replace: variant 0 already deletes it
  std::string extra;
  for (const auto& [name, r] : replacements) extra += (extra.empty() ? "" : ", ") + name + " -> " + printExpr(*r);
  const std::string what = describe(Transform::DeleteStatement, s, extra);
  block.erase(block.begin() + static_cast<std::ptrdiff_t>(site.index));
  for (const auto& [name, r] : replacements) replaceUsesFrom(block, site.index, name, *r);
  return what;
}

std::optional<std::string> inlineControl(ReduceState&, Site& site, size_t v) {
  Block& block = *site.block;
  Stmt& s = *block[site.index];
  std::vector<Binder> results;
  for (const Binder* b : resultsOf(s)) results.push_back(*b);
  Block body;
  std::string what;
  if (s.kind == Stmt::Kind::If) {
    auto& branch = s.as<IfStmt>();
    if (v == 1 && branch.elseBody.empty() && !results.empty()) return std::nullopt;
    what = describe(Transform::InlineControl, s, v == 0 ? "then arm" : "else arm");
    body = std::move(v == 0 ? branch.thenBody : branch.elseBody);
  } else if (s.kind == Stmt::Kind::For && v == 0) {
    auto& loop = s.as<ForStmt>();
    what = describe(Transform::InlineControl, s, "one trip");
    body = std::move(loop.body);
    replaceUsesFrom(body, 0, loop.inductionVar.name, *loop.start);
    for (size_t j = 0; j < loop.iterArgs.size() && j < loop.inits.size(); ++j)
      replaceUsesFrom(body, 0, loop.iterArgs[j].name, *loop.inits[j]);
  } else if (s.kind == Stmt::Kind::While && v == 0) {
    auto& loop = s.as<WhileStmt>();
    what = describe(Transform::InlineControl, s, "one trip");
    body = std::move(loop.body);
    for (size_t j = 0; j < loop.iterArgs.size() && j < loop.inits.size(); ++j)
      replaceUsesFrom(body, 0, loop.iterArgs[j].name, *loop.inits[j]);
  } else {
    return std::nullopt;
  }
  std::unique_ptr<YieldStmt> yield = takeYield(body);
  std::vector<ExprPtr> values;
  if (yield) values = std::move(yield->values);
  if (values.size() < results.size()) return std::nullopt;
  spliceWithResults(block, site.index, std::move(body), std::move(results), std::move(values));
  return what;
}

std::optional<std::string> dropCarry(ReduceState&, Site& site, size_t v) {
  Block& block = *site.block;
  Stmt& s = *block[site.index];
  std::vector<Binder>* iterArgs = nullptr;
  std::vector<ExprPtr>* inits = nullptr;
  Block* body = nullptr;
  if (s.kind == Stmt::Kind::For) {
    iterArgs = &s.as<ForStmt>().iterArgs, inits = &s.as<ForStmt>().inits, body = &s.as<ForStmt>().body;
  } else if (s.kind == Stmt::Kind::While) {
    iterArgs = &s.as<WhileStmt>().iterArgs, inits = &s.as<WhileStmt>().inits, body = &s.as<WhileStmt>().body;
  } else {
    return std::nullopt;
  }
  if (v >= iterArgs->size() || v >= inits->size() || body->empty() || body->back()->kind != Stmt::Kind::Yield)
    return std::nullopt;
  auto& yield = body->back()->as<YieldStmt>();
  if (v >= yield.values.size() || v >= yield.targets.size()) return std::nullopt;
  const std::string what = describe(Transform::DropCarry, s, (*iterArgs)[v].name);
  const ExprPtr init = (*inits)[v]->clone();
  const std::string result = yield.targets[v].name;
  const std::string iterArg = (*iterArgs)[v].name;
  yield.values.erase(yield.values.begin() + static_cast<std::ptrdiff_t>(v));
  yield.targets.erase(yield.targets.begin() + static_cast<std::ptrdiff_t>(v));
  if (yield.values.empty()) body->pop_back();
  iterArgs->erase(iterArgs->begin() + static_cast<std::ptrdiff_t>(v));
  inits->erase(inits->begin() + static_cast<std::ptrdiff_t>(v));
  replaceUsesFrom(*body, 0, iterArg, *init);
  if (s.kind == Stmt::Kind::While) replaceInStmt(s, iterArg, *init);  // the condition
  replaceUsesFrom(block, site.index + 1, result, *init);
  return what;
}

std::optional<std::string> opToFull(ReduceState&, Site& site, size_t) {
  Stmt& s = *(*site.block)[site.index];
  if (s.kind != Stmt::Kind::Assign) return std::nullopt;
  auto& assign = s.as<AssignStmt>();
  const Type& t = assign.target.type;
  if (!t.isTile() || !assign.value || assign.value->kind != Expr::Kind::Call) return std::nullopt;
  const OpInfo& info = opInfo(assign.value->op);
  if (info.family == OpFamily::Full || info.stage != OpStage::Tile) return std::nullopt;
  const std::string what = describe(Transform::OpToFull, s);
  std::vector<ExprPtr> shape;
  shape.push_back(Expr::intLit(t.rows()));
  shape.push_back(Expr::intLit(t.cols()));
  std::vector<ExprPtr> args;
  args.push_back(Expr::list(std::move(shape)));
  args.push_back(Expr::dtypeRef(t.dtype));
  args.push_back(Expr::floatLit(1.0));
  assign.value = Expr::call(Opcode::TileFull, std::move(args), assign.value->loc);
  return what;
}

/// The scalar expression `e` simplified by variant v: 0/1 an operand of a binary (0 of a unary),
/// 2 the literal 0 of its dtype for a name.
ExprPtr simplerScalar(const Expr& e, size_t v) {
  if (!e.type.isScalar()) return nullptr;
  if (e.kind == Expr::Kind::Binary && v < 2) return e.args[v]->clone();
  if (e.kind == Expr::Kind::Unary && v == 0) return e.args[0]->clone();
  if (e.kind == Expr::Kind::Name && v == 2) return scalarLiteral(e.type.dtype, 0);
  return nullptr;
}

void simplifyScalars(const ReduceState& state, std::vector<Candidate>& out) {
  ReduceState probe = state.clone();
  const std::vector<ExprPtr*> slots = expressionSlots(probe.program);
  for (size_t k = 0; k < slots.size(); ++k)
    for (size_t v = 0; v < 3; ++v) {
      ExprPtr simpler = simplerScalar(**slots[k], v);
      if (!simpler) continue;
      ReduceState next = state.clone();
      ExprPtr& slot = *expressionSlots(next.program)[k];
      const std::string what = std::string(transformName(Transform::SimplifyScalar)) + " at " + locText(slot->loc) +
                               " (" + printExpr(*slot) + " -> " + printExpr(*simpler) + ")";
      slot = std::move(simpler);
      out.push_back({what, std::move(next)});
    }
}

bool functionUses(Function& f, const std::string& name) {
  if (usedFrom(f.body, 0, name)) return true;
  for (const Type& t : f.results)
    if (typeNames(t, name)) return true;
  for (const Param& p : f.params)
    if (typeNames(p.type, name)) return true;
  return false;
}

void paramsToConstants(const ReduceState& state, std::vector<Candidate>& out) {
  for (size_t fi = 0; fi < state.program.functions.size(); ++fi)
    for (const Param& p : state.program.functions[fi].params) {
      if (!p.type.isScalar()) continue;
      const auto it = state.spec.scalars.find(p.name);
      double value = 0;  // CaseSetup's default for an absent scalar
      if (it != state.spec.scalars.end())
        value = it->second.kind == CaseScalar::Kind::Int     ? static_cast<double>(it->second.i)
                : it->second.kind == CaseScalar::Kind::Float ? it->second.f
                                                             : (it->second.b ? 1.0 : 0.0);
      ExprPtr literal = scalarLiteral(p.type.dtype, value);
      ReduceState next = state.clone();
      Function& f = next.program.functions[fi];
      if (!usedFrom(f.body, 0, p.name)) continue;
      replaceUsesFrom(f.body, 0, p.name, *literal);
      out.push_back({std::string(transformName(Transform::ParamToConstant)) + " " + p.name + " -> " +
                         printExpr(*literal),
                     std::move(next)});
    }
}

void dropParams(const ReduceState& state, std::vector<Candidate>& out) {
  for (size_t fi = 0; fi < state.program.functions.size(); ++fi)
    for (size_t pi = 0; pi < state.program.functions[fi].params.size(); ++pi) {
      ReduceState next = state.clone();
      Function& f = next.program.functions[fi];
      const std::string name = f.params[pi].name;
      if (functionUses(f, name)) continue;
      f.params.erase(f.params.begin() + static_cast<std::ptrdiff_t>(pi));
      next.spec.scalars.erase(name);
      next.spec.tensors.erase(name);
      out.push_back({std::string(transformName(Transform::DropParam)) + " " + name, std::move(next)});
    }
}

bool isNarrowFloat(DType dt) { return dt == DType::FP16 || dt == DType::BF16; }

void dtypesToFp32(const ReduceState& state, std::vector<Candidate>& out) {
  for (DType narrow : {DType::FP16, DType::BF16}) {
    ReduceState next = state.clone();
    bool changed = false;
    forEachType(next.program, [&](Type& t) {
      if (t.dtype == narrow && t.kind != Type::Kind::None) t.dtype = DType::FP32, changed = true;
    });
    for (ExprPtr* slot : expressionSlots(next.program))
      if ((*slot)->kind == Expr::Kind::DTypeRef && (*slot)->dtype == narrow) (*slot)->dtype = DType::FP32, changed = true;
    if (changed)
      out.push_back({std::string(transformName(Transform::DTypeToFp32)) + " " + std::string(dtypeName(narrow)),
                     std::move(next)});
  }
}

void countExpr(const Expr* e, ProgramSize& size) {
  if (!e) return;
  ++size.nodes;
  if (e->kind == Expr::Kind::Name) ++size.names;
  if (e->kind == Expr::Kind::Call && e->op != Opcode::TileFull && e->op != Opcode::Const) ++size.ops;
  if (e->kind == Expr::Kind::DTypeRef && isNarrowFloat(e->dtype)) ++size.narrowFloats;
  for (const ExprPtr& a : e->args) countExpr(a.get(), size);
}

}  // namespace

std::span<const Transform> transformOrder() {
  // Dropping blocks comes early: every later candidate then runs one block instead of n. Shapes
  // shrink once statements and control flow are gone (fewer values to keep consistent).
  static constexpr std::array<Transform, 12> kOrder = {
      Transform::DropFunction,    Transform::DropBlocks,  Transform::DeleteStatement, Transform::InlineControl,
      Transform::DropCarry,       Transform::ShrinkShape, Transform::ShrinkValid,     Transform::ParamToConstant,
      Transform::OpToFull,        Transform::SimplifyScalar, Transform::DTypeToFp32,  Transform::DropParam};
  return kOrder;
}

std::string_view transformName(Transform t) {
  switch (t) {
    case Transform::DropFunction: return "drop-function";
    case Transform::DropBlocks: return "drop-blocks";
    case Transform::ShrinkShape: return "shrink-shape";
    case Transform::ShrinkValid: return "shrink-valid";
    case Transform::DeleteStatement: return "delete-statement";
    case Transform::InlineControl: return "inline-control";
    case Transform::DropCarry: return "drop-carry";
    case Transform::ParamToConstant: return "param-to-constant";
    case Transform::OpToFull: return "op-to-full";
    case Transform::SimplifyScalar: return "simplify-scalar";
    case Transform::DTypeToFp32: return "dtype-to-fp32";
    case Transform::DropParam: return "drop-param";
  }
  return "?";
}

std::vector<Candidate> candidatesOf(Transform t, const ReduceState& state) {
  std::vector<Candidate> all;
  std::vector<Candidate>& out = all;
  switch (t) {
    case Transform::DropFunction: dropFunctions(state, out); break;
    case Transform::DropBlocks: dropBlockCandidates(state, out); break;
    case Transform::ShrinkShape: shrinkShapeCandidates(state, out); break;
    case Transform::ShrinkValid: shrinkValidCandidates(state, out); break;
    case Transform::DeleteStatement: perSite(state, 3, out, deleteStatement); break;
    case Transform::InlineControl: perSite(state, 2, out, inlineControl); break;
    case Transform::DropCarry: {
      // One variant per carry; a loop with more carries than this keeps the rest for the next round.
      perSite(state, 8, out, dropCarry);
      break;
    }
    case Transform::ParamToConstant: paramsToConstants(state, out); break;
    case Transform::OpToFull: perSite(state, 1, out, opToFull); break;
    case Transform::SimplifyScalar: simplifyScalars(state, out); break;
    case Transform::DTypeToFp32: dtypesToFp32(state, out); break;
    case Transform::DropParam: dropParams(state, out); break;
  }
  // Different variants may build the same program (the preferred and the nearest value are often
  // one name): keep the first of each, so no program is run twice. The block count is part of
  // what is run (drop-blocks may leave the text unchanged).
  std::set<std::string> seen;
  std::vector<Candidate> unique;
  for (Candidate& c : all)
    if (seen.insert(std::to_string(c.state.spec.blockNum) + "\n" + printProgram(c.state.program)).second)
      unique.push_back(std::move(c));
  return unique;
}

ProgramSize measureProgram(const Program& p) {
  ProgramSize size;
  size.statements = countStatements(p);
  Program copy = p.clone();
  forEachType(copy, [&](Type& t) {
    if (t.kind != Type::Kind::None && isNarrowFloat(t.dtype)) ++size.narrowFloats;
  });
  forEachType(copy, [&](Type& t) {
    if (!(t.isTile() || t.isBuffer()) || t.shape.size() != 2) return;
    const auto extent = [&](int axis) {
      const Extent x = t.validExtent(axis);
      return x.isConst() ? x.value : t.shape[static_cast<size_t>(axis)];
    };
    size.elements += t.rows() * t.cols() + extent(0) * extent(1);
  });
  size.elements += tensorElements(copy);
  for (Function& f : copy.functions) {
    size.names += static_cast<int64_t>(f.params.size());
    forEachStmtFrom(f.body, 0, [&](Stmt& s) {
      forEachSlot(s, [&](ExprPtr& slot) { countExpr(slot.get(), size); });
      forEachBinder(s, [&](Binder&) { ++size.names; });
      if (s.kind == Stmt::Kind::For) ++size.names;  // the induction variable
    });
  }
  return size;
}

ProgramSize measureState(const ReduceState& s) {
  ProgramSize size = measureProgram(s.program);
  size.blocks = s.spec.blockNum;
  return size;
}

int64_t tensorElements(const Program& p) {
  int64_t n = 0;
  for (const Function& f : p.functions)
    for (const Param& prm : f.params)
      if (prm.type.isTensor()) {
        int64_t e = 1;
        for (int64_t d : prm.type.shape) e *= d;
        n += e;
      }
  return n;
}

}  // namespace ptodiff::fuzz
