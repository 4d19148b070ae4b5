// The oracle's reference evaluator: a machine holding frames, the reference GM and the step
// budget, walking a const, verified Tile-stage Function (STYLE rules 5 and 6). Control flow, the
// step count, GM windows, races and poison stores follow the Tile value interpreter's rules
// (semantics.md, docs/semantics.md) so the oracle reaches the same status at the same statement;
// the element values and their bounds come from ReferenceTile and ErrorBound only.
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "interp/Launch.h"
#include "interp/ProgramFault.h"
#include "oracle/ElementDecode.h"
#include "oracle/Oracle.h"
#include "oracle/ReferenceScalar.h"
#include "oracle/ReferenceTile.h"

namespace ptodiff::oracle {

namespace {

using detail::ElemOp;
using detail::ReduceOp;
using detail::RefTile;
using detail::TileShape;
using detail::UnaryOp;

/// A tensor SSA value: a reference to one GM tensor parameter of the launch.
struct TensorRef {
  int index = -1;
};
using TilePtr = std::shared_ptr<const RefTile>;
using Value = std::variant<std::monostate, ScalarValue, TilePtr, TensorRef>;

/// A GM tensor during the launch, with the block that last wrote each element.
struct RefGm {
  OracleTensor tensor;
  std::vector<int32_t> writer;  // -1: not written by any block; empty until the first store
};

enum class Flow { Next, Yield, Return };

std::string pairText(int64_t a, int64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; }

ElemOp elemOpOf(Opcode op) {
  switch (op) {
    case Opcode::TileAdd: case Opcode::TileAdds: return ElemOp::Add;
    case Opcode::TileSub: case Opcode::TileSubs: return ElemOp::Sub;
    case Opcode::TileMul: case Opcode::TileMuls: return ElemOp::Mul;
    case Opcode::TileDiv: case Opcode::TileDivs: return ElemOp::Div;
    case Opcode::TileMaximum: case Opcode::TileMaximums: return ElemOp::Max;
    case Opcode::TileMinimum: case Opcode::TileMinimums: return ElemOp::Min;
    case Opcode::TileLrelu: return ElemOp::Lrelu;
    default: break;
  }
  throw std::logic_error("elemOpOf: " + std::string(opInfo(op).spelling) + " is not an element-wise op");
}

UnaryOp unaryOpOf(Opcode op) {
  switch (op) {
    case Opcode::TileAbs: return UnaryOp::Abs;
    case Opcode::TileExp: return UnaryOp::Exp;
    case Opcode::TileSqrt: return UnaryOp::Sqrt;
    case Opcode::TileNeg: return UnaryOp::Neg;
    case Opcode::TileRelu: return UnaryOp::Relu;
    case Opcode::TileLog: return UnaryOp::Log;
    case Opcode::TileRecip: return UnaryOp::Recip;
    default: break;
  }
  throw std::logic_error("unaryOpOf: " + std::string(opInfo(op).spelling) + " is not a unary op");
}

ReduceOp reduceOpOf(Opcode op) {
  switch (op) {
    case Opcode::TileRowSum: case Opcode::TileColSum: return ReduceOp::Sum;
    case Opcode::TileRowMax: case Opcode::TileColMax: return ReduceOp::Max;
    case Opcode::TileRowMin: case Opcode::TileColMin: return ReduceOp::Min;
    default: break;
  }
  throw std::logic_error("reduceOpOf: " + std::string(opInfo(op).spelling) + " is not a reduction");
}

/// The initial reference of a tensor argument: its exact element values (bound 0), its poison
/// flags; written flags start clear (they describe this launch).
OracleTensor referenceOf(const std::string& name, const Tensor& t) {
  OracleTensor out;
  out.name = name;
  out.dtype = t.dtype;
  out.rows = t.rows;
  out.cols = t.cols;
  const size_t n = static_cast<size_t>(t.elements());
  out.value.resize(n);
  out.bound.assign(n, 0.0);
  out.written.assign(n, 0);
  out.chain.assign(n, 0);
  out.poison = t.poison.empty() ? std::vector<uint8_t>(n, 0) : t.poison;
  if (t.dtype == DType::FP32) {  // the common dtype decodes without a per-element dispatch
    for (size_t i = 0; i < n; ++i) {
      float f;
      std::memcpy(&f, t.bytes.data() + i * sizeof(float), sizeof(float));
      out.value[i] = f;
    }
    return out;
  }
  if (!isFloat(t.dtype)) out.integer.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t bits = t.bitsAt(static_cast<int64_t>(i));
    if (isFloat(t.dtype)) {
      out.value[i] = decodeFloatBits(t.dtype, bits);
    } else {
      out.integer[i] = decodeIntegerBits(t.dtype, bits);
      out.value[i] = static_cast<double>(out.integer[i]);
    }
  }
  return out;
}

/// A tensor argument checked against its parameter (DiagnosticError when it does not fit).
OracleTensor checkedTensor(const std::string& file, const Param& p, const Tensor& given) {
  checkTensorArgument(file, p, given);
  return referenceOf(p.name, given);
}

/// A scalar argument in the parameter's dtype: integer parameters take any integer that fits,
/// FP32 and BOOL need their own dtype.
ScalarValue checkedScalar(const std::string& file, const Param& p, const ScalarValue& given) {
  const DType want = p.type.dtype;
  const bool givenInt = given.dtype == DType::INDEX || given.dtype == DType::INT64 || given.dtype == DType::INT32;
  if (want == DType::INDEX || want == DType::INT64 || want == DType::INT32) {
    if (givenInt) {
      if (want == DType::INT32 && detail::wrapInteger(given.i, DType::INT32) != given.i)
        throwError(file, p.loc, "scalar argument '" + p.name + "' = " + std::to_string(given.i) +
                                    " does not fit INT32; expected -2^31 <= value < 2^31");
      return ScalarValue{want, given.i, 0.0f};
    }
  } else if (given.dtype == want) {
    return given;
  }
  throwError(file, p.loc, "scalar argument '" + p.name + "' is " + std::string(dtypeName(given.dtype)) + "; expected " +
                              std::string(dtypeName(want)));
}

class ReferenceMachine {
 public:
  ReferenceMachine(const Program& program, const Function& kernel, const RunConfig& config,
                   const ToleranceProfile& profile, std::vector<RefGm>& gm, std::vector<Value> paramValues)
      : program_(program), kernel_(kernel), config_(config), profile_(profile), gm_(gm),
        paramValues_(std::move(paramValues)) {}

