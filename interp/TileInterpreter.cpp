// The Tile value interpreter: a machine object holding frames, GM and the step budget, walking a
// const, verified Function (STYLE rules 5 and 6). Op semantics live in TileOps, arithmetic in
// Arith; this file owns control flow, scalars, GM (load/store, races, poison stores) and
// turning faults into located RunResults.
//
// Decisions the spec leaves open, implemented here:
// - Steps: every executed statement costs one step, and so does every loop iteration after the
//   first (the header's re-evaluation), so even a loop whose body were empty consumes budget.
//   Past RunConfig::stepBudget the run stops with Timeout.
// - A store of poison writes the poison into GM, marks the run invalid-program and lets it go
//   on, so the returned outputs are complete; any other fault stops the run at once. The first
//   problem in time gives the status and the diagnostic.
// - Scalar arguments: an integer parameter accepts any integer ScalarValue that fits its dtype;
//   FP32 and BOOL parameters need their own dtype. Unknown argument names are ignored.
// - The Tensor::written flags describe this run: they start clear whatever the caller passed.
#include "interp/TileInterpreter.h"

#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "interp/Arith.h"
#include "interp/ProgramFault.h"
#include "interp/TileOps.h"
#include "interp/TileValue.h"

namespace ptodiff {

std::string_view runStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::Ok: return "pass";
    case RunStatus::InvalidProgram: return "invalid-program";
    case RunStatus::Timeout: return "timeout";
    case RunStatus::Race: return "race";
  }
  return "?";
}

namespace {

using arith::BinaryKind;
using arith::ReduceKind;
using arith::UnaryKind;

/// A tensor SSA value: a reference to one GM tensor parameter of the launch.
struct TensorHandle {
  int index = -1;
};

/// What a frame slot holds. tile.alloc binds nothing (monostate): MemRefs are ignored here.
using Value = std::variant<std::monostate, ScalarValue, TileValue, TensorHandle>;

/// A GM tensor parameter during a launch, with the block that last wrote each element.
struct GmTensor {
  std::string name;
  Tensor tensor;
  std::vector<int32_t> writer;  // -1: not written by any block of this launch
};

enum class Flow { Next, Yield, Return };

std::string pairText(int64_t a, int64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; }

std::string scalarText(const ScalarValue& v) {
  switch (v.dtype) {
    case DType::FP32: return std::to_string(v.f);
    case DType::BOOL: return v.i ? "True" : "False";
    default: return std::to_string(v.i);
  }
}

BinaryKind binaryKindOf(Opcode op) {
  switch (op) {
    case Opcode::TileAdd: case Opcode::TileAdds: return BinaryKind::Add;
    case Opcode::TileSub: case Opcode::TileSubs: return BinaryKind::Sub;
    case Opcode::TileMul: case Opcode::TileMuls: return BinaryKind::Mul;
    case Opcode::TileDiv: case Opcode::TileDivs: return BinaryKind::Div;
    case Opcode::TileMaximum: case Opcode::TileMaximums: return BinaryKind::Max;
    case Opcode::TileMinimum: case Opcode::TileMinimums: return BinaryKind::Min;
    case Opcode::TileLrelu: return BinaryKind::Lrelu;
    default: break;
  }
  throw std::logic_error("binaryKindOf: " + std::string(opInfo(op).spelling) + " is not a binary op");
}

UnaryKind unaryKindOf(Opcode op) {
  switch (op) {
    case Opcode::TileAbs: return UnaryKind::Abs;
    case Opcode::TileExp: return UnaryKind::Exp;
    case Opcode::TileSqrt: return UnaryKind::Sqrt;
    case Opcode::TileNeg: return UnaryKind::Neg;
    case Opcode::TileRelu: return UnaryKind::Relu;
    case Opcode::TileLog: return UnaryKind::Log;
    case Opcode::TileRecip: return UnaryKind::Recip;
    default: break;
  }
  throw std::logic_error("unaryKindOf: " + std::string(opInfo(op).spelling) + " is not a unary op");
}

ReduceKind reduceKindOf(Opcode op) {
  switch (op) {
    case Opcode::TileRowSum: case Opcode::TileColSum: return ReduceKind::Sum;
    case Opcode::TileRowMax: case Opcode::TileColMax: return ReduceKind::Max;
    case Opcode::TileRowMin: case Opcode::TileColMin: return ReduceKind::Min;
    default: break;
  }
  throw std::logic_error("reduceKindOf: " + std::string(opInfo(op).spelling) + " is not a reduction");
}

class TileMachine {
 public:
  TileMachine(const Program& program, const Function& kernel, const RunConfig& config, std::vector<GmTensor>& gm,
              std::vector<Value> paramValues)
      : program_(program), kernel_(kernel), config_(config), gm_(gm), paramValues_(std::move(paramValues)) {}

