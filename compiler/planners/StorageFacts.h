// What storage planning needs to know about one verified Tile-stage function: its program points,
// what each Tile value is (a fresh producer, a view, an in-place result, a loop carry or a
// compound result), where every value is used, and which allocation identities each value's bytes
// may live in (its alias family).
//
// Program points number the statements in execution order. A For/While takes one point for its
// header (initial values, bounds, the While condition) and one after its body (the backedge, where
// its results are defined); an If takes one for its condition and one after both arms (where its
// results are defined). The then-arm's points precede the else-arm's. Values are identified by the
// frame slot the verifier gave their binder (both arms' yield targets of an If share one slot).
//
// An allocation identity is a value that writes storage of its own: a fresh producer, or an
// in-place result (assemble, matmul_acc) that does not follow its input. Views follow their source,
// in-place results that follow their input share its identities, and control-flow binders take
// the union of what may be bound to them (the init and the backedge for a carry, both arms for a
// branch result): without MaterializeSemanticAliases these may be several identities.
//
// Internal to compiler/ (InitMemRef, SelectBufferIRFunctions, the planners, VerifyTileStorage).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "compiler/ir/IR.h"

namespace ptodiff::storage {

enum class ValueKind : uint8_t {
  Fresh,         // load, compute ops, full, create, move, extract, matmul, reductions
  View,          // slice, reshape, transpose_view, set_validshape, a bare rename `y = x`
  InPlace,       // assemble (input: the target), matmul_acc (input: the accumulator)
  LoopCarry,     // an iter_arg of a For/While
  LoopResult,    // a result of a For/While
  BranchResult,  // a result of an If
};

/// One Tile-typed value of the function.
struct TileValue {
  int slot = -1;
  ValueKind kind = ValueKind::Fresh;
  const Binder* binder = nullptr;  // for a branch result: the then-arm's yield target
  Type type;                       // the binder's type (annotation or inferred; MemRef when planned)
  const Stmt* stmt = nullptr;      // Assign, or the For/While/If owning a carry or result
  const Expr* call = nullptr;      // Assign: the defining expression (a Call, or a Name for a rename)
  int point = -1;                  // where it is defined
  int source = -1;                 // View/InPlace: the slot it aliases
  std::vector<int> incoming;       // LoopCarry/LoopResult/BranchResult: Tile slots bound to it
  int loop = -1;                   // index of the innermost enclosing loop (in StorageFacts::loops), or -1
  bool isAssign() const { return kind == ValueKind::Fresh || kind == ValueKind::View || kind == ValueKind::InPlace; }
};

/// A loop's extent in program points: its header and its backedge point.
struct LoopExtent {
  const Stmt* stmt = nullptr;
  int header = -1, backedge = -1;
  int parent = -1;  // enclosing loop, or -1
  bool contains(int point) const { return header <= point && point <= backedge; }
};

/// An If's extent: its condition point, the first point of its else arm, and its end point.
struct BranchExtent {
  const Stmt* stmt = nullptr;
  int cond = -1, elseBegin = -1, end = -1;
  bool inThen(int point) const { return cond < point && point < elseBegin; }
  bool inElse(int point) const { return elseBegin <= point && point < end; }
};

/// A use of a value's slot at a program point.
struct Use {
  int point = -1;
  int slot = -1;
  const Expr* expr = nullptr;  // the Name expression
};

class StorageFacts {
 public:
  /// `fn` must be verified (slots and types filled). Throws std::logic_error otherwise.
  explicit StorageFacts(const Function& fn);

  const Function& function() const { return fn_; }
  int numPoints() const { return numPoints_; }