  /// Runs the kernel once as block `block`; throws ProgramFault for program faults.
  void runBlock(int64_t block) {
    block_ = block;
    frame_.assign(static_cast<size_t>(kernel_.numSlots), Value{});
    for (size_t i = 0; i < kernel_.params.size(); ++i) slot(kernel_.params[i].slot) = paramValues_[i];
    execBlock(kernel_.body);
  }

  uint64_t steps() const { return steps_; }
  const std::optional<Diagnostic>& firstPoisonStore() const { return firstPoisonStore_; }

  Diagnostic located(SourceLoc loc, std::string message) const {
    Diagnostic d;
    d.severity = Severity::Error;
    d.file = program_.source ? program_.source->name : std::string();
    d.loc = loc;
    d.message = std::move(message);
    return d;
  }

 private:
  // ---- frames ----

  Value& slot(int index) {
    if (index < 0 || static_cast<size_t>(index) >= frame_.size())
      throw std::logic_error("oracle: slot " + std::to_string(index) + " out of range (was the program verified?)");
    return frame_[static_cast<size_t>(index)];
  }

  void bindResults(const Stmt& compound, const std::vector<Value>& values) {
    const std::vector<const Binder*> results = resultsOf(compound);
    if (results.size() != values.size())
      throw std::logic_error("oracle: " + std::to_string(values.size()) + " carried values for " +
                             std::to_string(results.size()) + " results");
    for (size_t i = 0; i < results.size(); ++i) slot(results[i]->slot) = values[i];
  }

  void bindCarries(const std::vector<Binder>& iterArgs, const std::vector<Value>& carries) {
    for (size_t i = 0; i < iterArgs.size(); ++i) slot(iterArgs[i].slot) = carries[i];
  }