  /// Runs the kernel once as block `block`; throws ProgramFault for program faults.
  void runBlock(int64_t block) {
    block_ = block;
    frame_.assign(static_cast<size_t>(kernel_.numSlots), Value{});
    for (size_t i = 0; i < kernel_.params.size(); ++i) slot(kernel_.params[i].slot) = paramValues_[i];
    execBlock(kernel_.body);
  }

  uint64_t steps() const { return steps_; }
  /// The first store of a poison element, if any (the run goes on; its verdict is invalid-program).
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
      throw std::logic_error("TileMachine: slot " + std::to_string(index) + " out of range (was the program verified?)");
    return frame_[static_cast<size_t>(index)];
  }

  void bindResults(const Stmt& compound, const std::vector<Value>& values) {
    const std::vector<const Binder*> results = resultsOf(compound);
    if (results.size() != values.size())
      throw std::logic_error("TileMachine: " + std::to_string(values.size()) + " carried values for " +
                             std::to_string(results.size()) + " results");
    for (size_t i = 0; i < results.size(); ++i) slot(results[i]->slot) = values[i];
  }

  void countStep(SourceLoc loc) {
    if (++steps_ <= config_.stepBudget) return;
    throw ProgramFault{RunStatus::Timeout,
                       "step budget of " + std::to_string(config_.stepBudget) + " executed statements exhausted", loc};
  }

