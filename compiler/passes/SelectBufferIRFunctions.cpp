#include "compiler/passes/SelectBufferIRFunctions.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>
#include <tuple>

#include "compiler/passes/aliases/AliasPlan.h"
#include "compiler/passes/lower/LowerSupport.h"
#include "compiler/text/Printer.h"
#include "compiler/planners/StorageFacts.h"

namespace ptodiff {

namespace {

using namespace storage;

constexpr std::string_view kPassName = "SelectBufferIRFunctions";

std::string q(const std::string& name) { return "'" + name + "'"; }
std::string dt(DType d) { return std::string(dtypeName(d)); }
std::string sp(MemSpace s) { return std::string(memSpaceName(s)); }

bool oneOf(DType d, std::initializer_list<DType> set) { return std::find(set.begin(), set.end(), d) != set.end(); }

/// GM load/store, views and copies move bits of these element types on Vec (S9, S14).
bool vecTransferDType(DType d) { return oneOf(d, {DType::FP16, DType::BF16, DType::FP32, DType::INT32}); }
/// Cube operands (M2).
bool cubeOperandDType(DType d) { return oneOf(d, {DType::FP16, DType::BF16, DType::FP32, DType::INT8}); }

/// The arithmetic rows of the op x dtype table (S9, S10: BF16 is transfer-only).
bool arithmeticAccepts(Opcode op, DType d) {
  if (op == Opcode::TileAdd || op == Opcode::TileMul) return oneOf(d, {DType::FP16, DType::FP32, DType::INT32});
  return d == DType::FP32;
}

bool staticallyEqual(const Extent& a, const Extent& b) { return a == b && a.kind != Extent::Kind::Dynamic; }

class KernelSelector;

/// The lowering's view of storage (lower/StorageIndex): Tile values of one allocation at one
/// offset with one physical type share one Buffer handle (P7), and a handle is dynamic when a value
/// on it has runtime or zero valid extents or a set_validshape updates it (V6, V11). Dynamic handles
/// exist only in straight-line code and are never relabelled, assembled or cut into windows (V5).
/// Read from InitMemRef's MemRefs, which the lowering sees again after planning (approx: an entry
/// copy MaterializeSemanticAliases adds later could give a carry a static handle of its own).
class DynamicValidStorage {
 public:
  DynamicValidStorage(const StorageFacts& facts, KernelSelector& selector) : facts_(facts), selector_(selector) {}
  void check();

 private:
  struct Handle {
    std::string base;
    int64_t offset = 0;
    Type type;
    std::string stem;  // the first value naming it
    bool dynamic = false;
    std::optional<SourceLoc> regionUse, relabelOrAssemble, windowCut;
  };
  const StorageFacts& facts_;
  KernelSelector& selector_;
  std::vector<Handle> handles_;
  std::map<int, int> handleOfSlot_;  // storage values and windows -> the handle they live in
  std::set<int> windows_;

  static void first(std::optional<SourceLoc>& at, SourceLoc loc) {
    if (!at || std::tie(loc.line, loc.col) < std::tie(at->line, at->col)) at = loc;
  }
  int familyOf(int slot) const {
    auto it = handleOfSlot_.find(slot);
    return it == handleOfSlot_.end() ? -1 : it->second;
  }
  int handleOf(const TileValue& v);
  void classify(const TileValue& v);
};

class KernelSelector {
  friend class DynamicValidStorage;

 public:
  KernelSelector(const Function& fn, const PassContext& context)
      : fn_(fn), context_(context), facts_(fn), families_(facts_, plannedInPlacePolicy(facts_)) {}

  SelectionVerdict run() {
    if (!context_.enableBufferIR)
      reject("S1", fn_.loc, "enable_buffer_ir is False: every kernel stays on the Tile pipeline");
    if (context_.target->kind == TargetKind::A5)
      reject("S21", fn_.loc, "target " + std::string(context_.target->name) +
                                 ": every kernel stays on Tile until the A5 Buffer rollout is accepted");
    block(fn_.body, false);
    checkMetadataVersions();
    DynamicValidStorage(facts_, *this).check();
    // Source order, one reason per rule and place (several setters may condemn one stale use).
    std::stable_sort(reasons_.begin(), reasons_.end(), [](const SelectionReason& a, const SelectionReason& b) {
      return std::tie(a.loc.line, a.loc.col, a.rule) < std::tie(b.loc.line, b.loc.col, b.rule);
    });
    auto same = [](const SelectionReason& a, const SelectionReason& b) { return a.rule == b.rule && a.loc == b.loc; };
    reasons_.erase(std::unique(reasons_.begin(), reasons_.end(), same), reasons_.end());
    SelectionVerdict v;
    v.reasons = std::move(reasons_);
    v.selected = v.reasons.empty();
    return v;
  }

