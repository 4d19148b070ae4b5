// Types of IR values: scalars, GM tensors, Tile values, Buffer handles and storage roots.
//
// A type always holds its *resolved* layout (the space's implicit view filled in); the printer
// prints only what differs from the implicit view, the parser fills in what is absent, so the
// two round-trip structurally.
#pragma once

#include <algorithm>
#include <array>
#include <compare>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ir/DType.h"

namespace ptodiff {

/// One valid extent (or a MemRef offset): a compile-time constant, the name of a scalar value
/// in scope, or unknown at compile time (`-1` in a Buffer descriptor, or an inferred extent
/// computed from a scalar expression that is not a plain name).
struct Extent {
  enum class Kind : uint8_t { Const, Symbol, Dynamic };
  Kind kind = Kind::Const;
  int64_t value = 0;   // Kind::Const
  std::string symbol;  // Kind::Symbol

  static Extent constant(int64_t v) { return Extent{Kind::Const, v, {}}; }
  static Extent named(std::string name) { return Extent{Kind::Symbol, 0, std::move(name)}; }
  static Extent dynamic() { return Extent{Kind::Dynamic, -1, {}}; }
  bool isConst() const { return kind == Kind::Const; }
  bool operator==(const Extent&) const = default;
};

/// Valid extents `[rows, cols]`; absent (std::nullopt) means the full physical shape.
using ValidShape = std::optional<std::array<Extent, 2>>;

/// blayout/slayout/fractal of pto-isa's Tile template (fractal in bytes).
struct Layout {
  TileLayout blayout = TileLayout::row_major;
  TileLayout slayout = TileLayout::none_box;
  int fractal = 512;
  bool boxed() const { return slayout != TileLayout::none_box; }
  bool operator==(const Layout&) const = default;
};

/// The implicit layout of a `rows x cols` tile in `space`, from the target description's per-space
/// table (compiler/target/ImplicitLayouts.h, the same on every target).
Layout implicitLayout(MemSpace space, int64_t rows, int64_t cols);

/// Named shorthands of Buffer types: NZ, ZN, ZZ, ND, DN (fractal is not part of the name).
std::optional<Layout> layoutShorthand(std::string_view name, int fractal);
std::optional<std::string_view> layoutShorthandName(const Layout& layout);

/// `pl.MemRef(BASE, OFFSET, SIZE)`: planned storage of a Tile value. OFFSET is relative to the root
/// unless the root was placed with `addr=`, in which case it is the absolute address.
struct MemRef {
  std::string base;
  Extent offset;
  int64_t size = 0;
  bool operator==(const MemRef&) const = default;
};

enum class ParamDirection : uint8_t { In, Out, InOut };

/// The extents of a Tensor, Tile or Buffer type, `[rows, cols]` (the parser rejects any other rank),
/// and none for the other kinds. Held inline: the passes, the verifier and the interpreters copy
/// types all the time, and a heap-allocated vector per copy was a measurable part of a campaign.
class Shape {
 public:
  static constexpr size_t kMaxRank = 2;

  Shape() = default;
  Shape(std::initializer_list<int64_t> extents) {
    for (int64_t e : extents) push_back(e);
  }
  explicit Shape(const std::vector<int64_t>& extents) {
    for (int64_t e : extents) push_back(e);
  }

  size_t size() const { return rank_; }
  bool empty() const { return rank_ == 0; }
  int64_t operator[](size_t i) const { return extents_[i]; }
  int64_t& operator[](size_t i) { return extents_[i]; }
  int64_t at(size_t i) const {
    if (i >= rank_)
      throw std::out_of_range("Shape::at: axis " + std::to_string(i) + " of a rank-" + std::to_string(rank_) + " shape");
    return extents_[i];
  }
  void push_back(int64_t e) {
    if (rank_ == kMaxRank) throw std::length_error("Shape: more than " + std::to_string(kMaxRank) + " extents");
    extents_[rank_++] = e;
  }
  const int64_t* begin() const { return extents_.data(); }
  const int64_t* end() const { return extents_.data() + rank_; }

  friend bool operator==(const Shape& a, const Shape& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
  friend std::strong_ordering operator<=>(const Shape& a, const Shape& b) {
    return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  std::array<int64_t, kMaxRank> extents_{};
  uint8_t rank_ = 0;
};

struct Type {
  enum class Kind : uint8_t { None, Scalar, Tensor, Tile, Buffer, Ptr };
  Kind kind = Kind::None;
  DType dtype = DType::FP32;
  Shape shape;                      // Tensor, Tile, Buffer: [rows, cols]
  MemSpace space = MemSpace::Vec;   // Tile, Buffer
  Layout layout;                    // Tile, Buffer (resolved)
  ValidShape valid;                 // Tile, Buffer; nullopt = full
  std::optional<MemRef> memref;     // Tile only

  static Type none() { return Type{}; }
  static Type scalar(DType dt);
  static Type tensor(Shape shape, DType dt);
  /// A tile with the space's implicit layout and full valid region.
  static Type tile(int64_t rows, int64_t cols, DType dt, MemSpace space);
  static Type buffer(int64_t rows, int64_t cols, DType dt, MemSpace space);
  static Type ptr() { Type t; t.kind = Kind::Ptr; return t; }

  bool isScalar() const { return kind == Kind::Scalar; }
  bool isTensor() const { return kind == Kind::Tensor; }
  bool isTile() const { return kind == Kind::Tile; }
  bool isBuffer() const { return kind == Kind::Buffer; }
  int64_t rows() const { return shape.at(0); }
  int64_t cols() const { return shape.at(1); }
  /// Valid extent on `axis` (0 rows, 1 cols), the physical extent where valid is full.
  Extent validExtent(int axis) const;
  /// Drops a valid shape that statically equals the physical shape (the canonical form).
  void canonicalizeValid();

  bool operator==(const Type&) const = default;
};

}  // namespace ptodiff
