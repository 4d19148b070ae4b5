// What the generator knows about the values of the kernel it is building (internal to fuzz/gen).
//
// Validity by construction needs, for every tile value, facts that hold in *every* run of the
// case (every scalar set, every block):
// - Mask: which lanes are defined (not poison). Stores may only write defined lanes.
// - Interval: a bound on every defined lane's value, so exp/log/div/sqrt/recip stay finite and
//   no op overflows (NNSmith's lesson: NaN and Inf cause false alarms and hide bugs).
// - the exact static Type the verifier will infer (loop carries and if arms must match it).
// - storage facts the Buffer contract cares about (window or own allocation, row pitch).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/IR.h"

namespace ptodiff::fuzz::detail {

/// A closed interval of real values bounding every defined lane (floats only).
struct Interval {
  double lo = 0.0, hi = 0.0;

  static Interval of(double a, double b) { return {std::min(a, b), std::max(a, b)}; }
  static Interval point(double v) { return {v, v}; }
  Interval hull(const Interval& o) const { return {std::min(lo, o.lo), std::max(hi, o.hi)}; }
  double magnitude() const { return std::max(std::abs(lo), std::abs(hi)); }
  bool contains(const Interval& o) const { return lo <= o.lo && o.hi <= hi; }
  /// Every value has magnitude at least `d` (a safe divisor or recip/log argument).
  bool awayFromZero(double d) const { return lo >= d || hi <= -d; }
};

/// Elements of `dt` in one 32-byte unit: Vec row pitches and vector base addresses are multiples
/// of it (W16).
inline int64_t unitOf(DType dt) { return 32 / dtypeSize(dt); }

/// The range of a lane loaded from an In tensor (the case draws inputs in it).
inline Interval inputRange(DType dt) {
  if (dt == DType::INT8) return Interval::of(-128, 127);
  return Interval::of(-1.0, 1.0);  // floats; integers ignore ranges (they wrap)
}

/// Interval transfer functions (binary64 end points; the FP results deviate by rounding only,
/// and every threshold the generator tests is either exact or far from the dtype's limits).
Interval intervalAdd(Interval a, Interval b);
Interval intervalSub(Interval a, Interval b);
Interval intervalMul(Interval a, Interval b);
/// Requires b.awayFromZero(d) for some d > 0.
Interval intervalDiv(Interval a, Interval b);
Interval intervalMax(Interval a, Interval b);
Interval intervalMin(Interval a, Interval b);
Interval intervalAbs(Interval a);
Interval intervalRelu(Interval a);
Interval intervalLrelu(Interval a, Interval slope);

/// Per-lane "defined in every run" flags of an R x C tile, row-major.
class Mask {
 public:
  Mask() = default;
  static Mask none(int64_t rows, int64_t cols) { return Mask(rows, cols, false); }
  static Mask all(int64_t rows, int64_t cols) { return Mask(rows, cols, true); }
  /// The prefix rectangle [0, vr) x [0, vc) set.
  static Mask rect(int64_t rows, int64_t cols, int64_t vr, int64_t vc);

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  bool at(int64_t r, int64_t c) const { return bits_[static_cast<size_t>(r * cols_ + c)] != 0; }
  void set(int64_t r, int64_t c, bool v) { bits_[static_cast<size_t>(r * cols_ + c)] = v ? 1 : 0; }

  /// Every lane of the prefix rectangle [0, vr) x [0, vc) is set.
  bool covers(int64_t vr, int64_t vc) const;
  bool full() const { return covers(rows_, cols_); }
  /// Every lane set in `o` (same shape) is set here.
  bool contains(const Mask& o) const;
  /// The lanes [r0, r0 + nr) x [c0, c0 + nc) as an nr x nc mask.
  Mask window(int64_t r0, int64_t c0, int64_t nr, int64_t nc) const;
  /// Overwrites the lanes at [r0, r0 + src.rows()) x [c0, c0 + src.cols()) with `src`.
  void paste(int64_t r0, int64_t c0, const Mask& src);
  Mask intersect(const Mask& o) const;
  Mask transposed() const;
  /// The same row-major lanes read as rows x cols (equal element count).
  Mask reshaped(int64_t rows, int64_t cols) const;
  /// The largest vc such that covers(vr, vc).
  int64_t widestCoveredCols(int64_t vr) const;

