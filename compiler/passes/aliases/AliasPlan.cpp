#include "compiler/passes/aliases/AliasPlan.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include "compiler/planners/PlannedStorage.h"
#include "compiler/planners/StorageFacts.h"
#include "compiler/verify/TypeRules.h"

namespace ptodiff::aliases {

namespace {

using namespace storage;
using verify::transposedType;

std::string q(const std::string& name) { return "'" + name + "'"; }

/// The type `pl.tile.move(src, target_memory=space)` infers (semantics: the valid region is copied).
Type moveType(const Type& src) {
  Type t = Type::tile(src.rows(), src.cols(), src.dtype, src.space);
  t.valid = src.valid;
  t.canonicalizeValid();
  return t;
}

bool sameTypeIgnoringStorage(Type a, Type b) {
  a.memref.reset();
  b.memref.reset();
  a.canonicalizeValid();
  b.canonicalizeValid();
  return a == b;
}

/// Whether a copy of `t` is made through its transposed view: tile.move gives its result the
/// space's row-major (ND) layout, so a col-major (DN) Vec tile, the transposed view of an ND tile,
/// is copied as that ND tile (transpose_view, move, transpose_view back: the same elements).
bool copiedTransposed(const Type& t) {
  if (!t.isTile() || t.space != MemSpace::Vec || sameTypeIgnoringStorage(moveType(t), t)) return false;
  const Type rowMajor = transposedType(t);
  return sameTypeIgnoringStorage(moveType(rowMajor), rowMajor);
}

/// The type of a copy MaterializeSemanticAliases makes of a `src` value.
Type copyTypeOf(const Type& src) {
  return copiedTransposed(src) ? transposedType(moveType(transposedType(src))) : moveType(src);
}

/// Whether a value of type `from` can be copied into storage of type `to` (M14: Vec only).
bool copyableInto(const Type& from, const Type& to) {
  return to.space == MemSpace::Vec && sameTypeIgnoringStorage(copyTypeOf(from), to);
}

/// Whether two MemRefs may share a byte (runtime offsets may be anywhere in their root).
bool mayOverlap(const MemRef& a, const MemRef& b) {
  if (a.base != b.base) return false;
  if (!a.offset.isConst() || !b.offset.isConst()) return true;
  return a.offset.value < b.offset.value + b.size && b.offset.value < a.offset.value + a.size;
}

/// A view's MemRef after its source moved from `sourceBefore` to `sourceNow`: the same relative
/// window (A20), applied once.
MemRef rebaseView(const MemRef& annotation, const MemRef& sourceBefore, const MemRef& sourceNow) {
  MemRef out{sourceNow.base, Extent::dynamic(), annotation.size};
  if (annotation.offset.isConst() && sourceBefore.offset.isConst() && sourceNow.offset.isConst())
    out.offset = Extent::constant(sourceNow.offset.value + annotation.offset.value - sourceBefore.offset.value);
  return out;
}

/// Whether value `slot` names its bytes through a slice or a relabel (directly or under renames and
/// setters): a window, even one covering its whole parent, which an arithmetic result may not share
/// storage with (W13); a relabel (reshape, transpose_view), even a round trip back to the carry's
/// own type, which VerifyTileStorage reads as an earlier version of the storage ([L9]; 15-minute
/// campaign of 2026-12-01 evening, seed 9, case 92997:
/// tests/fuzz-regressions/loop_carry_add_of_reshape_round_trip).
bool readsThroughWindowOrRelabel(const StorageFacts& facts, int slot) {
  for (const TileValue* v = facts.value(slot); v && v->kind == ValueKind::View; v = facts.value(v->source)) {
    if (!v->call || v->call->kind != Expr::Kind::Call) continue;
    const OpFamily f = opInfo(v->call->op).family;
    if (f == OpFamily::Slice || f == OpFamily::Reshape || f == OpFamily::TransposeView) return true;
  }
  return false;
}

bool isElementwise(const Expr* call) {
  if (!call || call->kind != Expr::Kind::Call) return false;
  OpFamily f = opInfo(call->op).family;
  return f == OpFamily::Binary || f == OpFamily::Unary || f == OpFamily::TileScalar;
}

/// observesInvalidLanes; without `growingSetters` only assemble and binary operands count (a
/// selected kernel's setters cannot reach a copy: V5 keeps them on allocation-backed tiles).
bool readsInvalidLanes(const storage::StorageFacts& facts, bool growingSetters) {
  for (const TileValue& v : facts.values()) {
    if (!v.call || v.call->kind != Expr::Kind::Call) continue;
    OpFamily f = opInfo(v.call->op).family;
    if ((growingSetters && f == OpFamily::SetValidShape) || f == OpFamily::Assemble) return true;
    if (f == OpFamily::Binary && v.call->args.size() >= 2) {
      Type lhs = v.call->args[0]->type, rhs = v.call->args[1]->type;
      lhs.canonicalizeValid();
      rhs.canonicalizeValid();
      if (lhs.valid != rhs.valid) return true;
    }
  }
  return false;
}

/// A copy the planner decided it cannot make; unwinds to the loop or the entry point.
struct Rejected {
  AliasRejection why;
};

class Materializer {
 public:
  Materializer(const Function& fn, bool selected, FaultSwitch faults)
      : fn_(fn), selected_(selected), faults_(faults), facts_(fn),
        keepInvalidLanes_(!selected && readsInvalidLanes(facts_, true)),
        invalidLanesRead_(selected && readsInvalidLanes(facts_, false)) {
    for (const Root& r : collectRoots(fn)) {
      state_.rootSize[r.name] = r.size;
      state_.rootSpace[r.name] = r.space;
    }
    for (const Param& p : fn.params) state_.used.insert(p.name);
    collectBoundNames(fn.body, state_.used);
  }

