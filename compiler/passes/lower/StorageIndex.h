// Storage indexing for LowerTileToBuffer (seed 000 "Conversion contract", first traversal): reads
// the planned MemRefs of one Tile-stage function and decides every Buffer handle the conversion
// will bind, before any call is rewritten.
//
//   - Roots: one per `tile.alloc`, with its capacity and (addressed planners) final address.
//   - Descriptors: one per distinct typed interpretation of storage at the allocation, i.e. per
//     (root, byte offset, shape, dtype, layout). Tile values that name the same descriptor share its
//     handle (P7); static partial valid rectangles are variants of it (P9); a descriptor whose
//     metadata can change is dynamic and has exactly one handle (V6, V8).
//   - Windows: slices (and relabels of slices), defined where they are written (W1, W2).
//   - Values: what each frame slot of the function denotes after conversion (a handle, a window,
//     a GM parameter, a scalar).
//
// The walk lives in StorageIndex.cpp, planning and naming in StoragePlan.cpp. After `build()`
// every root knows how it is declared (typed allocation, UINT8 byte root with
// subview/reshape aliases, alias allocations, matrix allocations) and every handle has its name;
// `declarations(root)` gives the statements that replace the root's `tile.alloc`.
//
// Internal to compiler/passes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/Pass.h"
#include "compiler/passes/lower/LowerSupport.h"

namespace ptodiff::lower {

/// The bytes a handle may touch, for the disjointness proofs of W13/W14. Addressed planners compare
/// absolute addresses across roots (origin -1); PTOAS roots are disjoint from each other, so their
/// spans are relative to their own root (origin = root index).
struct ByteSpan {
  MemSpace space = MemSpace::Vec;
  int origin = -1;
  int64_t begin = 0, end = 0;
  int64_t pitch = 0;  // row pitch in bytes of an unboxed handle; 0 for boxed layouts
  Shape shape;
  /// False for a runtime-offset window: it lies somewhere inside [begin, end).
  bool exact = true;
  /// Row-major rows of `width` bytes every `pitch` bytes, counted from `rowBase` (the (0, 0) of the
  /// allocation-level frame the window was cut from): the gaps between rows are not touched (W11).
  bool strided = false;
  int64_t rowBase = 0, rows = 0, width = 0;

  bool overlaps(const ByteSpan& o) const;
  /// The same window of the same bytes (an in-place operand).
  bool identical(const ByteSpan& o) const;
  std::string text() const;  // "Vec bytes [0, 2048)"
  /// The [rows, cols] window at element offsets (r0, c0) of this row-major frame; nullopt offsets
  /// are runtime values, which leave the window anywhere inside this span (W14).
  ByteSpan window(std::optional<int64_t> r0, std::optional<int64_t> c0, int64_t windowRows, int64_t windowCols,
                  int64_t esize) const;
};

struct Root {
  std::string name;
  MemSpace space = MemSpace::Vec;
  int64_t capacity = 0;
  std::optional<int64_t> addr;  // addressed planners (P1)
  SourceLoc loc;
  std::vector<int> descriptors;  // in first-reference order
  enum class Form : uint8_t { Unused, Typed, Bytes, Matrix };
  Form form = Form::Unused;
  int typedDescriptor = -1;  // Form::Typed: the descriptor declared as the allocation itself
  std::string byteHandle;    // Form::Bytes: the UINT8[capacity/32, 32] handle
  bool addressed() const { return addr.has_value(); }

  /// Where the declarations go: the tile.alloc statement, or (P3) the first statement of the one
  /// region that references a PTOAS accumulator.
  using Path = std::vector<std::pair<const Block*, size_t>>;
  Path definedAt;   // the tile.alloc statement
  Path referenced;  // the common prefix of every reference (last level: the earliest statement)
  bool hasReference = false;
  bool deferred = false;
};

/// One handle of a descriptor: the full-valid base ("full") or a static partial valid rectangle.
struct Variant {
  std::string key;
  std::optional<Valid2> valid;  // nullopt: full
  std::string stem;             // the name it prefers (its first Tile value)
  std::string handle;
  SourceLoc loc;
  bool used = false;  // referenced by a Tile value or a bridge/product view
};

struct Descriptor {
  int root = -1;
  int64_t offset = 0;  // bytes from the root's origin
  int64_t bytes = 0;
  Type type;           // Buffer type, full valid
  std::string stem;    // the first Tile value naming it
  SourceLoc loc;
  std::vector<Variant> variants;  // variants[0] is the full-valid base

