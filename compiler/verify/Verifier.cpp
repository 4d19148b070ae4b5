// The IR verifier: scoping and SSA, control-flow structure, scalar expressions, stage rules, and
// (through OpTypeRules) every op's operand and result types. It walks each function once in
// source order, filling types and frame slots as it goes, and collects every error; a value whose
// type an error left unknown silences the checks that would only repeat that error.
#include "compiler/verify/Verifier.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

#include "compiler/ir/ResourceLimits.h"
#include "compiler/verify/OpTypeRules.h"
#include "compiler/verify/TypeRules.h"

namespace ptodiff {

namespace {

using verify::ArgSlot;
using verify::OpCall;
using verify::TensorRef;
using verify::typeText;

/// What an expression evaluates to, as far as the verifier knows.
struct Value {
  std::optional<Type> type;           // nullopt: unknown because of an error already reported
  TensorRef tensor;                   // Tensor values: the parameters they refer to
  std::optional<MemSpace> rootSpace;  // Ptr values: the storage root's space
  bool known() const { return type.has_value(); }
  static Value unknown() { return {}; }
};

/// A name in scope.
struct Binding {
  Value value;
  int slot = -1;
  SourceLoc loc;
};

std::string q(const std::string& name) { return "'" + name + "'"; }
std::string dt(DType d) { return std::string(dtypeName(d)); }

std::string plural(size_t n, const std::string& word) {
  if (n == 1) return "1 " + word;
  bool ies = word.size() > 1 && word.back() == 'y' &&
             std::string_view("aeiou").find(word[word.size() - 2]) == std::string_view::npos;  // carry -> carries
  return std::to_string(n) + " " + (ies ? word.substr(0, word.size() - 1) + "ies" : word + "s");
}

class DiagnosticSink {
 public:
  explicit DiagnosticSink(std::string file) : file_(std::move(file)) {}

  Diagnostic& error(SourceLoc loc, std::string message) {
    Diagnostic d;
    d.severity = Severity::Error;
    d.file = file_;
    d.loc = loc;
    d.message = std::move(message);
    list_.push_back(std::move(d));
    return list_.back();
  }

  void note(Diagnostic& d, SourceLoc loc, std::string message) {
    Diagnostic n;
    n.severity = Severity::Note;
    n.file = file_;
    n.loc = loc;
    n.message = std::move(message);
    d.notes.push_back(std::move(n));
  }

  std::vector<Diagnostic> take() {
    std::stable_sort(list_.begin(), list_.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return std::pair(a.loc.line, a.loc.col) < std::pair(b.loc.line, b.loc.col);
    });
    return std::move(list_);
  }

 private:
  std::string file_;
  std::vector<Diagnostic> list_;
};

/// Calls `visit` on every binder of `body` in source order until it returns true; whether one did.
/// Only diagnostics search the binders, so the verifier's walk keeps no index of them.
template <class Visit>
bool anyBinder(const Block& body, const Visit& visit) {
  auto anyOf = [&](const std::vector<Binder>& binders) { return std::any_of(binders.begin(), binders.end(), visit); };
  for (const StmtPtr& s : body) {
    bool found = false;
    switch (s->kind) {
      case Stmt::Kind::Assign: found = visit(s->as<AssignStmt>().target); break;
      case Stmt::Kind::Yield: found = anyOf(s->as<YieldStmt>().targets); break;
      case Stmt::Kind::For: {
        const auto& f = s->as<ForStmt>();
        found = visit(f.inductionVar) || anyOf(f.iterArgs) || anyBinder(f.body, visit);
        break;
      }
      case Stmt::Kind::If:
        found = anyBinder(s->as<IfStmt>().thenBody, visit) || anyBinder(s->as<IfStmt>().elseBody, visit);
        break;
      case Stmt::Kind::While: {
        const auto& w = s->as<WhileStmt>();
        found = anyOf(w.iterArgs) || anyBinder(w.body, visit);
        break;
      }
      case Stmt::Kind::Eval:
      case Stmt::Kind::Return: break;
    }
    if (found) return true;
  }
  return false;
}

bool isTensorDType(DType d) {
  return d == DType::FP16 || d == DType::BF16 || d == DType::FP32 || d == DType::INT32 || d == DType::INT8;
}

class FunctionVerifier {
 public:
  FunctionVerifier(Function& fn, DiagnosticSink& sink) : fn_(fn), sink_(sink) {}

  void run() {
    scopes_.emplace_back();
    for (Param& p : fn_.params) parameter(p);
    statements(fn_.body, Region::FunctionBody);
    // A return that is not last was reported as such; only a body without any return is reported here.
    bool hasReturn =
        std::any_of(fn_.body.begin(), fn_.body.end(), [](const StmtPtr& s) { return s->kind == Stmt::Kind::Return; });
    if (!fn_.results.empty() && !hasReturn)
      sink_.error(fn_.loc, "function " + q(fn_.name) + " declares " + plural(fn_.results.size(), "result") +
                               " but its body does not end with return; expected a final return statement");
    fn_.numSlots = nextSlot_;
  }

 private:
  enum class Region { FunctionBody, LoopBody, IfArm };