  AliasPlanResult run() {
    AliasPlanResult out;
    try {
      walk(fn_.body);
    } catch (const Rejected& r) {
      out.rejection = r.why;
      return out;
    }
    for (const TileValue& v : facts_.values())
      if (v.isAssign() && state_.nominal.count(v.slot)) state_.plan.memrefs[v.slot] = state_.nominal.at(v.slot);
    // A setter viewing a kernel value lives in that value's final storage (a later retarget may move it).
    for (auto& [stmt, moves] : state_.plan.beforeStmt)
      for (PlannedMove& m : moves)
        if (m.viewOfSlot >= 0) m.type.memref = state_.nominal.at(m.viewOfSlot);
    out.plan = std::move(state_.plan);
    return out;
  }

 private:
  /// Where a view of a moved source sits once the move made the source a dense tile of its own:
  /// window (row, col) of the dense `frame` (the moved value's type); `known` when every offset on
  /// the way is a literal. `sourceAt`: bytes from the frame's start to the start of the view's
  /// source, the place the source's MemRef names (0 when the source is the moved value itself).
  struct Reframe {
    Type frame;
    int64_t row = 0, col = 0;
    bool known = true;
    int64_t sourceAt = 0;
  };

  /// Everything a rejected loop of an unselected kernel rolls back.
  struct State {
    std::map<int, MemRef> nominal;               // the MemRef the text names for a value
    std::map<int, std::optional<MemRef>> exact;  // its storage when it is one known window
    std::set<int> walked;
    std::map<std::string, int64_t> rootSize;
    std::map<std::string, MemSpace> rootSpace;
    std::set<std::string> used;
    std::set<std::string> pinned;  // roots chosen as a carry's or branch result's storage
    std::set<int> wholeOnEveryArm;  // Tile-path branch results kept on entry whose arms are whole allocations
    std::map<int, Reframe> reframed;  // views placed in a moved source's dense frame (viewAfterMove)
    int nextRoot = 0;
    AliasPlan plan;
  };

  const Function& fn_;
  bool selected_;
  FaultSwitch faults_;
  StorageFacts facts_;
  // Copies keep the lanes outside the valid region. Unselected kernels only: the copy's setters would
  // make a carry's handle dynamic inside a loop and may set a window's valid shape, which the Buffer
  // path rejects (V5). A growing setter cannot reach a copy there (setters need an allocation-backed
  // tile, V5); assemble and a binary operand still can (an approximation, docs/lowering.md).
  bool keepInvalidLanes_;
  // A selected kernel whose assembles or binary operands may read lanes outside a valid region: its
  // copies cannot keep those lanes (the whole-tile form sets a window's valid shape or makes a
  // carry's handle dynamic, V5), so a copy of a partially valid value keeps it on Tile (L2).
  bool invalidLanesRead_;
  State state_;

  /// Plans the copy `name` of `source` (a kernel value's `sourceSlot`, or -1 for a planned scratch
  /// whose storage `sourceType` names) into `destination` (copyChain). `tile.move` copies only the
  /// valid region, so where a later point may read the other lanes (a growing setter, assemble, a
  /// binary operand) the whole tile is copied and the copy narrowed again; a runtime extent with no
  /// name to state it keeps the plain move (approximation). A col-major (DN) value is moved as its
  /// transposed (ND) view and the copy viewed back (copiedTransposed).
  void planCopy(std::vector<PlannedMove>& out, const std::string& name, const std::string& source, int sourceSlot,
                const Type& sourceType, const MemRef& destination, SourceLoc loc) {
    Type copy = copyTypeOf(sourceType);
    copy.memref = destination;
    const bool sourceStorageKnown =
        sourceSlot >= 0 ? state_.nominal.count(sourceSlot) > 0 : sourceType.memref.has_value();
    if (invalidLanesRead_ && copy.valid)
      throw Rejected{AliasRejection{"L2", loc,
                                    "the copy " + q(name) + " of " + q(source) + " would hold only its valid region " +
                                        verify::validText(copy) + " of " + shapeText(copy.rows(), copy.cols()) +
                                        ", and an assemble or binary operand of the kernel may read the other "
                                        "lanes; expected a fully valid value (the Buffer path has no whole-tile "
                                        "copy, V5)"}};
    CopyRequest request;
    request.name = name;
    request.source = source;
    request.sourceType = sourceType;
    request.whole = keepInvalidLanes_ && copy.valid && printableValid(copy.valid) && sourceStorageKnown;
    request.transposed = copiedTransposed(sourceType);
    // The source's views name its final MemRef.
    if (sourceSlot >= 0 && (request.whole || request.transposed))
      request.sourceType.memref = state_.nominal.at(sourceSlot);
    request.destination = destination;
    request.sourceSlot = sourceSlot;
    request.loc = loc;
    for (PlannedMove& m : copyChain(request, [&](const std::string& stem) { return freshName(stem); }))
      out.push_back(std::move(m));
  }

  // ---- names and storage ----

  std::string freshName(const std::string& stem) {
    for (int i = 0;; ++i) {
      std::string name = i == 0 ? stem : stem + "_" + std::to_string(i);
      if (state_.used.insert(name).second) return name;
    }
  }

  MemRef freshRoot(MemSpace space, int64_t bytes, SourceLoc loc) {
    std::string name;
    do {
      name = "mem_" + rootNameSpace(space) + "_" + std::to_string(state_.nextRoot++);
    } while (!state_.used.insert(name).second);
    state_.plan.roots.push_back(PlannedRoot{name, space, bytes, loc});
    state_.rootSize[name] = bytes;
    state_.rootSpace[name] = space;
    return MemRef{name, Extent::constant(0), bytes};
  }

  std::optional<MemRef> exactOf(int slot) const {
    auto it = state_.exact.find(slot);
    return it == state_.exact.end() ? std::nullopt : it->second;
  }

  bool wholeRoot(const MemRef& m) const {
    auto it = state_.rootSize.find(m.base);
    return it != state_.rootSize.end() && m.offset == Extent::constant(0) && m.size == it->second;
  }

  void define(int slot, const MemRef& nominal, std::optional<MemRef> exact) {
    state_.nominal[slot] = nominal;
    state_.exact[slot] = exact;
    state_.walked.insert(slot);
  }