  bool dynamic = false;  // V6: one handle with a [-1, -1] descriptor
  SourceLoc dynamicLoc;
  std::string dynamicHandle;
  bool windowParent = false;  // a slice or assemble cuts a subview from it
  std::optional<SourceLoc> regionUse;  // first reference inside a loop or branch body
  std::optional<SourceLoc> relabelOrAssemble;  // first relabel/assemble touching it (V5 when dynamic)

  enum class Form : uint8_t { TypedRoot, ReshapeOfTyped, ByteReshape, ByteView, AliasAlloc, MatrixAlloc, MatrixReshape };
  Form form = Form::TypedRoot;
  std::string byteView;  // Form::ByteView: the UINT8 subview it reshapes

  bool matrix() const { return type.space != MemSpace::Vec; }
  bool needsSubviews() const { return windowParent || variants.size() > 1; }
  int64_t pitch() const;
};

struct Window {
  int parent = -1;  // slot of the Storage or Window value it is cut from
  std::array<std::shared_ptr<const Expr>, 2> offsets;
  Type type;     // the subview's annotation (valid -1 where runtime)
  Valid2 valid;
  bool dynamicValid = false;  // materialized inside each guarded consumer (V12)
  bool relabel = false;       // a buffer.reshape of its parent window (W2)
  ByteSpan span;
  int descriptor = -1;  // the storage family it is cut from (W13)
  std::string stem;
  SourceLoc loc;
  std::string handle;  // named when emitted
};

struct ValueInfo {
  enum class Kind : uint8_t { None, Scalar, Tensor, Root, Storage, Window };
  Kind kind = Kind::None;
  std::string name;
  SourceLoc loc;
  int param = -1;       // Tensor: the GM parameter it refers to
  int root = -1;        // Root
  int descriptor = -1;  // Storage
  int window = -1;      // Window
  Valid2 valid;         // Storage, Window
  Type type;            // Storage, Window: the Tile type
};

/// What the conversion of one `tile.assemble` needs (seed "Windows: slice and assemble").
struct AssemblePlan {
  bool copyTarget = false;  // W4: target and result storage differ
  bool sourceInPlace = false;  // W6: the source already is the placed window
  Valid2 targetValid;
  Valid2 sourceValid;
};

class StorageIndex {
 public:
  StorageIndex(const Function& fn, const PassContext& context, const Failure& failure);

  /// Indexes the function, plans every root and names every handle. Throws the pass's failure.
  void build();

  const ValueInfo& value(int slot) const { return values_.at(slot); }
  const Root& root(int i) const { return roots_.at(i); }
  const Descriptor& descriptor(int i) const { return descriptors_.at(i); }
  Window& window(int i) { return windows_.at(i); }
  const Window& window(int i) const { return windows_.at(i); }
  int rootOfStatement(const Stmt* s) const;
  /// P3: roots whose declarations precede statement `index` of `block` instead of their tile.alloc.
  const std::vector<int>& rootsDeclaredBefore(const Block* block, size_t index) const;
  const AssemblePlan* assemblePlan(int resultSlot) const;
  const Valid2* productView(int resultSlot) const;
  const std::map<int, const Expr*>& scalarDefs() const { return scalarDefs_; }
  NameAllocator& names() { return names_; }

  /// The handle of descriptor `d` with valid rectangle `valid` (the dynamic handle of a dynamic
  /// descriptor); the variant must have been registered during indexing.
  const std::string& handle(int d, const Valid2& valid) const;
  /// The handle a Storage value names.
  const std::string& storageHandle(int slot) const;
  /// The full-valid base handle a subview of descriptor `d` is cut from.
  const std::string& baseHandle(int d) const;
  ByteSpan spanOf(int slot) const;
  ByteSpan descriptorSpan(int d) const;
  /// The descriptor a Storage or Window value ultimately lives in.
  int familyOf(int slot) const;