  Function& fn_;
  DiagnosticSink& sink_;
  // Names are views of the function's binders and parameters, which outlive the walk.
  std::vector<std::unordered_map<std::string_view, Binding>> scopes_;
  std::vector<std::pair<std::string_view, SourceLoc>> boundSoFar_;  // names bound so far, live or not
  std::set<std::string> reportedUndefined_;
  int nextSlot_ = 0;
  // Resource limits (ResourceLimits): what the interpreters would allocate for this function.
  int64_t gmBytes_ = 0, frameTileBytes_ = 0;
  bool gmReported_ = false, frameReported_ = false;
  std::set<std::pair<Type::Kind, Shape>> reportedShapes_;  // each oversized shape once
  std::set<int64_t> reportedStorage_;                                     // each oversized MemRef size once

  bool bufferStage() const { return fn_.stage == FunctionStage::Buffer; }

  // ---- scopes ----

  const Binding* lookup(std::string_view name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto found = it->find(name); found != it->end()) return &found->second;
    return nullptr;
  }

  /// Reports a rebinding (same scope) or shadowing (enclosing scope) of `name`; true if fresh.
  bool checkFresh(const std::string& name, SourceLoc loc) {
    for (size_t depth = scopes_.size(); depth-- > 0;) {
      auto found = scopes_[depth].find(name);
      if (found == scopes_[depth].end()) continue;
      bool same = depth + 1 == scopes_.size();
      Diagnostic& d =
          sink_.error(loc, same ? q(name) + " is already bound in this scope; expected each name to be bound once (SSA)"
                                : q(name) + " shadows a binding of an enclosing scope; expected a fresh name");
      sink_.note(d, found->second.loc,
                 same ? "previous binding of " + q(name) + " is here" : "the outer binding is here");
      return false;
    }
    return true;
  }

  // ---- resource limits ----

  static int64_t elementsOf(const Type& t) {
    if (t.shape.size() != 2 || t.shape[0] <= 0 || t.shape[1] <= 0) return 0;  // malformed: reported elsewhere
    return checkedElements(t.shape[0], t.shape[1]);
  }

  /// A tensor, tile or buffer type past the size limits is an error (once per kind and shape, once
  /// per MemRef size): the interpreters would allocate it. `describe()` names the value; it is called
  /// only for a message, the verifier's hot path builds no strings.
  template <class Describe>
  void checkShapeLimits(const Type& t, SourceLoc loc, const Describe& describe) {
    if (!t.isTensor() && !t.isTile() && !t.isBuffer()) return;
    const int64_t elements = elementsOf(t);
    if (elements == 0) return;
    const ResourceLimits& limits = resourceLimits();
    const int64_t maxElements = t.isTensor() ? limits.maxTensorElements : limits.maxTileElements;
    const int64_t maxBytes = t.isTensor() ? limits.maxTensorBytes : limits.maxTileBytes;
    const int64_t bytes = checkedElements(elements, dtypeSize(t.dtype));
    if ((elements < 0 || elements > maxElements || bytes < 0 || bytes > maxBytes) &&
        reportedShapes_.emplace(t.kind, t.shape).second)
      sink_.error(loc, overLimit(describe() + " of shape " + verify::shapeText(t.shape), elements, dtypeSize(t.dtype),
                                 maxElements, maxBytes));
    if (t.memref && t.memref->size > limits.maxStorageBytes && reportedStorage_.insert(t.memref->size).second)
      sink_.error(loc, describe() + ": MemRef size " + std::to_string(t.memref->size) + " is over the limit of " +
                           std::to_string(limits.maxStorageBytes) + " bytes (expected a smaller storage size)");
  }

  /// Adds the bytes of `t` to a running total and reports the first time it passes `limit`. A value
  /// over its own limit was reported by checkShapeLimits and is not counted again.
  void addToTotal(int64_t& total, bool& reported, const Type& t, int64_t maxElements, int64_t maxBytes,
                  int64_t limit, SourceLoc loc, const std::string& what) {
    const int64_t elements = elementsOf(t);
    if (elements < 0 || !overLimit({}, elements, dtypeSize(t.dtype), maxElements, maxBytes).empty()) return;
    const int64_t bytes = elements * dtypeSize(t.dtype);
    total = total > std::numeric_limits<int64_t>::max() - bytes ? std::numeric_limits<int64_t>::max() : total + bytes;
    if (total <= limit || reported) return;
    reported = true;
    sink_.error(loc, "function " + q(fn_.name) + ": " + what + " take " + std::to_string(total) +
                         " bytes up to here, over the limit of " + std::to_string(limit) +
                         " (expected fewer or smaller values)");
  }

  void checkBinderLimits(const Binder& b) {
    const Type& t = b.type;
    checkShapeLimits(t, b.loc, [&] { return typeKindWord(t) + " " + q(b.name); });
    const ResourceLimits& limits = resourceLimits();
    if (t.isTile() || t.isBuffer())
      addToTotal(frameTileBytes_, frameReported_, t, limits.maxTileElements, limits.maxTileBytes,
                 limits.maxFrameTileBytes, b.loc, "its tile and buffer values");
  }

  static std::string typeKindWord(const Type& t) {
    return t.isTensor() ? "tensor" : t.isTile() ? "tile" : t.isBuffer() ? "buffer" : "value";
  }