  // ---- the walk ----

  void walk(const Block& body) {
    for (const StmtPtr& s : body) {
      switch (s->kind) {
        case Stmt::Kind::Assign: {
          const TileValue* v = facts_.value(s->as<AssignStmt>().target.slot);
          if (v) assign(*v);
          break;
        }
        case Stmt::Kind::For: {
          const auto& f = s->as<ForStmt>();
          loop(*s, f.iterArgs, f.inits, f.body);
          break;
        }
        case Stmt::Kind::While: {
          const auto& w = s->as<WhileStmt>();
          loop(*s, w.iterArgs, w.inits, w.body);
          break;
        }
        case Stmt::Kind::If: branch(s->as<IfStmt>()); break;
        default: break;
      }
    }
  }

  void assign(const TileValue& v) {
    const MemRef own = v.type.memref.value_or(MemRef{});
    auto viewOf = [&](int source) {
      const std::optional<MemRef> before = facts_.staticMemRef(source);
      if (!before || !state_.nominal.count(source)) return define(v.slot, own, std::nullopt);
      std::optional<MemRef> exact = exactOf(source);
      const std::optional<Reframe> frame = reframeAfterMove(v, own, *before, state_.nominal.at(source));
      if (frame) state_.reframed[v.slot] = *frame;
      auto moved = [&](const MemRef& now) { return viewAfterMove(v, own, *before, now, frame); };
      define(v.slot, moved(state_.nominal.at(source)), exact ? std::optional<MemRef>(moved(*exact)) : std::nullopt);
    };
    switch (v.kind) {
      case ValueKind::Fresh: define(v.slot, own, own); return;
      case ValueKind::View: viewOf(v.source); return;
      case ValueKind::InPlace:
        if (v.type.memref && v.type.memref == facts_.staticMemRef(v.source)) viewOf(v.source);
        else define(v.slot, own, own);
        return;
      default: return;
    }
  }

  /// Whether view `v` (annotated `annotation`) of a source that moved from `before` to `now` is placed
  /// in a dense frame the move made, and where. A slice keeps its place relative to the source (A20)
  /// unless the move changed the source's row pitch: a carry bound to a window of a wider tile
  /// (pitch 32 for 24 columns, say) whose entry copy is a dense tile of its own. The slice is then
  /// where the dense source's pitch puts it (the planned run's placement, semantics.md §3); keeping
  /// the window's span left it outside the copy's root (VerifyTileStorage [P14]; 2026-12-02, seed 20).
  /// So is a slice of such a slice, at the sum of their offsets in the same frame (P18; seed 27).
  std::optional<Reframe> reframeAfterMove(const TileValue& v, const MemRef& annotation, const MemRef& before,
                                          const MemRef& now) const {
    auto inherited = state_.reframed.find(v.source);
    if (annotation == before) {  // a setter, a rename, a relabel: the source's own placement
      if (inherited == state_.reframed.end()) return std::nullopt;
      return inherited->second;
    }
    const TileValue* source = facts_.value(v.source);
    const bool slice = v.call && v.call->kind == Expr::Kind::Call && opInfo(v.call->op).family == OpFamily::Slice;
    if (!slice || !source) return std::nullopt;
    const Expr& offset = *v.call->arg("offset");
    const Expr& r = *offset.args[0];
    const Expr& c = *offset.args[1];
    const bool literal = r.kind == Expr::Kind::IntLit && c.kind == Expr::Kind::IntLit;
    const int64_t row = literal ? r.intValue : 0, col = literal ? c.intValue : 0;
    if (inherited != state_.reframed.end()) {
      const Reframe& f = inherited->second;
      const int64_t sourceAt = elementOffset(f.frame, f.row, f.col) * dtypeSize(f.frame.dtype);
      return Reframe{f.frame, f.row + row, f.col + col, f.known && literal, sourceAt};
    }
    if (now.size == before.size || now.size != tileBytes(source->type) || source->type.layout.boxed() ||
        source->type.layout.blayout != TileLayout::row_major)
      return std::nullopt;
    return Reframe{source->type, row, col, literal};
  }

  /// The MemRef of view `v` once its source moved from `before` to `now` (`frame`: reframeAfterMove).
  /// A view sharing its source's MemRef shares the new one; a reframed slice is addressed in its
  /// frame as InitMemRef addresses one (a runtime offset keeps only the span); any other view keeps
  /// its place relative to the source.
  MemRef viewAfterMove(const TileValue& v, const MemRef& annotation, const MemRef& before, const MemRef& now,
                       const std::optional<Reframe>& frame) const {
    if (annotation == before) return now;
    if (!frame) return rebaseView(annotation, before, now);
    const Type& t = frame->frame;
    const bool known = frame->known && now.offset.isConst();
    const int64_t row = known ? frame->row : 0, col = known ? frame->col : 0;
    MemRef out{now.base, Extent::dynamic(), windowSpan(t, row, col, v.type.rows(), v.type.cols())};
    // `now` is the source's place, `frame->sourceAt` bytes into the frame.
    if (known) {
      const int64_t at = elementOffset(t, row, col) * dtypeSize(t.dtype);
      out.offset = Extent::constant(now.offset.value - frame->sourceAt + at);
    }
    return out;
  }

  // ---- loops (L1-L3, L8, L9, L11, A3) ----

  const LoopExtent& extentOf(const Stmt& s) const {
    for (const LoopExtent& l : facts_.loops())
      if (l.stmt == &s) return l;
    throw std::logic_error("MaterializeSemanticAliases: loop without extent");
  }

