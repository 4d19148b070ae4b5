// What every ptodiff interpreter shares (internal to interp/): the walk of a const, verified
// kernel (STYLE rules 5 and 6). KernelWalker owns the frame of SSA slots, the step budget,
// structured control flow (For/If/While with carried values, yield, return), scalar expressions
// (literals, names, unary/binary ops with exact INDEX arithmetic and faults, pl.const, block
// queries), the location of faults and hazards at their statement, and the record of the first
// poison store; runLaunch runs the blocks of a launch and turns the first problem into a
// RunResult. An interpreter supplies its value type and one hook that executes an op call of its
// stage — the split of Cranelift's interpreter into `State` (here) and `step` (the hook):
//
//   class BufferMachine : public KernelWalker<BufferMachine, BufferValue> {
//     friend KernelWalker;
//     static constexpr std::string_view kName = "BufferMachine";  // prefix of internal errors
//     BufferValue execOp(const OpInfo& info, const Expr& call);     // every family but ScalarConst/BlockQuery
//   };
//
// The value type is a std::variant holding at least std::monostate (an empty slot), ScalarValue
// and TensorRef (a GM tensor parameter).
//
// Decisions the spec leaves open, implemented here for every interpreter:
// - Steps: every executed statement costs one step, and so does every loop iteration after the
//   first (the header's re-evaluation), so even a loop whose body were empty consumes budget.
//   Past RunConfig::stepBudget the run stops with Timeout.
// - A store of poison writes the poison into GM, marks the run invalid-program and lets it go
//   on, so the returned outputs are complete; any other fault or hazard stops the run at once.
//   The first problem in time gives the status and the diagnostic.
// - An op's fault message starts with the op's spelling ("tile.load: ..."); the walker adds it
//   where the op's handler did not.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "compiler/ir/IR.h"
#include "interp/Arith.h"
#include "interp/Hazard.h"
#include "interp/Launch.h"
#include "interp/ProgramFault.h"
#include "interp/TileInterpreter.h"

namespace ptodiff {

/// A tensor SSA value: a reference to one GM tensor parameter of the launch (an index into
/// Launch::gm).
struct TensorRef {
  int index = -1;
};

namespace walker {

/// "[a, b]": extents, offsets and element positions in messages.
std::string pairText(int64_t a, int64_t b);
std::string pairText(const std::array<int64_t, 2>& p);
/// A scalar as the program would spell it: "3", "2.500000", "True".
std::string scalarText(const ScalarValue& v);
/// Operand `i` of an op call for messages: its SSA name, else the registry's parameter name.
std::string operandName(const Expr& call, size_t i);

/// Test-only planted faults, for the campaign's crash and wall-clock recovery tests: the op named
/// by PTODIFF_TEST_SEGFAULT_OP (e.g. "tile.exp") raises SIGSEGV when executed, the op named by
/// PTODIFF_TEST_HANG_OP blocks forever. Read once per process; returns an opcode value no op has
/// when neither is set (or the name is no op), so the walker's check is one integer comparison.
int plantedFaultOpcode();
/// Fires the planted fault of the op plantedFaultOpcode() names; never returns.
[[noreturn]] void firePlantedFault();

}  // namespace walker

/// What a statement hands back to the block that runs it.
enum class Flow { Next, Yield, Return };

template <class Derived, class Value>
class KernelWalker {
 public:
  KernelWalker(const Program& program, const Function& kernel, const RunConfig& config, Launch& launch)
      : program_(program), kernel_(kernel), config_(config), launch_(launch),
        file_(program.source ? program.source->name : std::string()) {}

  /// Runs the kernel once as block `block` on a fresh frame; throws ProgramFault (and, in the
  /// physical interpreters, HazardFault) for program faults.
  void runBlock(int64_t block) {
    block_ = block;
    frame_.clear();  // every slot empty (monostate) again
    frame_.resize(static_cast<size_t>(kernel_.numSlots));
    for (size_t i = 0; i < kernel_.params.size(); ++i) {
      const BoundParam& b = launch_.params[i];
      Value& param = slot(kernel_.params[i].slot);
      if (b.tensorIndex >= 0)
        param = TensorRef{b.tensorIndex};
      else
        param = b.scalar;
    }
    execBlock(kernel_.body);
  }