 private:
  const Function& fn_;
  const PassContext& context_;
  StorageFacts facts_;
  AliasFamilies families_;
  std::vector<SelectionReason> reasons_;

  void reject(std::string rule, SourceLoc loc, std::string message) {
    reasons_.push_back(SelectionReason{std::move(rule), loc, std::move(message)});
  }

  // ---- walking ----

  void block(const Block& body, bool inControlFlow) {
    for (const StmtPtr& s : body) statement(*s, inControlFlow);
  }

  void statement(const Stmt& s, bool inControlFlow) {
    if (inControlFlow) runtimeValidInControlFlow(s);
    switch (s.kind) {
      case Stmt::Kind::Assign: assign(s.as<AssignStmt>()); return;
      case Stmt::Kind::Eval: {
        const Expr& e = *s.as<EvalStmt>().expr;
        if (e.kind == Expr::Kind::Call && opInfo(e.op).stage == OpStage::Tile && opInfo(e.op).effects.hasResult)
          reject("V2", e.loc, std::string(opInfo(e.op).spelling) +
                                  " is evaluated without binding its result; the Buffer path needs every Tile "
                                  "result bound to a name");
        return;
      }
      case Stmt::Kind::Return: returnStmt(s.as<ReturnStmt>()); return;
      case Stmt::Kind::Yield: return;
      case Stmt::Kind::For: {
        const auto& f = s.as<ForStmt>();
        if (f.step->kind != Expr::Kind::IntLit || f.step->intValue <= 0)
          reject("S17", f.step->loc,
                 "for loop step is not a positive integer literal; the Buffer path needs a provably positive "
                 "constant step");
        carries(f.iterArgs, "for");
        block(f.body, true);
        return;
      }
      case Stmt::Kind::While: {
        const auto& w = s.as<WhileStmt>();
        carries(w.iterArgs, "while");
        block(w.body, true);
        return;
      }
      case Stmt::Kind::If: {
        const auto& i = s.as<IfStmt>();
        for (const Binder* b : resultsOf(s)) {
          if (b->type.isTensor() && facts_.tensorParams(b->slot).size() != 1)
            reject("B10", b->loc, "if result " + q(b->name) + " refers to different GM parameters in its arms");
        }
        block(i.thenBody, true);
        block(i.elseBody, true);
        return;
      }
    }
  }

  void carries(const std::vector<Binder>& iterArgs, const std::string& what) {
    for (const Binder& b : iterArgs) {
      if (b.type.isTensor() && facts_.tensorParams(b.slot).size() != 1)
        reject("L5", b.loc, what + " loop carry " + q(b.name) + " does not keep referring to one GM parameter");
    }
  }

  void returnStmt(const ReturnStmt& r) {
    for (size_t i = 0; i < r.values.size(); ++i) {
      const Expr& e = *r.values[i];
      if (!e.type.isTensor()) {
        reject("S15", e.loc, "the kernel returns a non-tensor value; the Buffer path returns GM parameters only");
        continue;
      }
      const std::vector<const Param*>& params = facts_.tensorParams(e.slot);
      if (params.size() != 1)
        reject("S15", e.loc, "returned tensor does not resolve to exactly one GM parameter");
      else if (i < fn_.results.size() && !(params[0]->type == fn_.results[i]))
        reject("S15", e.loc, "returned parameter " + q(params[0]->name) + " does not match the declared result type");
    }
  }

  /// V5: dynamic valid state may not be defined or used inside user control flow.
  void runtimeValidInControlFlow(const Stmt& s) {
    auto check = [&](const Expr& e, auto&& self) -> void {
      if (e.kind == Expr::Kind::Name && e.type.isTile() && hasRuntimeValid(e.type))
        reject("V5", e.loc, q(e.name) + " has runtime valid extents and is used inside control flow");
      for (const ExprPtr& a : e.args)
        if (a) self(*a, self);
    };
    if (s.kind == Stmt::Kind::Assign) {
      const auto& a = s.as<AssignStmt>();
      check(*a.value, check);
      if (a.target.type.isTile() && hasRuntimeValid(a.target.type))
        reject("V5", a.target.loc, q(a.target.name) + " gets runtime valid extents inside control flow");
    } else if (s.kind == Stmt::Kind::Eval) {
      check(*s.as<EvalStmt>().expr, check);
    } else if (s.kind == Stmt::Kind::Yield) {
      for (const ExprPtr& v : s.as<YieldStmt>().values) check(*v, check);
    }
  }

