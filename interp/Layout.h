// Element addressing of on-chip handles (semantics.md §3): where element (r, c) of a handle lives,
// in bytes from the handle's base, for ND/DN and the boxed ("fractal") layouts NZ, ZN and ZZ.
#pragma once

#include <cstdint>
#include <optional>
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

/// Bytes spanned by the handle: from offset 0 to one past its last element's last byte.
int64_t handleSpanBytes(const HandleGeometry& g);

}  // namespace ptodiff