  /// A for loop with literal bounds whose trip count is past maxStaticTripCount.
  void checkStaticTripCount(const ForStmt& s) {
    const Extent start = verify::extentOfExpr(*s.start), stop = verify::extentOfExpr(*s.stop),
                 step = verify::extentOfExpr(*s.step);
    if (!start.isConst() || !stop.isConst() || !step.isConst() || step.value == 0) return;
    const __int128 span = static_cast<__int128>(stop.value) - start.value;
    const __int128 stride = step.value;
    const __int128 trips = (span > 0) == (stride > 0) && span != 0 ? (span + stride - (stride > 0 ? 1 : -1)) / stride : 0;
    const int64_t limit = resourceLimits().maxStaticTripCount;
    if (trips > limit)
      sink_.error(s.loc, "for: " + (trips > std::numeric_limits<int64_t>::max()
                                        ? std::string("too many")
                                        : std::to_string(static_cast<int64_t>(trips))) +
                             " iterations, over the limit of " + std::to_string(limit) +
                             " (expected a smaller static trip count)");
  }

  /// Binds `b` in the innermost scope with a fresh slot and fills the binder. `name` is b.name or,
  /// for a parameter's temporary binder, the parameter's own name (the scope keeps a view of it).
  void define(Binder& b, const Value& v, std::string_view name) {
    b.slot = nextSlot_++;
    b.type = v.type.value_or(Type::none());
    checkBinderLimits(b);
    scopes_.back()[name] = Binding{v, b.slot, b.loc};
    boundSoFar_.emplace_back(name, b.loc);
  }
  void define(Binder& b, const Value& v) { define(b, v, b.name); }

  /// checkFresh + define; a rebinding keeps the first binding (so later uses see one type).
  void bind(Binder& b, const Value& v) {
    if (checkFresh(b.name, b.loc)) {
      define(b, v);
    } else {
      b.slot = nextSlot_++;
      b.type = v.type.value_or(Type::none());
      checkBinderLimits(b);
    }
  }

  void undefinedName(const Expr& e) {
    if (!reportedUndefined_.insert(e.name).second) return;
    const auto seen = std::find_if(boundSoFar_.rbegin(), boundSoFar_.rend(),
                                   [&](const auto& bound) { return bound.first == e.name; });
    if (seen != boundSoFar_.rend()) {  // the latest binding of the name walked so far
      Diagnostic& d = sink_.error(
          e.loc, q(e.name) + " is not in scope here; expected a value bound in this region or an enclosing one");
      sink_.note(d, seen->second, q(e.name) + " is bound here, in a region that has ended");
      return;
    }
    SourceLoc later;
    if (anyBinder(fn_.body, [&](const Binder& b) { return b.name == e.name && (later = b.loc, true); })) {
      Diagnostic& d = sink_.error(e.loc, q(e.name) + " is used before it is defined; expected a value bound earlier");
      sink_.note(d, later, q(e.name) + " is defined here");
      return;
    }
    sink_.error(e.loc, "undefined name " + q(e.name) + "; expected a parameter or a value bound earlier");
  }

  // ---- parameters and annotations ----

  void parameter(Param& p) {
    const Type& t = p.type;
    if (t.isTensor()) {
      if (t.shape.size() != 2 || t.shape[0] <= 0 || t.shape[1] <= 0)
        sink_.error(p.loc, "parameter " + q(p.name) + " has shape " + verify::shapeText(t.shape) +
                               "; expected a rank-2 tensor with positive extents");
      else if (!isTensorDType(t.dtype))
        sink_.error(p.loc, "parameter " + q(p.name) + " has dtype " + dt(t.dtype) +
                               "; expected a tensor of FP16, BF16, FP32, INT32 or INT8");
    } else if (t.isScalar()) {
      if (!isScalarDType(t.dtype))
        sink_.error(p.loc, "parameter " + q(p.name) + " is a scalar of " + dt(t.dtype) +
                               "; expected INDEX, INT32, INT64, FP32 or BOOL");
      else if (p.direction != ParamDirection::In)
        sink_.error(p.loc, "scalar parameter " + q(p.name) + " is declared Out or InOut; expected an In scalar");
    } else {
      sink_.error(p.loc, "parameter " + q(p.name) + " has type " + typeText(t) + "; expected a pl.Tensor or pl.Scalar");
    }
    Value v{t, {}, std::nullopt};
    if (t.isTensor()) v.tensor.params.push_back(&p);
    Binder b{p.name, std::nullopt, p.loc, -1, {}};
    if (const Binding* earlier = lookup(p.name)) {
      Diagnostic& d =
          sink_.error(p.loc, "parameter " + q(p.name) + " is declared twice; expected unique parameter names");
      sink_.note(d, earlier->loc, "the first declaration is here");
      b.slot = nextSlot_++;
    } else {
      define(b, v, p.name);
    }
    p.slot = b.slot;
    const ResourceLimits& limits = resourceLimits();
    if (t.isTensor())
      addToTotal(gmBytes_, gmReported_, t, limits.maxTensorElements, limits.maxTensorBytes, limits.maxGmBytes, p.loc,
                 "its tensor parameters");
  }

