#include "compiler/verify/TypeRules.h"

#include <algorithm>

#include "compiler/ir/TypeText.h"
#include "compiler/text/Printer.h"

namespace ptodiff::verify {

namespace {

std::string dtypeText(DType dt) { return std::string(dtypeName(dt)); }
std::string spaceText(MemSpace s) { return std::string(memSpaceName(s)); }

Extent extentOf(const Type& t, int axis) { return t.validExtent(axis); }

std::optional<int64_t> constOf(const Extent& e) {
  if (e.isConst()) return e.value;
  return std::nullopt;
}

/// The valid shape of `t` with a statically full region dropped (the canonical form).
ValidShape canonicalValid(const Type& t) {
  Type copy = t;
  copy.canonicalizeValid();
  return copy.valid;
}

ValidShape makeValid(Extent rows, Extent cols, const Shape& shape) {
  Type t;
  t.shape = shape;
  t.valid = std::array<Extent, 2>{std::move(rows), std::move(cols)};
  t.canonicalizeValid();
  return t.valid;
}

std::string layoutText(const Layout& l) {
  std::string name;
  if (auto n = layoutShorthandName(l))
    name = std::string(*n);
  else
    name = "blayout=" + std::string(tileLayoutName(l.blayout)) + ", slayout=" + std::string(tileLayoutName(l.slayout));
  return name + (l.boxed() ? " (fractal " + std::to_string(l.fractal) + ")" : "");
}

bool extentAccepts(const Extent& expected, const Extent& actual) {
  return expected == actual || (expected.kind == Extent::Kind::Symbol && actual.kind == Extent::Kind::Dynamic);
}

bool validAccepts(const Type& expected, const Type& actual) {
  for (int axis = 0; axis < 2; ++axis)
    if (!extentAccepts(extentOf(expected, axis), extentOf(actual, axis))) return false;
  return true;
}

bool hasShape(const Type& t) { return t.isTensor() || t.isTile() || t.isBuffer(); }
bool hasStorage(const Type& t) { return t.isTile() || t.isBuffer(); }

std::string kindText(Type::Kind k) {
  switch (k) {
    case Type::Kind::None: return "no value";
    case Type::Kind::Scalar: return "a Scalar";
    case Type::Kind::Tensor: return "a Tensor";
    case Type::Kind::Tile: return "a Tile";
    case Type::Kind::Buffer: return "a Buffer";
    case Type::Kind::Ptr: return "a Ptr";
  }
  return "?";
}

}  // namespace

// ---- rendering ----

std::string aSpace(MemSpace space) { return (space == MemSpace::Acc ? "an " : "a ") + spaceText(space); }

std::string extentText(const Extent& e) { return ptodiff::extentText(e, "?"); }

std::string validText(const Type& t) {
  ValidShape v = canonicalValid(t);
  if (!v) return "full";
  return "[" + extentText((*v)[0]) + ", " + extentText((*v)[1]) + "]";
}

std::string typeText(const Type& t) {
  if (t.kind == Type::Kind::None) return "no value";
  return printType(t);
}

std::string typeDifference(const Type& a, const Type& b) {
  if (a.kind != b.kind) return kindText(a.kind) + " vs " + kindText(b.kind);
  if (a.kind == Type::Kind::None || a.kind == Type::Kind::Ptr) return "";
  if (a.dtype != b.dtype) return "dtype " + dtypeText(a.dtype) + " vs " + dtypeText(b.dtype);
  if (!hasShape(a)) return "";
  if (a.shape != b.shape) return "shape " + shapeText(a.shape) + " vs " + shapeText(b.shape);
  if (!hasStorage(a)) return "";
  if (a.space != b.space) return "memory space " + spaceText(a.space) + " vs " + spaceText(b.space);
  if (a.layout != b.layout) return "layout " + layoutText(a.layout) + " vs " + layoutText(b.layout);
  if (!validAccepts(a, b)) return "valid_shape " + validText(a) + " vs " + validText(b);
  return "";
}

bool typeAccepts(const Type& expected, const Type& actual) {
  if (expected.kind != actual.kind) return false;
  if (expected.kind == Type::Kind::None || expected.kind == Type::Kind::Ptr) return true;
  if (expected.dtype != actual.dtype) return false;
  if (!hasShape(expected)) return true;
  if (expected.shape != actual.shape) return false;
  if (!hasStorage(expected)) return true;
  return expected.space == actual.space && expected.layout == actual.layout && validAccepts(expected, actual);
}

// ---- storage rules ----

bool isTileDType(DType dt) {
  switch (dt) {
    case DType::FP16:
    case DType::BF16:
    case DType::FP32:
    case DType::INT8:
    case DType::INT32: return true;
    case DType::UINT8:
    case DType::INT64:
    case DType::INDEX:
    case DType::BOOL: return false;
  }
  return false;
}

bool spaceHoldsDType(MemSpace space, DType dt) {
  switch (space) {
    case MemSpace::Vec:
    case MemSpace::Mat: return isTileDType(dt);
    case MemSpace::Left:
    case MemSpace::Right: return dt == DType::FP16 || dt == DType::BF16 || dt == DType::FP32 || dt == DType::INT8;
    case MemSpace::Acc: return dt == DType::FP32 || dt == DType::INT32;
  }
  return false;
}

std::string dtypesOfSpace(MemSpace space) {
  switch (space) {
    case MemSpace::Vec:
    case MemSpace::Mat: return "FP16, BF16, FP32, INT8 or INT32";
    case MemSpace::Left:
    case MemSpace::Right: return "FP16, BF16, FP32 or INT8";
    case MemSpace::Acc: return "FP32 or INT32";
  }
  return "";
}

std::optional<Box> fractalBox(const Layout& layout, DType dt) {
  if (!layout.boxed()) return std::nullopt;
  // A box holds `fractal` bytes in 16 lines; the other side is what fits in one line.
  int64_t inner = layout.fractal / dtypeSize(dt) / 16;
  if (layout.slayout == TileLayout::col_major) return Box{inner, 16};
  return Box{16, inner};
}

std::string tileTypeProblem(const Type& t, PitchRule pitch) {
  const int64_t rows = t.rows(), cols = t.cols();
  const std::string space = spaceText(t.space), dt = dtypeText(t.dtype);
  if (!spaceHoldsDType(t.space, t.dtype))
    return aSpace(t.space) + " tile cannot hold " + dt + "; expected " + dtypesOfSpace(t.space);
  for (int axis = 0; axis < 2; ++axis) {
    std::optional<int64_t> v = constOf(extentOf(t, axis));
    if (v && (*v < 0 || *v > t.shape[axis]))
      return "valid_shape " + validText(t) + " lies outside the shape " + shapeText(t.shape) +
             "; expected 0 <= valid <= shape on each axis";
  }
  const int64_t esize = dtypeSize(t.dtype);
  if (t.space == MemSpace::Vec && pitch == PitchRule::Check && !t.layout.boxed()) {
    bool colMajor = t.layout.blayout == TileLayout::col_major;
    int64_t line = colMajor ? rows : cols;
    if (line * esize % 32 != 0)
      return std::string("Vec tile ") + shapeText(rows, cols) + " has " + (colMajor ? "a column" : "a row") + " of " +
             std::to_string(line) + " x " + dt + " = " + std::to_string(line * esize) +
             " bytes; expected a multiple of 32 bytes (" + std::to_string(32 / std::min<int64_t>(esize, 32)) +
             (colMajor ? " rows" : " columns") + " of " + dt + ")";
  }
  if (auto box = fractalBox(t.layout, t.dtype)) {
    if (box->rows <= 0 || box->cols <= 0)
      return "fractal " + std::to_string(t.layout.fractal) + " is too small for " + dt + "; expected 512 or 1024";
    if (rows % box->rows != 0 || cols % box->cols != 0)
      return space + " tile " + shapeText(rows, cols) + " is not a whole number of " + std::to_string(box->rows) +
             " x " + std::to_string(box->cols) + " " + dt + " boxes; expected rows a multiple of " +
             std::to_string(box->rows) + " and columns a multiple of " + std::to_string(box->cols);
  }
  return "";
}

std::string bufferTypeProblem(const Type& t) {
  const std::string space = spaceText(t.space), dt = dtypeText(t.dtype);
  bool byteRoot = t.dtype == DType::UINT8 && t.space == MemSpace::Vec;
  if (!byteRoot && !spaceHoldsDType(t.space, t.dtype))
    return aSpace(t.space) + " buffer cannot hold " + dt + "; expected " + dtypesOfSpace(t.space) +
           (t.space == MemSpace::Vec ? " (or UINT8 for a byte root)" : "");
  if (t.rows() <= 0 || t.cols() <= 0)
    return "buffer shape " + shapeText(t.shape) + " is empty; expected positive extents";
  for (int axis = 0; axis < 2; ++axis) {
    std::optional<int64_t> v = constOf(extentOf(t, axis));
    if (v && (*v < 0 || *v > t.shape[axis]))
      return "valid_shape " + validText(t) + " lies outside the shape " + shapeText(t.shape) +
             "; expected 0 <= valid <= shape on each axis (or -1 for a dynamic descriptor)";
  }
  return "";
}

// ---- valid-extent rules ----

Extent windowValid(const Extent& sourceValid, int64_t sourceExtent, const Extent& offset, int64_t window,
                   const Extent* requested) {
  // available = clamp(sourceValid - offset, 0, window)
  Extent available = Extent::dynamic();
  if (sourceValid.isConst() && offset.isConst())
    available = Extent::constant(std::clamp<int64_t>(sourceValid.value - offset.value, 0, window));
  else if (offset == Extent::constant(0) && window == sourceExtent)
    available = sourceValid;  // 0 <= sourceValid <= sourceExtent = window: the clamp is the identity
  else if (sourceValid == Extent::constant(sourceExtent))
    available = Extent::constant(window);  // the window lies inside the source (checked at run time)

  if (!requested) return available;
  if (requested->isConst() && available.isConst()) return Extent::constant(std::min(requested->value, available.value));
  if (available == Extent::constant(window)) return *requested;  // requested <= window
  if (*requested == available) return available;
  return Extent::dynamic();
}

ValidOrError assembleValid(const Type& target, const Type& source, const std::array<Extent, 2>& offset) {
  const Extent tr = extentOf(target, 0), tc = extentOf(target, 1);
  const Extent sr = extentOf(source, 0), sc = extentOf(source, 1);
  const Extent& orow = offset[0];
  const Extent& ocol = offset[1];
  if (!canonicalValid(target)) return {};  // a fully valid target stays full
  auto isZero = [](const Extent& e) { return e == Extent::constant(0); };
  if (isZero(sr) || isZero(sc)) return {target.valid, ""};  // nothing written

  bool allConst = tr.isConst() && tc.isConst() && sr.isConst() && sc.isConst() && orow.isConst() && ocol.isConst();
  if (allConst) {
    const int64_t a0 = tr.value, a1 = tc.value, b0 = orow.value, b1 = ocol.value, b0e = b0 + sr.value,
                  b1e = b1 + sc.value;
    std::optional<std::pair<int64_t, int64_t>> u;
    if (a0 == 0 || a1 == 0) {
      if (b0 == 0 && b1 == 0) u = {sr.value, sc.value};  // an empty target takes the source's valid at 0
    } else if (b0e <= a0 && b1e <= a1) {
      u = {a0, a1};  // written inside the valid region
    } else if (b0 == 0 && b1 == 0 && b0e >= a0 && b1e >= a1) {
      u = {b0e, b1e};  // written over the whole valid region
    } else if (b0 == 0 && b0e == a0 && b1 <= a1) {
      u = {a0, std::max(a1, b1e)};  // same rows, abutting or overlapping columns
    } else if (b1 == 0 && b1e == a1 && b0 <= a0) {
      u = {std::max(a0, b0e), a1};  // same columns, abutting or overlapping rows
    }
    if (!u)
      return {std::nullopt,
              "the union of the target's valid region " + validText(target) + " and the written rectangle at [" +
                  std::to_string(b0) + ", " + std::to_string(b1) + "] of extent " + shapeText(sr.value, sc.value) +
                  " is not a prefix rectangle; expected the write to extend the valid region along one axis"};
    return {makeValid(Extent::constant(u->first), Extent::constant(u->second), target.shape), ""};
  }

  // Symbolic: the write may extend one axis when it spans exactly the other from 0.
  bool sameRows = isZero(orow) && sr == tr;
  bool sameCols = isZero(ocol) && sc == tc;
  if (sameRows && sameCols) return {target.valid, ""};
  if (sameRows && ocol.isConst() && tc.isConst() && sc.isConst() && ocol.value <= tc.value)
    return {makeValid(tr, Extent::constant(std::max(tc.value, ocol.value + sc.value)), target.shape), ""};
  if (sameCols && orow.isConst() && tr.isConst() && sr.isConst() && orow.value <= tr.value)
    return {makeValid(Extent::constant(std::max(tr.value, orow.value + sr.value)), tc, target.shape), ""};
  return {makeValid(Extent::dynamic(), Extent::dynamic(), target.shape), ""};
}

ValidOrError reshapeValid(const Type& source, int64_t rows, int64_t cols) {
  if (!canonicalValid(source)) return {};
  const int64_t C = source.cols();
  const Extent vr = extentOf(source, 0), vc = extentOf(source, 1);
  const std::string region = "valid_shape " + validText(source) + " of a " + shapeText(source.shape) + " tile";
  if (vr.isConst() && vc.isConst()) {
    const int64_t P = vr.value * vc.value;
    if (P != 0 && vc.value != C && vr.value != 1)
      return {std::nullopt, region + " is not a row-major prefix; expected valid columns = " + std::to_string(C) +
                                " or one valid row"};
    if (P % cols == 0) return {makeValid(Extent::constant(P / cols), Extent::constant(cols), {rows, cols}), ""};
    if (P <= cols) return {makeValid(Extent::constant(1), Extent::constant(P), {rows, cols}), ""};
    return {std::nullopt, "the " + std::to_string(P) + " valid elements of " + region +
                              " are not a prefix rectangle of " + shapeText(rows, cols) + "; expected " +
                              std::to_string(cols) + " to divide " + std::to_string(P) + " or at most " +
                              std::to_string(cols) + " valid elements"};
  }
  if (!vc.isConst())
    return {std::nullopt, region + " has runtime valid columns; expected static valid columns for a reshape"};
  if (vc.value != C)
    return {std::nullopt,
            region + " is not provably a row-major prefix; expected valid columns = " + std::to_string(C)};
  if (cols != C)
    return {std::nullopt, region + " has runtime valid rows; expected the column count to stay " + std::to_string(C)};
  return {makeValid(vr, Extent::constant(cols), {rows, cols}), ""};
}

Layout transposedLayout(const Layout& layout) {
  auto flip = [](TileLayout l) {
    switch (l) {
      case TileLayout::row_major: return TileLayout::col_major;
      case TileLayout::col_major: return TileLayout::row_major;
      case TileLayout::none_box: return TileLayout::none_box;
    }
    return l;
  };
  return Layout{flip(layout.blayout), flip(layout.slayout), layout.fractal};
}

Type transposedType(const Type& t) {
  Type out = t;
  out.shape = Shape{t.cols(), t.rows()};
  if (t.valid) out.valid = std::array<Extent, 2>{(*t.valid)[1], (*t.valid)[0]};
  out.layout = transposedLayout(t.layout);
  return out;
}

bool storedColumnByColumn(const Type& t) {
  return !t.layout.boxed() && t.layout.blayout == TileLayout::col_major && t.rows() > 1 && t.cols() > 1;
}

}  // namespace ptodiff::verify