  // ---- statements ----

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
        case Stmt::Kind::Yield: {
          const auto& y = s.as<YieldStmt>();
          std::vector<Value> values;
          values.reserve(y.values.size());
          for (const ExprPtr& v : y.values) values.push_back(eval(*v));
          yielded_ = std::move(values);
          return Flow::Yield;
        }
        case Stmt::Kind::For: return execFor(s.as<ForStmt>());
        case Stmt::Kind::If: return execIf(s.as<IfStmt>());
        case Stmt::Kind::While: return execWhile(s.as<WhileStmt>());
      }
    } catch (ProgramFault& f) {
      if (!f.loc.known()) f.loc = s.loc;
      throw;
    }
    throw std::logic_error("TileMachine: unknown statement kind");
  }

  std::vector<Value> evalAll(const std::vector<ExprPtr>& exprs) {
    std::vector<Value> out;
    out.reserve(exprs.size());
    for (const ExprPtr& e : exprs) out.push_back(eval(*e));
    return out;
  }

  void bindCarries(const std::vector<Binder>& iterArgs, const std::vector<Value>& carries) {
    for (size_t i = 0; i < iterArgs.size(); ++i) slot(iterArgs[i].slot) = carries[i];
  }

  Flow execFor(const ForStmt& s) {
    const int64_t start = evalIndex(*s.start), stop = evalIndex(*s.stop), step = evalIndex(*s.step);
    if (step <= 0)
      throw ProgramFault::invalid("pl.range: step " + std::to_string(step) + " is not positive");
    std::vector<Value> carries = evalAll(s.inits);
    for (int64_t i = start; i < stop;) {
      if (i != start) countStep(s.loc);  // each further iteration costs a step, so no loop is free
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

  // ---- expressions ----

  Value eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::IntLit: return ScalarValue::index(e.intValue);
      case Expr::Kind::FloatLit: return arith::floatLiteral(e.floatValue);
      case Expr::Kind::BoolLit: return ScalarValue::boolean(e.boolValue);
      case Expr::Kind::Name: return slot(e.slot);
      case Expr::Kind::Unary: {
        const ScalarValue a = evalScalar(*e.args[0]);
        return checkScalar(arith::scalarUnary(e.unop, a), e.unop == UnOp::Neg ? "-" + scalarText(a) : "not");
      }
      case Expr::Kind::Binary: return evalBinary(e);
      case Expr::Kind::Call: return evalCall(e);
      case Expr::Kind::List:
      case Expr::Kind::DTypeRef:
      case Expr::Kind::SpaceRef: break;
    }
    throw std::logic_error("TileMachine: expression kind has no value");
  }

  ScalarValue checkScalar(const arith::ScalarResult& r, const std::string& what) {
    if (r.ok()) return r.value;
    throw ProgramFault::invalid("scalar " + std::string(arith::scalarFaultName(r.fault)) + " in " + what);
  }

  Value evalBinary(const Expr& e) {
    const ScalarValue a = evalScalar(*e.args[0]);
    // `and`/`or` short-circuit as in Python: the right operand may be a faulting expression.
    if (e.binop == BinOp::And && a.dtype == DType::BOOL && !a.i) return ScalarValue::boolean(false);
    if (e.binop == BinOp::Or && a.dtype == DType::BOOL && a.i) return ScalarValue::boolean(true);
    const ScalarValue b = evalScalar(*e.args[1]);
    return checkScalar(arith::scalarBinary(e.binop, a, b), std::string(dtypeName(a.dtype)) + " " + scalarText(a) + " " +
                                                               std::string(binOpSpelling(e.binop)) + " " + scalarText(b));
  }

  ScalarValue evalScalar(const Expr& e) {
    Value v = eval(e);
    if (auto* s = std::get_if<ScalarValue>(&v)) return *s;
    throw std::logic_error("TileMachine: expected a scalar value (was the program verified?)");
  }

  int64_t evalIndex(const Expr& e) {
    const ScalarValue v = evalScalar(e);
    if (v.dtype == DType::INDEX || v.dtype == DType::INT64 || v.dtype == DType::INT32) return v.i;
    throw std::logic_error("TileMachine: expected an integer scalar, got " + std::string(dtypeName(v.dtype)));
  }

  bool evalBool(const Expr& e) {
    const ScalarValue v = evalScalar(e);
    if (v.dtype != DType::BOOL) throw std::logic_error("TileMachine: expected a BOOL condition");
    return v.i != 0;
  }

  std::array<int64_t, 2> evalPair(const Expr* list) {
    if (!list || list->kind != Expr::Kind::List || list->args.size() != 2)
      throw std::logic_error("TileMachine: expected a two-element list");
    const int64_t a = evalIndex(*list->args[0]);
    const int64_t b = evalIndex(*list->args[1]);
    return {a, b};
  }

  TileValue tileArg(const Expr& call, size_t i) {
    Value v = eval(*call.args.at(i));
    if (auto* t = std::get_if<TileValue>(&v)) return std::move(*t);
    throw std::logic_error("TileMachine: operand " + std::to_string(i) + " of " + std::string(opInfo(call.op).spelling) +
                           " is not a tile");
  }

  int tensorArg(const Expr& call, size_t i) {
    Value v = eval(*call.args.at(i));
    if (auto* t = std::get_if<TensorHandle>(&v)) return t->index;
    throw std::logic_error("TileMachine: operand " + std::to_string(i) + " of " + std::string(opInfo(call.op).spelling) +
                           " is not a tensor");
  }

  static TileMeta metaOf(const Expr& call) {
    if (!call.type.isTile())
      throw std::logic_error("TileMachine: " + std::string(opInfo(call.op).spelling) + " has no tile type (unverified?)");
    return TileMeta::of(call.type);
  }

  /// The scalar operand converted to a tile element dtype (one RNE rounding for floats).
  uint64_t elementOf(const Expr& scalarExpr, DType elem) {
    const ScalarValue v = evalScalar(scalarExpr);
    const arith::ElementResult r = arith::scalarToElement(v, elem);
    if (r.ok()) return r.bits;
    throw ProgramFault::invalid("scalar " + scalarText(v) + " converted to " + std::string(dtypeName(elem)) + ": " +
                                std::string(arith::scalarFaultName(r.fault)));
  }

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
        return checkScalar(arith::convertScalar(v, e.args[1]->dtype),
                           "pl.const(" + scalarText(v) + ", " + std::string(dtypeName(e.args[1]->dtype)) + ")");
      }
      case OpFamily::Load: return load(e);
      case OpFamily::Store: return store(e);
      case OpFamily::Binary: {
        const TileValue lhs = tileArg(e, 0), rhs = tileArg(e, 1);
        return tileops::binary(binaryKindOf(e.op), lhs, rhs);
      }
      case OpFamily::Unary: return tileops::unary(unaryKindOf(e.op), tileArg(e, 0));
      case OpFamily::TileScalar: {
        const TileValue lhs = tileArg(e, 0);
        const uint64_t bits = elementOf(*e.args[1], lhs.dtype());
        return tileops::binaryScalar(binaryKindOf(e.op), lhs, bits);
      }
      case OpFamily::Full: {
        const TileMeta meta = metaOf(e);
        return tileops::full(meta, elementOf(*e.args[2], meta.dtype));
      }
      case OpFamily::Create: return tileops::create(metaOf(e));
      case OpFamily::Slice: {
        const TileValue src = tileArg(e, 0);
        const std::array<int64_t, 2> off = evalPair(e.args[2].get());
        std::optional<std::array<int64_t, 2>> requested;
        if (e.args.size() > 3 && e.args[3]) requested = evalPair(e.args[3].get());
        return tileops::slice(src, metaOf(e), off[0], off[1], requested);
      }
      case OpFamily::Assemble: {
        const TileValue target = tileArg(e, 0), source = tileArg(e, 1);
        const std::array<int64_t, 2> off = evalPair(e.args[2].get());
        return tileops::assemble(target, source, off[0], off[1]);
      }
      case OpFamily::Reshape: return tileops::reshape(tileArg(e, 0), metaOf(e));
      case OpFamily::SetValidShape: {
        const TileValue src = tileArg(e, 0);
        const int64_t vr = evalIndex(*e.args[1]);
        const int64_t vc = evalIndex(*e.args[2]);
        return tileops::setValidShape(src, vr, vc);
      }
      case OpFamily::Move: return tileops::move(tileArg(e, 0), metaOf(e));
      case OpFamily::Extract: {
        const TileValue src = tileArg(e, 0);
        const int64_t r0 = evalIndex(*e.args[1]);
        const int64_t c0 = evalIndex(*e.args[2]);
        return tileops::extract(src, metaOf(e), r0, c0);
      }
      case OpFamily::TransposeView: return tileops::transposeView(tileArg(e, 0), metaOf(e));
      case OpFamily::Matmul: {
        const TileValue lhs = tileArg(e, 0), rhs = tileArg(e, 1);
        return tileops::matmul(lhs, rhs, metaOf(e));
      }
      case OpFamily::MatmulAcc: {
        const TileValue acc = tileArg(e, 0), lhs = tileArg(e, 1), rhs = tileArg(e, 2);
        // init_cond omitted means false: accumulate.
        const bool init = e.args.size() > 3 && e.args[3] ? evalBool(*e.args[3]) : false;
        return tileops::matmulAcc(acc, lhs, rhs, init);
      }
      case OpFamily::RowReduce:
        // tmp_tile "becomes poison" on hardware; tiles are immutable values here, so the scratch
        // operand has no observable effect.
        return tileops::rowReduce(reduceKindOf(e.op), tileArg(e, 0), metaOf(e));
      case OpFamily::ColReduce: return tileops::colReduce(reduceKindOf(e.op), tileArg(e, 0), metaOf(e));
      case OpFamily::BlockQuery:
        if (e.op == Opcode::TileGetBlockIdx || e.op == Opcode::BufGetBlockIdx) return ScalarValue::index(block_);
        if (e.op == Opcode::TileGetBlockNum || e.op == Opcode::BufGetBlockNum) return ScalarValue::index(config_.blockNum);
        return ScalarValue::index(0);  // get_subblock_idx
      case OpFamily::StorageRoot: return std::monostate{};  // MemRefs are ignored by the value interpreter
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
    throw std::invalid_argument("a Buffer-stage op cannot run in a Tile-stage function");
  }

  // ---- GM ----

  /// `0 <= off` and `off + extent <= shape` on both axes of the tensor.
  void requireGmWindow(const GmTensor& gm, const std::array<int64_t, 2>& off, int64_t rows, int64_t cols) const {
    const int64_t extent[2] = {rows, cols}, shape[2] = {gm.tensor.rows, gm.tensor.cols};
    const char* axisName[2] = {"rows", "columns"};
    for (int axis = 0; axis < 2; ++axis) {
      const int64_t begin = off[static_cast<size_t>(axis)], end = begin + extent[axis];
      if (begin >= 0 && end <= shape[axis]) continue;
      std::string what = "window " + std::string(axisName[axis]) + " [" + std::to_string(begin) + ", " +
                         std::to_string(end) + ")";
      throw ProgramFault::invalid(what + (begin < 0 ? " start before 0" : " exceed tensor " + std::string(axisName[axis]) +
                                                                                " " + std::to_string(shape[axis])) +
                                  " (tensor '" + gm.name + "')");
    }
  }

  Value load(const Expr& e) {
    const int index = tensorArg(e, 0);
    GmTensor& gm = gm_[static_cast<size_t>(index)];
    const std::array<int64_t, 2> off = evalPair(e.args[1].get());
    const TileMeta meta = metaOf(e);
    int64_t vr = meta.rows, vc = meta.cols;
    if (e.args.size() > 3 && e.args[3]) {
      const std::array<int64_t, 2> v = evalPair(e.args[3].get());
      vr = v[0];
      vc = v[1];
    }
    if (vr < 0 || vr > meta.rows || vc < 0 || vc > meta.cols)
      throw ProgramFault::invalid("valid_shape " + pairText(vr, vc) + " lies outside the tile shape " +
                                  pairText(meta.rows, meta.cols));
    if (meta.dtype != gm.tensor.dtype) throw std::invalid_argument("tile dtype differs from the tensor's");
    requireGmWindow(gm, off, vr, vc);
    const int64_t cols = gm.tensor.cols;
    for (int64_t r = 0; r < vr; ++r)
      for (int64_t c = 0; c < vc; ++c) {
        const int32_t writer = gm.writer[static_cast<size_t>((off[0] + r) * cols + off[1] + c)];
        if (writer >= 0 && writer != block_)
          throw ProgramFault{RunStatus::Race,
                             "tile.load: block " + std::to_string(block_) + " reads " + gm.name +
                                 pairText(off[0] + r, off[1] + c) + " written by block " + std::to_string(writer),
                             {}};
      }
    TileBuilder out(meta, vr, vc, /*poisoned=*/true);
    const int es = meta.esize();
    for (int64_t r = 0; r < vr; ++r) {
      const int64_t g = (off[0] + r) * cols + off[1];
      std::memcpy(out.bitsAt(r, 0), gm.tensor.bytes.data() + g * es, static_cast<size_t>(vc * es));
      std::memcpy(out.poisonRow(r), gm.tensor.poison.data() + g, static_cast<size_t>(vc));
    }
    return std::move(out).finish();
  }

  Value store(const Expr& e) {
    const TileValue src = tileArg(e, 0);
    const std::array<int64_t, 2> off = evalPair(e.args[1].get());
    const int index = tensorArg(e, 2);
    GmTensor& gm = gm_[static_cast<size_t>(index)];
    const int64_t vr = src.validRows, vc = src.validCols, cols = gm.tensor.cols;
    requireGmWindow(gm, off, vr, vc);
    for (int64_t r = 0; r < vr; ++r)
      for (int64_t c = 0; c < vc; ++c) {
        const int32_t writer = gm.writer[static_cast<size_t>((off[0] + r) * cols + off[1] + c)];
        if (writer >= 0 && writer != block_)
          throw ProgramFault{RunStatus::Race,
                             "tile.store: " + gm.name + pairText(off[0] + r, off[1] + c) + " is written by block " +
                                 std::to_string(writer) + " and by block " + std::to_string(block_),
                             {}};
      }
    if (vr == 0 || vc == 0) return TensorHandle{index};
    // Bits are copied; the one conversion is an Acc FP32 source into an FP16/BF16 tensor.
    const DType to = gm.tensor.dtype;
    const int esTo = dtypeSize(to);
    arith::MutElems dst{gm.tensor.bytes.data() + (off[0] * cols + off[1]) * esTo, vr, vc, cols};
    arith::convertKernel(src.dtype(), to, src.window(0, 0, vr, vc), dst);
    int64_t poisoned = 0, firstR = -1, firstC = -1;
    for (int64_t r = 0; r < vr; ++r)
      for (int64_t c = 0; c < vc; ++c) {
        const size_t g = static_cast<size_t>((off[0] + r) * cols + off[1] + c);
        const bool p = src.poisonAt(r, c);
        gm.tensor.poison[g] = p ? 1 : 0;
        gm.tensor.written[g] = 1;
        gm.writer[g] = static_cast<int32_t>(block_);
        if (p && poisoned++ == 0) {
          firstR = off[0] + r;
          firstC = off[1] + c;
        }
      }
    if (poisoned > 0 && !firstPoisonStore_)
      firstPoisonStore_ = located(currentLoc_, "tile.store: stores " + std::to_string(poisoned) +
                                                   " poison element(s) into '" + gm.name + "' (first at " +
                                                   pairText(firstR, firstC) +
                                                   "); the program's result depends on uninitialised data");
    return TensorHandle{index};
  }

  const Program& program_;
  const Function& kernel_;
  const RunConfig& config_;
  std::vector<GmTensor>& gm_;
  std::vector<Value> paramValues_;
  std::vector<Value> frame_;
  std::vector<Value> yielded_;
  int64_t block_ = 0;
  uint64_t steps_ = 0;
  SourceLoc currentLoc_;
  std::optional<Diagnostic> firstPoisonStore_;
};

