// The physical machine under planned Tile and Buffer programs (semantics.md §3): one core's
// on-chip storage as byte arenas sized by the target, handles that say where a window of storage
// lies and how its elements are addressed (interp/Layout.h), dense element temporaries that the
// arithmetic kernels (interp/Arith.h) compute on, write-event ids, and the placement of
// addressless (PTOAS) allocations.
//
// Elements move between a handle and a dense temporary in one call per op (gather / scatter), so
// ops dispatch once and compute on contiguous arrays. An element is poison when any of its bytes
// is; writing an element writes all of its bytes with its poison state and the op's event.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/Type.h"
#include "compiler/target/Target.h"
#include "interp/Arith.h"
#include "interp/ByteArena.h"
#include "interp/Layout.h"

namespace ptodiff {

/// Current valid extents of a handle's descriptor.
struct ValidExtents {
  int64_t rows = 0, cols = 0;
  bool operator==(const ValidExtents&) const = default;
};

/// A Buffer handle (semantics.md §3): (space, base address, shape, dtype, layout, pitch, valid
/// descriptor), plus the root allocation whose bytes it views. Copies of a handle share its
/// descriptor, so `set_validshape` through one is seen through every copy; a view (subview,
/// reshape) gets a descriptor of its own.
struct Handle {
  MemSpace space = MemSpace::Vec;
  int64_t base = 0;     // absolute byte address in the space
  HandleGeometry geom;  // physical extents, dtype, layout; ND row pitch in bytes
  ByteRange root;       // the allocation this handle views; its bytes must stay inside
  std::shared_ptr<ValidExtents> valid = std::make_shared<ValidExtents>();
  std::array<bool, 2> dynamicValid{false, false};  // per axis: a runtime (-1) descriptor dimension