  /// The statements replacing root `r`'s `tile.alloc`: allocations and aliases (P2, P5, P6, P10).
  std::vector<StmtPtr> declarations(int r) const;

 private:
  const Function& fn_;
  const PassContext& context_;
  const Failure& failure_;
  std::vector<ValueInfo> values_;
  std::vector<Root> roots_;
  std::map<std::string, int> rootByName_;
  std::map<const Stmt*, int> rootByStatement_;
  std::vector<Descriptor> descriptors_;
  std::vector<Window> windows_;
  std::map<int, AssemblePlan> assembles_;
  std::map<int, Valid2> products_;
  std::map<int, const Expr*> scalarDefs_;
  std::map<int, const ForStmt*> inductionLoops_;  // W16 proves alignment from a loop's start and step
  std::map<std::pair<const Block*, size_t>, std::vector<int>> deferredRoots_;  // P3
  NameAllocator names_;
  Root::Path path_;
  /// P13: per root name, the base address its full-capacity members state (production dumps
  /// without addr=).
  struct MemberOffsets {
    std::optional<int64_t> fullCapacityBase;
  };
  std::map<std::string, MemberOffsets> memberOffsets_;
  std::map<std::string, int64_t> capacityOf_;  // the statement being indexed, from the function body down

  // ---- indexing walk ----
  void prescanMembers(const Block& block);
  void walkBlock(const Block& block, int depth);
  void walkStmt(const Stmt& s, int depth);
  void assign(const AssignStmt& s, int depth);
  void tileOp(const AssignStmt& s, const Expr& call, int depth);
  void storageRoot(const AssignStmt& s, const Expr& call);
  void alias(const Binder& target, const Expr& source, int depth);
  void loopCarries(const std::vector<Binder>& iterArgs, const std::vector<ExprPtr>& inits, SourceLoc loc,
                   std::string_view what, int depth);
  void loopResults(const Stmt& loop, const std::vector<Binder>& iterArgs, const Block& body, std::string_view what,
                   int depth);
  void ifResults(const IfStmt& s, int depth);
  void reserveScalar(const Binder& b);

  // ---- values ----
  ValueInfo& info(int slot) { return values_.at(slot); }
  const ValueInfo& operand(const Expr& call, size_t arg, SourceLoc loc) const;
  void noteUse(const Expr& name, int depth);
  void noteUseOfSlot(int slot, SourceLoc loc, int depth);
  void noteReference(int descriptor);
  void placeLocalAccumulators();
  int descriptorOf(const Binder& b, std::string_view op, SourceLoc loc);
  void defineStorage(const Binder& b, int d, const Valid2& valid, SourceLoc loc, int depth);
  int registerVariant(int d, const Valid2& valid, const std::string& stem, SourceLoc loc);
  Valid2 validOfType(const Binder& b, std::string_view op, SourceLoc loc) const;
  void markDynamic(int d, SourceLoc loc);
  void defineWindow(const AssignStmt& s, const Expr& call, int depth);
  void defineRelabelledWindow(const AssignStmt& s, const Expr& call, int parentSlot, int depth);
  void planAssemble(const AssignStmt& s, const Expr& call, int depth);
  /// W16: the window's base address is provably 32-byte aligned (static offsets computed, runtime
  /// offsets proven multiples of what their stride needs).
  void checkWindowAlignment(const Expr& call, const std::array<const Expr*, 2>& offsets, int64_t esize,
                            const ByteSpan& parentSpan, SourceLoc loc) const;

  // ---- planning and naming ----
  void checkDescriptors() const;
  void planRoot(Root& r);
  void planVecRoot(Root& r);
  void planMatrixRoot(Root& r);
  void nameHandles();
};

}  // namespace ptodiff::lower