  uint64_t steps() const { return steps_; }
  /// The first store of a poison element, if any (the run goes on; its verdict is invalid-program).
  const std::optional<Diagnostic>& firstPoisonStore() const { return firstPoisonStore_; }
  const std::string& file() const { return file_; }

  Diagnostic located(SourceLoc loc, std::string message, Severity severity = Severity::Error) const {
    Diagnostic d;
    d.severity = severity;
    d.file = file_;
    d.loc = loc;
    d.message = std::move(message);
    return d;
  }

 protected:
  // ---- state the interpreters read ----

  const Program& program() const { return program_; }
  const RunConfig& config() const { return config_; }
  int64_t block() const { return block_; }
  GmTensor& gm(int index) { return launch_.gm[static_cast<size_t>(index)]; }
  /// The name the statement being executed binds ("" before the first assignment), for messages.
  const std::string& currentBinder() const { return currentBinder_ ? currentBinder_->name : noBinder_; }
  /// The type the statement being executed binds (its annotation, as the verifier resolved it);
  /// nullptr before the first assignment. Planned storage (a MemRef) lives here, not in the
  /// inferred type of the call.
  const Type* currentBinderType() const { return currentBinder_ ? &currentBinder_->type : nullptr; }

  // ---- frames ----

  Value& slot(int index) {
    if (index < 0 || static_cast<size_t>(index) >= frame_.size())
      throw std::logic_error(internal("slot " + std::to_string(index) + " out of range (was the program verified?)"));
    return frame_[static_cast<size_t>(index)];
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
        return checkScalar(arith::scalarUnary(e.unop, a),
                           [&] { return e.unop == UnOp::Neg ? "-" + walker::scalarText(a) : std::string("not"); });
      }
      case Expr::Kind::Binary: return evalBinary(e);
      case Expr::Kind::Call: return evalCall(e);
      case Expr::Kind::List:
      case Expr::Kind::DTypeRef:
      case Expr::Kind::SpaceRef: break;
    }
    throw std::logic_error(internal("expression kind has no value"));
  }

  ScalarValue evalScalar(const Expr& e) {
    Value v = eval(e);
    if (auto* s = std::get_if<ScalarValue>(&v)) return *s;
    throw std::logic_error(internal("expected a scalar value (was the program verified?)"));
  }

  int64_t evalIndex(const Expr& e) {
    const ScalarValue v = evalScalar(e);
    if (v.dtype == DType::INDEX || v.dtype == DType::INT64 || v.dtype == DType::INT32) return v.i;
    throw std::logic_error(internal("expected an integer scalar, got " + std::string(dtypeName(v.dtype))));
  }

  bool evalBool(const Expr& e) {
    const ScalarValue v = evalScalar(e);
    if (v.dtype != DType::BOOL) throw std::logic_error(internal("expected a BOOL condition"));
    return v.i != 0;
  }

  std::array<int64_t, 2> evalPair(const Expr* list) {
    if (!list || list->kind != Expr::Kind::List || list->args.size() != 2)
      throw std::logic_error(internal("expected a two-element list"));
    const int64_t a = evalIndex(*list->args[0]);
    const int64_t b = evalIndex(*list->args[1]);
    return {a, b};
  }

  /// The scalar operand converted to an element dtype (one RNE rounding for floats).
  uint64_t elementOf(const Expr& scalarExpr, DType elem) {
    const ScalarValue v = evalScalar(scalarExpr);
    const arith::ElementResult r = arith::scalarToElement(v, elem);
    if (r.ok()) return r.bits;
    throw ProgramFault::invalid("scalar " + walker::scalarText(v) + " converted to " + std::string(dtypeName(elem)) +
                                ": " + std::string(arith::scalarFaultName(r.fault)));
  }

  /// Operand `i` of `call` as a GM tensor reference (an index into Launch::gm).
  int tensorArg(const Expr& call, size_t i) {
    Value v = eval(*call.args.at(i));
    if (auto* t = std::get_if<TensorRef>(&v)) return t->index;
    throw std::logic_error(internal("operand " + std::to_string(i) + " of " + std::string(opInfo(call.op).spelling) +
                                    " is not a tensor"));
  }

  /// Records a GM store that wrote poison, when it is the run's first (`op`: "tile.store", ...).
  void notePoisonStore(std::string_view op, const GmTensor& gm, const GmStoreSummary& written) {
    if (written.poisoned == 0 || firstPoisonStore_) return;
    firstPoisonStore_ = located(currentLoc_, std::string(op) + ": stores " + std::to_string(written.poisoned) +
                                                 " poison element(s) into '" + gm.name + "' (first at " +
                                                 walker::pairText(written.firstPoison) +
                                                 "); the program's result depends on uninitialised data");
  }

  /// "TileMachine: what": the text of a std::logic_error (a harness bug, not a program fault).
  static std::string internal(const std::string& what) { return std::string(Derived::kName) + ": " + what; }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }

  void countStep(SourceLoc loc) {
    if (++steps_ <= config_.stepBudget) return;
    throw ProgramFault{RunStatus::Timeout,
                       "step budget of " + std::to_string(config_.stepBudget) + " executed statements exhausted", loc};
  }

  void bindResults(const Stmt& compound, const std::vector<Value>& values) {
    const std::vector<const Binder*> results = resultsOf(compound);
    if (results.size() != values.size())
      throw std::logic_error(internal(std::to_string(values.size()) + " carried values for " +
                                      std::to_string(results.size()) + " results"));
    for (size_t i = 0; i < results.size(); ++i) slot(results[i]->slot) = values[i];
  }

  void bindCarries(const std::vector<Binder>& iterArgs, const std::vector<Value>& carries) {
    for (size_t i = 0; i < iterArgs.size(); ++i) slot(iterArgs[i].slot) = carries[i];
  }

  std::vector<Value> evalAll(const std::vector<ExprPtr>& exprs) {
    std::vector<Value> out;
    out.reserve(exprs.size());
    for (const ExprPtr& e : exprs) out.push_back(eval(*e));
    return out;
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
          currentBinder_ = &a.target;
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
    } catch (HazardFault& h) {
      if (!h.hazard.loc.known()) h.hazard.loc = s.loc;
      throw;
    }
    throw std::logic_error(internal("unknown statement kind"));
  }

  Flow execFor(const ForStmt& s) {
    const int64_t start = evalIndex(*s.start), stop = evalIndex(*s.stop), step = evalIndex(*s.step);
    if (step <= 0) throw ProgramFault::invalid("pl.range: step " + std::to_string(step) + " is not positive");
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

  // ---- scalars and calls ----

  /// `r`'s value, or a fault naming the operation (`what()`, built only then: scalar ops are hot).
  template <class What>
  ScalarValue checkScalar(const arith::ScalarResult& r, const What& what) {
    if (r.ok()) return r.value;
    throw ProgramFault::invalid("scalar " + std::string(arith::scalarFaultName(r.fault)) + " in " + what());
  }

  Value evalBinary(const Expr& e) {
    const ScalarValue a = evalScalar(*e.args[0]);
    // `and`/`or` short-circuit as in Python: the right operand may be a faulting expression.
    if (e.binop == BinOp::And && a.dtype == DType::BOOL && !a.i) return ScalarValue::boolean(false);
    if (e.binop == BinOp::Or && a.dtype == DType::BOOL && a.i) return ScalarValue::boolean(true);
    const ScalarValue b = evalScalar(*e.args[1]);
    return checkScalar(arith::scalarBinary(e.binop, a, b), [&] {
      return std::string(dtypeName(a.dtype)) + " " + walker::scalarText(a) + " " + std::string(binOpSpelling(e.binop)) +
             " " + walker::scalarText(b);
    });
  }

  /// An op call: the stage-independent families here, every other one through the interpreter's
  /// hook. Faults get the op's spelling in front; an std::invalid_argument from a handler (an
  /// op/operand combination the interpreter cannot run) becomes a located DiagnosticError.
  Value evalCall(const Expr& e) {
    if (static_cast<int>(e.op) == plantedFaultOp_) [[unlikely]] walker::firePlantedFault();
    const OpInfo& info = opInfo(e.op);
    try {
      switch (info.family) {
        case OpFamily::ScalarConst: return evalConst(e);
        case OpFamily::BlockQuery: return evalBlockQuery(e);
        default: return self().execOp(info, e);
      }
    } catch (ProgramFault& f) {
      if (f.message.rfind(info.spelling, 0) != 0) f.message = std::string(info.spelling) + ": " + f.message;
      throw;
    } catch (HazardFault& h) {
      if (h.hazard.detail.rfind(info.spelling, 0) != 0) h.hazard.detail = std::string(info.spelling) + ": " + h.hazard.detail;
      throw;
    } catch (const std::invalid_argument& x) {
      throwError(file_, e.loc, std::string(info.spelling) + ": " + x.what());
    }
  }

  /// `pl.const(V, DTYPE)`.
  Value evalConst(const Expr& e) {
    const ScalarValue v = evalScalar(*e.args[0]);
    return checkScalar(arith::convertScalar(v, e.args[1]->dtype), [&] {
      return "pl.const(" + walker::scalarText(v) + ", " + std::string(dtypeName(e.args[1]->dtype)) + ")";
    });
  }

  /// get_block_idx / get_block_num / get_subblock_idx of either stage (semantics.md §6).
  Value evalBlockQuery(const Expr& e) const {
    if (e.op == Opcode::TileGetBlockIdx || e.op == Opcode::BufGetBlockIdx) return ScalarValue::index(block_);
    if (e.op == Opcode::TileGetBlockNum || e.op == Opcode::BufGetBlockNum) return ScalarValue::index(config_.blockNum);
    return ScalarValue::index(0);  // get_subblock_idx
  }

  const Program& program_;
  const Function& kernel_;
  const RunConfig& config_;
  Launch& launch_;
  const std::string file_;
  inline static const std::string noBinder_;
  std::vector<Value> frame_;
  std::vector<Value> yielded_;
  int64_t block_ = 0;
  uint64_t steps_ = 0;
  SourceLoc currentLoc_;
  const Binder* currentBinder_ = nullptr;
  std::optional<Diagnostic> firstPoisonStore_;
  const int plantedFaultOp_ = walker::plantedFaultOpcode();
};

