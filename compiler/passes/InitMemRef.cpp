#include "compiler/passes/InitMemRef.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <stdexcept>

#include "compiler/faults/Faults.h"
#include "compiler/passes/PassManager.h"
#include "compiler/passes/aliases/AliasPlan.h"
#include "compiler/planners/PlannedStorage.h"
#include "compiler/planners/StorageFacts.h"
#include "compiler/verify/TypeRules.h"
#include "compiler/verify/Verifier.h"

namespace ptodiff {

namespace {

using namespace storage;

constexpr std::string_view kPassName = "InitMemRef";

// ---- element addressing of a storage frame (semantics.md §3) ----

/// The addressing frame of a value's window: the dense storage whose element addressing applies,
/// where that storage starts in its root, and where the value starts inside it.
struct Frame {
  Type type;
  Extent base = Extent::constant(0);  // byte offset of the frame's element (0, 0) in the root
  Extent row = Extent::constant(0), col = Extent::constant(0);
};

struct Placement {
  MemRef memref;
  Frame frame;
};

Extent plus(const Extent& a, const Extent& b) {
  if (a.isConst() && b.isConst()) return Extent::constant(a.value + b.value);
  return Extent::dynamic();
}

bool intersects(const std::vector<int>& a, const std::vector<int>& b) {
  for (int x : a)
    if (std::binary_search(b.begin(), b.end(), x)) return true;
  return false;
}

/// Plans one function.
class FunctionPlanner {
 public:
  FunctionPlanner(Function& fn, const Program& program, FaultSwitch faults)
      : fn_(fn), program_(program), faults_(faults), facts_(fn) {}

  /// Places every value (nothing is written yet); false when the function has no Tile value.
  bool plan() {
    rejectPlannedInput();
    if (facts_.values().empty()) return false;
    AliasFamilies maximal(facts_, allInPlaceFollow);
    // As in MaterializeSemanticAliases: only unselected kernels, whose setters the Buffer path never sees.
    keepInvalidLanes_ = fn_.bufferIRSelected != true && aliases::observesInvalidLanes(facts_);
    for (const TileValue& v : facts_.values()) {
      if (v.kind == ValueKind::InPlace) {
        follows_[v.slot] = isPrivateWholeCopy(*inPlaceInput(v), v.point) || !inputObservableAfter(v, maximal);
      }
      const Expr* tmp = scratchOperand(v);
      if (tmp && observedAroundWrite(maximal.family(tmp->slot), v.point, tmp, {}, false, maximal))
        clobberedScratch_.push_back(&v);
    }
    for (const TileValue& v : facts_.values()) place(v);
    return true;
  }

  /// Writes the placement: MemRef annotations and the hoisted roots.
  void commit() {
    annotateBinders(fn_.body);
    insertRoots();
  }

