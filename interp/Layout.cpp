#include "interp/Layout.h"

#include <stdexcept>

namespace ptodiff {

std::optional<BoxShape> boxShape(const Layout& layout, DType dtype, std::string* why) {
  auto fail = [&](std::string reason) -> std::optional<BoxShape> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  if (!layout.boxed()) return fail("unboxed layout");
  const int64_t esize = dtypeSize(dtype);
  if (layout.fractal == 1024) {
    // The Acc fractal holds 16 x 16 elements of 4 bytes.
    if (esize != 4) return fail("fractal 1024 needs a 4-byte element type");
    return BoxShape{16, 16};
  }
  if (layout.fractal != 512) return fail("fractal " + std::to_string(layout.fractal) + " is not addressable");
  const int64_t c0 = 32 / esize;  // elements in one 32-byte row of a box
  if (layout.slayout == TileLayout::row_major) return BoxShape{16, c0};
  return BoxShape{c0, 16};
}

std::optional<AddressingKind> addressingOf(const Layout& layout) {
  using L = TileLayout;
  if (layout.slayout == L::none_box) return layout.blayout == L::col_major ? AddressingKind::DN : AddressingKind::ND;
  if (layout.blayout == L::col_major && layout.slayout == L::row_major) return AddressingKind::NZ;
  if (layout.blayout == L::row_major && layout.slayout == L::col_major) return AddressingKind::ZN;
  if (layout.blayout == L::row_major && layout.slayout == L::row_major) return AddressingKind::ZZ;
  return std::nullopt;  // col_major boxes in col_major order: no hardware layout
}

ElementAddressing::ElementAddressing(const HandleGeometry& g)
    : g_(g), kind_(addressingOf(g.layout)), esize_(dtypeSize(g.dtype)) {
  if (!kind_ || *kind_ == AddressingKind::ND || *kind_ == AddressingKind::DN) return;
  if (auto box = boxShape(g.layout, g.dtype); box && g.rows % box->rows == 0 && g.cols % box->cols == 0) {
    wholeBoxes_ = true;
    IR_ = box->rows;
    IC_ = box->cols;
  }
}

int64_t elementByteOffset(const HandleGeometry& g, int64_t r, int64_t c) {
  if (r < 0 || c < 0 || r >= g.rows || c >= g.cols)
    throw std::logic_error("elementByteOffset: element outside the handle");
  return ElementAddressing(g).offset(r, c);
}

int64_t handleSpanBytes(const HandleGeometry& g) {
  if (g.rows == 0 || g.cols == 0) return 0;
  auto kind = addressingOf(g.layout);
  if (kind == AddressingKind::ND) return (g.rows - 1) * g.pitchBytes + g.cols * dtypeSize(g.dtype);
  return g.rows * g.cols * dtypeSize(g.dtype);  // DN and boxed layouts are dense
}

}  // namespace ptodiff
