// View and valid-extent steps: slice, extract, assemble (full targets, growing partial targets,
// create-based tiles), reshape, static and runtime set_validshape, runtime-valid loads.
//
// Every window is decided statically inside its parent: static offsets are drawn in range,
// runtime offsets are scalars whose every value keeps the window inside, and runtime offsets are
// used only on axes where the parent is fully valid (so the window's valid extent stays static).
// Column offsets and widths are 32-byte multiples (W16).
#include <algorithm>

#include "compiler/verify/TypeRules.h"
#include "fuzz/gen/detail/KernelGenerator.h"

namespace ptodiff::fuzz::detail {

namespace {

/// The mask a window of `src` has in every run: the intersection over every offset pair.
Mask windowMask(const Mask& src, int64_t rows, int64_t cols, int64_t r0lo, int64_t r0hi, int64_t c0lo, int64_t c0hi) {
  if (src.full()) return Mask::all(rows, cols);
  Mask m = Mask::all(rows, cols);
  for (int64_t r0 = r0lo; r0 <= r0hi; ++r0)
    for (int64_t c0 = c0lo; c0 <= c0hi; ++c0) m = m.intersect(src.window(r0, c0, rows, cols));
  return m;
}

}  // namespace

// ---- emitters ----

std::array<int64_t, 2> KernelGenerator::sliceValid(const TileVal& src, int64_t rows, int64_t cols,
                                                  const IndexExpr& rowOff, const IndexExpr& colOff,
                                                  std::optional<std::array<int64_t, 2>> requested) const {
  auto axisValid = [&](int axis, const IndexExpr& off, int64_t window) {
    const int64_t sourceValid = axis == 0 ? src.validRows() : src.validCols();
    const std::optional<int64_t> req = requested ? std::optional<int64_t>((*requested)[static_cast<size_t>(axis)])
                                                 : std::nullopt;
    // A runtime offset is only used over a fully valid axis: the window is then fully valid.
    if (!off.isStatic()) return req ? std::min(*req, window) : window;
    return windowValid(sourceValid, off.lo, window, req);
  };
  return {axisValid(0, rowOff, rows), axisValid(1, colOff, cols)};
}

TileVal KernelGenerator::emitSlice(const TileVal& src, int64_t rows, int64_t cols, IndexExpr rowOff, IndexExpr colOff,
                                   std::optional<std::array<int64_t, 2>> requested) {
  TileVal r = src;
  std::array<Extent, 2> valid;
  if (src.runtimeValid) {
    // The valid extents the verifier infers from the source's runtime ones (the generator's type
    // must be the program's: a region compares it with what it yields).
    const IndexExpr* offset[2] = {&rowOff, &colOff};
    const int64_t window[2] = {rows, cols}, extent[2] = {src.rows(), src.cols()};
    for (size_t axis = 0; axis < 2; ++axis) {
      const Extent at = offset[axis]->isStatic() ? Extent::constant(offset[axis]->lo) : Extent::dynamic();
      const Extent want = requested ? Extent::constant((*requested)[axis]) : Extent::dynamic();
      valid[axis] = verify::windowValid(src.type.validExtent(static_cast<int>(axis)), extent[axis], at, window[axis],
                                        requested ? &want : nullptr);
    }
    r.def = Mask::none(rows, cols);  // as its source: no lane is defined in every run
  } else {
    const auto [vr, vc] = sliceValid(src, rows, cols, rowOff, colOff, requested);
    valid = {Extent::constant(vr), Extent::constant(vc)};
    r.def = windowMask(src.def, rows, cols, rowOff.lo, rowOff.hi, colOff.lo, colOff.hi);
  }
  std::vector<ExprPtr> args;
  args.push_back(name(src.name));
  args.push_back(shape(rows, cols));
  args.push_back(list(std::move(rowOff.expr), std::move(colOff.expr)));
  args.push_back(requested ? list(intLit((*requested)[0]), intLit((*requested)[1])) : nullptr);
  r.name = emitAssign("t", call(Opcode::TileSlice, std::move(args)));
  r.type.shape = {rows, cols};
  r.type.valid = valid;
  r.type.canonicalizeValid();
  r.runtimeValid = std::any_of(valid.begin(), valid.end(), [](const Extent& e) { return !e.isConst(); });
  // A runtime window's valid lanes are valid lanes of its source, defined in each run when those are.
  r.validDefined = r.runtimeValid ? src.validDefined : r.def.covers(r.validRows(), r.validCols());
  r.origin = Origin::Window;  // same storage family and pitch as the source
  return r;
}

TileVal KernelGenerator::emitAssemble(const TileVal& target, const TileVal& source, IndexExpr rowOff,
                                      IndexExpr colOff) {
  std::array<int64_t, 2> valid = {target.rows(), target.cols()};
  if (!target.fullyValid())
    valid = *assembleValid(target.rows(), target.cols(), target.validRows(), target.validCols(), rowOff.lo, colOff.lo,
                           source.validRows(), source.validCols());
  // The whole physical source lands in the window, poison lanes included (semantics.md §2); with
  // runtime offsets a lane is defined if it is under every placement.
  Mask def = Mask::all(target.rows(), target.cols());
  if (!target.def.full() || !source.def.full()) {
    for (int64_t r0 = rowOff.lo; r0 <= rowOff.hi; ++r0)
      for (int64_t c0 = colOff.lo; c0 <= colOff.hi; ++c0) {
        Mask m = target.def;
        m.paste(r0, c0, source.def);
        def = def.intersect(m);
      }
  }
  std::vector<ExprPtr> args;
  args.push_back(name(target.name));
  args.push_back(name(source.name));
  args.push_back(list(std::move(rowOff.expr), std::move(colOff.expr)));
  TileVal r = target;
  r.name = emitAssign("t", call(Opcode::TileAssemble, std::move(args)));
  setStaticValid(r.type, valid[0], valid[1]);
  r.def = std::move(def);
  r.validDefined = r.def.covers(valid[0], valid[1]);
  r.range = target.range.hull(source.range);
  r.storage = newStorage();
  r.origin = Origin::Own;
  return r;
}

TileVal KernelGenerator::emitSetValid(const TileVal& src, ExprPtr vr, ExprPtr vc, ValidShape valid, bool runtime) {
  std::vector<ExprPtr> args;
  args.push_back(name(src.name));
  args.push_back(std::move(vr));
  args.push_back(std::move(vc));
  TileVal r = src;
  r.name = emitAssign("t", call(Opcode::TileSetValidShape, std::move(args)));
  r.type.valid = std::move(valid);
  r.type.canonicalizeValid();
  r.runtimeValid = runtime;
  // Exposed lanes keep their state: the mask is the source's. Callers pick extents it covers.
  r.validDefined = runtime || r.def.covers(r.validRows(), r.validCols());
  r.storage = newStorage();
  // V4: after a setter only the new metadata version may be used.
  retired_.insert(src.storage);
  return r;
}

// ---- slices and extracts ----

int KernelGenerator::stepSlice(int) {
  // Windows of runtime-valid tiles only outside the contract (V1), at static offsets.
  std::optional<TileVal> src = pickTile([&](const TileVal& v) {
    return usable(v) && v.space() == MemSpace::Vec && (!v.runtimeValid || !inContract_) && viewableLayout(v) &&
           v.cols() >= unitOf(v.dtype()) && (v.origin != Origin::Relabel || outOfContractAllowed());
  });
  if (!src) return 1;
  if (src->runtimeValid) {
    const int64_t unit = unitOf(src->dtype()), R = src->rows(), C = src->cols();
    const int64_t rows = colMajorLayout(*src) ? R : choose_.between(1, R), cols = unit * choose_.between(1, C / unit);
    const int64_t r0 = choose_.between(0, R - rows), c0 = unit * choose_.between(0, (C - cols) / unit);
    std::optional<std::array<int64_t, 2>> requested;
    if (has(Feature::StaticPartialValid) && choose_.chance(30))
      requested = std::array<int64_t, 2>{choose_.between(0, rows), choose_.between(0, cols)};
    addTile(emitSlice(*src, rows, cols, {intLit(r0), r0, r0}, {intLit(c0), c0, c0}, requested));
    return 1;
  }
  const int64_t unit = unitOf(src->dtype()), R = src->rows(), C = src->cols();
  // A window of a DN tile keeps every row (docs/decisions.md 18a).
  const int64_t rows = colMajorLayout(*src) ? R : choose_.between(1, R), cols = unit * choose_.between(1, C / unit);
  IndexExpr rowOff = offsetExpr(R - rows, 1, src->validRows() == R);
  IndexExpr colOff = offsetExpr(C - cols, unit, src->validCols() == C);
  std::optional<std::array<int64_t, 2>> requested;
  if (has(Feature::StaticPartialValid) && choose_.chance(30))
    requested = std::array<int64_t, 2>{choose_.between(0, rows), choose_.between(0, cols)};
  // W17: a zero-valid window is rejected by the lowering (an error, not a fallback to Tile).
  const auto [vr, vc] = sliceValid(*src, rows, cols, rowOff, colOff, requested);
  const bool empty = vr == 0 || vc == 0;
  if (empty && !outOfContractAllowed()) return 1;
  addTile(emitSlice(*src, rows, cols, std::move(rowOff), std::move(colOff), requested));
  if (src->origin == Origin::Relabel || empty) leaveContract();  // S20: slicing a relabelled view
  return 1;
}

int KernelGenerator::stepExtract(int) {
  std::optional<TileVal> src = pickTile([&](const TileVal& v) {
    return usable(v) && v.space() == MemSpace::Vec && !v.runtimeValid && viewableLayout(v) &&
           v.cols() >= unitOf(v.dtype());
  });
  if (!src) return 1;
  const int64_t unit = unitOf(src->dtype()), R = src->rows(), C = src->cols();
  const int64_t rows = choose_.between(1, R), cols = unit * choose_.between(1, C / unit);
  IndexExpr rowOff = offsetExpr(R - rows, 1, src->validRows() == R);
  IndexExpr colOff = offsetExpr(C - cols, unit, src->validCols() == C);
  const int64_t vr = rowOff.isStatic() ? windowValid(src->validRows(), rowOff.lo, rows, std::nullopt) : rows;
  const int64_t vc = colOff.isStatic() ? windowValid(src->validCols(), colOff.lo, cols, std::nullopt) : cols;
  const Mask window = windowMask(src->def, rows, cols, rowOff.lo, rowOff.hi, colOff.lo, colOff.hi);
  std::vector<ExprPtr> args;
  args.push_back(name(src->name));
  args.push_back(std::move(rowOff.expr));
  args.push_back(std::move(colOff.expr));
  args.push_back(shape(rows, cols));
  args.push_back(Expr::spaceRef(MemSpace::Vec));
  TileVal r;
  r.name = emitAssign("t", call(Opcode::TileExtract, std::move(args)));
  r.type = tileType(rows, cols, src->dtype(), MemSpace::Vec, vr, vc);
  r.def = window.intersect(Mask::rect(rows, cols, vr, vc));  // a copy of the valid region only
  r.validDefined = r.def.covers(vr, vc);
  r.range = src->range;
  r.storage = newStorage();
  r.pitchCols = cols;
  addTile(r);
  leaveContract();  // Vec -> Vec extract is not among the contract's ops
  return 1;
}

// ---- assemble ----

int KernelGenerator::stepAssemble(int) {
  std::optional<TileVal> target = pickTile([&](const TileVal& v) {
    return usable(v) && v.space() == MemSpace::Vec && !v.runtimeValid && viewableLayout(v) &&
           v.origin != Origin::Window && v.cols() >= unitOf(v.dtype());
  });
  if (!target) return 1;
  const TileVal T = *target;
  const int64_t unit = unitOf(T.dtype()), R = T.rows(), C = T.cols();
  const bool pitchFree = outOfContractAllowed();  // W7: source and target row pitches match
  auto samePitch = [&](const TileVal& s) { return s.pitchCols == T.pitchCols; };
  // W17: an assemble writing a zero-valid window is rejected by the lowering.
  auto nonEmpty = [&](const TileVal& s) { return s.validRows() > 0 && s.validCols() > 0; };
  auto inContract = [&](const TileVal& s) { return samePitch(s) && nonEmpty(s); };
  // A fully valid, fully defined tile to cut sources from.
  auto donor = [&](const TileVal& x) {
    return usable(x) && x.space() == MemSpace::Vec && x.dtype() == T.dtype() && !x.runtimeValid && plainLayout(x) &&
           x.fullyValid() && x.def.full() && x.cols() == C && samePitch(x);
  };

  if (T.fullyValid()) {
    // Any fully defined source anywhere inside; the target stays fully valid.
    // A window cut with a smaller valid_shape still lands whole (semantics.md §2): its lanes
    // outside the valid region hold the parent's data and become valid in the target, which a
    // lowering copying only the source's valid region loses. Extents >= 1 keep W17.
    auto sourceValid = [&](int64_t rows, int64_t cols) -> std::optional<std::array<int64_t, 2>> {
      if (!choose_.chance(40)) return std::nullopt;
      return std::array<int64_t, 2>{choose_.between(1, rows), choose_.between(1, cols)};
    };
    std::optional<TileVal> source;
    switch (choose_.weighted({3, 2, 2})) {
      case 1: {  // a window of the target itself: the source overlaps the target (W9, W10)
        const int64_t rows = colMajorLayout(T) ? R : choose_.between(1, R), cols = unit * choose_.between(1, C / unit);
        source = emitSlice(T, rows, cols, offsetExpr(R - rows, 1, true), offsetExpr(C - cols, unit, true),
                           sourceValid(rows, cols));
        addTile(*source);
        break;
      }
      case 2: {  // a window of another tile with the same pitch
        std::optional<TileVal> x = pickTile(donor);
        if (!x) return 1;
        const int64_t rows = choose_.between(1, std::min(R, x->rows())), cols = unit * choose_.between(1, C / unit);
        source = emitSlice(*x, rows, cols, offsetExpr(x->rows() - rows, 1, true), offsetExpr(C - cols, unit, true),
                           sourceValid(rows, cols));
        addTile(*source);
        break;
      }
      default:
        source = pickTile([&](const TileVal& s) {
          return usable(s) && s.space() == MemSpace::Vec && s.dtype() == T.dtype() && !s.runtimeValid &&
                 viewableLayout(s) && s.rows() <= R && s.cols() <= C && s.cols() % unit == 0 && s.def.full() &&
                 (inContract(s) || pitchFree);
        });
        if (!source) return 1;
        break;
    }
    IndexExpr rowOff = offsetExpr(R - source->rows(), 1, true);
    IndexExpr colOff = offsetExpr(C - source->cols(), unit, true);
    addTile(emitAssemble(T, *source, std::move(rowOff), std::move(colOff)));
    if (!inContract(*source)) leaveContract();
    return 1;
  }

  const int64_t vr = T.validRows(), vc = T.validCols();
  if (vr == 0 || vc == 0) {
    // An empty target takes the source's valid region at offset 0.
    std::optional<TileVal> source = pickTile([&](const TileVal& s) {
      return usable(s) && s.space() == MemSpace::Vec && s.dtype() == T.dtype() && !s.runtimeValid && plainLayout(s) &&
             s.rows() <= R && s.cols() <= C && (inContract(s) || pitchFree);
    });
    if (!source) return 1;
    addTile(emitAssemble(T, *source, {intLit(0), 0, 0}, {intLit(0), 0, 0}));
    if (!inContract(*source)) leaveContract();
    return 1;
  }

  // Grow the valid region along one axis with a window of a donor, requested valid so the
  // written rectangle abuts (or overlaps) the target's valid region exactly.
  std::optional<TileVal> x = pickTile([&](const TileVal& d) { return donor(d) && d.rows() >= R; });
  if (!x) return 1;
  const bool canGrowRows = vr < R, canGrowCols = vc < C && (vc / unit) * unit <= C - unit;
  if (!canGrowRows && !canGrowCols) return 1;
  const bool growRows = canGrowRows && (!canGrowCols || choose_.chance(50));
  if (growRows) {
    const int64_t r0 = choose_.between(0, std::min(vr, R - 1));
    const int64_t rows = choose_.between(1, R - r0);
    const int64_t xo = choose_.between(0, x->rows() - rows);
    TileVal s = emitSlice(*x, rows, C, {intLit(xo), xo, xo}, {intLit(0), 0, 0}, std::array<int64_t, 2>{rows, vc});
    addTile(s);
    addTile(emitAssemble(T, s, {intLit(r0), r0, r0}, {intLit(0), 0, 0}));
  } else {
    const int64_t c0 = unit * choose_.between(0, std::min(vc, C - unit) / unit);
    const int64_t cols = unit * choose_.between(1, (C - c0) / unit);
    const int64_t rows = choose_.between(vr, R);
    const int64_t xc = unit * choose_.between(0, (C - cols) / unit);
    TileVal s = emitSlice(*x, rows, cols, {intLit(0), 0, 0}, {intLit(xc), xc, xc}, std::array<int64_t, 2>{vr, cols});
    addTile(s);
    addTile(emitAssemble(T, s, {intLit(0), 0, 0}, {intLit(c0), c0, c0}));
  }
  return 1;
}

TileVal KernelGenerator::emitCreate(int64_t rows, int64_t cols, DType dt) {
  std::vector<ExprPtr> args;
  args.push_back(shape(rows, cols));
  args.push_back(Expr::dtypeRef(dt));
  args.push_back(nullptr);
  TileVal c;
  c.name = emitAssign("t", call(Opcode::TileCreate, std::move(args)));
  c.type = Type::tile(rows, cols, dt, MemSpace::Vec);
  c.def = Mask::none(rows, cols);  // every element poison
  c.validDefined = false;
  c.storage = newStorage();
  c.pitchCols = cols;
  return c;
}

int KernelGenerator::stepCreateAssemble(int) {
  auto at = [&](int64_t v) { return IndexExpr{intLit(v), v, v}; };

  if (choose_.chance(50)) {
    // create, then two assembles that together cover it: the halves of a donor, swapped.
    std::optional<TileVal> x = pickTile([&](const TileVal& v) {
      return usable(v) && v.space() == MemSpace::Vec && !v.runtimeValid && plainLayout(v) && v.fullyValid() &&
             v.def.full() && v.pitchCols == v.cols() && v.cols() % unitOf(v.dtype()) == 0 &&
             (v.cols() >= 2 * unitOf(v.dtype()) || v.rows() >= 2);
    });
    if (!x) return 1;
    const int64_t unit = unitOf(x->dtype()), R = x->rows(), C = x->cols();
    TileVal c = emitCreate(R, C, x->dtype());
    c.range = x->range;
    const bool splitCols = C >= 2 * unit && (R < 2 || choose_.chance(50));
    TileVal first, second;
    if (splitCols) {
      const int64_t c1 = unit * choose_.between(1, C / unit - 1);
      first = emitSlice(*x, R, C - c1, at(0), at(c1), std::nullopt);
      TileVal half = emitAssemble(c, first, at(0), at(0));
      second = emitSlice(*x, R, c1, at(0), at(0), std::nullopt);
      addTile(emitAssemble(half, second, at(0), at(C - c1)));
    } else {
      const int64_t r1 = choose_.between(1, R - 1);
      first = emitSlice(*x, R - r1, C, at(r1), at(0), std::nullopt);
      TileVal half = emitAssemble(c, first, at(0), at(0));
      second = emitSlice(*x, r1, C, at(0), at(0), std::nullopt);
      addTile(emitAssemble(half, second, at(R - r1), at(0)));
    }
    addTile(first);
    addTile(second);
    return 1;
  }

  // create, emptied with set_validshape(0, 0), then filled at the origin by a source.
  std::optional<TileVal> s = pickTile([&](const TileVal& v) {
    return usable(v) && v.space() == MemSpace::Vec && !v.runtimeValid && plainLayout(v) &&
           v.cols() % unitOf(v.dtype()) == 0 &&
           ((v.validRows() > 0 && v.validCols() > 0) || outOfContractAllowed());  // W17
  });
  if (!s) return 1;
  if (s->validRows() == 0 || s->validCols() == 0) leaveContract();
  const int64_t C = s->pitchCols;  // the source's pitch: W7 holds
  int64_t R = s->rows() + choose_.below(5);
  while (R > s->rows() && R * C > config_.maxTileElements) --R;
  TileVal c = emitCreate(R, C, s->dtype());
  c.range = s->range;
  ValidShape empty = std::array<Extent, 2>{Extent::constant(0), Extent::constant(0)};
  TileVal e = emitSetValid(c, intLit(0), intLit(0), empty, false);
  addTile(emitAssemble(e, *s, at(0), at(0)));
  return 1;
}

// ---- reshape ----

int KernelGenerator::stepReshape(int) {
  std::optional<TileVal> src = pickTile([&](const TileVal& v) {
    // A DN source is read through a row-major copy of its shape, whose rows must be whole 32-byte
    // units (docs/decisions.md 18b).
    return usable(v) && v.space() == MemSpace::Vec && !v.runtimeValid && viewableLayout(v) &&
           v.cols() >= unitOf(v.dtype()) && (!colMajorLayout(v) || v.cols() % unitOf(v.dtype()) == 0) &&
           (v.origin != Origin::Window || outOfContractAllowed());
  });
  if (!src) return 1;
  const int64_t unit = unitOf(src->dtype()), n = src->rows() * src->cols();
  std::vector<std::array<int64_t, 2>> shapes;
  for (int64_t cols = unit; cols <= n; cols += unit) {
    if (n % cols != 0 || cols == src->cols()) continue;
    if (reshapeValid(src->cols(), src->validRows(), src->validCols(), n / cols, cols)) shapes.push_back({n / cols, cols});
  }
  if (shapes.empty()) return 1;
  const auto [rows, cols] = choose_.pick(shapes);
  const auto valid = *reshapeValid(src->cols(), src->validRows(), src->validCols(), rows, cols);
  std::vector<ExprPtr> args;
  args.push_back(name(src->name));
  args.push_back(shape(rows, cols));
  TileVal r = *src;
  r.name = emitAssign("t", call(Opcode::TileReshape, std::move(args)));
  r.type = tileType(rows, cols, src->dtype(), MemSpace::Vec, valid[0], valid[1]);
  r.def = src->def.reshaped(rows, cols);
  r.validDefined = r.def.covers(valid[0], valid[1]);
  r.pitchCols = cols;
  r.origin = Origin::Relabel;
  addTile(r);
  // P11: a reshape needs a dense source pitch; a window's rows are strided.
  if (src->origin == Origin::Window || src->pitchCols != src->cols()) leaveContract();
  return 1;
}

// ---- valid extents ----

int KernelGenerator::stepSetValidStatic(int) {
  std::optional<TileVal> src = pickTile([&](const TileVal& v) {
    return usable(v) && v.space() == MemSpace::Vec && !v.runtimeValid && v.origin == Origin::Own && viewableLayout(v) &&
           !pinned_.count(v.storage);
  });
  if (!src) return 1;
  // Shrinking, or growing back over lanes that are still defined (they keep their state).
  const int64_t vr = choose_.between(0, src->rows());
  const int64_t maxCols = vr == 0 ? src->cols() : src->def.widestCoveredCols(vr);
  const int64_t vc = choose_.between(0, maxCols);
  ValidShape valid = std::array<Extent, 2>{Extent::constant(vr), Extent::constant(vc)};
  addTile(emitSetValid(*src, intLit(vr), intLit(vc), valid, false));
  return 1;
}

int KernelGenerator::stepRuntimeValid(int) {
  // A runtime extent in [0, maxExtent]: a scalar in scope, a new parameter, or an expression.
  auto extent = [&](int64_t maxExtent) -> std::pair<ExprPtr, Extent> {
    switch (choose_.weighted({3, 1, 1})) {
      case 1:
        if (const ScalarVal* s = pickScalar([&](const ScalarVal& v) {
              return v.dtype == DType::INDEX && v.lo >= 0 && v.hi <= maxExtent && v.hi > v.lo;
            }))
          return {name(s->name), Extent::named(s->name)};
        break;
      case 2: {
        std::string p = newParam("vx", DType::INDEX, ParamRole::ValidExtent, 0, maxExtent);
        return {binary(BinOp::Sub, intLit(maxExtent), name(p)), Extent::dynamic()};
      }
      default: break;
    }
    std::string p = newParam("vx", DType::INDEX, ParamRole::ValidExtent, 0, maxExtent);
    return {name(p), Extent::named(p)};
  };

  std::optional<TileVal> src = choose_.chance(50) ? pickTile([&](const TileVal& v) {
    return usable(v) && v.space() == MemSpace::Vec && !v.runtimeValid && v.origin == Origin::Own && plainLayout(v) &&
           v.def.full() && !pinned_.count(v.storage);
  })
                                                  : std::nullopt;
  if (src) {
    auto [vrExpr, vrExt] = extent(src->rows());
    auto [vcExpr, vcExt] = choose_.chance(40) ? std::pair<ExprPtr, Extent>{intLit(src->cols()), Extent::constant(src->cols())}
                                              : extent(src->cols());
    ValidShape valid = std::array<Extent, 2>{vrExt, vcExt};
    addTile(emitSetValid(*src, std::move(vrExpr), std::move(vcExpr), valid, true));
    return 1;
  }

  const DType dt = pickVecDType();
  const auto [rows, cols] = pickShape(dt);
  auto [vrExpr, vrExt] = extent(rows);
  auto [vcExpr, vcExt] = choose_.chance(40) ? std::pair<ExprPtr, Extent>{intLit(cols), Extent::constant(cols)}
                                            : extent(cols);
  IndexExpr row = offsetExpr(8, 1, true);
  const size_t t = inTensor(dt, row.hi + rows, cols);
  std::vector<ExprPtr> args;
  args.push_back(name(tensors_[t].name));
  args.push_back(list(std::move(row.expr), intLit(0)));
  args.push_back(shape(rows, cols));
  args.push_back(list(std::move(vrExpr), std::move(vcExpr)));
  args.push_back(nullptr);
  TileVal v;
  v.name = emitAssign("t", call(Opcode::TileLoad, std::move(args)));
  v.type = Type::tile(rows, cols, dt, MemSpace::Vec);
  v.type.valid = std::array<Extent, 2>{vrExt, vcExt};
  v.runtimeValid = true;
  v.def = Mask::none(rows, cols);  // no lane is defined in every run; the valid ones are in each
  v.range = Interval::of(-1.0, 1.0);
  v.storage = newStorage();
  v.pitchCols = cols;
  addTile(v);
  return 1;
}

}  // namespace ptodiff::fuzz::detail
