// Lifetimes of allocation identities, shared by the three planners and VerifyTileStorage.
//
// An identity is live from the first to the last program point at which any value of its alias
// family is defined or used (a use of a value counts for every identity the value may live in, so
// a loop carry keeps both its initial and its backedge storage alive). Two extensions make the
// linear ranges sound for loops:
//   - storage defined before a loop and referenced inside it lives until the loop's backedge point
//     (the next iteration reads it again);
//   - storage that may be bound to a carry of a loop lives over the whole loop.
// Loop backedge points are never statement points, so an extended lifetime never ends exactly where
// a statement defines a value: the in-place exception below cannot apply to it.
//
// Two identities whose ranges do not intersect may share storage. When one ends exactly where the
// other is defined, they may share the *identical* window only if the defining op can run in place
// (an in-place-safe elementwise op, semantics.md §5 `overlap`) and reads the ending identity only
// through values covering its whole storage with the result's physical type: a window (slice) of
// it never qualifies (W13), nor does recip, move, extract, matmul or a reduction.
//
// A row reduction also writes its `tmp_tile` operand's storage (poison, PT6). That write is no
// pairwise overlap of two identities, so no placement and no relation() can describe it: the
// storage written is the tmp value's own. generationOverlaps() reports every read it clobbers.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/faults/Faults.h"
#include "compiler/planners/PlannedStorage.h"
#include "compiler/planners/StorageFacts.h"

namespace ptodiff::storage {

struct LiveRange {
  int start = -1, end = -1;  // program points, inclusive
  bool intersects(const LiveRange& o) const { return start <= o.end && o.start <= end; }
};

enum class Overlap : uint8_t {
  Disjoint,  // never live together: may share any bytes
  InPlace,   // one ends where an in-place op defines the other: may share exactly the same window
  Conflict,  // live together: bytes must be disjoint
};

/// A read of an earlier generation of an identity's storage after a later write replaced it. Two
/// writes make generations:
///   - the identity's definition, when it runs again: the identity is defined in a loop, and `use`
///     reads a value bound before that definition (through a carry) that may hold the previous
///     trip's bytes. No placement of one root per identity can keep both generations: only a copy
///     (MaterializeSemanticAliases' parallel transfers, L9) can;
///   - a row reduction's write of poison over its `tmp_tile` (semantics.md §2, PT6): `use` reads a
///     value holding the tmp's storage after the reduction ran (later, in a later trip, or as the
///     reduction's own source). The tmp needs storage of its own (InitMemRef's `_scratch` copy).
struct GenerationOverlap {
  int identity = -1;
  const Use* use = nullptr;
  int stale = -1;       // the slot read
  int writePoint = -1;  // the program point of the write that made it stale
  bool scratch = false;  // the write is a row reduction's tmp_tile (else: the identity's definition)
};

class Liveness {
 public:
  /// `faults`: the catalogue faults of the analysis itself (liveness-ignores-loop-extension,
  /// liveness-ignores-view-uses, inplace-reuse-unsafe-ops); a bug here misleads the planners and
  /// VerifyTileStorage alike, as a shared analysis does.
  Liveness(const StorageFacts& facts, const AliasFamilies& families, FaultSwitch faults = {});

  LiveRange range(int identity) const;
  Overlap relation(int a, int b) const;
  /// Every read of a stale generation (empty for kernels without such carries or reductions). With
  /// MaterializeSemanticAliases' output an identity's generations include the other versions of
  /// its storage: a write of any version makes values holding an earlier one stale.
  std::vector<GenerationOverlap> generationOverlaps() const;
  /// Whether two identities are versions of one storage: bound to one loop carry, loop result or
  /// branch result at the identical window (must-aliases made by MaterializeSemanticAliases). No
  /// planner places two such identities at one window otherwise: everything a carry or branch
  /// result may hold is live at the same time.
  bool sameVersions(int a, int b) const;
  /// "'x' (line 3)": an identity's name and where it is defined, for messages.
  std::string describe(int identity) const;
  /// Source line of a program point (0 when the point has no statement of its own).
  uint32_t lineOf(int point) const;

 private:
  FaultSwitch faults_;
  const StorageFacts& facts_;
  const AliasFamilies& families_;
  std::map<int, LiveRange> ranges_;
  // The uses at each point, flattened: usesAt_[usesStart_[p] .. usesStart_[p + 1]) are point p's.
  std::vector<const Use*> usesAt_;
  std::vector<size_t> usesStart_;
  std::map<int, int> versionOf_;  // identity -> representative of its version group
  std::map<int, std::vector<int>> versionMembers_;  // representative -> its group's identities, ascending

  void groupVersions();
  int versionRoot(int identity) const;

  void collectReferences();
  void extendOverLoops();
  const LoopExtent* loopOf(const Stmt* loop) const;
  /// Whether `u` reads a value bound outside a loop that holds `definition`: every later trip
  /// reads it again, after the definition rewrote its storage.
  bool readAgainInALaterTrip(const Use& u, int definition) const;
  /// Whether `u` reads a carry of a loop holding `definition` whose backedge brings a stale value:
  /// on every later trip the carry is stale from the start.
  bool carriesStaleIntoThisTrip(const Use& u, int definition, const std::set<int>& stale) const;
  /// Whether `u` reads a carry (or a carry of a carry) whose initializer is stale and bound outside
  /// a loop holding `definition` and the carry's loop: a later trip of that loop rebinds the carry
  /// to the rewritten bytes.
  bool rebindsStaleInALaterTrip(const Use& u, int definition, const std::set<int>& stale) const;
  /// A write of storage that makes values holding an earlier generation of it stale.
  struct StorageWrite {
    int identity = -1;          // reported as the overlap's identity
    std::vector<int> versions;  // every identity whose bytes the write replaces
    int point = -1;
    const TileValue* definition = nullptr;  // the identity's definer (its in-place read is exempt)
    const Expr* scratch = nullptr;          // a row reduction's tmp_tile operand (not read, only written)
  };
  /// Every identity that is a version of one of `identities` (themselves included), sorted.
  std::vector<int> versionsOf(const std::vector<int>& identities) const;
  /// Reads of values holding `write.versions` from before the write, where the write may have
  /// replaced their bytes.
  void staleReads(const StorageWrite& write, std::vector<GenerationOverlap>& out) const;
  /// Whether incoming `index` of branch result `v` cannot show the write at `writePoint`.
  bool untouchedByWrite(const TileValue& v, size_t index, int writePoint) const;
  /// A row reduction's tmp_tile operand, or nullptr for any other value.
  static const Expr* scratchOperand(const TileValue& v);
  /// Whether `u` hands a row reduction its tmp_tile (a write, not a read).
  bool isScratchOperand(const Use& u) const;
  /// Whether the statement at `point` may run more than once (a loop holding it may take two trips).
  bool mayRunTwice(int point) const;
  /// Whether a loop holding `point` provably takes no trip.
  bool neverRuns(int point) const;
  /// Whether `result`'s op may write its storage while reading operand `operandSlot` there: an
  /// in-place-safe elementwise op reading a value that covers a whole identity with its type.
  bool readsInPlace(const TileValue& result, int operandSlot) const;
  /// Whether `ending`'s last reference is the in-place-safe definition of `starting`.
  bool endsInPlaceInto(int ending, int starting) const;
};

}  // namespace ptodiff::storage
