#include "compiler/ir/Type.h"

#include "compiler/target/ImplicitLayouts.h"

namespace ptodiff {

Layout implicitLayout(MemSpace space, int64_t rows, int64_t cols) {
  const ImplicitSpaceLayout implicit = implicitSpaceLayout(space);
  if (implicit.columnIsColMajor && cols == 1 && rows > 1)
    return Layout{TileLayout::col_major, implicit.slayout, implicit.fractal};
  return Layout{implicit.blayout, implicit.slayout, implicit.fractal};
}

namespace {
struct Shorthand {
  std::string_view name;
  TileLayout blayout, slayout;
};
constexpr Shorthand kShorthands[] = {
    {"NZ", TileLayout::col_major, TileLayout::row_major},
    {"ZN", TileLayout::row_major, TileLayout::col_major},
    {"ZZ", TileLayout::row_major, TileLayout::row_major},
    {"ND", TileLayout::row_major, TileLayout::none_box},
    {"DN", TileLayout::col_major, TileLayout::none_box},
};
}  // namespace

std::optional<Layout> layoutShorthand(std::string_view name, int fractal) {
  for (const auto& s : kShorthands)
    if (s.name == name) return Layout{s.blayout, s.slayout, fractal};
  return std::nullopt;
}

std::optional<std::string_view> layoutShorthandName(const Layout& layout) {
  for (const auto& s : kShorthands)
    if (s.blayout == layout.blayout && s.slayout == layout.slayout) return s.name;
  return std::nullopt;
}

Type Type::scalar(DType dt) {
  Type t;
  t.kind = Kind::Scalar;
  t.dtype = dt;
  return t;
}

Type Type::tensor(Shape shape, DType dt) {
  Type t;
  t.kind = Kind::Tensor;
  t.dtype = dt;
  t.shape = shape;
  return t;
}

Type Type::tile(int64_t rows, int64_t cols, DType dt, MemSpace space) {
  Type t;
  t.kind = Kind::Tile;
  t.dtype = dt;
  t.shape = {rows, cols};
  t.space = space;
  t.layout = implicitLayout(space, rows, cols);
  return t;
}

Type Type::buffer(int64_t rows, int64_t cols, DType dt, MemSpace space) {
  Type t = tile(rows, cols, dt, space);
  t.kind = Kind::Buffer;
  return t;
}

Extent Type::validExtent(int axis) const {
  if (valid) return (*valid)[axis];
  return Extent::constant(shape.at(axis));
}

void Type::canonicalizeValid() {
  if (valid && shape.size() == 2 && (*valid)[0] == Extent::constant(shape[0]) &&
      (*valid)[1] == Extent::constant(shape[1]))
    valid.reset();
}

}  // namespace ptodiff