  /// Names inside an annotation (symbolic valid extents, MemRef parts) must be in scope.
  void checkAnnotationNames(const Type& t, const std::string& owner, SourceLoc loc) {
    auto scalarInScope = [&](const Extent& e, const std::string& role) {
      if (e.kind != Extent::Kind::Symbol) return;
      const Binding* b = lookup(e.symbol);
      if (!b || (b->value.known() && !(b->value.type->isScalar() && b->value.type->dtype == DType::INDEX)))
        sink_.error(loc, "annotation of " + q(owner) + ": " + role + " " + q(e.symbol) +
                             " is not an INDEX scalar in scope; expected an integer or a bound INDEX name");
    };
    if (t.valid) {
      scalarInScope((*t.valid)[0], "valid extent");
      scalarInScope((*t.valid)[1], "valid extent");
    }
    if (!t.memref) return;
    scalarInScope(t.memref->offset, "MemRef offset");
    const Binding* root = lookup(t.memref->base);
    if (!root || (root->value.known() && root->value.type->kind != Type::Kind::Ptr)) {
      sink_.error(loc, "annotation of " + q(owner) + ": MemRef base " + q(t.memref->base) +
                           " is not a storage root in scope; expected a name bound by pl.tile.alloc");
    } else if (root->value.rootSpace && *root->value.rootSpace != t.space) {
      sink_.error(loc, "annotation of " + q(owner) + ": MemRef base " + q(t.memref->base) + " is a " +
                           std::string(memSpaceName(*root->value.rootSpace)) + " root but the tile is in " +
                           std::string(memSpaceName(t.space)) + "; expected a root of the tile's memory space");
    }
  }

  /// The type a binder with annotation `annotation` takes for a value of type `inferred`: the
  /// annotation when it accepts the value (it may add a MemRef and name dynamic extents), the
  /// inferred type after reporting a mismatch.
  Value annotate(const Binder& b, Value v) {
    if (!b.annotation) return v;
    Type annotated = *b.annotation;
    annotated.canonicalizeValid();
    checkAnnotationNames(annotated, b.name, b.loc);
    if (!v.known()) {
      v.type = annotated;
      return v;
    }
    if (verify::typeAccepts(annotated, *v.type)) {
      v.type = annotated;
      return v;
    }
    sink_.error(b.loc, "annotation of " + q(b.name) + " differs from the inferred type (" +
                           verify::typeDifference(annotated, *v.type) + "); expected " + typeText(*v.type));
    return v;
  }

  // ---- statements ----

  /// Verifies a region's statements; returns its trailing yield, left for the enclosing compound
  /// statement to check against its carries or arms.
  YieldStmt* statements(Block& body, Region region) {
    for (size_t i = 0; i < body.size(); ++i) {
      Stmt& s = *body[i];
      bool last = i + 1 == body.size();
      switch (s.kind) {
        case Stmt::Kind::Assign: assign(s.as<AssignStmt>()); break;
        case Stmt::Kind::Eval: eval(s.as<EvalStmt>()); break;
        case Stmt::Kind::Return: returnStmt(s.as<ReturnStmt>(), region == Region::FunctionBody, last); break;
        case Stmt::Kind::For: forStmt(s.as<ForStmt>()); break;
        case Stmt::Kind::If: ifStmt(s.as<IfStmt>()); break;
        case Stmt::Kind::While: whileStmt(s.as<WhileStmt>()); break;
        case Stmt::Kind::Yield: {
          auto& y = s.as<YieldStmt>();
          if (last && region != Region::FunctionBody) return &y;
          sink_.error(
              y.loc,
              region == Region::FunctionBody
                  ? "pl.yield_ outside a loop or if; expected it only at the end of a region"
                  : "pl.yield_ is followed by more statements; expected it to be the last statement of its region");
          for (ExprPtr& v : y.values) expr(*v);
          for (Binder& t : y.targets) {
            t.slot = nextSlot_++;
          }
          break;
        }
      }
    }
    return nullptr;
  }

  void assign(AssignStmt& s) {
    const std::optional<Type>& annotation = s.target.annotation;
    Value v = expr(*s.value, &annotation);
    if (v.known() && v.type->kind == Type::Kind::None && s.value->kind == Expr::Kind::Call) {
      // A Buffer op that writes its destination has no value to bind.
      sink_.error(s.value->loc, std::string(opInfo(s.value->op).spelling) +
                                    ": returns nothing; expected an expression statement, not an assignment");
      v = Value::unknown();
    }
    bool opTypedByAnnotation = s.value->kind == Expr::Kind::Call && [&] {
      OpFamily f = opInfo(s.value->op).family;
      return f == OpFamily::BufAlloc || f == OpFamily::BufSubview || f == OpFamily::BufReshape;
    }();
    if (bufferStage() && !annotation && !opTypedByAnnotation && v.known() && v.type->isBuffer())
      sink_.error(s.target.loc, "assignment to " + q(s.target.name) +
                                    " in a Buffer-stage function has no type annotation; expected " + s.target.name +
                                    ": " + typeText(*v.type) + " = ...");
    bind(s.target, opTypedByAnnotation ? v : annotate(s.target, v));
  }

  void eval(EvalStmt& s) {
    if (s.expr->kind != Expr::Kind::Call) {
      sink_.error(s.expr->loc, "expression statement has no effect; expected a call");
    }
    expr(*s.expr);
  }

  void returnStmt(ReturnStmt& s, bool topLevel, bool last) {
    if (!topLevel)
      sink_.error(s.loc, "return inside a loop or if; expected return only as the function body's last statement");
    else if (!last)
      sink_.error(s.loc, "return is followed by more statements; expected it to be the function body's last statement");
    std::vector<Value> values;
    for (ExprPtr& e : s.values) values.push_back(expr(*e));
    if (values.size() != fn_.results.size()) {
      sink_.error(s.loc, "return: " + plural(values.size(), "value") + " but function " + q(fn_.name) + " declares " +
                             plural(fn_.results.size(), "result") + "; expected " + std::to_string(fn_.results.size()));
      return;
    }
    for (size_t i = 0; i < values.size(); ++i) {
      if (!values[i].known() || verify::typeAccepts(fn_.results[i], *values[i].type)) continue;
      sink_.error(s.values[i]->loc, "return: value " + std::to_string(i + 1) + " differs from the declared result (" +
                                        verify::typeDifference(fn_.results[i], *values[i].type) + "); expected " +
                                        typeText(fn_.results[i]));
    }
  }