  /// Copies the Tile program needs before its storage can be planned, each
  /// `<operand>_<why> = pl.tile.move(operand, target_memory=Vec)` read by the op instead:
  /// - P11, P14: a relabel (reshape, transpose_view) reinterprets its source's bytes densely from a
  ///   static base, so a source window with a wider row pitch or a runtime offset is copied into a
  ///   dense tile of its own (`_dense`; of every lane, like `_inplace` below, where the kernel
  ///   may read lanes outside a valid region);
  /// - a reshape reinterprets its source's bytes in row-major order, while a col-major (DN) source
  ///   of more than one row and column holds its elements column by column: it is moved into a
  ///   row-major tile first (`_dense` too; tile.move's result takes the space's ND layout);
  /// - a row reduction writes poison over its `tmp_tile` (semantics.md §2, PT6), so a tmp whose
  ///   storage is still observable (read later, by another operand, or again in a later trip) is
  ///   replaced by scratch of its own (`_scratch = pl.tile.create(...)` of the tmp's shape and dtype):
  ///   a Tile value is immutable, its storage must stay so. The reduction never reads its tmp, so
  ///   fresh storage serves where a copy could not be made (a transposed or boxed tmp, M14).
  /// - an in-place op (assemble) whose input stays observable writes storage of its own, which the
  ///   planned semantics fill with a copy of the input's valid region only (semantics.md §3), while
  ///   the Tile result keeps every lane of its input; where the kernel may read lanes outside a valid
  ///   region (`observesInvalidLanes`) a narrow input is first copied whole (`_inplace`, the form
  ///   of MaterializeSemanticAliases' copies: widening setter, move, narrowing setter) and the op
  ///   then runs in place on that copy.
  /// Only Vec tiles in their implicit layout can be copied (M14); other dense cases are left for
  /// VerifyTileStorage and the interpreters to reject. Returns whether a copy was inserted (the
  /// function must then be verified and planned again).
  bool insertCopies() {
    CopyPlan copies;
    for (const TileValue* v : clobberedScratch_) {
      const Expr* tmp = scratchOperand(*v);
      copies[v->stmt].push_back({1, freshName(tmp->name + "_scratch"), {}});
    }
    for (const TileValue* v : narrowInPlaceInputs_) {
      const Expr& input = *inPlaceInput(*v);
      // A DN input is copied through its transposed view.
      copies[v->stmt].push_back(
          chainCopy(0, input, freshName(input.name + "_inplace"), true, !aliases::copyableByMove(input.type)));
    }
    for (const TileValue& v : facts_.values()) {
      if (v.kind != ValueKind::View || v.call->kind != Expr::Kind::Call) continue;
      const OpFamily family = opInfo(v.call->op).family;
      if (family != OpFamily::Reshape && family != OpFamily::TransposeView) continue;
      const TileValue* source = facts_.value(v.source);
      if (!source) continue;
      const bool reordered = family == OpFamily::Reshape && verify::storedColumnByColumn(source->type);
      if (!reordered && (denseOnEveryPath(*source) || !aliases::copyableByMove(source->type))) continue;
      const Expr& operand = *v.call->args[0];
      const std::string name = freshName(operand.name + "_dense");
      // The relabel keeps every lane of its source, and a setter may expose the narrow source's
      // hidden lanes again: then the copy takes them all (5-minute campaign of 2026-12-01, seed 1,
      // case 36832: tests/fuzz-regressions/reshape_of_empty_window_whole_copy). The copy is
      // row-major, also of a DN source: that is its purpose.
      const bool whole =
          keepInvalidLanes_ && (reordered ? narrowAndNameable(source->type) : needsWholeTileCopy(source->type));
      copies[v.stmt].push_back(chainCopy(0, operand, name, whole, false));
    }
    if (copies.empty()) return false;
    insertCopies(fn_.body, copies);
    return true;
  }

 private:
  struct NewRoot {
    std::string name;
    MemSpace space;
    int64_t size;
    SourceLoc loc;
  };

  Function& fn_;
  const Program& program_;
  FaultSwitch faults_;
  StorageFacts facts_;
  std::map<int, bool> follows_;
  std::vector<const TileValue*> clobberedScratch_;  // row reductions whose tmp storage stays observable
  std::vector<const TileValue*> narrowInPlaceInputs_;  // in-place results given storage of their own
  bool keepInvalidLanes_ = false;  // copies of narrow tiles take every lane (observesInvalidLanes)
  /// A value the op reads instead of one operand: the statements of a copy of it (a move of its
  /// valid region, or of every lane: aliases::copyChain), or, with no statements, fresh scratch
  /// storage (`pl.tile.create`).
  struct OperandCopy {
    size_t operand;
    std::string name;
    std::vector<aliases::PlannedMove> chain;
  };
  OperandCopy chainCopy(size_t operand, const Expr& value, const std::string& name, bool whole, bool transposed) {
    aliases::CopyRequest request;
    request.name = name;
    request.source = value.name;
    request.sourceType = value.type;
    request.whole = whole;
    request.transposed = transposed;
    request.loc = value.loc;
    return {operand, name, aliases::copyChain(request, [&](const std::string& stem) { return freshName(stem); })};
  }
  using CopyPlan = std::map<const Stmt*, std::vector<OperandCopy>>;
  std::map<int, Placement> placement_;  // every Tile slot that has storage of its own or an alias
  std::vector<NewRoot> roots_;
  std::set<std::string> usedNames_;
  int nextRoot_ = 0;

  void rejectPlannedInput() {
    for (const TileValue& v : facts_.values())
      if (v.type.memref) {
        const bool call = v.call && v.call->kind == Expr::Kind::Call;
        failPass(kPassName, program_, v.binder->loc,
                 "[P18] " + std::string(call ? opInfo(v.call->op).spelling : "tile") + ": '" + v.binder->name +
                     "' already names planned storage (pl.MemRef(" + v.type.memref->base +
                     ", ...)); expected an unplanned Tile program (InitMemRef plans every kernel once)");
      }
    std::vector<Root> roots = collectRoots(fn_);
    if (!roots.empty())
      failPass(kPassName, program_, roots.front().stmt->loc,
               "[P18] tile.alloc: '" + roots.front().name +
                   "' is a storage root (pl.tile.alloc); expected an unplanned Tile program without storage roots");
  }