  void countStep(SourceLoc loc) {
    if (++steps_ <= config_.stepBudget) return;
    throw ProgramFault{RunStatus::Timeout,
                       "step budget of " + std::to_string(config_.stepBudget) + " executed statements exhausted", loc};
  }

  // ---- statements (one step each; each loop iteration after the first costs one more) ----

  Flow execBlock(const Block& block) {
    for (const StmtPtr& s : block) {
      const Flow flow = execStmt(*s);
      if (flow != Flow::Next) return flow;
    }
    return Flow::Next;
  }

  Flow execStmt(const Stmt& s) {
    currentLoc_ = s.loc;
    countStep(s.loc);
    try {
      switch (s.kind) {
        case Stmt::Kind::Assign: {
          const auto& a = s.as<AssignStmt>();
          Value v = eval(*a.value);
          slot(a.target.slot) = std::move(v);
          return Flow::Next;
        }
        case Stmt::Kind::Eval: eval(*s.as<EvalStmt>().expr); return Flow::Next;
        case Stmt::Kind::Return: return Flow::Return;
        case Stmt::Kind::Yield: yielded_ = evalAll(s.as<YieldStmt>().values); return Flow::Yield;
        case Stmt::Kind::For: return execFor(s.as<ForStmt>());
        case Stmt::Kind::If: return execIf(s.as<IfStmt>());
        case Stmt::Kind::While: return execWhile(s.as<WhileStmt>());
      }
    } catch (ProgramFault& f) {
      if (!f.loc.known()) f.loc = s.loc;
      throw;
    }
    throw std::logic_error("oracle: unknown statement kind");
  }

  std::vector<Value> evalAll(const std::vector<ExprPtr>& exprs) {
    std::vector<Value> out;
    out.reserve(exprs.size());
    for (const ExprPtr& e : exprs) out.push_back(eval(*e));
    return out;
  }

  Flow execFor(const ForStmt& s) {
    const int64_t start = evalIndex(*s.start), stop = evalIndex(*s.stop), step = evalIndex(*s.step);
    if (step <= 0) throw ProgramFault::invalid("pl.range: step " + std::to_string(step) + " is not positive");
    std::vector<Value> carries = evalAll(s.inits);
    for (int64_t i = start; i < stop;) {
      if (i != start) countStep(s.loc);
      slot(s.inductionVar.slot) = ScalarValue::index(i);
      bindCarries(s.iterArgs, carries);
      const Flow flow = execBlock(s.body);
      if (flow == Flow::Return) return flow;
      if (flow == Flow::Yield) carries = std::move(yielded_);
      if (__builtin_add_overflow(i, step, &i)) break;  // past INT64_MAX is past stop
    }
    bindResults(s, carries);  // a zero-trip loop yields its initial carries
    return Flow::Next;
  }

  Flow execIf(const IfStmt& s) {
    const Block& arm = evalBool(*s.cond) ? s.thenBody : s.elseBody;
    const Flow flow = execBlock(arm);
    if (flow == Flow::Return) return flow;
    if (flow == Flow::Yield) {
      bindResults(s, yielded_);
      // The taken arm's own yield targets too, in case the verifier gave the arms distinct slots.
      if (const YieldStmt* y = trailingYield(arm))
        for (size_t i = 0; i < y->targets.size() && i < yielded_.size(); ++i) slot(y->targets[i].slot) = yielded_[i];
    }
    return Flow::Next;
  }

  Flow execWhile(const WhileStmt& s) {
    std::vector<Value> carries = evalAll(s.inits);
    for (bool first = true;; first = false) {
      if (!first) countStep(s.loc);
      bindCarries(s.iterArgs, carries);
      bool go;
      try {
        go = evalBool(*s.cond);
      } catch (ProgramFault& f) {
        if (!f.loc.known()) f.loc = s.condLoc.known() ? s.condLoc : s.loc;
        throw;
      }
      if (!go) break;
      const Flow flow = execBlock(s.body);
      if (flow == Flow::Return) return flow;
      if (flow == Flow::Yield) carries = std::move(yielded_);
    }
    bindResults(s, carries);
    return Flow::Next;
  }