// ---- arguments ----

std::string tensorTypeText(DType dt, int64_t rows, int64_t cols) {
  return std::string(dtypeName(dt)) + " " + pairText(rows, cols);
}

/// A tensor argument checked against its parameter; written flags start clear (they describe
/// this run), an absent poison/written vector means "none".
Tensor checkedTensor(const std::string& file, const Param& p, const Tensor& given) {
  const Type& t = p.type;
  if (t.shape.size() != 2)
    throwError(file, p.loc, "tensor parameter '" + p.name + "' is not rank 2; expected a [rows, cols] tensor");
  if (given.dtype != t.dtype || given.rows != t.rows() || given.cols != t.cols())
    throwError(file, p.loc, "tensor argument '" + p.name + "' is " + tensorTypeText(given.dtype, given.rows, given.cols) +
                                "; expected " + tensorTypeText(t.dtype, t.rows(), t.cols()));
  Tensor out = given;
  const size_t n = static_cast<size_t>(out.elements());
  if (out.bytes.size() != n * static_cast<size_t>(out.esize()))
    throwError(file, p.loc, "tensor argument '" + p.name + "' holds " + std::to_string(out.bytes.size()) +
                                " bytes; expected " + std::to_string(n * static_cast<size_t>(out.esize())));
  if (out.poison.empty()) out.poison.assign(n, 0);
  if (out.poison.size() != n)
    throwError(file, p.loc, "tensor argument '" + p.name + "' has " + std::to_string(out.poison.size()) +
                                " poison flags; expected " + std::to_string(n));
  out.written.assign(n, 0);
  return out;
}