  // ---- in-place results ----

  /// Values whose bytes are `result`'s own after the in-place write: views and in-place results
  /// built on it, control-flow binders fed only by such values, and the results of the loop that
  /// holds the write when its backedge carries such a value (a zero-trip run never wrote).
  std::set<int> derivedFrom(const TileValue& result) const {
    // What may hold the result's bytes: views and in-place results of it, and the carries, loop and
    // branch results it flows into, found forward first...
    std::set<int> derived = {result.slot};
    for (bool changed = true; changed;) {
      changed = false;
      for (const TileValue& v : facts_.values()) {
        if (derived.count(v.slot)) continue;
        const bool fromSource = (v.kind == ValueKind::View || v.kind == ValueKind::InPlace) && derived.count(v.source);
        const bool fromIncoming =
            std::any_of(v.incoming.begin(), v.incoming.end(), [&](int s) { return derived.count(s) != 0; });
        if (fromSource || fromIncoming) changed = derived.insert(v.slot).second || changed;
      }
    }
    // ...then kept only while everything flowing into them is derived too (a greatest fixpoint: a
    // carry updated in place, `c = init; t = assemble(c, ...); yield t`, holds the result's bytes
    // on every trip although each of c and t is defined through the other). Leaving a loop that
    // holds the write yields the last trip's value: the init only reaches the result when no trip
    // (and so no rewrite) ran.
    for (bool changed = true; changed;) {
      changed = false;
      for (auto it = derived.begin(); it != derived.end();) {
        const TileValue* v = facts_.value(*it);
        bool keep = *it == result.slot;
        if (!keep && v) {
          if (v->kind == ValueKind::View || v->kind == ValueKind::InPlace) {
            keep = derived.count(v->source) != 0;
          } else if (!v->incoming.empty()) {
            if (facts_.leavesLoopHolding(*v, result.point)) {
              keep = derived.count(v->incoming[1]) != 0;
            } else {
              keep = true;
              // The arm of an If that excludes the write (A15's untouched accumulator, B13's other
              // product) never shows bytes the write changed.
              for (size_t i = 0; keep && i < v->incoming.size(); ++i) {
                const int s = v->incoming[i];
                keep = s == v->slot || derived.count(s) != 0 || facts_.yieldedByArmExcluding(*v, i, result.point);
              }
            }
          }
        }
        if (keep) {
          ++it;
        } else {
          it = derived.erase(it);
          changed = true;
        }
      }
    }
    return derived;
  }

  /// The operand an in-place result writes over (assemble's target, matmul_acc's accumulator).
  static const Expr* inPlaceInput(const TileValue& result) {
    return opInfo(result.call->op).family == OpFamily::Assemble ? result.call->arg("target") : result.call->arg("acc");
  }

  /// Whether the storage an in-place op writes may still be read as another value afterwards.
  bool inputObservableAfter(const TileValue& result, const AliasFamilies& families) const {
    if (faults_.on(Fault::InPlaceInputCopyDropped)) return false;
    return observedAroundWrite(families.family(result.source), result.point, inPlaceInput(result), derivedFrom(result),
                               true, families, &result);
  }

  /// The fault assemble-row-gap-proof: "the source window cannot overlap the placed window" proved
  /// from their first rows alone, as if a window were one contiguous row of bytes.
  bool firstRowsDisjoint(const TileValue& assemble, const TileValue& source) const {
    if (source.kind != ValueKind::View || source.call->kind != Expr::Kind::Call ||
        opInfo(source.call->op).family != OpFamily::Slice || source.source != assemble.source)
      return false;
    const Expr& from = *source.call->arg("offset");
    const Expr& to = *assemble.call->arg("offset");
    for (const Expr* e : {from.args[0].get(), from.args[1].get(), to.args[0].get(), to.args[1].get()})
      if (e->kind != Expr::Kind::IntLit) return false;
    const int64_t pitch = assemble.type.cols(), width = source.type.cols() * dtypeSize(source.type.dtype);
    const int64_t es = dtypeSize(source.type.dtype);
    const int64_t a = (from.args[0]->intValue * pitch + from.args[1]->intValue) * es;
    const int64_t b = (to.args[0]->intValue * pitch + to.args[1]->intValue) * es;
    return a + width <= b || b + width <= a;
  }