  void loop(const Stmt& s, const std::vector<Binder>& iterArgs, const std::vector<ExprPtr>& inits, const Block& body) {
    State saved = state_;
    try {
      legalizeLoop(s, iterArgs, inits, body);
      return;
    } catch (const Rejected&) {
      if (selected_) throw;
    }
    // An unselected kernel keeps such a loop as it was (VerifyTileStorage's L9 check stays the net).
    state_ = saved;
    for (size_t k = 0; k < iterArgs.size(); ++k)
      if (iterArgs[k].type.isTile() && state_.nominal.count(inits[k]->slot))
        define(iterArgs[k].slot, state_.nominal.at(inits[k]->slot), std::nullopt);
    walk(body);
    if (const YieldStmt* y = trailingYield(body))
      for (size_t k = 0; k < y->targets.size() && k < inits.size(); ++k)
        if (y->targets[k].type.isTile() && state_.nominal.count(inits[k]->slot))
          define(y->targets[k].slot, state_.nominal.at(inits[k]->slot), std::nullopt);
  }

  [[noreturn]] void rejectCopy(const std::string& what, const Type& t, SourceLoc loc) {
    throw Rejected{AliasRejection{
        "L11", loc,
        what + " needs a " + std::string(memSpaceName(t.space)) + " -> " + std::string(memSpaceName(t.space)) +
            " copy, which the target cannot perform (M11, M14: only Vec tiles are copied by tile.move); "
            "expected the carried storage to stay one alias"}};
  }

  void legalizeLoop(const Stmt& s, const std::vector<Binder>& iterArgs, const std::vector<ExprPtr>& inits,
                    const Block& body) {
    const LoopExtent& ext = extentOf(s);
    const YieldStmt* y = trailingYield(body);
    std::map<size_t, MemRef> canon;
    // Entry copies: decided for every carry first, so a rejection comes before any copy (L11).
    std::vector<size_t> copies;
    for (size_t k = 0; k < iterArgs.size(); ++k) {
      if (!iterArgs[k].type.isTile()) continue;
      const Expr& init = *inits[k];
      if (needsEntryCopy(s, ext, k, init, canon)) {
        if (!copyableInto(init.type, iterArgs[k].type))
          rejectCopy("the initial value " + q(init.name) + " of carry " + q(iterArgs[k].name) +
                         " is still observable (or not a whole allocation), so an entry copy (L3)",
                     iterArgs[k].type, init.loc);
        copies.push_back(k);
        canon[k] = MemRef{"?", Extent::constant(0), 0};  // placeholder: overlaps nothing yet
      } else {
        canon[k] = *exactOf(init.slot);
      }
    }
    for (size_t k : copies) {
      const Expr& init = *inits[k];
      MemRef c = freshRoot(iterArgs[k].type.space, tileBytes(iterArgs[k].type), s.loc);
      std::string name = freshName(init.name + "_in");
      planCopy(state_.plan.beforeStmt[&s], name, init.name, init.kind == Expr::Kind::Name ? init.slot : -1,
               init.type, c, s.loc);
      state_.plan.replaceOperand[{&s, k}] = name;
      canon[k] = c;
    }
    for (const auto& [k, c] : canon) {
      define(iterArgs[k].slot, c, c);
      state_.pinned.insert(c.base);
    }
    walk(body);
    if (!y) return;
    const int yieldPoint = facts_.pointOf(y);
    std::vector<Transfer> transfers;
    for (const auto& [k, c] : canon) {
      const Expr& value = *y->values[k];
      // A selected kernel yields the carry storage itself, never a window onto it: the Buffer path
      // yields no window (S19), so even a slice covering the whole carry is transferred (its
      // snapshot comes first, as the slice is the destination's bytes; seed 29, midday of 2026-12-02).
      if (exactOf(value.slot) == c && !(selected_ && boundToWindow(value.slot))) continue;
      if (retarget(value.slot, c, body, yieldPoint)) continue;
      transfers.push_back(Transfer{k, &value, c, iterArgs[k]});
    }
    for (const Transfer& t : transfers)
      if (!copyableInto(t.value->type, t.carry.type))
        rejectCopy("the backedge value " + q(t.value->name) + " of carry " + q(t.carry.name) +
                       " lives in other storage, so a transfer into the carry (L9)",
                   t.carry.type, t.value->loc);
    schedule(*y, transfers, /*loop=*/true);
    for (const auto& [k, c] : canon)
      if (k < y->targets.size()) define(y->targets[k].slot, c, c);
  }

  /// Whether a loop input must be copied before the loop (L3): it is not one whole allocation, its
  /// storage overlaps an earlier carry's, or anything sharing its storage may be read at or after the
  /// loop header, or before it inside a loop that repeats the header (conservative A4-A12).
  bool needsEntryCopy(const Stmt& s, const LoopExtent& ext, size_t k, const Expr& init,
                      const std::map<size_t, MemRef>& earlier) const {
    if (init.kind != Expr::Kind::Name) return true;
    std::optional<MemRef> e = exactOf(init.slot);
    if (!e || !wholeRoot(*e)) return true;
    const TileValue* v = facts_.value(init.slot);
    if (!v) return true;
    if (v->kind == ValueKind::View && v->call->kind == Expr::Kind::Call &&
        opInfo(v->call->op).family != OpFamily::SetValidShape && !soleTransposedView(*v))
      return true;  // a window or a relabel, not the whole identity
    for (const auto& [j, c] : earlier)
      if (j != k && mayOverlap(c, *e)) return true;
    // Bound outside an enclosing loop, the input is bound again on that loop's next trip, after this
    // loop rewrote it.
    for (int l = ext.parent; l >= 0; l = facts_.loops()[l].parent)
      if (v->point < facts_.loops()[l].header) return true;
    return observedOtherwise(s, ext, init, e->base);
  }

  /// A Vec transpose_view of a whole allocation that nothing else reads, in a Tile-path kernel: the
  /// view holds all of the allocation's bytes alone, as the whole identity would. It is the form of
  /// this pass's own copy of a col-major tile (copiedTransposed), so a second run finds nothing to
  /// copy again. (A selected kernel keeps copying relabels: the Buffer path carries no view, S19.)
  bool soleTransposedView(const TileValue& v) const {
    if (selected_ || v.type.space != MemSpace::Vec || opInfo(v.call->op).family != OpFamily::TransposeView)
      return false;
    const TileValue* source = facts_.value(v.source);
    if (!source || source->kind != ValueKind::Fresh) return false;
    const std::optional<MemRef> e = exactOf(source->slot);
    if (!e || !wholeRoot(*e)) return false;
    const Expr* operand = v.call->args[0].get();
    return std::all_of(facts_.uses().begin(), facts_.uses().end(),
                       [&](const Use& u) { return u.slot != source->slot || u.expr == operand; });
  }