  /// Tile values in definition order.
  const std::vector<TileValue>& values() const { return values_; }
  const TileValue* value(int slot) const;
  const std::vector<LoopExtent>& loops() const { return loops_; }
  /// Every use of a Tile, Tensor or scalar slot, in point order.
  const std::vector<Use>& uses() const { return uses_; }
  /// The statement at an Assign/Eval/Return/Yield point (nullptr for header/backedge points).
  const Stmt* statementAt(int point) const;
  /// The point of a statement (its header point for compound ones).
  int pointOf(const Stmt* s) const;
  const std::vector<BranchExtent>& branches() const { return branches_; }
  /// Whether two points lie in opposite arms of one If (no run reaches both).
  bool exclusive(int a, int b) const;
  /// Whether incoming `index` of branch result `v` is yielded by the arm of its If that excludes
  /// `point`: a run through that arm never reaches `point` in this execution of the If.
  bool yieldedByArmExcluding(const TileValue& v, size_t index, int point) const;
  /// Whether the bytes `slot` names are written anew on every trip of every loop holding both `a`
  /// and `b`, after that loop's header, so a write on an earlier trip never shows through it: a
  /// carry of the innermost such loop (it names its storage's current bytes), a fresh value defined
  /// in its body, and views, in-place results and compound values there built only on such values.
  /// Always true outside loops.
  bool freshEachTrip(int slot, int a, int b) const;
  /// Whether loop result `v` leaves a loop that holds `point`, through its backedge: its initial
  /// value (incoming 0) reaches it only when no trip ran, and so nothing at `point` ran either.
  bool leavesLoopHolding(const TileValue& v, int point) const;
  /// A For loop's trip count when its bounds and step are integer literals (step > 0); nullopt
  /// otherwise (While loops included).
  std::optional<int64_t> constantTrips(int loop) const;
  /// The innermost loop containing `point` (header and backedge included), or -1.
  int innermostLoop(int point) const;
  /// Whether `point` lies inside a loop or an If arm (user control flow).
  bool insideControlFlow(int point) const;

  /// Scalar SSA facts for alignment proofs (lower::ScalarOrigins), by frame slot: the defining
  /// expression of each scalar Assign, and the For statement of each induction variable.
  const std::map<int, const Expr*>& scalarDefinitions() const { return scalarDefs_; }
  const std::map<int, const ForStmt*>& inductionLoops() const { return inductionVars_; }
  /// Tensor slots (parameters, store results, carries) -> the parameters they may refer to.
  const std::vector<const Param*>& tensorParams(int slot) const;

  /// The MemRef a value's bytes are named by in the text: its own annotation for an Assign, the
  /// init's for a loop binder, the then-arm value's for a branch result (PyPTO's InitMemRef groups).
  std::optional<MemRef> staticMemRef(int slot) const;

 private:
  const Function& fn_;
  std::vector<TileValue> values_;
  std::vector<int> bySlot_;  // slot -> index in values_, -1 for none (slots are dense from 0)
  std::vector<LoopExtent> loops_;
  std::vector<BranchExtent> branches_;
  std::vector<Use> uses_;
  std::vector<const Stmt*> stmtAt_;
  std::map<int, const Expr*> scalarDefs_;
  std::map<int, const ForStmt*> inductionVars_;
  std::map<int, std::vector<const Param*>> tensorParams_;
  int numPoints_ = 0;

  friend class FactsBuilder;
};

/// Whether an in-place result shares its input's storage; decided by InitMemRef, read back from
/// the MemRefs of a planned program.
using InPlacePolicy = std::function<bool(const TileValue&)>;
/// Every in-place result follows its input (the most aliasing a program can have).
bool allInPlaceFollow(const TileValue&);
/// A planned program's reading: the result follows when its MemRef equals its input's.
InPlacePolicy plannedInPlacePolicy(const StorageFacts& facts);

/// The allocation identities each value may live in, computed to a fixpoint over loops.
class AliasFamilies {
 public:
  AliasFamilies(const StorageFacts& facts, const InPlacePolicy& follows);
  /// Sorted identity slots of a Tile value (empty for other slots).
  const std::vector<int>& family(int slot) const;
  /// Identity slots in definition order.
  const std::vector<int>& identities() const { return identities_; }
  bool isIdentity(int slot) const;
  /// Whether value `slot` occupies exactly the whole storage of whichever identity it holds: a
  /// fresh producer, an in-place result following one, a rename or set_validshape of such a value
  /// (same bytes, same physical type), or a control-flow binder fed only by such values (no other
  /// view on the way).
  bool coversWholeIdentity(int slot) const;

 private:
  bool coversWhole(int slot, std::set<int>& visiting) const;
  const StorageFacts& facts_;
  std::map<int, std::vector<int>> family_;
  std::vector<int> identities_;
  std::set<int> identitySet_;
  std::map<int, bool> follows_;
};

/// Physical layout equality: shape, dtype, space and layout (valid extents and MemRefs ignored).
bool samePhysicalTile(const Type& a, const Type& b);
/// Bytes of a tile's physical shape.
int64_t tileBytes(const Type& t);
/// Whether any valid extent of `t` is not a compile-time constant.
bool hasRuntimeValid(const Type& t);
/// Whether the lowering must track `t`'s valid extents at run time: a runtime extent, or a constant
/// extent of zero (V6, W17) — the Buffer handle of such a tile is dynamic.
bool hasDynamicValidExtents(const Type& t);

}  // namespace ptodiff::storage