  /// The `tmp_tile` of a row reduction: the reduction writes poison over it (semantics.md §2).
  static const Expr* scratchOperand(const TileValue& v) {
    if (v.kind != ValueKind::Fresh || v.call->kind != Expr::Kind::Call ||
        opInfo(v.call->op).family != OpFamily::RowReduce)
      return nullptr;
    return v.call->arg("tmp_tile");
  }

  /// Whether storage (`written`, identities) that the op at `point` overwrites through `operand`
  /// may be read as another value: through another operand of the op (even the same value), after
  /// it, or before it in a later trip of a loop holding the write unless that value is rebound on
  /// every trip (defined in the body, or a carry of that loop). `derived` are the values that hold
  /// the written bytes by design; `operandReadsData`: the op's own read of `operand` repeats too.
  bool observedAroundWrite(const std::vector<int>& written, int point, const Expr* operand, const std::set<int>& derived,
                           bool operandReadsData, const AliasFamilies& families,
                           const TileValue* inPlaceResult = nullptr) const {
    for (const Use& u : facts_.uses()) {
      const TileValue* v = facts_.value(u.slot);
      if (!v || derived.count(u.slot) || !intersects(families.family(u.slot), written)) continue;
      if (u.expr == operand && !operandReadsData) continue;
      // Read through another operand, even the input value itself (`assemble(t, t, ...)`): writing
      // in place would overwrite the bytes being copied (W9, semantics.md §3).
      if (u.point == point && u.expr != operand) {
        const bool assemble = inPlaceResult && opInfo(inPlaceResult->call->op).family == OpFamily::Assemble;
        if (assemble && faults_.on(Fault::AssembleOverlapInPlace)) continue;
        if (assemble && faults_.on(Fault::AssembleRowGapProof) && firstRowsDisjoint(*inPlaceResult, *v)) continue;
        return true;
      }
      // A read in the other arm of an If holding the write is never after it in one run; a later
      // trip of a loop holding both reads a value bound again, or is caught below.
      if (u.point > point && !facts_.exclusive(point, u.point)) return true;
      for (int l = facts_.innermostLoop(point); l >= 0; l = facts_.loops()[l].parent) {
        const LoopExtent& loop = facts_.loops()[l];
        if (u.point > loop.header && loop.contains(u.point) && v->point < loop.header) return true;
      }
    }
    return false;
  }

  // ---- placement ----

  std::string freshRootName(MemSpace space) {
    for (;;) {
      std::string name = "mem_" + rootNameSpace(space) + "_" + std::to_string(nextRoot_++);
      if (usedNames_.insert(name).second) return name;
    }
  }

  Placement freshStorage(const TileValue& v) {
    const int64_t bytes = tileBytes(v.type);
    NewRoot root{freshRootName(v.type.space), v.type.space, bytes, v.binder->loc};
    roots_.push_back(root);
    return Placement{MemRef{root.name, Extent::constant(0), bytes}, Frame{v.type, Extent::constant(0), {}, {}}};
  }

  const Placement& placementOf(int slot) const {
    auto it = placement_.find(slot);
    if (it == placement_.end()) throw std::logic_error("InitMemRef: slot " + std::to_string(slot) + " has no storage yet");
    return it->second;
  }

  /// A slice: the window at `offset` of the source's frame, keeping the frame's pitch and layout.
  Placement sliceOf(const TileValue& v) const {
    const Placement& src = placementOf(v.source);
    const Expr& offsets = *v.call->arg("offset");
    Frame frame = src.frame;
    frame.row = plus(frame.row, offsets.args[0]->kind == Expr::Kind::IntLit ? Extent::constant(offsets.args[0]->intValue)
                                                                          : Extent::dynamic());
    frame.col = plus(frame.col, offsets.args[1]->kind == Expr::Kind::IntLit ? Extent::constant(offsets.args[1]->intValue)
                                                                          : Extent::dynamic());
    const bool known = frame.row.isConst() && frame.col.isConst() && frame.base.isConst();
    const int64_t r = known ? frame.row.value : 0, c = known ? frame.col.value : 0;
    // The faults slice-offset-dropped and slice-own-pitch misplace a static window in its root.
    Type addressing = frame.type;
    if (faults_.on(Fault::SliceOwnPitch) && !addressing.layout.boxed()) addressing.shape[1] = v.type.cols();
    int64_t byteOffset = known ? frame.base.value + elementOffset(addressing, r, c) * dtypeSize(frame.type.dtype) : 0;
    if (faults_.on(Fault::SliceOffsetDropped) && known) byteOffset = frame.base.value;
    Extent offset = known ? Extent::constant(byteOffset) : Extent::dynamic();
    return Placement{MemRef{src.memref.base, offset, windowSpan(frame.type, r, c, v.type.rows(), v.type.cols())}, frame};
  }