  // ---- values ----

  const TileValue* valueOf(const Expr* nameExpr) const {
    return nameExpr && nameExpr->kind == Expr::Kind::Name ? facts_.value(nameExpr->slot) : nullptr;
  }

  /// The allocation-level value a chain of windows and metadata versions hangs from, and whether a
  /// slice, relabel or setter lies on the way.
  struct Ancestry {
    const TileValue* root = nullptr;
    bool throughSlice = false, throughRelabel = false;
  };
  Ancestry ancestry(const TileValue& v) const {
    Ancestry a;
    const TileValue* cur = &v;
    while (cur && cur->kind == ValueKind::View) {
      if (cur->call->kind == Expr::Kind::Call) {
        OpFamily f = opInfo(cur->call->op).family;
        if (f == OpFamily::Slice) a.throughSlice = true;
        if (f == OpFamily::Reshape || f == OpFamily::TransposeView) a.throughRelabel = true;
      }
      cur = facts_.value(cur->source);
    }
    a.root = cur;
    return a;
  }

  /// Row pitch in bytes of the storage a Vec value's rows live in: the allocation's, inherited by
  /// windows (W1). nullopt when a relabel breaks the chain.
  std::optional<int64_t> rowPitch(const TileValue& v) const {
    const TileValue* cur = &v;
    while (cur && cur->kind == ValueKind::View && cur->call->kind == Expr::Kind::Call &&
           opInfo(cur->call->op).family != OpFamily::Reshape)
      cur = facts_.value(cur->source);
    if (!cur) return std::nullopt;
    return cur->type.cols() * dtypeSize(cur->type.dtype);
  }