  Value indexOperand(Expr& e, const std::string& role) {
    Value v = expr(e);
    if (v.known() && !(v.type->isScalar() && v.type->dtype == DType::INDEX)) {
      sink_.error(e.loc, role + " has type " + describe(*v.type) + "; expected INDEX");
      return Value::unknown();
    }
    return v;
  }

  void boolCondition(Expr& e, const std::string& role) {
    Value v = expr(e);
    if (v.known() && !(v.type->isScalar() && v.type->dtype == DType::BOOL))
      sink_.error(e.loc, role + " has type " + describe(*v.type) + "; expected BOOL");
  }

  /// Binds loop carries from their initial values (already typed in the enclosing scope).
  std::vector<Value> bindCarries(std::vector<Binder>& iterArgs, const std::vector<Value>& inits, SourceLoc loc) {
    if (iterArgs.size() != inits.size())
      sink_.error(loc, "loop has " + plural(iterArgs.size(), "carry") + " but " +
                           plural(inits.size(), "initial value") + "; expected one initial value per carry");
    std::vector<Value> carries;
    for (size_t i = 0; i < iterArgs.size(); ++i) {
      Value v = i < inits.size() ? inits[i] : Value::unknown();
      if (bufferStage() && v.known() && !v.type->isScalar()) {
        sink_.error(iterArgs[i].loc, "loop carry " + q(iterArgs[i].name) + " is " + describe(*v.type) +
                                         " in a Buffer-stage function; expected only scalar carries");
        v = Value::unknown();
      }
      v = annotate(iterArgs[i], v);
      bind(iterArgs[i], v);
      carries.push_back(v);
    }
    return carries;
  }

  /// Types a yield's values and checks its targets against the scope at the yield (a target must
  /// not rebind a name of the region, nor shadow an enclosing one).
  std::vector<Value> yieldValues(YieldStmt& y) {
    std::vector<Value> values;
    for (ExprPtr& e : y.values) values.push_back(expr(*e));
    if (y.targets.size() != y.values.size())
      sink_.error(y.loc, "pl.yield_: " + plural(y.values.size(), "value") + " but " +
                             plural(y.targets.size(), "target") + "; expected one target per value");
    for (Binder& t : y.targets) checkFresh(t.name, t.loc);
    return values;
  }

  /// Checks the yield ending a loop body against the loop's carries; returns the loop's results.
  std::vector<Value> loopYield(YieldStmt* y, std::vector<Binder>& iterArgs, const std::vector<Value>& carries,
                               SourceLoc loopLoc) {
    if (!y) {
      if (!iterArgs.empty())
        sink_.error(loopLoc, "loop with " + plural(iterArgs.size(), "carry") +
                                 " does not end with pl.yield_; expected its body to end with pl.yield_ of " +
                                 plural(iterArgs.size(), "value"));
      return {};
    }
    std::vector<Value> values = yieldValues(*y);
    if (values.size() != iterArgs.size()) {
      sink_.error(y->loc, "pl.yield_: " + plural(values.size(), "value") + " for " +
                              plural(iterArgs.size(), "loop carry") + "; expected one value per carry");
      return {};
    }
    for (size_t i = 0; i < values.size(); ++i) {
      const Value& carry = carries[i];
      const Value& value = values[i];
      if (!carry.known() || !value.known()) continue;
      if (!verify::typeAccepts(*carry.type, *value.type)) {
        sink_.error(y->values[i]->loc,
                    "pl.yield_: value for carry " + q(iterArgs[i].name) + " differs from its type (" +
                        verify::typeDifference(*carry.type, *value.type) + "); expected " + typeText(*carry.type));
        continue;
      }
      if (carry.type->isTensor()) {
        TensorRef both = carry.tensor;
        both.merge(value.tensor);
        if (!(both == carry.tensor))
          sink_.error(y->values[i]->loc, "pl.yield_: tensor carry " + q(iterArgs[i].name) + " starts as " +
                                             carry.tensor.describe() + " but is yielded as " + value.tensor.describe() +
                                             "; expected a tensor carry to keep referring to the same parameter");
      }
    }
    return carries;  // results take the carries' types (equal to every yielded value's)
  }

  /// Binds a compound statement's results (its yield's targets) in the enclosing scope.
  void bindResults(std::vector<Binder>& targets, const std::vector<Value>& results) {
    for (size_t i = 0; i < targets.size(); ++i) {
      Value v = i < results.size() ? results[i] : Value::unknown();
      v = annotate(targets[i], v);
      if (lookup(targets[i].name)) {  // already reported at the yield
        targets[i].slot = nextSlot_++;
        targets[i].type = v.type.value_or(Type::none());
        continue;
      }
      define(targets[i], v);
    }
  }