  bool ownBinder(const TileValue& v, const Stmt& s) const {
    return (v.kind == ValueKind::LoopCarry || v.kind == ValueKind::LoopResult) && v.stmt == &s;
  }

  bool observedOtherwise(const Stmt& s, const LoopExtent& ext, const Expr& init, const std::string& root) const {
    // Values that may hold the input's storage, other than through this loop's own binders.
    std::set<int> holds;
    for (int slot : state_.walked) {
      std::optional<MemRef> e = exactOf(slot);
      if (e && e->base == root) holds.insert(slot);
    }
    bool changed = true;
    while (changed) {
      changed = false;
      for (const TileValue& v : facts_.values()) {
        if (holds.count(v.slot) || ownBinder(v, s)) continue;
        if (state_.walked.count(v.slot) && exactOf(v.slot)) continue;  // known to be elsewhere
        bool add = (v.kind == ValueKind::View || v.kind == ValueKind::InPlace) && holds.count(v.source);
        for (size_t i = 0; i < v.incoming.size(); ++i) {
          if (v.incoming[i] < 0 || !holds.count(v.incoming[i])) continue;
          // A loop holding this one yields its initial value only when no trip ran, and so
          // neither did this loop (A7, A9: nested K loops continue one accumulator).
          if (i == 0 && facts_.leavesLoopHolding(v, ext.header)) continue;
          // The arm of an If that excludes this loop yields the input untouched (A11, A15: the
          // other arm continues an accumulator through this loop), unless an earlier trip of a
          // loop holding the If may have run this one.
          if (facts_.yieldedByArmExcluding(v, i, ext.header) &&
              facts_.freshEachTrip(v.incoming[i], facts_.pointOf(v.stmt), ext.header))
            continue;
          add = true;
        }
        if (add) changed = holds.insert(v.slot).second || changed;
      }
    }
    // A read before the header recurs only inside the body of an enclosing loop (its own header
    // binds initial values once).
    auto repeatsHeader = [&](int point) {
      for (int l = ext.parent; l >= 0; l = facts_.loops()[l].parent)
        if (facts_.loops()[l].header < point && point <= facts_.loops()[l].backedge) return true;
      return false;
    };
    for (const Use& u : facts_.uses()) {
      if (!holds.count(u.slot) || u.expr == &init) continue;
      if (u.point < ext.header && !repeatsHeader(u.point)) continue;
      // No run both enters the loop and reads here, nor does a later trip of a loop holding both
      // read bytes this loop wrote on an earlier one.
      if (facts_.exclusive(u.point, ext.header) && facts_.freshEachTrip(u.slot, u.point, ext.header)) continue;
      // Fault ZeroTripEntryCopyMissing: reads after the loop are taken not to need the input intact.
      if (u.point > ext.backedge && faults_.on(Fault::ZeroTripEntryCopyMissing)) continue;
      // A view only forwards the storage (A8), unless an enclosing loop repeats it before the header:
      // its next trip consumes the view again, bound to the storage this loop rewrote (A8's "later
      // iteration"; 20-minute campaign of 2026-12-01, seed 4, case 27491:
      // tests/fuzz-regressions/view_rebound_by_enclosing_loop_needs_entry_copy).
      const Stmt* at = facts_.statementAt(u.point);
      if (at && at->kind == Stmt::Kind::Assign && u.point > ext.header) {
        const TileValue* def = facts_.value(at->as<AssignStmt>().target.slot);
        if (def && def->kind == ValueKind::View && holds.count(def->slot)) continue;  // forwards only (A8)
      }
      // A yield is a read too: the value may be copied there (a transfer or a branch destination).
      return true;
    }
    return false;
  }

  /// Values whose storage is `producer`'s by construction: it, and views and in-place results on it.
  std::set<int> derivedFrom(int producer) const {
    std::set<int> out = {producer};
    for (const TileValue& v : facts_.values())
      if ((v.kind == ValueKind::View || v.kind == ValueKind::InPlace) && out.count(v.source) &&
          exactOf(v.slot) && exactOf(producer) && exactOf(v.slot)->base == exactOf(producer)->base)
        out.insert(v.slot);
    return out;
  }

  static bool directlyIn(const Block& body, const Stmt* stmt) {
    return std::any_of(body.begin(), body.end(), [&](const StmtPtr& s) { return s.get() == stmt; });
  }

  /// readsThroughWindowOrRelabel, or a carry, loop or branch result sharing the storage of a value
  /// bound to it that does (no entry copy or transfer between them): an If yielding a slice in both
  /// arms, its result carried by a loop whose body replaces the carry by `abs(c)`. VerifyTileStorage
  /// sees the slice's identity, not a version of the carry, under the retargeted producer ([L9];
  /// 2026-12-02, seed 20), and the Buffer path lowers no window as a branch result (S19).
  bool boundToWindow(int slot) const {
    std::set<int> seen;
    return boundToWindow(slot, seen);
  }
  bool boundToWindow(int slot, std::set<int>& seen) const {
    if (readsThroughWindowOrRelabel(facts_, slot)) return true;
    const TileValue* v = facts_.value(slot);
    if (!v || !seen.insert(slot).second) return false;
    const std::optional<MemRef> mine = exactOf(slot);
    return mine && std::any_of(v->incoming.begin(), v->incoming.end(), [&](int in) {
             return in >= 0 && exactOf(in) == mine && boundToWindow(in, seen);
           });
  }