  bool operator==(const Mask&) const = default;

 private:
  Mask(int64_t rows, int64_t cols, bool v)
      : rows_(rows), cols_(cols), bits_(static_cast<size_t>(rows * cols), v ? 1 : 0) {}
  int64_t rows_ = 0, cols_ = 0;
  std::vector<uint8_t> bits_;
};

// ---- static forms of the valid-extent rules (semantics.md §2; the verifier's constant case) ----

/// Slice/extract on one axis: min(requested, clamp(sourceValid - offset, 0, window)).
int64_t windowValid(int64_t sourceValid, int64_t offset, int64_t window, std::optional<int64_t> requested);

/// Assemble's write-union; nullopt when it is not a prefix rectangle (a verifier error).
std::optional<std::array<int64_t, 2>> assembleValid(int64_t rows, int64_t cols, int64_t targetValidRows,
                                                    int64_t targetValidCols, int64_t r0, int64_t c0,
                                                    int64_t sourceValidRows, int64_t sourceValidCols);

/// Reshape's flat-prefix rule from a tile with `cols` columns and valid (vr, vc) to newRows x
/// newCols; nullopt when the verifier rejects it.
std::optional<std::array<int64_t, 2>> reshapeValid(int64_t cols, int64_t vr, int64_t vc, int64_t newRows,
                                                   int64_t newCols);

/// Whether a tile the verifier checks with the Vec pitch rule (a result with its own rows) may
/// have this shape and dtype: row-major rows (col-major columns for [R, 1], R > 1) of 32-byte
/// multiples.
bool vecPitchOk(int64_t rows, int64_t cols, DType dt);

/// Where a tile's storage comes from, for the Buffer contract's window rules.
enum class Origin : uint8_t {
  Own,      // its own allocation: load, op results, full, create, assemble, move, matmul
  Window,   // a slice: a window inheriting its parent's row pitch
  Relabel,  // reshape or transpose_view of another tile's storage
};

/// A tile value the generated program holds, with what is known about it in every run.
struct TileVal {
  std::string name;
  Type type;                  // exactly what the verifier infers (valid canonicalized)
  Mask def;                   // lanes defined in every run
  bool validDefined = true;   // in every run every valid lane is defined (always checked for stores)
  Interval range;             // bounds the defined lanes (FP16/FP32 only; ignored otherwise)
  int storage = 0;            // metadata family: a setter retires every other value of its family
  int64_t pitchCols = 0;      // row pitch of the underlying storage, in elements
  Origin origin = Origin::Own;
  bool runtimeValid = false;  // valid extents come from scalars (straight-line only, V1/V5)

  int64_t rows() const { return type.rows(); }
  int64_t cols() const { return type.cols(); }
  DType dtype() const { return type.dtype; }
  MemSpace space() const { return type.space; }
  /// Static valid extents (only meaningful when !runtimeValid).
  int64_t validRows() const { return type.validExtent(0).value; }
  int64_t validCols() const { return type.validExtent(1).value; }
  bool fullyValid() const { return !runtimeValid && !type.valid.has_value(); }
  bool isView() const { return origin != Origin::Own; }
};

/// ND row-major: the layout a Vec move copies and a reshape or slice addresses directly.
inline bool plainLayout(const TileVal& v) { return !v.type.layout.boxed() && v.type.layout.blayout == TileLayout::row_major; }
/// DN col-major: a Vec transpose_view of an ND tile (and a static `[M, 1]` column's own layout).
inline bool colMajorLayout(const TileVal& v) {
  return !v.type.layout.boxed() && v.type.layout.blayout == TileLayout::col_major;
}

/// A Tile type with static valid extents (canonicalized: full valid is no valid).
Type tileType(int64_t rows, int64_t cols, DType dt, MemSpace space, int64_t validRows, int64_t validCols);

/// Sets t.valid to the static (vr, vc), canonicalized.
void setStaticValid(Type& t, int64_t validRows, int64_t validCols);

}  // namespace ptodiff::fuzz::detail