  void forStmt(ForStmt& s) {
    indexOperand(*s.start, "for: start");
    indexOperand(*s.stop, "for: stop");
    indexOperand(*s.step, "for: step");
    if (s.step->kind == Expr::Kind::IntLit && s.step->intValue == 0)
      sink_.error(s.step->loc, "for: step is 0; expected a nonzero step");
    checkStaticTripCount(s);
    std::vector<Value> inits;
    for (ExprPtr& e : s.inits) inits.push_back(expr(*e));

    scopes_.emplace_back();
    if (s.inductionVar.annotation && !(*s.inductionVar.annotation == Type::scalar(DType::INDEX)))
      sink_.error(s.inductionVar.loc, "induction variable " + q(s.inductionVar.name) + " is annotated " +
                                          typeText(*s.inductionVar.annotation) + "; expected pl.Scalar[pl.INDEX]");
    bind(s.inductionVar, Value{Type::scalar(DType::INDEX), {}, std::nullopt});
    std::vector<Value> carries = bindCarries(s.iterArgs, inits, s.loc);
    YieldStmt* y = statements(s.body, Region::LoopBody);
    std::vector<Value> results = loopYield(y, s.iterArgs, carries, s.loc);
    scopes_.pop_back();
    if (y) bindResults(y->targets, results);
  }

  void whileStmt(WhileStmt& s) {
    std::vector<Value> inits;
    for (ExprPtr& e : s.inits) inits.push_back(expr(*e));
    scopes_.emplace_back();
    std::vector<Value> carries = bindCarries(s.iterArgs, inits, s.loc);
    boolCondition(*s.cond, "pl.cond: condition");
    YieldStmt* y = statements(s.body, Region::LoopBody);
    std::vector<Value> results = loopYield(y, s.iterArgs, carries, s.loc);
    scopes_.pop_back();
    if (y) bindResults(y->targets, results);
  }

  struct Arm {
    YieldStmt* yield = nullptr;
    std::vector<Value> values;
    bool hasResults() const { return yield && !yield->targets.empty(); }
  };

  Arm arm(Block& body) {
    scopes_.emplace_back();
    Arm a;
    a.yield = statements(body, Region::IfArm);
    if (a.yield) a.values = yieldValues(*a.yield);
    scopes_.pop_back();
    return a;
  }

  static std::string targetNames(const Arm& a) {
    std::string out = "(";
    if (a.yield)
      for (size_t i = 0; i < a.yield->targets.size(); ++i) out += (i ? ", " : "") + a.yield->targets[i].name;
    return out + ")";
  }

  void ifStmt(IfStmt& s) {
    boolCondition(*s.cond, "if: condition");
    Arm then = arm(s.thenBody);
    Arm other = arm(s.elseBody);
    if (!then.hasResults() && !other.hasResults()) return;
    if (s.elseBody.empty()) {
      sink_.error(s.loc,
                  "if with results " + targetNames(then) + " has no else; expected an else arm ending with pl.yield_");
      bindResults(then.yield->targets, then.values);
      return;
    }
    std::vector<std::string> thenNames, elseNames;
    if (then.yield)
      for (const Binder& b : then.yield->targets) thenNames.push_back(b.name);
    if (other.yield)
      for (const Binder& b : other.yield->targets) elseNames.push_back(b.name);
    if (thenNames != elseNames) {
      SourceLoc at = other.yield ? other.yield->loc : s.loc;
      Diagnostic& d = sink_.error(at, "if arms bind different names: then " + targetNames(then) + ", else " +
                                          targetNames(other) + "; expected both arms to bind the same names");
      if (then.yield) sink_.note(d, then.yield->loc, "the then arm binds its results here");
      if (then.hasResults()) bindResults(then.yield->targets, then.values);
      return;
    }
    std::vector<Value> results;
    for (size_t i = 0; i < thenNames.size(); ++i) {
      Value a = i < then.values.size() ? then.values[i] : Value::unknown();
      Value b = i < other.values.size() ? other.values[i] : Value::unknown();
      if (a.known() && b.known() && !verify::typeAccepts(*a.type, *b.type)) {
        sink_.error(other.yield->values[i]->loc, "if arms yield different types for " + q(thenNames[i]) + " (" +
                                                     verify::typeDifference(*a.type, *b.type) +
                                                     "); expected both arms to yield the same type");
        a = Value::unknown();
      }
      if (a.known() && bufferStage() && !a.type->isScalar()) {
        sink_.error(then.yield->values[i]->loc, "if result " + q(thenNames[i]) + " is " + describe(*a.type) +
                                                    " in a Buffer-stage function; expected only scalar results");
        a = Value::unknown();
      }
      if (!b.known())
        a = Value::unknown();
      else
        a.tensor.merge(b.tensor);
      results.push_back(a);
    }
    // Both arms' targets are the same values: they share slots and types.
    bindResults(then.yield->targets, results);
    for (size_t i = 0; i < other.yield->targets.size(); ++i) {
      Binder& b = other.yield->targets[i];
      b.slot = then.yield->targets[i].slot;
      b.type = then.yield->targets[i].type;
    }
  }

  // ---- expressions ----

  static std::string describe(const Type& t) {
    switch (t.kind) {
      case Type::Kind::Scalar: return dt(t.dtype);
      case Type::Kind::None: return "no value";
      default: return typeText(t);
    }
  }

  /// Types `e` (and everything inside it), fills Expr::type and Expr::slot, and returns its value.
  Value expr(Expr& e, const std::optional<Type>* annotation = nullptr) {
    Value v = exprUnfilled(e, annotation);
    e.type = v.type.value_or(Type::none());
    // A call's result is allocated even when no name binds it (an operand of another call).
    if (e.kind == Expr::Kind::Call)
      checkShapeLimits(e.type, e.loc, [&] { return "the result of pl." + std::string(opInfo(e.op).spelling); });
    return v;
  }