/// A scalar argument in the parameter's dtype. Integer parameters accept any integer value that
/// fits; FP32 and BOOL need their own dtype.
ScalarValue checkedScalar(const std::string& file, const Param& p, const ScalarValue& given) {
  const DType want = p.type.dtype;
  const bool givenInt = given.dtype == DType::INDEX || given.dtype == DType::INT64 || given.dtype == DType::INT32;
  if (want == DType::INDEX || want == DType::INT64 || want == DType::INT32) {
    if (givenInt) {
      const bool fits = want != DType::INT32 || (given.i >= std::numeric_limits<int32_t>::min() &&
                                                 given.i <= std::numeric_limits<int32_t>::max());
      if (!fits)
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

}  // namespace

RunResult runTileKernel(const Program& program, const Function& kernel, const KernelArgs& args,
                        const RunConfig& config) {
  const std::string file = program.source ? program.source->name : std::string();
  if (kernel.stage == FunctionStage::Buffer)
    throwError(file, kernel.loc, "function '" + kernel.name +
                                     "' is a Buffer-stage function; the value interpreter runs Tile-stage functions "
                                     "(the Buffer interpreter is a later milestone)");
  if (config.blockNum < 1 || config.blockNum > std::numeric_limits<int32_t>::max())
    throwError(file, {}, "block_num " + std::to_string(config.blockNum) + " is out of range; expected 1 <= block_num < 2^31");
  for (const Param& p : kernel.params)
    if (p.slot < 0) throw std::logic_error("runTileKernel: parameter '" + p.name + "' has no slot (verify the program first)");

  std::vector<GmTensor> gm;
  std::vector<Value> paramValues;
  for (const Param& p : kernel.params) {
    if (p.type.isTensor()) {
      auto it = args.tensors.find(p.name);
      if (it == args.tensors.end())
        throwError(file, p.loc, "missing tensor argument '" + p.name + "'; expected " +
                                    tensorTypeText(p.type.dtype, p.type.rows(), p.type.cols()));
      GmTensor t{p.name, checkedTensor(file, p, it->second), {}};
      t.writer.assign(static_cast<size_t>(t.tensor.elements()), -1);
      paramValues.push_back(TensorHandle{static_cast<int>(gm.size())});
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

  RunResult result;
  TileMachine machine(program, kernel, config, gm, std::move(paramValues));
  std::optional<ProgramFault> fault;
  for (int64_t block = 0; block < config.blockNum && !fault; ++block) {
    try {
      machine.runBlock(block);
    } catch (ProgramFault& f) {
      fault = std::move(f);
    }
  }
  // The first problem in time decides the status: a poison store lets the run go on (so every
  // output is complete), a fault stops it.
  if (machine.firstPoisonStore()) {
    result.status = RunStatus::InvalidProgram;
    result.diagnostic = *machine.firstPoisonStore();
  } else if (fault) {
    result.status = fault->status;
    result.diagnostic = machine.located(fault->loc, fault->message);
  }
  result.steps = machine.steps();
  for (GmTensor& t : gm) result.final.tensors.emplace(t.name, std::move(t.tensor));
  result.final.scalars = args.scalars;
  return result;
}

}  // namespace ptodiff