  void assign(const AssignStmt& a) {
    const TileValue* v = facts_.value(a.target.slot);
    if (!v) {
      if (a.value->kind == Expr::Kind::Call && opInfo(a.value->op).family == OpFamily::Store) store(*a.value);
      return;
    }
    tileType(*v);
    if (a.value->kind != Expr::Kind::Call) return;  // a rename shares its source
    const Expr& call = *a.value;
    const std::string op(opInfo(call.op).spelling);
    const Type& t = v->type;
    switch (opInfo(call.op).family) {
      case OpFamily::Load: load(*v, call); return;
      case OpFamily::Binary: {
        if (!arithmeticAccepts(call.op, t.dtype))
          reject(t.dtype == DType::BF16 ? "S10" : "S9", call.loc, op + " on " + dt(t.dtype) + " is outside the op x dtype table");
        const Type& lhs = call.arg("lhs")->type;
        const Type& rhs = call.arg("rhs")->type;
        for (int axis = 0; axis < 2; ++axis)
          if (!staticallyEqual(lhs.validExtent(axis), rhs.validExtent(axis)))
            reject(hasRuntimeValid(lhs) || hasRuntimeValid(rhs) ? "V3" : "S8", call.loc,
                   op + " operands' valid extents differ or are not provably equal (" + extentText(lhs, axis) +
                       " vs " + extentText(rhs, axis) + " on axis " + std::to_string(axis) + ")");
        return;
      }
      case OpFamily::Unary:
      case OpFamily::TileScalar:
      case OpFamily::Full: {
        if (!arithmeticAccepts(call.op, t.dtype))
          reject(t.dtype == DType::BF16 ? "S10" : "S9", call.loc, op + " on " + dt(t.dtype) + " is outside the op x dtype table");
        const Expr* scalar = opInfo(call.op).family == OpFamily::TileScalar ? call.args[1].get()
                             : opInfo(call.op).family == OpFamily::Full     ? call.args[2].get()
                                                                            : nullptr;
        if (scalar && !lower::scalarOperandStatable(*scalar, t.dtype))
          reject("S11", call.loc, op + ": the scalar " + printExpr(*scalar) + " of type " +
                                      dt(scalar->type.isScalar() ? scalar->type.dtype : DType::INDEX) +
                                      " needs a conversion to " + dt(t.dtype) + " that the Buffer IR cannot state");
        return;
      }
      case OpFamily::Create:
        if (!(t.space == MemSpace::Vec && vecTransferDType(t.dtype)) &&
            !(t.space == MemSpace::Acc && oneOf(t.dtype, {DType::FP32, DType::INT32})))
          reject("S9", call.loc, op + " of " + dt(t.dtype) + " in " + sp(t.space) + " has no Buffer recipe");
        return;
      case OpFamily::Slice: slice(*v, call); return;
      case OpFamily::Assemble: assemble(*v, call); return;
      case OpFamily::Reshape: {
        const TileValue* src = valueOf(call.arg("tile"));
        if (t.space != MemSpace::Vec) reject("P11", call.loc, op + " of a " + sp(t.space) + " tile has no Buffer recipe");
        if (src && ancestry(*src).throughSlice)
          reject("S19", call.loc, op + " relabels a window (a slice); relabels of windows stay on Tile");
        if (src && hasRuntimeValid(src->type))
          reject("V5", call.loc, op + " relabels a tile with runtime valid extents");
        return;
      }
      case OpFamily::SetValidShape: {
        const TileValue* src = valueOf(call.arg("tile"));
        if (t.space != MemSpace::Vec) reject("V1", call.loc, op + " on a " + sp(t.space) + " tile has no Buffer recipe");
        if (src) {
          Ancestry anc = ancestry(*src);
          if (anc.throughSlice || anc.throughRelabel || (anc.root && anc.root->kind != ValueKind::Fresh))
            reject("V5", call.loc, op + " on a window or relabel; setters need an allocation-backed tile");
        }
        return;
      }
      case OpFamily::Move: {
        MemSpace from = call.arg("tile")->type.space;
        bool cube = from == MemSpace::Mat && (t.space == MemSpace::Left || t.space == MemSpace::Right);
        if (!cube) reject("M1", call.loc, op + " " + sp(from) + " -> " + sp(t.space) + " is not on the cube path");
        else cubeValue(t, call, op);
        return;
      }
      case OpFamily::Extract: {
        MemSpace from = call.arg("src")->type.space;
        bool cube = from == MemSpace::Mat && (t.space == MemSpace::Left || t.space == MemSpace::Right);
        if (!cube) reject("M1", call.loc, op + " " + sp(from) + " -> " + sp(t.space) + " is not on the cube path");
        else cubeValue(t, call, op);
        return;
      }
      case OpFamily::TransposeView:
        if (t.space != MemSpace::Mat && t.space != MemSpace::Left && t.space != MemSpace::Right)
          reject("M5", call.loc, op + " of a " + sp(t.space) + " tile is not on the cube path");
        else cubeValue(t, call, op);
        return;
      case OpFamily::Matmul: cubeValue(t, call, op); return;
      case OpFamily::MatmulAcc: {
        cubeValue(t, call, op);
        const TileValue* acc = valueOf(call.arg("acc"));
        if (acc && facts_.staticMemRef(v->slot) != facts_.staticMemRef(acc->slot))
          reject("M6", call.loc, op + ": the accumulator " + q(acc->binder ? acc->binder->name : "?") +
                                     " stays observable, so the result got storage of its own; the Buffer path "
                                     "needs matmul_acc in place (no Acc->Acc copy exists)");
        return;
      }
      case OpFamily::RowReduce:
      case OpFamily::ColReduce:
        reject("S19", call.loc, op + " is a reduction; reductions stay on the Tile path");
        return;
      default: return;
    }
  }

  static std::string extentText(const Type& t, int axis) {
    Extent e = t.validExtent(axis);
    if (e.kind == Extent::Kind::Const) return std::to_string(e.value);
    if (e.kind == Extent::Kind::Symbol) return e.symbol;
    return "a runtime expression";
  }

  /// Checks every Tile value's own type: dense ND Vec rows of 32-byte multiples (S5, S6).
  void tileType(const TileValue& v) {
    const Type& t = v.type;
    const std::string name = v.binder ? v.binder->name : "?";
    if (t.space != MemSpace::Vec) return;
    if (t.layout.blayout != TileLayout::row_major || t.layout.boxed())
      reject("S5", v.binder->loc, "Vec tile " + q(name) + " is not row-major ND; only dense ND Vec tiles are in the contract");
    else if (t.cols() * dtypeSize(t.dtype) % 32 != 0)
      reject("S6", v.binder->loc, "Vec tile " + q(name) + " has rows of " + std::to_string(t.cols() * dtypeSize(t.dtype)) +
                                      " bytes; physical rows must be a multiple of 32 bytes");
  }