  // ---- scalar expressions ----

  Value eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::IntLit: return ScalarValue::index(e.intValue);
      case Expr::Kind::FloatLit: return detail::fp32Literal(e.floatValue);
      case Expr::Kind::BoolLit: return ScalarValue::boolean(e.boolValue);
      case Expr::Kind::Name: return slot(e.slot);
      case Expr::Kind::Unary: {
        const ScalarValue a = evalScalar(*e.args[0]);
        return checked(detail::scalarUnary(e.unop, a),
                       [&] { return e.unop == UnOp::Neg ? "-" + detail::scalarText(a) : std::string("not"); });
      }
      case Expr::Kind::Binary: return evalBinary(e);
      case Expr::Kind::Call: return evalCall(e);
      case Expr::Kind::List:
      case Expr::Kind::DTypeRef:
      case Expr::Kind::SpaceRef: break;
    }
    throw std::logic_error("oracle: expression kind has no value");
  }

  /// `r`'s value, or a fault naming the operation (`what()`, built only then: scalar ops are hot).
  template <class What>
  static ScalarValue checked(const detail::ScalarOutcome& r, const What& what) {
    if (r.ok()) return r.value;
    throw ProgramFault::invalid("scalar " + r.fault + " in " + what());
  }

  Value evalBinary(const Expr& e) {
    const ScalarValue a = evalScalar(*e.args[0]);
    // `and`/`or` short-circuit as in Python: the right operand may be a faulting expression.
    if (e.binop == BinOp::And && a.dtype == DType::BOOL && !a.i) return ScalarValue::boolean(false);
    if (e.binop == BinOp::Or && a.dtype == DType::BOOL && a.i) return ScalarValue::boolean(true);
    const ScalarValue b = evalScalar(*e.args[1]);
    return checked(detail::scalarBinary(e.binop, a, b), [&] {
      return std::string(dtypeName(a.dtype)) + " " + detail::scalarText(a) + " " + std::string(binOpSpelling(e.binop)) +
             " " + detail::scalarText(b);
    });
  }

  ScalarValue evalScalar(const Expr& e) {
    Value v = eval(e);
    if (auto* s = std::get_if<ScalarValue>(&v)) return *s;
    throw std::logic_error("oracle: expected a scalar value (was the program verified?)");
  }

  int64_t evalIndex(const Expr& e) {
    const ScalarValue v = evalScalar(e);
    if (v.dtype == DType::INDEX || v.dtype == DType::INT64 || v.dtype == DType::INT32) return v.i;
    throw std::logic_error("oracle: expected an integer scalar, got " + std::string(dtypeName(v.dtype)));
  }

  bool evalBool(const Expr& e) {
    const ScalarValue v = evalScalar(e);
    if (v.dtype != DType::BOOL) throw std::logic_error("oracle: expected a BOOL condition");
    return v.i != 0;
  }

  std::array<int64_t, 2> evalPair(const Expr* list) {
    if (!list || list->kind != Expr::Kind::List || list->args.size() != 2)
      throw std::logic_error("oracle: expected a two-element list");
    const int64_t a = evalIndex(*list->args[0]);
    const int64_t b = evalIndex(*list->args[1]);
    return {a, b};
  }

  // ---- tile ops ----

  TilePtr tileArg(const Expr& call, size_t i) {
    Value v = eval(*call.args.at(i));
    if (auto* t = std::get_if<TilePtr>(&v)) return *t;
    throw std::logic_error("oracle: operand " + std::to_string(i) + " of " + std::string(opInfo(call.op).spelling) +
                           " is not a tile");
  }

  int tensorArg(const Expr& call, size_t i) {
    Value v = eval(*call.args.at(i));
    if (auto* t = std::get_if<TensorRef>(&v)) return t->index;
    throw std::logic_error("oracle: operand " + std::to_string(i) + " of " + std::string(opInfo(call.op).spelling) +
                           " is not a tensor");
  }

  static TileShape shapeOf(const Expr& call) {
    if (!call.type.isTile())
      throw std::logic_error("oracle: " + std::string(opInfo(call.op).spelling) + " has no tile type (unverified?)");
    return {call.type.dtype, call.type.space, call.type.rows(), call.type.cols()};
  }

  /// A scalar operand converted to the tile element dtype (invalid-program when it cannot be).
  detail::ScalarOperand scalarOperand(const Expr& scalarExpr, DType elem) {
    const ScalarValue v = evalScalar(scalarExpr);
    const detail::ScalarElement s = detail::scalarAsElement(v, elem);
    if (!s.fault.empty())
      throw ProgramFault::invalid("scalar " + detail::scalarText(v) + " converted to " + std::string(dtypeName(elem)) +
                                  ": " + s.fault);
    return detail::scalarOperand(s, elem, profile_);
  }

  static Value tile(RefTile t) { return std::make_shared<const RefTile>(std::move(t)); }

  Value evalCall(const Expr& e) {
    const OpInfo& info = opInfo(e.op);
    try {
      return dispatch(info, e);
    } catch (ProgramFault& f) {
      if (f.message.rfind(info.spelling, 0) != 0) f.message = std::string(info.spelling) + ": " + f.message;
      throw;
    } catch (const std::invalid_argument& x) {
      throwError(program_.source ? program_.source->name : std::string(), e.loc,
                 std::string(info.spelling) + ": " + x.what());
    }
  }

  Value dispatch(const OpInfo& info, const Expr& e) {
    switch (info.family) {
      case OpFamily::ScalarConst: {
        const ScalarValue v = evalScalar(*e.args[0]);
        return checked(detail::scalarConvert(v, e.args[1]->dtype), [&] {
          return "pl.const(" + detail::scalarText(v) + ", " + std::string(dtypeName(e.args[1]->dtype)) + ")";
        });
      }
      case OpFamily::Load: return load(e);
      case OpFamily::Store: return store(e);
      case OpFamily::Binary: {
        const TilePtr lhs = tileArg(e, 0), rhs = tileArg(e, 1);
        return tile(detail::refBinary(elemOpOf(e.op), *lhs, *rhs, profile_));
      }
      case OpFamily::Unary: return tile(detail::refUnary(unaryOpOf(e.op), *tileArg(e, 0), profile_));
      case OpFamily::TileScalar: {
        const TilePtr lhs = tileArg(e, 0);
        const detail::ScalarOperand s = scalarOperand(*e.args[1], lhs->shape.dtype);
        return tile(detail::refBinaryScalar(elemOpOf(e.op), *lhs, s, profile_));
      }
      case OpFamily::Full: {
        const TileShape shape = shapeOf(e);
        return tile(detail::refFull(shape, scalarOperand(*e.args[2], shape.dtype)));
      }
      case OpFamily::Create: return tile(detail::refCreate(shapeOf(e)));
      case OpFamily::Slice: {
        const TilePtr src = tileArg(e, 0);
        const std::array<int64_t, 2> off = evalPair(e.args[2].get());
        std::optional<std::array<int64_t, 2>> requested;
        if (e.args.size() > 3 && e.args[3]) requested = evalPair(e.args[3].get());
        return tile(detail::refSlice(*src, shapeOf(e), off[0], off[1], requested));
      }
      case OpFamily::Assemble: {
        const TilePtr target = tileArg(e, 0), source = tileArg(e, 1);
        const std::array<int64_t, 2> off = evalPair(e.args[2].get());
        return tile(detail::refAssemble(*target, *source, off[0], off[1]));
      }
      case OpFamily::Reshape: return tile(detail::refReshape(*tileArg(e, 0), shapeOf(e)));
      case OpFamily::SetValidShape: {
        const TilePtr src = tileArg(e, 0);
        const int64_t vr = evalIndex(*e.args[1]);
        const int64_t vc = evalIndex(*e.args[2]);
        return tile(detail::refSetValidShape(*src, vr, vc));
      }
      case OpFamily::Move: return tile(detail::refMove(*tileArg(e, 0), shapeOf(e)));
      case OpFamily::Extract: {
        const TilePtr src = tileArg(e, 0);
        const int64_t r0 = evalIndex(*e.args[1]);
        const int64_t c0 = evalIndex(*e.args[2]);
        return tile(detail::refExtract(*src, shapeOf(e), r0, c0));
      }
      case OpFamily::TransposeView: return tile(detail::refTransposeView(*tileArg(e, 0), shapeOf(e)));
      case OpFamily::Matmul: {
        const TilePtr lhs = tileArg(e, 0), rhs = tileArg(e, 1);
        return tile(detail::refMatmul(*lhs, *rhs, shapeOf(e), profile_));
      }
      case OpFamily::MatmulAcc: {
        const TilePtr acc = tileArg(e, 0), lhs = tileArg(e, 1), rhs = tileArg(e, 2);
        const bool init = e.args.size() > 3 && e.args[3] ? evalBool(*e.args[3]) : false;  // omitted: accumulate
        return tile(detail::refMatmulAcc(*acc, *lhs, *rhs, init, profile_));
      }
      case OpFamily::RowReduce:
        // The scratch operand is not read by the value semantics.
        return tile(detail::refRowReduce(reduceOpOf(e.op), *tileArg(e, 0), shapeOf(e), profile_));
      case OpFamily::ColReduce:
        return tile(detail::refColReduce(reduceOpOf(e.op), *tileArg(e, 0), shapeOf(e), profile_));
      case OpFamily::BlockQuery:
        if (e.op == Opcode::TileGetBlockIdx || e.op == Opcode::BufGetBlockIdx) return ScalarValue::index(block_);
        if (e.op == Opcode::TileGetBlockNum || e.op == Opcode::BufGetBlockNum) return ScalarValue::index(config_.blockNum);
        return ScalarValue::index(0);  // get_subblock_idx
      case OpFamily::StorageRoot: return std::monostate{};  // MemRefs do not change values
      case OpFamily::BufAlloc:
      case OpFamily::BufSubview:
      case OpFamily::BufReshape:
      case OpFamily::BufSetValidShape:
      case OpFamily::BufLoad:
      case OpFamily::BufStore:
      case OpFamily::BufCopy:
      case OpFamily::BufExtract:
      case OpFamily::BufBinary:
      case OpFamily::BufUnary:
      case OpFamily::BufTileScalar:
      case OpFamily::BufFull:
      case OpFamily::BufMatmul: break;
      // No default: a new family without a handler here is a compile error (-Wswitch -Werror).
    }
    throw std::invalid_argument("a Buffer-stage op has no reference semantics; the oracle evaluates Tile-stage kernels");
  }

  // ---- GM ----

  void requireGmWindow(const RefGm& gm, const std::array<int64_t, 2>& off, int64_t rows, int64_t cols) const {
    const int64_t extent[2] = {rows, cols}, shape[2] = {gm.tensor.rows, gm.tensor.cols};
    const char* axisName[2] = {"rows", "columns"};
    for (int axis = 0; axis < 2; ++axis) {
      const int64_t begin = off[static_cast<size_t>(axis)], end = begin + extent[axis];
      if (begin >= 0 && end <= shape[axis]) continue;
      const std::string what = "window " + std::string(axisName[axis]) + " [" + std::to_string(begin) + ", " +
                               std::to_string(end) + ")";
      throw ProgramFault::invalid(what + (begin < 0 ? " start before 0" : " exceed tensor " + std::string(axisName[axis]) +
                                                                              " " + std::to_string(shape[axis])) +
                                  " (tensor '" + gm.tensor.name + "')");
    }
  }

  /// A read of an element another block wrote, or a write of one, is a race.
  void requireNoRace(const RefGm& gm, const std::array<int64_t, 2>& off, int64_t rows, int64_t cols, bool isStore) const {
    if (gm.writer.empty()) return;  // no block has written the tensor yet
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        const int32_t writer = gm.writer[gm.tensor.index(off[0] + r, off[1] + c)];
        if (writer < 0 || writer == block_) continue;
        const std::string at = gm.tensor.name + pairText(off[0] + r, off[1] + c);
        throw ProgramFault{RunStatus::Race,
                           isStore ? "tile.store: " + at + " is written by block " + std::to_string(writer) +
                                         " and by block " + std::to_string(block_)
                                   : "tile.load: block " + std::to_string(block_) + " reads " + at +
                                         " written by block " + std::to_string(writer),
                           {}};
      }
  }

  Value load(const Expr& e) {
    const int index = tensorArg(e, 0);
    RefGm& gm = gm_[static_cast<size_t>(index)];
    const std::array<int64_t, 2> off = evalPair(e.args[1].get());
    const TileShape shape = shapeOf(e);
    int64_t vr = shape.rows, vc = shape.cols;
    if (e.args.size() > 3 && e.args[3]) {
      const std::array<int64_t, 2> v = evalPair(e.args[3].get());
      vr = v[0];
      vc = v[1];
    }
    if (vr < 0 || vr > shape.rows || vc < 0 || vc > shape.cols)
      throw ProgramFault::invalid("valid_shape " + pairText(vr, vc) + " lies outside the tile shape " +
                                  pairText(shape.rows, shape.cols));
    if (shape.dtype != gm.tensor.dtype) throw std::invalid_argument("tile dtype differs from the tensor's");
    requireGmWindow(gm, off, vr, vc);
    requireNoRace(gm, off, vr, vc, /*isStore=*/false);
    RefTile out = RefTile::poisoned(shape, vr, vc);
    const OracleTensor& t = gm.tensor;
    for (int64_t r = 0; r < vr; ++r)
      for (int64_t c = 0; c < vc; ++c) {
        const size_t g = t.index(off[0] + r, off[1] + c);
        if (out.holdsFloats()) out.value(r, c) = t.value[g];
        else out.integer(r, c) = t.integer[g];
        out.bound(r, c) = t.bound[g];
        out.poison(r, c) = t.poison[g];
        out.chain(r, c) = t.chain[g];
      }
    return tile(std::move(out));
  }

  Value store(const Expr& e) {
    const TilePtr src = tileArg(e, 0);
    const std::array<int64_t, 2> off = evalPair(e.args[1].get());
    const int index = tensorArg(e, 2);
    RefGm& gm = gm_[static_cast<size_t>(index)];
    const int64_t vr = src->validRows, vc = src->validCols;
    requireGmWindow(gm, off, vr, vc);
    requireNoRace(gm, off, vr, vc, /*isStore=*/true);
    if (vr == 0 || vc == 0) return TensorRef{index};
    OracleTensor& t = gm.tensor;
    const DType from = src->shape.dtype, to = t.dtype;
    const bool converts = from != to;
    if (converts && (!isFloat(from) || !isFloat(to)))
      throw std::invalid_argument("no numeric conversion from " + std::string(dtypeName(from)) + " to " +
                                  std::string(dtypeName(to)));
    // The one numeric conversion of a store (Acc FP32 -> FP16/BF16 GM) is one rounding; only a
    // widening into FP32 (which the verifier does not produce, but is well defined) is exact.
    const bool rounds = converts && to != DType::FP32;
    const Rounding rounding = rounds ? profile_.rounding(RoundedOp::Convert, to) : Rounding{};
    if (gm.writer.empty()) gm.writer.assign(static_cast<size_t>(t.elements()), -1);
    int64_t poisoned = 0, firstR = -1, firstC = -1;
    for (int64_t r = 0; r < vr; ++r)
      for (int64_t c = 0; c < vc; ++c) {
        const size_t g = t.index(off[0] + r, off[1] + c);
        const bool p = src->poison(r, c) != 0;
        if (isFloat(to)) {
          const Approx a = rounds && !p ? boundConvert(src->approx(r, c), rounding) : src->approx(r, c);
          t.value[g] = a.value;
          t.bound[g] = a.bound;
        } else {
          t.integer[g] = src->integer(r, c);
          t.value[g] = static_cast<double>(t.integer[g]);
          t.bound[g] = 0.0;
        }
        t.chain[g] = src->chain(r, c) + (rounds ? 1 : 0);
        t.poison[g] = p ? 1 : 0;
        t.written[g] = 1;
        gm.writer[g] = static_cast<int32_t>(block_);
        if (p && poisoned++ == 0) {
          firstR = off[0] + r;
          firstC = off[1] + c;
        }
      }
    if (poisoned > 0 && !firstPoisonStore_)
      firstPoisonStore_ = located(currentLoc_, "tile.store: stores " + std::to_string(poisoned) +
                                                   " poison element(s) into '" + t.name + "' (first at " +
                                                   pairText(firstR, firstC) +
                                                   "); the program's result depends on uninitialised data");
    return TensorRef{index};
  }

  const Program& program_;
  const Function& kernel_;
  const RunConfig& config_;
  const ToleranceProfile& profile_;
  std::vector<RefGm>& gm_;
  std::vector<Value> paramValues_;
  std::vector<Value> frame_;
  std::vector<Value> yielded_;
  int64_t block_ = 0;
  uint64_t steps_ = 0;
  SourceLoc currentLoc_;
  std::optional<Diagnostic> firstPoisonStore_;
};

}  // namespace