  int64_t rows() const { return geom.rows; }
  int64_t cols() const { return geom.cols; }
  DType dtype() const { return geom.dtype; }
  int esize() const { return dtypeSize(geom.dtype); }
  int64_t validRows() const { return valid->rows; }
  int64_t validCols() const { return valid->cols; }
  bool boxed() const { return geom.layout.boxed(); }
  /// Absolute byte address of element (r, c); precondition: inside the physical shape.
  int64_t byteAt(int64_t r, int64_t c) const { return base + elementByteOffset(geom, r, c); }
  /// [base, base + span): every byte any element of the handle occupies lies inside.
  ByteRange span() const { return {base, base + handleSpanBytes(geom)}; }
};

/// `n` elements of a handle at consecutive addresses from `addr`: (r, c), (r, c + 1), ... along a
/// row, or (r, c), (r + 1, c), ... down a column (`down`).
struct ElementRun {
  int64_t r = 0, c = 0, n = 0, addr = 0;
  bool down = false;
  int64_t rowOf(int64_t k) const { return down ? r + k : r; }
  int64_t colOf(int64_t k) const { return down ? c : c + k; }
};

/// Calls `run(ElementRun)` for the runs of adjacent elements that tile the region rows x cols at
/// (r0, c0): one per ND row, one per DN column, one per box row (NZ, ZZ) or box column (ZN)
/// inside the region. Storage is then touched one contiguous range at a time, and the layout's
/// formula is evaluated once per run, not per element.
template <class Run>
void forEachRun(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols, Run&& run) {
  if (rows <= 0 || cols <= 0) return;
  const ElementAddressing addressing(h.geom);
  if (addressing.columnMajor()) {
    for (int64_t c = c0; c < c0 + cols; ++c)
      for (int64_t r = r0; r < r0 + rows;) {
        const int64_t n = std::min(addressing.adjacentFrom(r, c), r0 + rows - r);
        run(ElementRun{r, c, n, h.base + addressing.offset(r, c), true});
        r += n;
      }
    return;
  }
  for (int64_t r = r0; r < r0 + rows; ++r)
    for (int64_t c = c0; c < c0 + cols;) {
      const int64_t n = std::min(addressing.adjacentFrom(r, c), c0 + cols - c);
      run(ElementRun{r, c, n, h.base + addressing.offset(r, c), false});
      c += n;
    }
}

/// "Vec FP32 [16, 32] ND at 8192": a handle for messages.
std::string describeHandle(const Handle& h);
/// "ND", "DN", "NZ", "ZN", "ZZ" (or "blayout/slayout" for a combination without a name).
std::string layoutText(const Layout& layout);

/// A handle of Buffer type `type` at `base` viewing `root`, with ND row pitch `pitchBytes` (an
/// allocation's is cols * esize; a subview passes its parent's). The descriptor starts at `valid`;
/// its dynamic axes are those of the type that are not constants.
Handle makeHandle(const Type& type, int64_t base, int64_t pitchBytes, ByteRange root, ValidExtents valid);

/// The window of `parent` typed `window` at element (r0, c0): its base is the parent's address
/// of (r0, c0), it inherits the parent's row pitch and root, its descriptor starts at `valid`.
/// Precondition: (r0, c0) lies inside the parent (fit and placement are the caller's checks).
Handle windowHandle(const Handle& parent, const Type& window, int64_t r0, int64_t c0, ValidExtents valid);
/// `src`'s bytes reinterpreted as `type`: same base and root, dense pitch (cols * esize).
Handle reinterpretHandle(const Handle& src, const Type& type, ValidExtents valid);

/// The target description a run configuration names.
const Target& targetOf(TargetKind kind);

/// Byte alignment of an addressless allocation of this layout and dtype: max(32 B, box bytes).
int64_t placementAlignment(const Layout& layout, DType dtype);

/// Where gather writes a region's elements (and, const, where scatter reads them): row-major with
/// `stride` elements from one row to the next, one poison byte per element and, in a symbolic
/// run, one formula per element (`sym`, else null). A tile's own arrays can be one, so elements
/// move between storage and a tile value without a dense temporary in between.
template <class Byte, class Id>
struct ElementSpan {
  Byte* bits = nullptr;
  Byte* poison = nullptr;
  Id* sym = nullptr;
  int64_t stride = 0;
};
using ElementsOut = ElementSpan<uint8_t, ExprId>;
using ElementsIn = ElementSpan<const uint8_t, const ExprId>;

/// Elements of one rows x cols region, dense and row-major: bits plus a per-element poison flag
/// (and, in a symbolic run, each element's formula).
struct DenseElements {
  DType dtype = DType::FP32;
  int64_t rows = 0, cols = 0;
  std::vector<uint8_t> bits;    // rows * cols * esize
  std::vector<uint8_t> poison;  // rows * cols, 1 = poison
  std::vector<ExprId> sym;      // rows * cols formulas in a symbolic run (starting poison), else empty
  ExprPool* pool = nullptr;

  DenseElements() = default;
  /// `pool`: the symbolic run's (Machine::symbols()), or null.
  DenseElements(DType dt, int64_t r, int64_t c, ExprPool* symbols)
      : dtype(dt), rows(r), cols(c), bits(static_cast<size_t>(r * c * dtypeSize(dt))), poison(static_cast<size_t>(r * c)),
        sym(symbols ? static_cast<size_t>(r * c) : 0, ExprId{0}), pool(symbols) {}
  int esize() const { return dtypeSize(dtype); }
  uint8_t* bitsAt(int64_t r, int64_t c) { return bits.data() + (r * cols + c) * esize(); }
  const uint8_t* bitsAt(int64_t r, int64_t c) const { return bits.data() + (r * cols + c) * esize(); }
  bool poisonAt(int64_t r, int64_t c) const { return poison[static_cast<size_t>(r * cols + c)] != 0; }
  ExprId* symAt(int64_t r, int64_t c) { return sym.empty() ? nullptr : sym.data() + r * cols + c; }
  const ExprId* symAt(int64_t r, int64_t c) const { return sym.empty() ? nullptr : sym.data() + r * cols + c; }
  arith::ConstElems elems() const { return {bits.data(), rows, cols, cols, symAt(0, 0)}; }
  arith::MutElems mutElems() { return {bits.data(), rows, cols, cols, symAt(0, 0), pool}; }
  /// Element-wise OR of `other`'s poison flags into this one's (same extents).
  void orPoison(const DenseElements& other);
};

/// One core's on-chip storage during a run.
class Machine {
 public:
  /// `symbols`: a symbolic run's pool (storage bytes then carry tags), or null.
  Machine(const Target& target, uint64_t seed, ExprPool* symbols);