  /// A relabel (reshape, transpose_view): the same bytes, addressed as the new type from here on.
  Placement relabelOf(const TileValue& v) const {
    const Placement& src = placementOf(v.source);
    return Placement{src.memref, Frame{v.type, src.memref.offset, {}, {}}};
  }

  void place(const TileValue& v) {
    switch (v.kind) {
      case ValueKind::Fresh: placement_[v.slot] = freshStorage(v); return;
      case ValueKind::InPlace:
        // The result is a tile of its own type, addressed with its own row pitch from its MemRef, so
        // it can take its input's bytes only where they are such a tile: not a window of a wider
        // tile or at a runtime offset (an out-of-contract assemble into a slice, W7: the in-place
        // result overlapped its target at another pitch; 2026-12-02, seed 20), and not a branch
        // result whose arms lie apart.
        if (follows_.at(v.slot) && (storageDependsOnTakenArm(v.source) ||
                                    !denselyPlaced(inPlaceInput(v)->type, placementOf(v.source))))
          follows_[v.slot] = false;
        if (!follows_.at(v.slot) && keepInvalidLanes_ && needsWholeTileCopy(inPlaceInput(v)->type, true) &&
            !isWholeTileCopy(inPlaceInput(v)->slot, v.point))
          narrowInPlaceInputs_.push_back(&v);
        placement_[v.slot] = follows_.at(v.slot) ? placementOf(v.source) : freshStorage(v);
        return;
      case ValueKind::View: {
        if (v.call->kind == Expr::Kind::Name) {
          placement_[v.slot] = placementOf(v.source);
          return;
        }
        OpFamily family = opInfo(v.call->op).family;
        if (family == OpFamily::Slice) placement_[v.slot] = sliceOf(v);
        else if (family == OpFamily::SetValidShape) placement_[v.slot] = placementOf(v.source);
        else placement_[v.slot] = relabelOf(v);
        return;
      }
      case ValueKind::LoopCarry:
      case ValueKind::LoopResult:
      case ValueKind::BranchResult:
        // No annotation in the text: the binder denotes the storage of what is bound to it. Its
        // views and in-place results are named after the storage on entry (PyPTO's InitMemRef
        // group of the init or the then-arm value); liveness covers every possible storage.
        if (!v.incoming.empty() && v.incoming[0] >= 0) placement_[v.slot] = placementOf(v.incoming[0]);
        return;
    }
  }

  /// Whether the storage `slot` names at run time depends on which arm of an If ran: a branch
  /// result whose arms yield values placed apart, or a view or in-place result of one. Its MemRef
  /// names the then-arm value's storage (the storage on entry, C13), so an in-place op placed there
  /// is a copy of its input's valid region whenever the else arm ran, and the lanes outside it are
  /// lost (15-minute campaign of 2026-12-02, seed 17, case 222851:
  /// tests/fuzz-regressions/inplace_on_branch_result_of_two_storages). Such an op gets storage of its
  /// own, as when its input stays observable.
  bool storageDependsOnTakenArm(int slot) const {
    const TileValue* v = facts_.value(slot);
    while (v && (v->kind == ValueKind::View || (v->kind == ValueKind::InPlace && follows_.at(v->slot))))
      v = facts_.value(v->source);
    if (!v || v->kind != ValueKind::BranchResult) return false;
    // An arm value without storage (none was placed) counts as storage apart: the op copies.
    auto storageOf = [&](int in) -> const MemRef* {
      auto placed = in >= 0 ? placement_.find(in) : placement_.end();
      return placed == placement_.end() ? nullptr : &placed->second.memref;
    };
    const MemRef* first = v->incoming.empty() ? nullptr : storageOf(v->incoming[0]);
    return !first || std::any_of(v->incoming.begin(), v->incoming.end(), [&](int in) {
      const MemRef* m = storageOf(in);
      return !m || !(*m == *first) || storageDependsOnTakenArm(in);
    });
  }