  Value exprUnfilled(Expr& e, const std::optional<Type>* annotation) {
    switch (e.kind) {
      case Expr::Kind::IntLit: return Value{Type::scalar(DType::INDEX), {}, std::nullopt};
      case Expr::Kind::FloatLit: return Value{Type::scalar(DType::FP32), {}, std::nullopt};
      case Expr::Kind::BoolLit: return Value{Type::scalar(DType::BOOL), {}, std::nullopt};
      case Expr::Kind::Name: return name(e);
      case Expr::Kind::Unary: return unary(e);
      case Expr::Kind::Binary: return binary(e);
      case Expr::Kind::Call: return call(e, annotation);
      case Expr::Kind::List:
        for (ExprPtr& a : e.args)
          if (a) expr(*a);
        sink_.error(e.loc, "a list is not a value here; expected a scalar expression or a name");
        return Value::unknown();
      case Expr::Kind::DTypeRef:
      case Expr::Kind::SpaceRef:
        sink_.error(e.loc, "a dtype or memory space is not a value here; expected a scalar expression or a name");
        return Value::unknown();
    }
    return Value::unknown();
  }

  Value name(Expr& e) {
    const Binding* b = lookup(e.name);
    if (!b) {
      undefinedName(e);
      return Value::unknown();
    }
    e.slot = b->slot;
    return b->value;
  }

  /// The dtype of a scalar operand of operator `op`, or nullopt (reported unless unknown).
  std::optional<DType> scalarOperand(const Value& v, const Expr& at, std::string_view op) {
    if (!v.known()) return std::nullopt;
    if (v.type->isScalar()) return v.type->dtype;
    sink_.error(at.loc, "operator " + std::string(op) + ": operand is " + describe(*v.type) + "; expected a scalar");
    return std::nullopt;
  }

  Value unary(Expr& e) {
    std::string_view op = e.unop == UnOp::Neg ? "-" : "not";
    std::optional<DType> d = scalarOperand(expr(*e.args[0]), *e.args[0], op);
    if (!d) return Value::unknown();
    bool ok = e.unop == UnOp::Not ? *d == DType::BOOL : *d != DType::BOOL;
    if (!ok) {
      sink_.error(e.loc, "operator " + std::string(op) + ": operand has type " + dt(*d) + "; expected " +
                             (e.unop == UnOp::Not ? "BOOL" : "a numeric scalar"));
      return Value::unknown();
    }
    return Value{Type::scalar(*d), {}, std::nullopt};
  }

  Value binary(Expr& e) {
    const std::string_view op = binOpSpelling(e.binop);
    std::optional<DType> l = scalarOperand(expr(*e.args[0]), *e.args[0], op);
    std::optional<DType> r = scalarOperand(expr(*e.args[1]), *e.args[1], op);
    if (!l || !r) return Value::unknown();
    bool logical = e.binop == BinOp::And || e.binop == BinOp::Or;
    bool equality = e.binop == BinOp::Eq || e.binop == BinOp::Ne;
    bool comparison =
        equality || e.binop == BinOp::Lt || e.binop == BinOp::Le || e.binop == BinOp::Gt || e.binop == BinOp::Ge;
    if (logical) {
      if (*l != DType::BOOL || *r != DType::BOOL) {
        sink_.error(e.loc, "operator " + std::string(op) + ": operands have types " + dt(*l) + " and " + dt(*r) +
                               "; expected BOOL");
        return Value::unknown();
      }
      return Value{Type::scalar(DType::BOOL), {}, std::nullopt};
    }
    if (*l != *r) {
      sink_.error(e.loc, "operator " + std::string(op) + ": operand dtypes differ (" + dt(*l) + " vs " + dt(*r) +
                             "); expected equal scalar dtypes (write pl.const(V, DTYPE) for another dtype)");
      return Value::unknown();
    }
    if (*l == DType::BOOL && !equality) {
      sink_.error(e.loc, "operator " + std::string(op) + ": operands are BOOL; expected numeric scalars");
      return Value::unknown();
    }
    return Value{Type::scalar(comparison ? DType::BOOL : *l), {}, std::nullopt};
  }

  // ---- calls ----

  Value call(Expr& e, const std::optional<Type>* annotation) {
    const OpInfo& info = opInfo(e.op);
    const std::string_view op = info.spelling;  // a string only when an error is reported
    bool stageOk = true;
    if (info.stage == OpStage::Tile && bufferStage()) {
      sink_.error(e.loc, std::string(op) + ": Tile-stage op in a Buffer-stage function; expected pl.buffer.* ops");
      stageOk = false;
    } else if (info.stage == OpStage::Buffer && !bufferStage()) {
      sink_.error(e.loc, std::string(op) + ": Buffer-stage op in a Tile-stage function; expected pl.tile.* ops "
                              "(or stage=pl.FunctionIRStage.Buffer on the function)");
      stageOk = false;
    }
    if (e.args.size() != info.params.size()) {
      sink_.error(e.loc, std::string(op) + ": " + plural(e.args.size(), "argument slot") + "; expected " +
                             std::to_string(info.params.size()) + " (one per parameter)");
      for (ExprPtr& a : e.args)
        if (a) expr(*a);
      return Value::unknown();
    }
    OpCall c{e,
             info,
             {},
             annotation,
             [&](SourceLoc loc, const std::string& m) { sink_.error(loc, std::string(op) + ": " + m); },
             std::nullopt,
             std::nullopt};
    bool complete = true;
    c.args.reserve(info.params.size());
    for (size_t i = 0; i < info.params.size(); ++i) complete &= argument(c, i);
    if (!complete || !stageOk) return Value::unknown();
    std::optional<Type> t = verify::inferOpType(c);
    if (!t) return Value::unknown();
    return Value{*t, c.resultTensor.value_or(TensorRef{}), c.resultRootSpace};
  }