OracleResult evaluateOracle(const Program& program, const Function& kernel, const KernelArgs& args,
                            const RunConfig& config, const ToleranceProfile& profile) {
  const std::string file = program.source ? program.source->name : std::string();
  if (kernel.stage == FunctionStage::Buffer)
    throwError(file, kernel.loc, "function '" + kernel.name +
                                     "' is a Buffer-stage function; the oracle evaluates Tile-stage kernels (run it "
                                     "on the Tile program the Buffer program was lowered from)");
  if (config.blockNum < 1 || config.blockNum > std::numeric_limits<int32_t>::max())
    throwError(file, {}, "block_num " + std::to_string(config.blockNum) + " is out of range; expected 1 <= block_num < 2^31");
  for (const Param& p : kernel.params)
    if (p.slot < 0) throw std::logic_error("evaluateOracle: parameter '" + p.name + "' has no slot (verify the program first)");

  std::vector<RefGm> gm;
  std::vector<Value> paramValues;
  for (const Param& p : kernel.params) {
    if (p.type.isTensor()) {
      auto it = args.tensors.find(p.name);
      if (it == args.tensors.end())
        throwError(file, p.loc, "missing tensor argument '" + p.name + "'; expected " +
                                    tensorTypeText(p.type.dtype, p.type.rows(), p.type.cols()));
      RefGm t{checkedTensor(file, p, it->second), {}};
      paramValues.push_back(TensorRef{static_cast<int>(gm.size())});
      gm.push_back(std::move(t));
    } else if (p.type.isScalar()) {
      auto it = args.scalars.find(p.name);
      if (it == args.scalars.end())
        throwError(file, p.loc, "missing scalar argument '" + p.name + "'; expected a " +
                                    std::string(dtypeName(p.type.dtype)) + " value");
      paramValues.push_back(checkedScalar(file, p, it->second));
    } else {
      throwError(file, p.loc, "parameter '" + p.name + "' is neither a tensor nor a scalar");
    }
  }

  OracleResult result;
  result.profile = profile.name;
  ReferenceMachine machine(program, kernel, config, profile, gm, std::move(paramValues));
  std::optional<ProgramFault> fault;
  for (int64_t block = 0; block < config.blockNum && !fault; ++block) {
    try {
      machine.runBlock(block);
    } catch (ProgramFault& f) {
      fault = std::move(f);
    }
  }
  // As in the interpreters: a poison store lets the run go on and decides the status; otherwise
  // the first fault does.
  if (machine.firstPoisonStore()) {
    result.status = RunStatus::InvalidProgram;
    result.diagnostic = *machine.firstPoisonStore();
  } else if (fault) {
    result.status = fault->status;
    result.diagnostic = machine.located(fault->loc, fault->message);
  }
  result.steps = machine.steps();
  for (RefGm& t : gm) {
    std::string name = t.tensor.name;
    result.tensors.emplace(std::move(name), std::move(t.tensor));
  }
  return result;
}

}  // namespace ptodiff::oracle