  /// A3/B3: lets the yielded value's producer write `target` directly when that is safe: a fresh
  /// producer of this region whose storage nothing else shares, no other read of `target` after it
  /// up to the yield (the yield's own operands included), and an in-place-safe elementwise op when it
  /// reads `target` itself (exactly the whole window, same physical type, not through a slice: W13).
  bool retarget(int slot, const MemRef& target, const Block& region, int yieldPoint) {
    const TileValue* p = facts_.value(slot);
    if (!p || p->kind != ValueKind::Fresh || !directlyIn(region, p->stmt)) return false;
    std::optional<MemRef> own = exactOf(slot);
    if (!own || !wholeRoot(*own) || own->base == target.base || state_.pinned.count(own->base) ||
        !wholeRoot(target) || own->size != target.size ||
        state_.rootSpace.at(own->base) != state_.rootSpace.at(target.base))
      return false;
    const std::set<int> derived = derivedFrom(slot);
    for (int s : state_.walked) {
      std::optional<MemRef> e = exactOf(s);
      if (e && e->base == own->base && !derived.count(s)) return false;
      if (!e) {
        const TileValue* v = facts_.value(s);
        if (v) for (int in : v->incoming)
            if (derived.count(in)) return false;  // an ambiguous value may hold it
      }
    }
    for (const Use& u : facts_.uses()) {
      if (u.point < p->point || u.point > yieldPoint || derived.count(u.slot) || !facts_.value(u.slot)) continue;
      std::optional<MemRef> e = exactOf(u.slot);
      const bool inTarget = !e || mayOverlap(*e, target);
      if (!inTarget) continue;
      if (u.point > p->point) return false;
      const TileValue* operand = facts_.value(u.slot);
      if (!isElementwise(p->call) || !opInfo(p->call->op).effects.inPlaceSafe || !e || !(*e == target) ||
          !samePhysicalTile(operand->type, p->type) || boundToWindow(u.slot))
        return false;
    }
    for (int s : state_.walked) {
      std::optional<MemRef> e = exactOf(s);
      if (!e || e->base != own->base) continue;
      MemRef moved{target.base, Extent::dynamic(), e->size};
      if (e->offset.isConst()) moved.offset = Extent::constant(target.offset.value + e->offset.value);
      state_.exact[s] = moved;
      state_.nominal[s] = moved;
    }
    state_.plan.orphanCandidates.push_back(own->base);
    return true;
  }

  // ---- the parallel transfer schedule (L9, B5) ----

  struct Transfer {
    size_t index;         // the yield operand
    const Expr* value;    // what is yielded
    MemRef destination;   // the carry's / result's storage
    const Binder& carry;  // the carry or result it becomes
  };

  /// Every source that may overlap any destination is snapshotted into fresh scratch before any
  /// destination is written; swaps, cycles and fanout follow. `loop`: the yield of a loop body.
  void schedule(const YieldStmt& y, const std::vector<Transfer>& transfers, bool loop) {
    std::vector<PlannedMove>& before = state_.plan.beforeStmt[&y];
    struct Snapshot {
      std::string name;
      Type type;  // its storage is the scratch
    };
    std::map<int, Snapshot> snapshot;  // source slot -> its scratch copy
    for (const Transfer& t : transfers) {
      std::optional<MemRef> src = exactOf(t.value->slot);
      bool overlaps = !src;
      for (const Transfer& d : transfers) overlaps = overlaps || (src && mayOverlap(*src, d.destination));
      if (!overlaps || snapshot.count(t.value->slot)) continue;
      if (loop && faults_.on(Fault::LoopSwapWithoutSnapshot)) continue;  // fault: transfers run in order
      const MemRef scratch = freshRoot(t.value->type.space, tileBytes(t.value->type), y.loc);
      std::string name = freshName(t.value->name + "_snap");
      planCopy(before, name, t.value->name, t.value->slot, t.value->type, scratch, y.loc);
      snapshot[t.value->slot] = Snapshot{name, copyTypeOf(t.value->type)};
      snapshot[t.value->slot].type.memref = scratch;
    }
    for (const Transfer& t : transfers) {
      std::string name = freshName(t.carry.name + "_next");
      auto snap = snapshot.find(t.value->slot);
      if (snap == snapshot.end())
        planCopy(before, name, t.value->name, t.value->slot, t.value->type, t.destination, y.loc);
      else
        planCopy(before, name, snap->second.name, -1, snap->second.type, t.destination, y.loc);
      state_.plan.replaceOperand[{&y, t.index}] = name;
    }
    if (before.empty()) state_.plan.beforeStmt.erase(&y);
  }

  // ---- branches (B1-B5: selected kernels, and Tile-path results where C13 cannot hold) ----

  /// Whether `slot` is, whichever arm or trip bound it, a whole allocation of `t`'s size.
  bool wholeAllocation(int slot, const Type& t) const {
    if (state_.wholeOnEveryArm.count(slot)) return true;
    const std::optional<MemRef> e = exactOf(slot);
    return e && wholeRoot(*e) && e->size == tileBytes(t);
  }

  /// C13 on the Tile path: a branch result keeps the storage on entry (the then arm value's, which its
  /// views and in-place results name) when its arms are whole allocations of its type: the MemRef
  /// then describes either arm but for the root, which the planned run takes from the arm that ran.
  /// An arm that is a window (a slice of a wider tile, a runtime offset, part of a root) has another
  /// pitch, offset or span than any one MemRef can state, so the result gets a root of its own and
  /// each arm a transfer, as in a selected kernel (2026-12-02: the first campaign whose If arms yield
  /// windows, seed 20; docs/lowering.md). Where that copy is impossible (not Vec, M14) the result
  /// keeps the storage on entry and VerifyTileStorage stays the net.
  bool keepsStorageOnEntry(const Binder& r, const Expr& tv, const Expr& ev) const {
    for (const Expr* v : {&tv, &ev})
      if (!copyableInto(v->type, r.type)) return true;
    if (!wholeAllocation(tv.slot, r.type) || !wholeAllocation(ev.slot, r.type)) return false;
    // InitMemRef runs an in-place op on the result only when its arms share one storage. An entry
    // copy of a loop in one arm may have moved that arm's value since: the op would then write the
    // storage the then arm names while the else arm's value is elsewhere, and start from a copy of
    // its valid region only (10-minute campaign of 2026-12-02, seed 22).
    const std::optional<MemRef> te = exactOf(tv.slot), ee = exactOf(ev.slot);
    return !(te && ee && !(*te == *ee) && updatedInPlace(r.slot));
  }

