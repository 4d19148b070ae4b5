// The storage plan of MaterializeSemanticAliases (seed 003, rules A3, L2, L3, L8, L9, L11, B1-B5):
// which MemRef every Tile value gets, and which explicit `pl.tile.move` copies are added (entry
// copies before loops, snapshots and transfers before yields), computed by one forward walk over a
// verified, InitMemRef-planned kernel. Planning never edits the function; `applyAliasPlan` does.
//
// Conservative where the seed is precise (docs/lowering.md lists each approximation by rule):
// a loop input gets an entry copy whenever anything sharing its storage is used at or after the
// loop header (or before it inside an enclosing loop), and a yielded producer is retargeted onto
// the carry storage only when it is a fresh producer of that body whose storage nothing else
// shares and the carry storage is not read after it.
//
// Internal to compiler/passes (MaterializeSemanticAliases, SelectBufferIRFunctions).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <functional>
#include <optional>
#include <vector>

#include "compiler/faults/Faults.h"
#include "compiler/ir/IR.h"
#include "compiler/planners/StorageFacts.h"

namespace ptodiff::aliases {

/// What one statement of a compiler-owned copy does (PlannedMove).
enum class CopyStep : uint8_t {
  Move,           // `pl.tile.move(source, target_memory=type.space)`: the copy itself
  SetValidShape,  // `pl.tile.set_validshape(source, type's valid extents)`: around a copy that must
                  // keep the lanes outside the valid region (a view)
  TransposeView,  // `pl.tile.transpose_view(source)`: around the copy of a col-major (DN) tile (a view)
};

/// One statement of a compiler-owned copy: `name: type = <step>(source, ...)`. `type` carries the
/// MemRef; a view of a kernel value takes that value's final MemRef (`viewOfSlot`).
struct PlannedMove {
  std::string name;
  std::string source;
  Type type;
  SourceLoc loc;
  CopyStep step = CopyStep::Move;
  int viewOfSlot = -1;
};

/// One compiler-owned copy of `source`, a value of type `sourceType`, into a tile named `name`.
struct CopyRequest {
  std::string name;
  std::string source;
  Type sourceType;   // its MemRef, if any, is the one the views of the source name
  bool whole = false;       // every lane, not only the valid region (a widening and a narrowing setter)
  bool transposed = false;  // a col-major (DN) tile, moved as its row-major transposed view
  std::optional<MemRef> destination;  // the copy's storage, if planned
  int sourceSlot = -1;                // the source's slot (PlannedMove::viewOfSlot of its views)
  SourceLoc loc;
};

/// The statements of a copy, in order (MaterializeSemanticAliases' entry copies, transfers and
/// snapshots; InitMemRef's whole copies of in-place inputs and relabel sources):
///   name_whole_src = set_validshape(source, rows, cols)          (whole)
///   name_nd        = transpose_view(name_whole_src | source)       (transposed)
///   name_whole | name_moved | name = move(...)
///   name_dn | name = transpose_view(...)                           (transposed)
///   name           = set_validshape(..., valid extents)            (whole)
/// `freshName` makes each helper name unique.
std::vector<PlannedMove> copyChain(const CopyRequest& r, const std::function<std::string(const std::string&)>& freshName);

/// The call one copy statement makes: `pl.tile.move`, `pl.tile.set_validshape` or
/// `pl.tile.transpose_view` of its source.
ExprPtr copyStepCall(const PlannedMove& m);

struct PlannedRoot {
  std::string name;
  MemSpace space = MemSpace::Vec;
  int64_t size = 0;
  SourceLoc loc;
};

struct AliasPlan {
  std::map<int, MemRef> memrefs;  // Assign binder slot -> its MemRef after the pass
  std::map<const Stmt*, std::vector<PlannedMove>> beforeStmt;  // entry copies (before a loop), transfers (before a yield)
  std::map<std::pair<const Stmt*, size_t>, std::string> replaceOperand;  // (loop, init k) / (yield, value k) -> new name
  std::vector<PlannedRoot> roots;
  std::vector<std::string> orphanCandidates;  // roots of retargeted producers
};

/// A needed copy the target cannot perform (L11, M11, M14, B13), found before anything is planned.
struct AliasRejection {
  std::string rule;
  SourceLoc loc;
  std::string message;
};

struct AliasPlanResult {
  AliasPlan plan;
  std::optional<AliasRejection> rejection;  // set: nothing may be applied (selected kernels only)
};

/// Whether `pl.tile.move` can copy a tile of type `t` within its space: Vec only (M14), and the
/// copy's implicit layout must be `t`'s own.
bool copyableByMove(const Type& t);

/// Whether MaterializeSemanticAliases can copy a tile of type `t` within its space: by tile.move,
/// or, for a col-major (DN) Vec tile, by a move of its transposed (ND) view.
bool copyableWithinSpace(const Type& t);

/// Whether some op of the kernel can read lanes outside a tile's valid region (semantics.md §2): a
/// setter that grows the region exposes them, assemble writes its whole source window, and a binary
/// op reads its right operand over the left operand's valid region. Elsewhere they are unobservable,
/// so a copy of the valid region alone is exact.
bool observesInvalidLanes(const storage::StorageFacts& facts);

/// A valid shape a setter can state: every extent a constant or a scalar name.
bool printableValid(const ValidShape& valid);

/// Plans one verified Tile-stage kernel. `selected`: the kernel takes the Buffer path, so branch
/// results are legalized too and an impossible copy is a rejection; otherwise a loop needing one
/// is left as it was. `faults`: the catalogue fault the plan injects, if one of the pass's own
/// (compiler/faults); selection plans without one.
AliasPlanResult planSemanticAliases(const Function& kernel, bool selected, FaultSwitch faults = {});

/// Applies a plan made for `kernel` (the same object). Returns whether anything changed.
bool applyAliasPlan(Function& kernel, const AliasPlan& plan);

}  // namespace ptodiff::aliases