  // ---- dense copies before relabels ----

  /// Whether every window `v` may occupy at run time is dense from a static base (denselyPlaced).
  /// Its placement says where it is when each If it derives from took its then arm (C13); a view
  /// keeping its source's window (set_validshape, a rename) of a branch result is wherever the arm
  /// that ran put it, so each arm value must be dense too, and a slice of a branch result whose
  /// arms lie apart has the pitch of the arm that ran. A relabel is dense by its own copy.
  bool denseOnEveryPath(const TileValue& v) const {
    auto placed = placement_.find(v.slot);
    if (placed == placement_.end()) return true;  // nothing placed to reinterpret (rejected elsewhere)
    if (!denselyPlaced(v.type, placed->second)) return false;
    const TileValue* base = &v;
    bool sliced = false;
    while (base->kind == ValueKind::View) {
      const bool call = base->call->kind == Expr::Kind::Call;
      const OpFamily family = call ? opInfo(base->call->op).family : OpFamily::SetValidShape;
      if (family == OpFamily::Reshape || family == OpFamily::TransposeView) return true;
      sliced = sliced || family == OpFamily::Slice;
      const TileValue* source = facts_.value(base->source);
      if (!source) return true;
      base = source;
    }
    if (base->kind != ValueKind::BranchResult) return true;
    if (sliced) return !storageDependsOnTakenArm(base->slot);
    return std::all_of(base->incoming.begin(), base->incoming.end(), [&](int in) {
      const TileValue* arm = in >= 0 ? facts_.value(in) : nullptr;
      return arm && denseOnEveryPath(*arm);
    });
  }

  /// Whether a tile of type `t` placed at `p` is addressed as a dense tile from a static base: a
  /// relabel may reinterpret it. Only ND row pitch is compared (the interpreters check only that).
  static bool denselyPlaced(const Type& t, const Placement& p) {
    if (!p.memref.offset.isConst()) return false;
    const Type& frame = p.frame.type;
    if (t.layout.boxed() || t.layout.blayout != TileLayout::row_major || frame.layout.boxed() ||
        frame.layout.blayout != TileLayout::row_major)
      return true;
    return frame.cols() * dtypeSize(frame.dtype) == t.cols() * dtypeSize(t.dtype);
  }

  std::string freshName(const std::string& stem) {
    for (int i = 0;; ++i) {
      std::string name = i == 0 ? stem : stem + "_" + std::to_string(i);
      if (usedNames_.insert(name).second) return name;
    }
  }

  /// Whether `v` is a view made by an op of `family`.
  static bool viewBy(const TileValue* v, OpFamily family) {
    return v && v->kind == ValueKind::View && v->call->kind == Expr::Kind::Call && opInfo(v->call->op).family == family;
  }

  /// Whether `slot` already is a whole-tile copy (narrowing setter of a move of a widening setter)
  /// made afresh on every trip of each loop holding `point`: when its storage still reaches a later
  /// read (a loop carry joining it with other storage, say), copying it again would not help, and
  /// the result keeps the valid-region copy (approximation). A copy made before a loop that holds
  /// the in-place op is no such copy: the op rewrites it on one trip and the next reads it again,
  /// through a setter the loop repeats (15-minute campaign of 2026-12-02, seed 17, case 68486:
  /// tests/fuzz-regressions/whole_copy_before_loop_assembled_each_trip).
  bool isWholeTileCopy(int slot, int point) const {
    // A col-major tile's copy has a transpose_view on either side of the move.
    auto throughTranspose = [&](const TileValue* v) {
      return viewBy(v, OpFamily::TransposeView) ? facts_.value(v->source) : v;
    };
    const TileValue* narrowed = facts_.value(slot);
    if (!viewBy(narrowed, OpFamily::SetValidShape)) return false;
    const TileValue* moved = throughTranspose(facts_.value(narrowed->source));
    if (!moved || moved->kind != ValueKind::Fresh || moved->call->kind != Expr::Kind::Call ||
        opInfo(moved->call->op).family != OpFamily::Move)
      return false;
    for (int l = facts_.innermostLoop(point); l >= 0; l = facts_.loops()[l].parent)
      if (!facts_.loops()[l].contains(moved->point)) return false;
    return viewBy(throughTranspose(facts_.value(moved->call->args[0]->slot)), OpFamily::SetValidShape);
  }

