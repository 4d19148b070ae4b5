// Element addressing of on-chip handles (semantics.md §3): where element (r, c) of a handle lives,
// in bytes from the handle's base, for ND/DN and the boxed ("fractal") layouts NZ, ZN and ZZ.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "compiler/ir/Type.h"

namespace ptodiff {

/// Inner box of a boxed layout, in elements: fractal 512 with a row-major inner order is
/// 16 x (32/esize), with a column-major inner order (32/esize) x 16; fractal 1024 (Acc) is 16 x 16.
struct BoxShape {
  int64_t rows = 0, cols = 0;
  int64_t elements() const { return rows * cols; }
  bool operator==(const BoxShape&) const = default;
};

/// The box of `layout` for `dtype`; nullopt for unboxed layouts (slayout none_box) and for
/// combinations the hardware has no box for (the reason is in `*why` when given).
std::optional<BoxShape> boxShape(const Layout& layout, DType dtype, std::string* why = nullptr);

/// Which formula addresses a handle.
enum class AddressingKind : uint8_t { ND, DN, NZ, ZN, ZZ };
std::optional<AddressingKind> addressingOf(const Layout& layout);

/// Geometry of one handle: physical extents, element type, layout and, for ND, the row pitch in
/// bytes (an allocation's is cols*esize; a subview inherits its parent's).
struct HandleGeometry {
  int64_t rows = 0, cols = 0;
  DType dtype = DType::FP32;
  Layout layout;
  int64_t pitchBytes = 0;  // ND only
};

/// Byte offset of element (r, c) from the handle's base. Preconditions: 0 <= r < rows,
/// 0 <= c < cols, the layout is addressable and boxed handles hold whole boxes (the verifier
/// guarantees both); violations throw std::logic_error.
int64_t elementByteOffset(const HandleGeometry& g, int64_t r, int64_t c);

/// elementByteOffset with the formula chosen once per handle: loops that address every element
/// of a region (interp/Machine.h, forEachRun) would otherwise re-derive the layout's
/// addressing and box shape per element. Same results and the same logic_errors.
class ElementAddressing {
 public:
  explicit ElementAddressing(const HandleGeometry& g);
  int64_t offset(int64_t r, int64_t c) const {
    if (r < 0 || c < 0 || r >= g_.rows || c >= g_.cols)
      throw std::logic_error("elementByteOffset: element outside the handle");
    if (!kind_) throw std::logic_error("elementByteOffset: layout has no addressing");
    switch (*kind_) {
      case AddressingKind::ND: return r * g_.pitchBytes + c * esize_;
      case AddressingKind::DN: return (c * g_.rows + r) * esize_;
      default: break;
    }
    if (!wholeBoxes_) throw std::logic_error("elementByteOffset: boxed handle does not hold whole boxes");
    const int64_t sr = r / IR_, ir = r % IR_, sc = c / IC_, ic = c % IC_;
    int64_t element = 0;
    switch (*kind_) {
      case AddressingKind::NZ: element = sc * g_.rows * IC_ + sr * IR_ * IC_ + ir * IC_ + ic; break;
      case AddressingKind::ZN: element = sr * g_.cols * IR_ + sc * IR_ * IC_ + ic * IR_ + ir; break;
      case AddressingKind::ZZ: element = sr * g_.cols * IR_ + sc * IR_ * IC_ + ir * IC_ + ic; break;
      default: break;
    }
    return element * esize_;
  }

  /// Whether the elements adjacent in storage run down columns (DN, and ZN inside a box) rather
  /// than along rows (ND, and NZ and ZZ inside a box).
  bool columnMajor() const { return kind_ == AddressingKind::DN || kind_ == AddressingKind::ZN; }
  /// How many elements from (r, c) on, along the adjacent axis (columnMajor()), lie at consecutive
  /// addresses before the layout jumps: to the row's end (ND), the column's end (DN) or the box's
  /// edge. Same preconditions as offset().
  int64_t adjacentFrom(int64_t r, int64_t c) const {
    switch (kind_.value_or(AddressingKind::ND)) {
      case AddressingKind::ND: return g_.cols - c;
      case AddressingKind::DN: return g_.rows - r;
      case AddressingKind::ZN: return IR_ - r % IR_;
      default: return IC_ - c % IC_;  // NZ, ZZ
    }
  }

 private:
  HandleGeometry g_;
  std::optional<AddressingKind> kind_;
  int64_t esize_ = 0;
  bool wholeBoxes_ = false;
  int64_t IR_ = 1, IC_ = 1;
};

/// Bytes spanned by the handle: from offset 0 to one past its last element's last byte.
int64_t handleSpanBytes(const HandleGeometry& g);

}  // namespace ptodiff