  /// Whether an in-place op writes the storage of `slot` (through views), following its input.
  bool updatedInPlace(int slot) const {
    for (const TileValue& v : facts_.values()) {
      if (v.kind != ValueKind::InPlace || !v.type.memref || v.type.memref != facts_.staticMemRef(v.source)) continue;
      for (const TileValue* in = facts_.value(v.source); in; in = facts_.value(in->source)) {
        if (in->slot == slot) return true;
        if (in->kind != ValueKind::View && in->kind != ValueKind::InPlace) break;
      }
    }
    return false;
  }

  void branch(const IfStmt& s) {
    walk(s.thenBody);
    walk(s.elseBody);
    const YieldStmt* ty = trailingYield(s.thenBody);
    const YieldStmt* ey = trailingYield(s.elseBody);
    if (!ty) return;
    std::vector<Transfer> thenMoves, elseMoves;
    std::vector<std::pair<size_t, MemRef>> results;
    for (size_t k = 0; k < ty->targets.size(); ++k) {
      const Binder& r = ty->targets[k];
      if (!r.type.isTile()) continue;
      const Expr& tv = *ty->values[k];
      const Expr* ev = ey && k < ey->values.size() ? ey->values[k].get() : nullptr;
      std::optional<MemRef> te = exactOf(tv.slot), ee = ev ? exactOf(ev->slot) : std::nullopt;
      const MemRef nominal = state_.nominal.count(tv.slot) ? state_.nominal.at(tv.slot) : MemRef{};
      // B1: both arms already yield one window. The Buffer path lowers no window as a branch result
      // (S19), so in a selected kernel a slice or relabel yielded by both arms is copied like any
      // other arm value (2026-12-02, seed 20: LowerTileToBuffer rejected such a kernel).
      const bool windowArm = selected_ && (boundToWindow(tv.slot) || (ev && boundToWindow(ev->slot)));
      if (te && ee && *te == *ee && !windowArm) {
        define(r.slot, *te, te);
        state_.pinned.insert(te->base);
        continue;
      }
      if (!ev || (!selected_ && keepsStorageOnEntry(r, tv, *ev))) {  // the Tile path (C13)
        if (ev && wholeAllocation(tv.slot, r.type) && wholeAllocation(ev->slot, r.type))
          state_.wholeOnEveryArm.insert(r.slot);
        define(r.slot, nominal, std::nullopt);
        continue;
      }
      for (const Expr* v : {&tv, ev})
        if (!copyableInto(v->type, r.type))
          throw Rejected{AliasRejection{
              "B13", v->loc,
              "the arms of the if yield " + q(tv.name) + " and " + q(ev->name) + " for result " + q(r.name) +
                  " in different storage; one destination needs a " + std::string(memSpaceName(r.type.space)) +
                  " copy, which the target cannot perform (L11, M14)"}};
      // Fault BranchTransferDropped: the result is coalesced with the else arm's value, whose storage the
      // then arm then overwrites, without asking whether that value is read after the branch.
      const bool dropElse = faults_.on(Fault::BranchTransferDropped) && ee && wholeRoot(*ee) &&
                            ee->size == tileBytes(r.type) && state_.rootSpace.at(ee->base) == r.type.space;
      MemRef d = dropElse ? *ee : freshRoot(r.type.space, tileBytes(r.type), s.loc);
      state_.pinned.insert(d.base);
      if (!retarget(tv.slot, d, s.thenBody, facts_.pointOf(ty))) thenMoves.push_back(Transfer{k, &tv, d, r});
      if (!dropElse && !retarget(ev->slot, d, s.elseBody, facts_.pointOf(ey)))
        elseMoves.push_back(Transfer{k, ev, d, r});
      results.emplace_back(k, d);
    }
    schedule(*ty, thenMoves, /*loop=*/false);
    if (ey) schedule(*ey, elseMoves, /*loop=*/false);
    for (const auto& [k, d] : results) define(ty->targets[k].slot, d, d);
  }
};

// ---- applying a plan ----

ExprPtr extentArg(const Extent& e, SourceLoc loc) {
  if (e.kind == Extent::Kind::Symbol) return Expr::nameRef(e.symbol, loc);
  if (e.kind == Extent::Kind::Const) return Expr::intLit(e.value, loc);
  throw std::logic_error("MaterializeSemanticAliases: a copy's setter with a runtime extent it cannot name");
}

StmtPtr makeMove(const PlannedMove& m) {
  auto s = std::make_unique<AssignStmt>(m.loc);
  s->target.name = m.name;
  s->target.annotation = m.type;
  s->target.loc = m.loc;
  s->value = copyStepCall(m);
  return s;
}

class PlanApplier {
 public:
  explicit PlanApplier(const AliasPlan& plan) : plan_(plan) {}
  bool changed = false;

  void block(Block& body) {
    Block out;
    for (StmtPtr& s : body) {
      auto before = plan_.beforeStmt.find(s.get());
      if (before != plan_.beforeStmt.end())
        for (const PlannedMove& m : before->second) {
          out.push_back(makeMove(m));
          changed = true;
        }
      statement(*s);
      out.push_back(std::move(s));
    }
    body = std::move(out);
  }

 private:
  const AliasPlan& plan_;

  void rename(const Stmt& s, size_t k, ExprPtr& operand) {
    auto it = plan_.replaceOperand.find({&s, k});
    if (it == plan_.replaceOperand.end()) return;
    operand = Expr::nameRef(it->second, operand->loc);
    changed = true;
  }