  void cubeValue(const Type& t, const Expr& call, const std::string& op) {
    if ((t.space == MemSpace::Mat || t.space == MemSpace::Left || t.space == MemSpace::Right) && !cubeOperandDType(t.dtype))
      reject("M2", call.loc, op + " on " + dt(t.dtype) + " is not a cube operand type");
    if (hasRuntimeValid(t))
      reject("V1", call.loc, op + " produces runtime valid extents on the cube path; runtime extents are Vec-only");
  }

  void load(const TileValue& v, const Expr& call) {
    const Type& t = v.type;
    const std::string op(opInfo(call.op).spelling);
    if (t.space == MemSpace::Vec) {
      if (!vecTransferDType(t.dtype)) reject("S14", call.loc, op + " of " + dt(t.dtype) + " is outside the GM load table");
      return;
    }
    if (!cubeOperandDType(t.dtype)) reject("M2", call.loc, op + " into Mat of " + dt(t.dtype) + " is not a cube operand type");
    if (hasRuntimeValid(t)) reject("V1", call.loc, op + " into Mat with runtime valid extents; runtime extents are Vec-only");
  }

  void store(const Expr& call) {
    const Type& tile = call.arg("tile")->type;
    const Type& out = call.arg("output_tensor")->type;
    const std::string op(opInfo(call.op).spelling);
    if (tile.space == MemSpace::Vec && (!vecTransferDType(tile.dtype) || tile.dtype != out.dtype))
      reject("S14", call.loc, op + " of a " + dt(tile.dtype) + " Vec tile into a " + dt(out.dtype) +
                                  " tensor is outside the GM store table");
  }

  /// W16: the column offset of a window, in bytes, must be a provable multiple of 32.
  void requireAlignedColumn(const Expr& offsets, DType dtype, const std::string& what, SourceLoc loc) {
    const Expr* col = offsets.kind == Expr::Kind::List && offsets.args.size() == 2 ? offsets.args[1].get() : nullptr;
    const int64_t elements = 32 / std::min<int64_t>(32, dtypeSize(dtype));
    if (!col || !lower::provablyMultipleOf(*col, elements, {&facts_.scalarDefinitions(), &facts_.inductionLoops()}))
      reject("W16", loc, what + ": the column offset is not provably a multiple of " + std::to_string(elements) + " " +
                             dt(dtype) + " elements (32 bytes)");
  }

  void slice(const TileValue& v, const Expr& call) {
    const std::string op(opInfo(call.op).spelling);
    const TileValue* src = valueOf(call.arg("tile"));
    if (v.type.space != MemSpace::Vec) {
      reject("W1", call.loc, op + " of a " + sp(v.type.space) + " tile; only Vec windows are in the contract");
      return;
    }
    if (!vecTransferDType(v.type.dtype)) reject("S9", call.loc, op + " of " + dt(v.type.dtype) + " has no Buffer recipe");
    requireAlignedColumn(*call.arg("offset"), v.type.dtype, op, call.loc);
    if (const Expr* valid = call.arg("valid_shape"))
      for (const ExprPtr& e : valid->args)
        if (e && e->kind != Expr::Kind::IntLit)
          reject("V5", e->loc, op + " with a runtime valid_shape; dynamic-valid windows stay on Tile");
    for (int axis = 0; axis < 2; ++axis) {
      const Extent e = v.type.validExtent(axis);
      if (e.kind == Extent::Kind::Const && e.value <= 0) {
        reject("W17", call.loc, op + ": the window " + q(v.binder->name) + " has a zero valid extent on axis " +
                                    std::to_string(axis) + "; zero-valid windows stay on Tile");
        break;
      }
    }
    if (!src) return;
    if (ancestry(*src).throughRelabel)
      reject("S20", call.loc, op + " cuts a relabelled window; slicing a relabel stays on Tile");
    if (hasRuntimeValid(src->type)) reject("V5", call.loc, op + " of a tile with runtime valid extents");
  }

