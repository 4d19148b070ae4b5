// Tile values of the value interpreter (semantics.md §1): immutable, shared by the views made
// from them, each with a physical shape, dtype, space, layout (metadata at this level), runtime
// valid extents, and R*C elements held as bits in row-major logical order plus a per-element
// poison flag.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "compiler/ir/DType.h"
#include "compiler/ir/Type.h"
#include "interp/Arith.h"

namespace ptodiff {

/// Element storage of one or more tiles (views such as reshape and set_validshape share it).
struct TileElements {
  std::vector<uint8_t> bits;    // rows * cols * esize, row-major
  std::vector<uint8_t> poison;  // rows * cols, 1 = poison
  std::vector<ExprId> sym;      // rows * cols formulas in a symbolic run (interp/Symbolic.h), else empty
  ExprPool* pool = nullptr;     // the symbolic run's pool, else null
};

/// What a tile is apart from its elements and valid extents: the part a result's static type
/// fixes.
struct TileMeta {
  DType dtype = DType::FP32;
  MemSpace space = MemSpace::Vec;
  Layout layout;
  int64_t rows = 0, cols = 0;

  /// The meta of a Tile type (shape, dtype, space, resolved layout).
  static TileMeta of(const Type& t) { return {t.dtype, t.space, t.layout, t.rows(), t.cols()}; }
  int esize() const { return dtypeSize(dtype); }
  int64_t count() const { return rows * cols; }
  bool operator==(const TileMeta&) const = default;
};

struct TileValue {
  TileMeta meta;
  int64_t validRows = 0, validCols = 0;
  std::shared_ptr<const TileElements> elements;

  int64_t rows() const { return meta.rows; }
  int64_t cols() const { return meta.cols; }
  DType dtype() const { return meta.dtype; }
  int esize() const { return meta.esize(); }
  bool fullyValid() const { return validRows == meta.rows && validCols == meta.cols; }

  const uint8_t* bitsAt(int64_t r, int64_t c) const {
    return elements->bits.data() + (r * meta.cols + c) * esize();
  }
  bool poisonAt(int64_t r, int64_t c) const { return elements->poison[static_cast<size_t>(r * meta.cols + c)] != 0; }
  const uint8_t* poisonRow(int64_t r) const { return elements->poison.data() + r * meta.cols; }
  /// The symbolic run's pool (null in a numeric run).
  ExprPool* pool() const { return elements->pool; }
  const ExprId* symAt(int64_t r, int64_t c) const {
    return elements->sym.empty() ? nullptr : elements->sym.data() + r * meta.cols + c;
  }
  /// The window [r0, r0 + nr) x [c0, c0 + nc) of the elements.
  arith::ConstElems window(int64_t r0, int64_t c0, int64_t nr, int64_t nc) const {
    return {bitsAt(r0, c0), nr, nc, meta.cols, symAt(r0, c0)};
  }
};

/// A tile under construction: mutable elements that `finish` freezes into a TileValue.
class TileBuilder {
 public:
  /// All elements poison (bits 0) or all defined (bits 0); valid extents as given. `pool` makes
  /// the tile symbolic (null: numeric).
  TileBuilder(const TileMeta& meta, int64_t validRows, int64_t validCols, bool poisoned, ExprPool* pool);
  /// A mutable copy of `source`'s elements under `meta`/valid (same element count and dtype).
  TileBuilder(const TileValue& source, const TileMeta& meta, int64_t validRows, int64_t validCols)
      : value_{meta, validRows, validCols, nullptr},
        elements_(std::make_shared<TileElements>(*source.elements)) {}

  const TileMeta& meta() const { return value_.meta; }
  uint8_t* bitsAt(int64_t r, int64_t c) { return elements_->bits.data() + (r * value_.meta.cols + c) * value_.esize(); }
  uint8_t* poisonRow(int64_t r) { return elements_->poison.data() + r * value_.meta.cols; }
  void setPoison(int64_t r, int64_t c, bool p) { poisonRow(r)[c] = p ? 1 : 0; }
  ExprPool* pool() const { return elements_->pool; }
  ExprId* symAt(int64_t r, int64_t c) {
    return elements_->sym.empty() ? nullptr : elements_->sym.data() + r * value_.meta.cols + c;
  }
  arith::MutElems window(int64_t r0, int64_t c0, int64_t nr, int64_t nc) {
    return {bitsAt(r0, c0), nr, nc, value_.meta.cols, symAt(r0, c0), elements_->pool};
  }
  /// Copies element (sr, sc) of `src` (bits and poison) to (r, c).
  void copyElement(int64_t r, int64_t c, const TileValue& src, int64_t sr, int64_t sc);
  /// Copies the nr x nc window of `src` at (sr, sc) to (r, c): bits and poison.
  void copyWindow(int64_t r, int64_t c, const TileValue& src, int64_t sr, int64_t sc, int64_t nr, int64_t nc);

  TileValue finish() && {
    value_.elements = std::move(elements_);
    return std::move(value_);
  }

 private:
  TileValue value_;
  std::shared_ptr<TileElements> elements_;
};

}  // namespace ptodiff