  void statement(Stmt& s) {
    switch (s.kind) {
      case Stmt::Kind::Assign: {
        Binder& b = s.as<AssignStmt>().target;
        auto it = plan_.memrefs.find(b.slot);
        if (it != plan_.memrefs.end() && b.annotation && b.annotation->isTile() && b.annotation->memref != it->second) {
          b.annotation->memref = it->second;
          changed = true;
        }
        return;
      }
      case Stmt::Kind::Yield: {
        auto& y = s.as<YieldStmt>();
        for (size_t k = 0; k < y.values.size(); ++k) rename(s, k, y.values[k]);
        return;
      }
      case Stmt::Kind::For: {
        auto& f = s.as<ForStmt>();
        for (size_t k = 0; k < f.inits.size(); ++k) rename(s, k, f.inits[k]);
        block(f.body);
        return;
      }
      case Stmt::Kind::While: {
        auto& w = s.as<WhileStmt>();
        for (size_t k = 0; k < w.inits.size(); ++k) rename(s, k, w.inits[k]);
        block(w.body);
        return;
      }
      case Stmt::Kind::If:
        block(s.as<IfStmt>().thenBody);
        block(s.as<IfStmt>().elseBody);
        return;
      default: return;
    }
  }
};

}  // namespace

bool observesInvalidLanes(const storage::StorageFacts& facts) { return readsInvalidLanes(facts, true); }

bool printableValid(const ValidShape& valid) {
  return valid &&
         std::all_of(valid->begin(), valid->end(), [](const Extent& e) { return e.kind != Extent::Kind::Dynamic; });
}

std::vector<PlannedMove> copyChain(const CopyRequest& r, const std::function<std::string(const std::string&)>& freshName) {
  Type copy = r.transposed ? transposedType(moveType(transposedType(r.sourceType))) : moveType(r.sourceType);
  copy.memref = r.destination;
  if (!r.whole && !r.transposed) return {PlannedMove{r.name, r.source, copy, r.loc}};
  std::vector<PlannedMove> out;
  const std::string wholeName = r.whole ? freshName(r.name + "_whole") : std::string();
  const std::string wholeSource = r.whole ? freshName(r.name + "_whole_src") : std::string();
  // Views of the source's bytes first (they name the source's MemRef), then the move into the
  // destination, then views of the copy.
  std::string from = r.source;
  Type fromType = r.sourceType;
  if (r.whole) {
    fromType.valid.reset();
    out.push_back(PlannedMove{wholeSource, from, fromType, r.loc, CopyStep::SetValidShape, r.sourceSlot});
    from = wholeSource;
  }
  if (r.transposed) {
    const std::string view = freshName(r.name + "_nd");
    fromType = transposedType(fromType);
    out.push_back(PlannedMove{view, from, fromType, r.loc, CopyStep::TransposeView, r.sourceSlot});
    from = view;
  }
  const std::string moved = r.whole ? wholeName : freshName(r.name + "_moved");
  fromType = moveType(fromType);
  fromType.memref = r.destination;
  out.push_back(PlannedMove{moved, from, fromType, r.loc});
  from = moved;
  if (r.transposed) {
    const std::string view = r.whole ? freshName(r.name + "_dn") : r.name;
    fromType = transposedType(fromType);
    out.push_back(PlannedMove{view, from, fromType, r.loc, CopyStep::TransposeView});
    from = view;
  }
  if (r.whole) out.push_back(PlannedMove{r.name, from, copy, r.loc, CopyStep::SetValidShape});
  return out;
}

ExprPtr copyStepCall(const PlannedMove& m) {
  std::vector<ExprPtr> args;
  args.push_back(Expr::nameRef(m.source, m.loc));
  switch (m.step) {
    case CopyStep::SetValidShape:
      args.push_back(extentArg(m.type.validExtent(0), m.loc));
      args.push_back(extentArg(m.type.validExtent(1), m.loc));
      return Expr::call(Opcode::TileSetValidShape, std::move(args), m.loc);
    case CopyStep::TransposeView: return Expr::call(Opcode::TileTransposeView, std::move(args), m.loc);
    case CopyStep::Move: break;
  }
  args.push_back(Expr::spaceRef(m.type.space, m.loc));
  return Expr::call(Opcode::TileMove, std::move(args), m.loc);
}

bool copyableByMove(const Type& t) {
  return t.isTile() && t.space == MemSpace::Vec && sameTypeIgnoringStorage(moveType(t), t);
}

bool copyableWithinSpace(const Type& t) { return t.isTile() && copyableInto(t, t); }

AliasPlanResult planSemanticAliases(const Function& kernel, bool selected, FaultSwitch faults) {
  return Materializer(kernel, selected, faults).run();
}

bool applyAliasPlan(Function& kernel, const AliasPlan& plan) {
  PlanApplier applier(plan);
  applier.block(kernel.body);
  bool changed = applier.changed;
  // New roots go after the hoisted roots at the top of the kernel.
  if (!plan.roots.empty()) {
    size_t at = 0;
    while (at < kernel.body.size() && kernel.body[at]->kind == Stmt::Kind::Assign &&
           kernel.body[at]->as<AssignStmt>().target.annotation &&
           kernel.body[at]->as<AssignStmt>().target.annotation->kind == Type::Kind::Ptr)
      ++at;
    std::vector<StmtPtr> roots;
    for (const PlannedRoot& r : plan.roots) roots.push_back(makeRootStatement(r.name, r.space, r.size, r.loc));
    kernel.body.insert(kernel.body.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(roots.begin()),
                       std::make_move_iterator(roots.end()));
    changed = true;
  }
  // B4: allocations orphaned by producer retargeting are deleted.
  std::set<std::string> referenced;
  forEachMemRef(kernel, [&](MemRef& m, Binder&) { referenced.insert(m.base); });
  std::vector<std::string> orphans;
  for (const std::string& r : plan.orphanCandidates)
    if (!referenced.count(r)) orphans.push_back(r);
  if (!orphans.empty()) {
    eraseRootStatements(kernel, orphans);
    changed = true;
  }
  return changed;
}

}  // namespace ptodiff::aliases