  void assemble(const TileValue& v, const Expr& call) {
    const std::string op(opInfo(call.op).spelling);
    const TileValue* target = valueOf(call.arg("target"));
    const TileValue* source = valueOf(call.arg("source"));
    if (v.type.space != MemSpace::Vec) {
      reject("W8", call.loc, op + " in " + sp(v.type.space) + "; only Vec assemble is in the contract");
      return;
    }
    if (!vecTransferDType(v.type.dtype)) reject("S9", call.loc, op + " of " + dt(v.type.dtype) + " has no Buffer recipe");
    requireAlignedColumn(*call.arg("offset"), v.type.dtype, op + " destination", call.loc);
    if (!target || !source) return;
    if (ancestry(*target).throughSlice || ancestry(*target).throughRelabel)
      reject("W7", call.loc, op + " into a window; the target must be an allocation-backed tile");
    std::optional<int64_t> tp = rowPitch(*target), spitch = rowPitch(*source);
    if (!tp || !spitch || *tp != *spitch)
      reject("W7", call.loc, op + ": source rows are " + (spitch ? std::to_string(*spitch) : std::string("?")) +
                                 " bytes apart but target rows " + (tp ? std::to_string(*tp) : std::string("?")) +
                                 "; the row pitches must match");
    if (hasRuntimeValid(target->type) || hasRuntimeValid(source->type))
      reject("V5", call.loc, op + " of a tile with runtime valid extents");
  }

  /// V4: after `y = set_validshape(x, ...)`, no value of x's storage defined before the setter
  /// (x itself, an older version, a window cut from it) may be used.
  void checkMetadataVersions() {
    for (const TileValue& setter : facts_.values()) {
      if (setter.kind != ValueKind::View || setter.call->kind != Expr::Kind::Call ||
          opInfo(setter.call->op).family != OpFamily::SetValidShape)
        continue;
      const std::vector<int>& storage = families_.family(setter.slot);
      for (const Use& u : facts_.uses()) {
        const TileValue* used = facts_.value(u.slot);
        if (!used || u.point <= setter.point || used->point >= setter.point) continue;
        if (families_.family(u.slot) != storage) continue;
        reject("V4", u.expr->loc, q(u.expr->name) + " is an older metadata version of the storage that " +
                                      q(setter.binder->name) + " re-labels; uses after a setter must name its result");
      }
    }
  }
};

int DynamicValidStorage::handleOf(const TileValue& v) {
  std::optional<MemRef> m = facts_.staticMemRef(v.slot);
  if (!m || !m->offset.isConst()) return -1;
  for (size_t i = 0; i < handles_.size(); ++i) {
    const Handle& h = handles_[i];
    if (h.base == m->base && h.offset == m->offset.value && samePhysicalTile(h.type, v.type)) return static_cast<int>(i);
  }
  Handle h;
  h.base = m->base;
  h.offset = m->offset.value;
  h.type = v.type;
  h.stem = v.binder ? v.binder->name : "?";
  handles_.push_back(std::move(h));
  return static_cast<int>(handles_.size() - 1);
}

void DynamicValidStorage::classify(const TileValue& v) {
  const Expr* call = v.call && v.call->kind == Expr::Kind::Call ? v.call : nullptr;
  auto is = [&](OpFamily f) { return call && opInfo(call->op).family == f; };
  const bool sourceIsWindow = v.kind == ValueKind::View && windows_.count(v.source) > 0;
  const bool relabel = is(OpFamily::Reshape) || is(OpFamily::TransposeView);
  if (v.kind == ValueKind::View && (is(OpFamily::Slice) || (sourceIsWindow && (relabel || !call)))) {
    // A window (or a relabel or rename of one) lives in the handle its chain is cut from.
    const int h = familyOf(v.source);
    windows_.insert(v.slot);
    if (h < 0) return;
    handleOfSlot_[v.slot] = h;
    if (is(OpFamily::Slice) && !sourceIsWindow) first(handles_[h].windowCut, call->loc);
    return;
  }
  const int h = handleOf(v);
  if (h < 0) return;
  handleOfSlot_[v.slot] = h;
  Handle& H = handles_[h];
  const SourceLoc loc = call ? call->loc : (v.binder ? v.binder->loc : SourceLoc{});
  if (hasDynamicValidExtents(v.type) || is(OpFamily::SetValidShape)) H.dynamic = true;
  if (relabel) {
    first(H.relabelOrAssemble, loc);
    if (int src = familyOf(v.source); src >= 0) first(handles_[src].relabelOrAssemble, loc);
  }
  if (is(OpFamily::Assemble)) {
    first(H.relabelOrAssemble, loc);
    for (const char* operand : {"target", "source"}) {
      const Expr* e = call->arg(operand);
      if (int fam = e && e->kind == Expr::Kind::Name ? familyOf(e->slot) : -1; fam >= 0)
        first(handles_[fam].relabelOrAssemble, loc);
    }
  }
}

void DynamicValidStorage::check() {
  for (const TileValue& v : facts_.values()) {
    classify(v);
    const int h = familyOf(v.slot);
    if (h < 0) continue;
    const bool boundByControlFlow =
        v.kind == ValueKind::LoopCarry || v.kind == ValueKind::LoopResult || v.kind == ValueKind::BranchResult;
    if (boundByControlFlow || facts_.insideControlFlow(v.point)) first(handles_[h].regionUse, v.binder ? v.binder->loc : SourceLoc{});
  }
  for (const Use& u : facts_.uses()) {
    const int h = familyOf(u.slot);
    if (h >= 0 && facts_.insideControlFlow(u.point)) first(handles_[h].regionUse, u.expr->loc);
  }
  for (const Handle& H : handles_) {
    if (!H.dynamic) continue;
    const std::string what = "the storage of " + q(H.stem) +
                             " has dynamic valid state (runtime or zero extents, or a set_validshape)";
    if (H.regionUse)
      selector_.reject("V5", *H.regionUse, what + " and is used inside a loop or branch; dynamic valid state stays in "
                                           "straight-line code");
    if (H.relabelOrAssemble)
      selector_.reject("V5", *H.relabelOrAssemble, what + " and is relabelled or assembled; reshape, "
                                                   "transpose_view and assemble need static valid extents");
    if (H.windowCut)
      selector_.reject("V5", *H.windowCut, what + " and a window is cut from it; windows need a static-valid parent");
  }
}

class SelectPass final : public Pass {
 public:
  std::string_view name() const override { return kPassName; }
  std::string_view summary() const override {
    return "decides once per kernel whether it takes the Buffer path (buffer_ir_selected)";
  }

