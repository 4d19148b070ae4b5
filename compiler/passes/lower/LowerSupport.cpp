#include "compiler/passes/lower/LowerSupport.h"

#include <bit>
#include <limits>

#include "compiler/text/Printer.h"

namespace ptodiff::lower {

void Failure::fail(std::string_view rule, std::string_view op, SourceLoc loc, const std::string& message) const {
  Diagnostic d;
  d.severity = Severity::Error;
  d.file = file_;
  d.loc = loc;
  d.message = std::string(kPassName) + ": [" + std::string(rule) + "] " + std::string(op) + ": " + message;
  throw DiagnosticError(std::move(d));
}

std::string opName(const Expr& call) {
  if (call.kind != Expr::Kind::Call) return "expression";
  return std::string(opInfo(call.op).spelling);
}

// ---- valid extents ----

std::optional<int64_t> literalInt(const Expr& e) {
  if (e.kind == Expr::Kind::IntLit) return e.intValue;
  if (e.kind == Expr::Kind::Unary && e.unop == UnOp::Neg && e.args[0] && e.args[0]->kind == Expr::Kind::IntLit)
    return -e.args[0]->intValue;
  return std::nullopt;
}

bool scalarOperandStatable(const Expr& e, DType to) {
  const Expr& lit = e.kind == Expr::Kind::Call && e.op == Opcode::Const && e.args[0] ? *e.args[0] : e;
  const Expr& inner = lit.kind == Expr::Kind::Unary && lit.unop == UnOp::Neg && lit.args[0] ? *lit.args[0] : lit;
  const std::optional<int64_t> i = literalInt(lit);
  const bool floatLiteral = inner.kind == Expr::Kind::FloatLit;
  const DType from = e.type.isScalar() ? e.type.dtype : DType::INDEX;
  if (to == DType::FP32 || to == DType::FP16 || to == DType::BF16) {
    if (i) return to == DType::FP32 || static_cast<double>(static_cast<float>(*i)) == static_cast<double>(*i);
    return floatLiteral || from == DType::FP32;
  }
  if (to == DType::INT32) {
    if (i) return *i >= std::numeric_limits<int32_t>::min() && *i <= std::numeric_limits<int32_t>::max();
    return !floatLiteral && from == DType::INT32;
  }
  return false;
}

ValidExt ValidExt::of(int64_t value) {
  ValidExt v;
  v.constant = value;
  v.key = std::to_string(value);
  return v;
}

ValidExt ValidExt::of(const Expr& e) {
  if (std::optional<int64_t> c = literalInt(e)) return of(*c);
  ValidExt v;
  v.expr = std::shared_ptr<const Expr>(e.clone());
  v.key = "(" + printExpr(e) + ")";
  return v;
}

ExprPtr ValidExt::build(SourceLoc loc) const {
  if (constant) return intExpr(*constant, loc);
  return rewriteScalar(*expr);
}

Valid2 fullValid(int64_t rows, int64_t cols) { return {ValidExt::of(rows), ValidExt::of(cols)}; }

bool sameValid(const Valid2& a, const Valid2& b) { return a[0].key == b[0].key && a[1].key == b[1].key; }
bool allConst(const Valid2& v) { return v[0].isConst() && v[1].isConst(); }
bool anyZero(const Valid2& v) { return v[0].isZero() || v[1].isZero(); }

std::string validKey(const Valid2& v) { return v[0].key + "x" + v[1].key; }

std::string validText(const Valid2& v) {
  auto one = [](const ValidExt& e) { return e.constant ? std::to_string(*e.constant) : printExpr(*e.expr); };
  return "[" + one(v[0]) + ", " + one(v[1]) + "]";
}

// ---- builders ----

ExprPtr nameExpr(const std::string& name, SourceLoc loc) { return Expr::nameRef(name, loc); }

ExprPtr intExpr(int64_t v, SourceLoc loc) {
  if (v < 0) return Expr::unary(UnOp::Neg, Expr::intLit(-v, loc), loc);
  return Expr::intLit(v, loc);
}

ExprPtr pairExpr(ExprPtr a, ExprPtr b, SourceLoc loc) {
  std::vector<ExprPtr> elems;
  elems.push_back(std::move(a));
  elems.push_back(std::move(b));
  return Expr::list(std::move(elems), loc);
}

ExprPtr validPair(const Valid2& v, SourceLoc loc) { return pairExpr(v[0].build(loc), v[1].build(loc), loc); }

ExprPtr callExpr(Opcode op, std::vector<ExprPtr> args, SourceLoc loc) { return Expr::call(op, std::move(args), loc); }

StmtPtr evalStmt(ExprPtr call, SourceLoc loc) {
  auto s = std::make_unique<EvalStmt>(loc);
  s->expr = std::move(call);
  return s;
}

StmtPtr annotatedAssign(const std::string& name, const Type& type, ExprPtr value, SourceLoc loc) {
  auto s = std::make_unique<AssignStmt>(loc);
  s->target.name = name;
  s->target.annotation = type;
  s->target.loc = loc;
  s->value = std::move(value);
  return s;
}

Type bufferTypeOf(const Type& tile, const std::optional<Valid2>& valid) {
  Type t = tile;
  t.kind = Type::Kind::Buffer;
  t.memref.reset();
  t.valid.reset();
  if (valid) {
    std::array<Extent, 2> extents;
    for (int axis = 0; axis < 2; ++axis)
      extents[axis] = (*valid)[axis].constant ? Extent::constant(*(*valid)[axis].constant) : Extent::dynamic();
    t.valid = extents;
    t.canonicalizeValid();
  }
  return t;
}

Type dynamicBufferTypeOf(const Type& tile) {
  Type t = bufferTypeOf(tile, std::nullopt);
  t.valid = std::array<Extent, 2>{Extent::dynamic(), Extent::dynamic()};
  return t;
}

ExprPtr rewriteScalar(const Expr& e) {
  ExprPtr out = e.clone();
  if (out->kind == Expr::Kind::Call) {
    switch (out->op) {
      case Opcode::TileGetBlockIdx: out->op = Opcode::BufGetBlockIdx; break;
      case Opcode::TileGetBlockNum: out->op = Opcode::BufGetBlockNum; break;
      case Opcode::TileGetSubblockIdx: out->op = Opcode::BufGetSubblockIdx; break;
      default: break;
    }
  }
  for (size_t i = 0; i < e.args.size(); ++i)
    if (e.args[i]) out->args[i] = rewriteScalar(*e.args[i]);
  return out;
}

// ---- names ----

std::string NameAllocator::fresh(const std::string& stem) {
  std::string name = stem;
  for (int i = 1; used_.count(name); ++i) name = stem + "_" + std::to_string(i);
  used_.insert(name);
  return name;
}

// ---- alignment proofs ----

namespace {

constexpr int kValuationOfZero = 63;

/// The largest k with 2^k dividing every value of an expression (kValuationOfZero for 0); 0 when
/// unknown. A name's valuation is computed once per proof: a chain `x1 = x0 * x0; x2 = x1 * x1`
/// reads each definition twice, which would otherwise cost 2^depth.
class TwoAdicValuation {
 public:
  explicit TwoAdicValuation(const ScalarOrigins& origins) : origins_(origins) {}