  /// Whether `operand` of the in-place op at `point` reads a whole-tile copy (isWholeTileCopy) that
  /// nothing else reads: the narrowed copy only through `operand`, the moved tile only through the
  /// narrowing setter. An in-place op on it then overwrites storage no other value holds, so it runs
  /// in place: given storage of its own, the result would start from the valid region only and lose
  /// the lanes the copy was made to keep (20-minute campaign of 2026-12-01, seed 4, case 21898: an
  /// assemble whose result a While loop yields; tests/fuzz-regressions/assemble_on_whole_copy_runs_in_place).
  bool isPrivateWholeCopy(const Expr& operand, int point) const {
    if (!isWholeTileCopy(operand.slot, point)) return false;
    const TileValue* narrowed = facts_.value(operand.slot);
    const Expr* narrowing = narrowed->call->args[0].get();
    // A col-major copy's moved tile is read only by its transpose_view back, too.
    const TileValue* back = facts_.value(narrowed->source);
    const bool transposed = viewBy(back, OpFamily::TransposeView);
    const int moved = transposed ? back->source : -1;
    const Expr* transposing = transposed ? back->call->args[0].get() : nullptr;
    return std::all_of(facts_.uses().begin(), facts_.uses().end(), [&](const Use& u) {
      return (u.slot != operand.slot || u.expr == &operand) && (u.slot != narrowed->source || u.expr == narrowing) &&
             (u.slot != moved || u.expr == transposing);
    });
  }

  /// A narrow Vec tile whose valid extents a setter can state again after a whole copy.
  /// `transposedToo`: a col-major (DN) tile counts as copyable, through its transposed view (the
  /// copy keeps its type; a `_dense` copy wants the move's row-major one).
  static bool needsWholeTileCopy(const Type& t, bool transposedToo = false) {
    return narrowAndNameable(t) && (aliases::copyableByMove(t) || (transposedToo && aliases::copyableWithinSpace(t)));
  }
  /// A tile whose valid region is smaller than its shape, with extents a setter can state.
  static bool narrowAndNameable(Type t) {
    t.canonicalizeValid();
    return t.valid && aliases::printableValid(t.valid);
  }

  static void insertCopies(Block& body, const CopyPlan& copies) {
    Block out;
    for (StmtPtr& s : body) {
      auto planned = copies.find(s.get());
      if (planned != copies.end())
        for (const OperandCopy& copy : planned->second) {
          ExprPtr& operand = s->as<AssignStmt>().value->args[copy.operand];
          const SourceLoc loc = operand->loc;
          const Type& t = operand->type;
          auto emit = [&](const std::string& name, ExprPtr value) {
            auto assign = std::make_unique<AssignStmt>(s->loc);
            assign->target.name = name;
            assign->target.loc = s->loc;
            assign->value = std::move(value);
            out.push_back(std::move(assign));
          };
          for (const aliases::PlannedMove& step : copy.chain) emit(step.name, aliases::copyStepCall(step));
          if (copy.chain.empty()) {
            // A tmp need only be Vec, of its source's dtype and at least its source's shape, so the
            // scratch is an ND tile of the tmp's rows and its columns rounded up to whole 32-byte rows:
            // a transposed tmp ([32, 12] FP32, DN) is no valid ND shape as it stands (fuzz seed 1,
            // case 26569: tests/fuzz-regressions/row_reduce_transposed_tmp_scratch).
            const int64_t perRow = std::max<int64_t>(1, 32 / dtypeSize(t.dtype));
            std::vector<ExprPtr> shape, args;
            shape.push_back(Expr::intLit(t.rows(), loc));
            shape.push_back(Expr::intLit((t.cols() + perRow - 1) / perRow * perRow, loc));
            args.push_back(Expr::list(std::move(shape), loc));
            args.push_back(Expr::dtypeRef(t.dtype, loc));
            args.push_back(Expr::spaceRef(MemSpace::Vec, loc));
            emit(copy.name, Expr::call(Opcode::TileCreate, std::move(args), s->loc));
          }
          operand = Expr::nameRef(copy.name, loc);
        }
      switch (s->kind) {
        case Stmt::Kind::For: insertCopies(s->as<ForStmt>().body, copies); break;
        case Stmt::Kind::While: insertCopies(s->as<WhileStmt>().body, copies); break;
        case Stmt::Kind::If:
          insertCopies(s->as<IfStmt>().thenBody, copies);
          insertCopies(s->as<IfStmt>().elseBody, copies);
          break;
        default: break;
      }
      out.push_back(std::move(s));
    }
    body = std::move(out);
  }