/// Runs `machine` (a KernelWalker) once per block of the launch, block 0 first, until a fault or
/// hazard stops it, and returns the result: the first problem in time decides the status (a
/// poison store lets the run go on, so every output is complete); the final GM contents and the
/// caller's scalars come back unchanged in form.
template <class Walker>
RunResult runLaunch(Walker& machine, Launch& launch, const KernelArgs& args, const RunConfig& config) {
  std::optional<ProgramFault> fault;
  std::optional<Hazard> hazard;
  for (int64_t block = 0; block < config.blockNum && !fault && !hazard; ++block) {
    try {
      machine.runBlock(block);
    } catch (ProgramFault& f) {
      fault = std::move(f);
    } catch (HazardFault& h) {
      hazard = std::move(h.hazard);
    }
  }
  RunResult result;
  if (machine.firstPoisonStore()) {
    result.status = RunStatus::InvalidProgram;
    result.diagnostic = *machine.firstPoisonStore();
  } else if (hazard) {
    result.status = RunStatus::Hazard;
    result.diagnostic = machine.located(hazard->loc, hazard->message(), Severity::Hazard);
    result.hazard = std::move(hazard);
  } else if (fault) {
    result.status = fault->status;
    result.diagnostic = machine.located(fault->loc, fault->message);
  }
  result.steps = machine.steps();
  collectFinalTensors(launch.gm, result.final);
  result.final.scalars = args.scalars;
  return result;
}

}  // namespace ptodiff