  const Target& target() const { return target_; }
  ExprPool* symbols() const { return symbols_; }
  ByteArena& arena(MemSpace s) { return *arenas_[static_cast<size_t>(s)]; }
  const ByteArena& arena(MemSpace s) const { return *arenas_[static_cast<size_t>(s)]; }

  /// Fresh storage for the next block: every byte garbage and poison again. Write-event ids keep
  /// counting and addressless placements are kept (an allocation has one address per run).
  void resetStorage();

  /// A new write-event id (1, 2, ...; ByteArena::kNoEvent is 0).
  uint32_t newEvent() { return ++lastEvent_; }

  /// Storage writes so far (scatters, and resets of all storage). A reader that remembers the
  /// count when its expectations about some bytes held can later ask whether anything may have
  /// written them since, and skip comparing them byte by byte when nothing did.
  uint64_t writesSoFar() const { return writesSoFar_; }
  /// Whether a write after the first `count` may have touched `bytes` of `space`. Each write is
  /// logged as the hull of the bytes it wrote (a strided write covers its gaps too), so a false
  /// answer is exact and a true one may be conservative; past kWriteLookback writes it is true.
  bool writtenSince(uint64_t count, MemSpace space, ByteRange bytes) const;
  static constexpr int kWriteLookback = 64;

  /// The rows x cols region of `h` at (r0, c0), gathered densely. Precondition: the region lies
  /// inside h's physical shape and h's bytes inside its space (logic_error otherwise).
  DenseElements gather(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols) const;
  /// gather into `out` (rows x cols elements; `out.sym` set exactly in a symbolic run).
  void gatherInto(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols, ElementsOut out) const;
  /// Writes `src` (bits and per-element poison) to the same-sized region of `h` at (r0, c0),
  /// tagging every written byte with `event`.
  void scatter(const Handle& h, int64_t r0, int64_t c0, const DenseElements& src, uint32_t event);
  /// scatter from `src` (rows x cols elements; `src.sym` set exactly in a symbolic run).
  void scatterFrom(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols, ElementsIn src,
                   uint32_t event);
  /// Makes the region's bytes poison, keeping their bits, as written by `event`.
  void poisonRegion(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols, uint32_t event);
  /// matmul's box rule on Acc storage: the hardware writes whole 16 x 16 boxes, so the lanes
  /// outside the product [0, M) x [0, N) of every box the product touches become poison (written
  /// by `event`); untouched boxes keep their bytes.
  /// Returns the poisoned regions as {r0, c0, rows, cols}.
  std::vector<std::array<int64_t, 4>> poisonTouchedAccBoxes(const Handle& acc, int64_t M, int64_t N, uint32_t event);

  /// The address of the addressless allocation `identity` (an allocation site) of `bytes` bytes
  /// in `space`: its own range, given in first-request order, aligned to `alignment`; the same
  /// identity always gets the same address. Throws HazardFault capacity when the space's
  /// addressless total would pass its usable capacity.
  int64_t placeAddressless(const void* identity, MemSpace space, int64_t bytes, int64_t alignment);
  /// Bytes handed out so far to addressless allocations of `space` (the end of the last range).
  int64_t addresslessEnd(MemSpace space) const { return placementEnd_[static_cast<size_t>(space)]; }

 private:
  void requireInside(const Handle& h, int64_t r0, int64_t c0, int64_t rows, int64_t cols, const char* what) const;

  static constexpr size_t kSpaces = 5;
  const Target& target_;
  uint64_t seed_;
  ExprPool* symbols_;
  std::array<std::unique_ptr<ByteArena>, kSpaces> arenas_;
  uint32_t lastEvent_ = ByteArena::kNoEvent;
  struct WriteHull {
    uint64_t count;     // writesSoFar() right after the write
    bool everything;    // resetStorage(): every byte of every space
    MemSpace space;
    ByteRange bytes;
  };
  void logWrite(const WriteHull& w);
  std::deque<WriteHull> writeLog_;  // the last kWriteLookback + 1 writes: older ones are never asked for
  uint64_t writesSoFar_ = 0;
  std::map<const void*, int64_t> placements_;
  std::array<int64_t, kSpaces> placementEnd_{};
};

}  // namespace ptodiff