  /// Checks argument slot `i` against its ParamKind and types it into `c.args`; false when the
  /// slot is malformed (reported) or its value unknown, so the op's rule cannot run.
  bool argument(OpCall& c, size_t i) {
    const ParamSpec& spec = c.info.params[i];
    Expr* a = c.call.args[i].get();
    ArgSlot slot;
    slot.param = spec.name;
    slot.expr = a;
    c.args.push_back(slot);
    ArgSlot& s = c.args.back();
    auto role = [&] { return "argument " + std::string(spec.name); };  // for a message only
    if (!a) {
      if (spec.optional) return true;
      c.error(role() + " is missing; expected a value for every required parameter");
      return false;
    }
    switch (spec.kind) {
      case ParamKind::Value: {
        if (a->kind != Expr::Kind::Name) {
          expr(*a);
          c.error(s, role() + " is not a name; expected the SSA name of a tile, tensor or buffer");
          return false;
        }
        Value v = expr(*a);
        if (!v.known()) return false;
        s.type = *v.type;
        s.tensor = v.tensor;
        return true;
      }
      case ParamKind::Scalar: {
        Value v = expr(*a);
        if (!v.known()) return false;
        if (!v.type->isScalar()) {
          c.error(s, role() + " is " + describe(*v.type) + "; expected a scalar expression");
          return false;
        }
        s.type = *v.type;
        return true;
      }
      case ParamKind::IndexList:
      case ParamKind::ValidTuple: return indexList(c, s, *a, spec.kind == ParamKind::ValidTuple);
      case ParamKind::ShapeList: return shapeList(c, s, *a);
      case ParamKind::DType:
        if (a->kind != Expr::Kind::DTypeRef) {
          c.error(s, role() + " is not a dtype; expected e.g. pl.FP32");
          return false;
        }
        s.dtype = a->dtype;
        return true;
      case ParamKind::Space:
        if (a->kind != Expr::Kind::SpaceRef) {
          c.error(s, role() + " is not a memory space; expected e.g. pl.Mem.Vec");
          return false;
        }
        s.space = a->space;
        return true;
    }
    return false;
  }

  bool indexList(OpCall& c, ArgSlot& s, Expr& a, bool validTuple) {
    auto role = [&] { return "argument " + std::string(s.param); };  // for a message only
    if (a.kind != Expr::Kind::List) {
      expr(a);
      c.error(s, role() + " is not a list; expected [row, col]" + (validTuple ? " or ()" : ""));
      return false;
    }
    a.type = Type::none();
    bool ok = true;
    if (!(a.args.size() == 2 || (validTuple && a.args.empty()))) {
      c.error(s, role() + " has " + plural(a.args.size(), "element") + "; expected 2" + (validTuple ? " or none" : "") +
                     " (rank-2 tiles)");
      ok = false;
    }
    for (ExprPtr& e : a.args) {
      Value v = expr(*e);
      if (!v.known()) {
        ok = false;
      } else if (!(v.type->isScalar() && v.type->dtype == DType::INDEX)) {
        c.error(s, role() + " has an element of type " + describe(*v.type) + "; expected INDEX");
        ok = false;
      }
      s.extents.push_back(verify::extentOfExpr(*e));
    }
    return ok;
  }

  bool shapeList(OpCall& c, ArgSlot& s, Expr& a) {
    bool ok = a.kind == Expr::Kind::List && a.args.size() == 2;
    if (a.kind == Expr::Kind::List) {
      a.type = Type::none();
      for (ExprPtr& e : a.args) {
        expr(*e);
        if (e->kind != Expr::Kind::IntLit || e->intValue <= 0)
          ok = false;
        else
          s.shape.push_back(e->intValue);
      }
    } else {
      expr(a);
    }
    if (!ok)
      c.error(s, "argument " + std::string(s.param) +
                     " is not a list of two positive integer literals; expected e.g. [16, 32]");
    return ok;
  }
};

}  // namespace

std::vector<Diagnostic> verifyProgram(Program& p) {
  DiagnosticSink sink(p.source ? p.source->name : std::string());
  std::map<std::string, SourceLoc> names;
  for (Function& f : p.functions) {
    if (auto [it, fresh] = names.emplace(f.name, f.loc); !fresh) {
      Diagnostic& d = sink.error(f.loc, "function " + q(f.name) + " is defined twice; expected unique function names");
      sink.note(d, it->second, "the first definition is here");
    }
    FunctionVerifier(f, sink).run();
  }
  return sink.take();
}

void verifyOrThrow(Program& p) {
  std::vector<Diagnostic> diags = verifyProgram(p);
  if (diags.empty()) return;
  Diagnostic first = diags.front();
  for (size_t i = 1; i < diags.size(); ++i) {
    Diagnostic rest = diags[i];
    std::vector<Diagnostic> notes = std::move(rest.notes);
    rest.notes.clear();
    first.notes.push_back(std::move(rest));
    for (Diagnostic& n : notes) first.notes.push_back(std::move(n));
  }
  throw DiagnosticError(std::move(first));
}

}  // namespace ptodiff