  int of(const Expr& e, int depth = 0) {
    if (depth > 64) return 0;  // a long definition chain: give up (unproven) rather than recurse without bound
    if (std::optional<int64_t> c = literalInt(e))
      return *c == 0 ? kValuationOfZero : std::countr_zero(static_cast<uint64_t>(*c));  // -x has x's low zeros
    switch (e.kind) {
      case Expr::Kind::Unary: return e.unop == UnOp::Neg && e.args[0] ? of(*e.args[0], depth + 1) : 0;
      case Expr::Kind::Binary: {
        if (e.binop != BinOp::Add && e.binop != BinOp::Sub && e.binop != BinOp::Mul) return 0;
        const int a = of(*e.args[0], depth + 1);
        const int b = of(*e.args[1], depth + 1);
        return e.binop == BinOp::Mul ? std::min(kValuationOfZero, a + b) : std::min(a, b);
      }
      case Expr::Kind::Call: return e.op == Opcode::Const && e.args[0] ? of(*e.args[0], depth + 1) : 0;
      case Expr::Kind::Name: {
        if (auto known = bySlot_.find(e.slot); known != bySlot_.end()) return known->second;
        const int v = ofName(e.slot, depth);
        bySlot_.emplace(e.slot, v);
        return v;
      }
      default: return 0;
    }
  }

 private:
  int ofName(int slot, int depth) {
    if (origins_.definitions)
      if (auto d = origins_.definitions->find(slot); d != origins_.definitions->end() && d->second)
        return of(*d->second, depth + 1);
    if (origins_.inductionLoops)
      if (auto l = origins_.inductionLoops->find(slot); l != origins_.inductionLoops->end() && l->second)
        return std::min(of(*l->second->start, depth + 1), of(*l->second->step, depth + 1));
    return 0;  // a parameter, a scalar carry, a branch result: any value
  }

  const ScalarOrigins& origins_;
  std::map<int, int> bySlot_;
};

}  // namespace

bool provablyMultipleOf(const Expr& e, int64_t m, const ScalarOrigins& origins) {
  if (m <= 0 || !std::has_single_bit(static_cast<uint64_t>(m))) return false;
  return TwoAdicValuation(origins).of(e) >= std::countr_zero(static_cast<uint64_t>(m));
}

}  // namespace ptodiff::lower