  // ---- rewriting ----

  void annotate(Binder& b) {
    const TileValue* v = facts_.value(b.slot);
    if (!v || !v->isAssign()) return;
    Type t = b.type;
    t.memref = placementOf(b.slot).memref;
    b.annotation = t;
  }

  void annotateBinders(Block& body) {
    for (StmtPtr& s : body) {
      switch (s->kind) {
        case Stmt::Kind::Assign: annotate(s->as<AssignStmt>().target); break;
        case Stmt::Kind::For: annotateBinders(s->as<ForStmt>().body); break;
        case Stmt::Kind::While: annotateBinders(s->as<WhileStmt>().body); break;
        case Stmt::Kind::If:
          annotateBinders(s->as<IfStmt>().thenBody);
          annotateBinders(s->as<IfStmt>().elseBody);
          break;
        default: break;
      }
    }
  }

  void insertRoots() {
    Block body;
    for (const NewRoot& r : roots_) body.push_back(makeRootStatement(r.name, r.space, r.size, r.loc));
    for (StmtPtr& s : fn_.body) body.push_back(std::move(s));
    fn_.body = std::move(body);
  }

 public:
  void reserveNames() {
    for (const Param& p : fn_.params) usedNames_.insert(p.name);
    collectBoundNames(fn_.body, usedNames_);
  }
};

bool isPlannedKernel(const Function& f) {
  return f.stage == FunctionStage::Tile && f.type != FunctionType::Orchestration;
}

class InitMemRefPass final : public Pass {
 public:
  std::string_view name() const override { return kPassName; }
  std::string_view summary() const override {
    return "gives every Tile value planned storage: a root per allocation identity, views and in-place results "
           "sharing their input's";
  }

  bool run(Program& program, const PassContext& context) override {
    bool changed = false;
    for (Function& f : program.functions) {
      if (!isPlannedKernel(f)) continue;
      // Each round gives at least one more relabel a dense source or reduction a private scratch,
      // and a copy never needs another, so this ends; the bound guards that argument.
      for (int round = 0;; ++round) {
        if (round > 64) throw std::logic_error("InitMemRef: inserting copies does not converge in " + f.name);
        FunctionPlanner planner(f, program, context.faults);
        planner.reserveNames();
        if (!planner.plan()) break;
        changed = true;
        if (planner.insertCopies()) {
          verifyOrThrow(program);  // slots and types for the inserted copies
          continue;
        }
        planner.commit();
        break;
      }
    }
    return changed;
  }

  /// Closure: every Tile value bound by an assignment names its storage, and no root has an address.
  std::vector<Diagnostic> checkPostcondition(const Program& program, const PassContext&) const override {
    std::vector<Diagnostic> out;
    for (const Function& f : program.functions) {
      if (!isPlannedKernel(f)) continue;
      StorageFacts facts(f);
      for (const TileValue& v : facts.values())
        if (v.isAssign() && !v.type.memref) {
          const bool call = v.call && v.call->kind == Expr::Kind::Call;
          out.push_back(Diagnostic{Severity::Error, program.source ? program.source->name : "", v.binder->loc,
                                   "InitMemRef: [P18] " + std::string(call ? opInfo(v.call->op).spelling : "tile") +
                                       ": '" + v.binder->name +
                                       "' was left without a pl.MemRef; expected storage on every assigned Tile value",
                                   {}});
        }
      for (const Root& r : collectRoots(f))
        if (r.addr)
          out.push_back(Diagnostic{Severity::Error, program.source ? program.source->name : "", r.stmt->loc,
                                   "InitMemRef: [P1] tile.alloc: root '" + r.name +
                                       "' was placed at an address; expected addressless roots (PlanMemory places)",
                                   {}});
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Pass> createInitMemRefPass() { return std::make_unique<InitMemRefPass>(); }

}  // namespace ptodiff