  bool run(Program& program, const PassContext& context) override {
    bool changed = false;
    for (Function& f : program.functions) {
      if (!considered(f) || f.bufferIRSelected) continue;  // S2: a verdict is recorded once
      f.bufferIRSelected = decideBufferIRSelection(f, context).selected;
      changed = true;
    }
    return changed;
  }

  /// The pass only records buffer_ir_selected, which the IR verifier does not read.
  bool changesOnlyFunctionVerdicts() const override { return true; }

  std::vector<Diagnostic> checkPostcondition(const Program& program, const PassContext&) const override {
    std::vector<Diagnostic> out;
    for (const Function& f : program.functions)
      if (considered(f) && !f.bufferIRSelected)
        out.push_back(Diagnostic{Severity::Error, program.source ? program.source->name : "", f.loc,
                                 "kernel '" + f.name + "' has no buffer_ir_selected verdict", {}});
    return out;
  }

 private:
  static bool considered(const Function& f) {
    return f.stage == FunctionStage::Tile && f.type != FunctionType::Orchestration;
  }
};

}  // namespace

SelectionVerdict decideBufferIRSelection(const Function& kernel, const PassContext& context) {
  SelectionVerdict verdict = KernelSelector(kernel, context).run();
  // Tile carries and branch results (L1, B1, S16) are selected when MaterializeSemanticAliases can
  // give each one storage: a needed Mat/Left/Right/Acc copy is impossible (L11, M11, B13), so such a
  // kernel stays on Tile rather than fail on the Buffer path.
  if (verdict.selected) {
    aliases::AliasPlanResult plan = aliases::planSemanticAliases(kernel, true);
    if (plan.rejection) {
      verdict.selected = false;
      verdict.reasons.push_back(SelectionReason{plan.rejection->rule, plan.rejection->loc, plan.rejection->message});
    }
  }
  return verdict;
}

std::string describeReasons(const SelectionVerdict& verdict) {
  std::string out;
  for (const SelectionReason& r : verdict.reasons)
    out += r.rule + " (line " + std::to_string(r.loc.line) + "): " + r.message + "\n";
  return out;
}

std::unique_ptr<Pass> createSelectBufferIRFunctionsPass() { return std::make_unique<SelectPass>(); }

}  // namespace ptodiff
