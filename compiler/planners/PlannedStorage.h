// Reading and rewriting the planned storage of a Tile function: its roots
// (`mem_vec_0: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, SIZE[, addr=A])`), the alignment each root needs,
// the bytes each allocation identity occupies, and edits of MemRef annotations. Shared by the
// planners and VerifyTileStorage.
//
// Internal to compiler/.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/ir/IR.h"
#include "compiler/planners/StorageFacts.h"
#include "compiler/target/Target.h"

namespace ptodiff::storage {

/// One storage root.
struct Root {
  std::string name;
  MemSpace space = MemSpace::Vec;
  int64_t size = 0;
  std::optional<int64_t> addr;
  const AssignStmt* stmt = nullptr;
};

/// The roots of `fn` in statement order (wherever they are bound).
std::vector<Root> collectRoots(const Function& fn);
/// Roots by name.
std::map<std::string, Root> rootsByName(const Function& fn);

/// Every MemRef annotation of the function's binders, in statement order.
void forEachMemRef(Function& fn, const std::function<void(MemRef&, Binder&)>& visit);
/// Removes the root statements named in `names` (top level or nested).
void eraseRootStatements(Function& fn, const std::vector<std::string>& names);
/// Gives root `name` the address `addr` (`addr=A`), or removes it (nullopt), and the size `size`.
void setRootPlacement(Function& fn, const std::string& name, std::optional<int64_t> addr, int64_t size);
/// Builds `NAME: pl.Ptr = pl.tile.alloc(SPACE, SIZE)` located at `loc`.
StmtPtr makeRootStatement(const std::string& name, MemSpace space, int64_t size, SourceLoc loc);

int64_t alignUp(int64_t value, int64_t alignment);
/// Element offset of (r, c) in a frame of type `t`: ND/DN, or boxed with the box order given by
/// blayout and the order inside a box by slayout.
int64_t elementOffset(const Type& t, int64_t r, int64_t c);
/// Bytes from the first to one past the last byte of an [h, w] window at (r, c) of the frame. The
/// addressing of every layout grows with r and with c, so the window's corners bound it.
int64_t windowSpan(const Type& frame, int64_t r, int64_t c, int64_t h, int64_t w);
/// Bytes of one fractal box of a boxed layout (its `fractal`), 0 for unboxed layouts.
int64_t boxBytes(const Type& t);
/// The base alignment storage holding `tiles` needs: 32 bytes, or the largest fractal box among
/// them (a boxed handle must be box-aligned, semantics.md §5 `align`).
int64_t storageAlignment(const std::vector<const Type*>& tiles, const Target& target);

/// For each root name: the types of the Tile values whose MemRef names it.
std::map<std::string, std::vector<const Type*>> tilesByRoot(const StorageFacts& facts);

/// Bytes an identity occupies: its own MemRef window (the root-relative or absolute offset as
/// printed). nullopt when it has no MemRef or a runtime offset.
struct ByteWindow {
  std::string root;
  int64_t begin = 0, end = 0;
  bool overlaps(const ByteWindow& o) const { return begin < o.end && o.begin < end; }
  bool operator==(const ByteWindow&) const = default;
};
std::optional<ByteWindow> identityWindow(const StorageFacts& facts, int identity);

/// The placement semantics.md §3 gives addressless (PTOAS) roots: every root its own range, in
/// statement order, each aligned to its storage alignment. Returns the bytes used per space.
std::map<MemSpace, int64_t> addresslessFootprint(const std::vector<Root>& roots,
                                                 const std::map<std::string, std::vector<const Type*>>& tiles,
                                                 const Target& target);

/// One root as the planners see it: its identities (each at its own root-relative window), the
/// tiles naming it, and the base alignment it needs.
struct PlacementUnit {
  Root root;
  std::vector<int> identities;
  std::vector<const Type*> tiles;
  int64_t alignment = 32;
  // The lowering's Buffer handle over this storage is dynamic (V6, V11): a tile of it has runtime
  // or zero valid extents, or a set_validshape updates it (V9 restricts what it merges with).
  bool dynamicValid = false;
  // Every value held in it is bound and read in straight-line code, and none is an assemble or a
  // relabel: merged with dynamic storage, it would share a dynamic handle, which V5 keeps out of
  // control flow, assembles and relabels.
  bool straightLineOnly = true;
};

/// The units of an InitMemRef-planned function, in root statement order. Throws DiagnosticError
/// (via `fail`) when a root already has an address or an identity names no root.
std::vector<PlacementUnit> placementUnits(const StorageFacts& facts, const AliasFamilies& families,
                                          const std::vector<Root>& roots, const Target& target,
                                          const std::function<void(SourceLoc, const std::string&)>& fail);

/// The outcome of a planner for one root: the root it merges into (itself when kept) and the
/// address of that root (addressed planners).
struct RootPlacement {
  std::string survivor;
  std::optional<int64_t> addr;
  int64_t size = 0;  // the survivor's size
};

/// Rewrites `fn`: merged roots disappear, MemRefs name their survivor, survivors get `addr=` and
/// their size, and static MemRef offsets become absolute where the survivor has an address.
void applyPlacement(Function& fn, const std::map<std::string, RootPlacement>& placement);

/// "Vec" etc., and "the a2a3 target's Vec holds 188416 usable bytes ([184 KiB, 192 KiB) reserved)".
std::string capacityText(const Target& target, MemSpace space);

/// Every name `body` binds (assignment targets, yield targets, induction variables, carries), nested
/// regions included: the names a pass minting new roots or copies must not reuse.
void collectBoundNames(const Block& body, std::set<std::string>& out);
/// The space part of a minted root name `mem_<space>_<n>`: "vec", "mat", "acc", ...
std::string rootNameSpace(MemSpace space);

}  // namespace ptodiff::storage
