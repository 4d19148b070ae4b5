// Vec steps: loads, stores, elementwise and tile-scalar arithmetic with range guards, full,
// FP32 scalar expressions, and the out-of-contract reductions, Vec transposes and Vec moves.
#include <algorithm>
#include <cmath>

#include "compiler/verify/TypeRules.h"
#include "fuzz/gen/detail/KernelGenerator.h"

namespace ptodiff::fuzz::detail {

namespace {

/// Largest magnitude an operand may have before an op whose result would leave the bound:
/// clamping both operands to it keeps every product, sum and quotient small.
constexpr double kClamp = 8.0;

}  // namespace

std::array<int64_t, 2> KernelGenerator::pickShape(DType dt) {
  const int64_t unit = unitOf(dt);
  if (!workShapes_.empty() && !choose_.chance(25)) return choose_.pick(workShapes_);  // cols are multiples of 16
  int64_t rows = choose_.pick<int64_t>({16, 8, 1, 4, 32, 2, 12, 5, 3});
  const int64_t cols = unit * choose_.pick<int64_t>({4, 2, 1, 8, 3});
  while (rows > 1 && rows * cols > config_.maxTileElements) rows /= 2;
  return {rows, cols};
}

DType KernelGenerator::pickVecDType() {
  if (!has(Feature::OtherDTypes)) return DType::FP32;
  switch (choose_.weighted({5, 2, 2, 1})) {
    case 1: return DType::FP16;
    case 2: return DType::INT32;
    case 3: return DType::BF16;
    default: return DType::FP32;
  }
}

bool KernelGenerator::arithmeticAllowed(Opcode op, DType dt, bool& outOfContract) const {
  outOfContract = false;
  if (dt == DType::FP32) {
    const bool tileScalar = opInfo(op).family == OpFamily::TileScalar;
    return tileScalar ? has(Feature::TileScalar) : has(Feature::ElementwiseFP32);
  }
  if (dt != DType::FP16 && dt != DType::INT32) return false;  // BF16 is transfer-only
  if (!has(Feature::OtherDTypes)) return false;
  // Verifier: div, divs, lrelu and the unary ops are float-only.
  const OpFamily fam = opInfo(op).family;
  const bool floatOnly = fam == OpFamily::Unary || op == Opcode::TileDiv || op == Opcode::TileDivs ||
                         op == Opcode::TileLrelu;
  if (floatOnly && dt == DType::INT32) return false;
  // Contract S9: beyond FP32 only add and mul are selected.
  if (op == Opcode::TileAdd || op == Opcode::TileMul) return true;
  if (fam == OpFamily::TileScalar && !has(Feature::TileScalar)) return false;
  outOfContract = true;
  return outOfContractAllowed();
}

// ---- loads and stores ----

std::optional<TileVal> KernelGenerator::genLoad(bool allowPartial) {
  const DType dt = pickVecDType();
  const auto [rows, cols] = pickShape(dt);
  int64_t vr = rows, vc = cols;
  const bool partial = allowPartial && has(Feature::StaticPartialValid) && choose_.chance(35);
  if (partial) {
    vr = choose_.chance(10) ? 0 : choose_.between(1, rows);
    vc = choose_.chance(10) ? 0 : choose_.between(1, cols);
  }
  // Reads never race, so any block may read any rows: per-block rows or a runtime offset.
  IndexExpr row = (!blockIdx_.empty() && choose_.chance(50))
                      ? IndexExpr{mul(name(blockIdx_), intLit(rows)), 0, (blockNum_ - 1) * rows}
                      : offsetExpr(8, 1, true);
  const int64_t col = 8 * choose_.below(3);
  const size_t t = inTensor(dt, row.hi + vr, col + vc);
  return emitVecLoad(name(tensors_[t].name), std::move(row.expr), col, {rows, cols}, {vr, vc}, partial, dt,
                     inputRange(dt));
}

TileVal KernelGenerator::emitVecLoad(ExprPtr tensor, ExprPtr row, int64_t col, std::array<int64_t, 2> shapeRC,
                                     std::array<int64_t, 2> valid, bool statesValid, DType dt, Interval range) {
  const auto [rows, cols] = shapeRC;
  const auto [vr, vc] = valid;
  std::vector<ExprPtr> args;
  args.push_back(std::move(tensor));
  args.push_back(list(std::move(row), intLit(col)));
  args.push_back(shape(rows, cols));
  args.push_back(statesValid ? list(intLit(vr), intLit(vc)) : nullptr);
  args.push_back(nullptr);
  TileVal v;
  v.name = emitAssign("t", call(Opcode::TileLoad, std::move(args)));
  v.type = tileType(rows, cols, dt, MemSpace::Vec, vr, vc);
  v.def = Mask::rect(rows, cols, vr, vc);
  v.range = range;
  v.storage = newStorage();
  v.pitchCols = cols;
  return v;
}

int KernelGenerator::stepLoad(int) {
  if (!storedBands_.empty() && choose_.chance(25)) {
    addTile(loadBack(storedBands_[static_cast<size_t>(choose_.below(static_cast<int64_t>(storedBands_.size())))]));
    return 1;
  }
  addTile(*genLoad(true));
  return 1;
}

TileVal KernelGenerator::loadBack(const StoredBand& band) {
  const TileVal& stored = band.value;
  tensors_[band.tensor].readBack = true;
  // Only the stored tile's valid lanes reached GM: the load's valid region is theirs.
  const bool partial = stored.validRows() != stored.rows() || stored.validCols() != stored.cols();
  return emitVecLoad(name(currentTensorName(band.tensor)), band.row->clone(), band.col, {stored.rows(), stored.cols()},
                     {stored.validRows(), stored.validCols()}, partial, stored.dtype(), stored.range);
}

int KernelGenerator::stepStore(int) {
  auto storable = [&](const TileVal& v) {
    return usable(v) && (v.space() == MemSpace::Vec || v.space() == MemSpace::Acc);
  };
  std::optional<TileVal> v =
      choose_.chance(70) ? pickTile([&](const TileVal& t) { return storable(t) && !stored_.count(t.name); }) : std::nullopt;
  if (!v) v = pickTile(storable);
  if (!v) return 1;
  storeTile(*v);
  return 1;
}

void KernelGenerator::storeTile(const TileVal& v) {
  DType outDt = v.dtype();
  if (v.space() == MemSpace::Acc && v.dtype() == DType::FP32) {
    const size_t how = choose_.weighted({3, 1, 1});  // the fix-pipe converts FP32 to FP16/BF16 once
    outDt = how == 1 ? DType::FP16 : how == 2 ? DType::BF16 : DType::FP32;
  }
  const size_t t = outTensor(outDt);
  // Each store owns a band of its tensor's per-block segment, one tile height per iteration of
  // every enclosing loop: no element is written twice, in any block.
  int64_t trips = 1;
  for (const LoopFrame& f : loops_) trips *= f.maxTrips;
  const int64_t start = tensors_[t].rows;
  tensors_[t].rows += v.rows() * trips;
  const int64_t col = choose_.chance(25) ? 8 * choose_.between(1, 2) : 0;
  tensors_[t].cols = std::max(tensors_[t].cols, col + v.cols());

  ExprPtr row;
  if (!tensors_[t].base.empty()) row = name(tensors_[t].base);
  if (start > 0 || (!row && loops_.empty())) row = add(std::move(row), intLit(start));
  int64_t stride = v.rows();
  for (auto f = loops_.rbegin(); f != loops_.rend(); ++f) {
    row = add(std::move(row), mul(f->tripIndex->clone(), intLit(stride)));
    stride *= f->maxTrips;
  }
  // A Vec tile stored outside every region wrote its band in every run: it may be read back.
  // Static valid extents only, so the load states them (a runtime-valid store writes a band whose
  // extent the load would have to restate from the same scalars).
  if (scopes_.size() == 1 && v.space() == MemSpace::Vec && outDt == v.dtype() && !v.runtimeValid && v.validDefined &&
      plainLayout(v))
    storedBands_.push_back({t, row->clone(), col, v});
  std::vector<ExprPtr> args;
  args.push_back(name(v.name));
  args.push_back(list(std::move(row), intLit(col)));
  args.push_back(name(currentTensorName(t)));
  setTensorName(t, emitAssign("o", call(Opcode::TileStore, std::move(args))));
  stored_.insert(v.name);
}

// ---- guards ----

TileVal KernelGenerator::elementwiseResult(const std::string& n, const TileVal& lhs, const Interval& range) const {
  TileVal r;
  r.name = n;
  r.type = Type::tile(lhs.rows(), lhs.cols(), lhs.dtype(), MemSpace::Vec);
  r.type.valid = lhs.type.valid;
  r.type.canonicalizeValid();
  r.runtimeValid = lhs.runtimeValid;
  // Lanes outside the valid region are poison in the result; runtime extents guarantee no lane.
  r.def = lhs.runtimeValid ? Mask::none(lhs.rows(), lhs.cols())
                           : Mask::rect(lhs.rows(), lhs.cols(), lhs.validRows(), lhs.validCols());
  r.range = range;
  r.storage = nextStorage_;
  r.pitchCols = lhs.cols();
  return r;
}

TileVal KernelGenerator::clampTile(const TileVal& v, double bound) {
  if (v.dtype() != DType::FP32) leaveContract();  // maximums/minimums are FP32-only in the contract
  std::vector<ExprPtr> a;
  a.push_back(name(v.name));
  a.push_back(floatLit(-bound));
  TileVal low = elementwiseResult(emitAssign("t", call(Opcode::TileMaximums, std::move(a))), v,
                                  Interval::of(std::max(v.range.lo, -bound), std::max(v.range.hi, -bound)));
  low.storage = newStorage();
  std::vector<ExprPtr> b;
  b.push_back(name(low.name));
  b.push_back(floatLit(bound));
  TileVal high = elementwiseResult(emitAssign("t", call(Opcode::TileMinimums, std::move(b))), low,
                                   Interval::of(std::min(low.range.lo, bound), std::min(low.range.hi, bound)));
  high.storage = newStorage();
  addTile(low);
  addTile(high);
  return high;
}

TileVal KernelGenerator::absTile(const TileVal& v) {
  if (v.dtype() != DType::FP32) leaveContract();
  std::vector<ExprPtr> a;
  a.push_back(name(v.name));
  TileVal r = elementwiseResult(emitAssign("t", call(Opcode::TileAbs, std::move(a))), v, intervalAbs(v.range));
  r.storage = newStorage();
  addTile(r);
  return r;
}

TileVal KernelGenerator::awayFromZero(const TileVal& v) {
  TileVal a = absTile(v);
  std::vector<ExprPtr> args;
  args.push_back(name(a.name));
  args.push_back(floatLit(1.0));
  TileVal r = elementwiseResult(emitAssign("t", call(Opcode::TileAdds, std::move(args))), a,
                                intervalAdd(a.range, Interval::point(1.0)));
  r.storage = newStorage();
  addTile(r);
  return r;
}

// ---- arithmetic ----

int KernelGenerator::stepBinary(int) {
  static const std::vector<Opcode> kOps = {Opcode::TileAdd,     Opcode::TileSub,     Opcode::TileMul,
                                           Opcode::TileDiv,     Opcode::TileMaximum, Opcode::TileMinimum};
  auto anyOpFor = [&](DType dt) {
    bool ooc;
    return std::any_of(kOps.begin(), kOps.end(), [&](Opcode op) { return arithmeticAllowed(op, dt, ooc); });
  };
  std::optional<TileVal> lhs = pickTile([&](const TileVal& v) {
    return usable(v) && v.space() == MemSpace::Vec && anyOpFor(v.dtype()) && vecPitchOk(v.rows(), v.cols(), v.dtype());
  });
  if (!lhs) return 1;
  std::vector<Opcode> ops;
  for (Opcode op : kOps) {
    bool ooc;
    if (arithmeticAllowed(op, lhs->dtype(), ooc)) ops.push_back(op);
  }
  const Opcode op = choose_.pick(ops);
  bool opOutOfContract;
  arithmeticAllowed(op, lhs->dtype(), opOutOfContract);

  // S8: operands agree in physical shape and valid extents. Out of contract, any rhs whose valid
  // region contains the lhs's will do (its lanes there are defined).
  auto sameValid = [&](const TileVal& r) {
    if (r.name == lhs->name) return true;
    if (r.type.valid != lhs->type.valid) return false;
    if (!r.type.valid) return true;
    for (const Extent& e : *r.type.valid)
      if (e.kind == Extent::Kind::Dynamic) return false;  // two unknown extents prove nothing
    return true;
  };
  auto widerValid = [&](const TileVal& r) {
    return !lhs->runtimeValid && !r.runtimeValid && r.validRows() >= lhs->validRows() &&
           r.validCols() >= lhs->validCols();
  };
  const bool mismatchOk = outOfContractAllowed();
  std::optional<TileVal> rhs = pickTile([&](const TileVal& r) {
    return usable(r) && r.space() == MemSpace::Vec && r.dtype() == lhs->dtype() && r.rows() == lhs->rows() &&
           r.cols() == lhs->cols() && (sameValid(r) || (mismatchOk && widerValid(r)));
  });
  if (!rhs) return 1;
  bool outOfContract = opOutOfContract || !sameValid(*rhs);

  TileVal a = *lhs, b = *rhs;
  Interval range;
  if (isFloat(a.dtype())) {
    const bool canGuard = a.dtype() == DType::FP32 || outOfContractAllowed();
    if (op == Opcode::TileDiv && !b.range.awayFromZero(1.0)) b = awayFromZero(b);
    auto compute = [&] {
      switch (op) {
        case Opcode::TileAdd: return intervalAdd(a.range, b.range);
        case Opcode::TileSub: return intervalSub(a.range, b.range);
        case Opcode::TileMul: return intervalMul(a.range, b.range);
        case Opcode::TileDiv: return intervalDiv(a.range, b.range);
        case Opcode::TileMaximum: return intervalMax(a.range, b.range);
        default: return intervalMin(a.range, b.range);
      }
    };
    range = compute();
    if (!fitsBound(a.dtype(), range)) {
      if (!canGuard) return 1;
      const bool sameOperand = a.name == b.name;  // x op x stays one operand
      a = clampTile(a, kClamp);
      b = sameOperand ? a : clampTile(b, kClamp);
      range = compute();
    }
  }
  std::vector<ExprPtr> args;
  args.push_back(name(a.name));
  args.push_back(name(b.name));
  TileVal r = elementwiseResult(emitAssign("t", call(op, std::move(args))), a, range);
  r.storage = newStorage();
  addTile(r);
  if (outOfContract) leaveContract();
  return 1;
}

int KernelGenerator::stepUnary(int) {
  static const std::vector<Opcode> kOps = {Opcode::TileAbs,  Opcode::TileExp, Opcode::TileSqrt, Opcode::TileNeg,
                                           Opcode::TileRelu, Opcode::TileLog, Opcode::TileRecip};
  std::optional<TileVal> x = pickTile([&](const TileVal& v) {
    bool ooc;
    return usable(v) && v.space() == MemSpace::Vec && arithmeticAllowed(Opcode::TileExp, v.dtype(), ooc) &&
           vecPitchOk(v.rows(), v.cols(), v.dtype());
  });
  if (!x) return 1;
  bool outOfContract;
  arithmeticAllowed(Opcode::TileExp, x->dtype(), outOfContract);
  const Opcode op = choose_.pick(kOps);
  TileVal a = *x;
  Interval range;
  // Guards keep every result finite: exp of [-8, 8], sqrt of non-negatives, log and recip of
  // values at least 1 (resp. 0.5) away from zero.
  switch (op) {
    case Opcode::TileAbs: range = intervalAbs(a.range); break;
    case Opcode::TileNeg: range = Interval::of(-a.range.hi, -a.range.lo); break;
    case Opcode::TileRelu: range = intervalRelu(a.range); break;
    case Opcode::TileExp:
      if (!Interval::of(-8.0, 8.0).contains(a.range)) a = clampTile(a, 4.0);
      range = Interval::of(std::exp(a.range.lo), std::exp(a.range.hi));
      break;
    case Opcode::TileSqrt:
      if (a.range.lo < 0) a = absTile(a);
      range = Interval::of(std::sqrt(a.range.lo), std::sqrt(a.range.hi));
      break;
    case Opcode::TileLog:
      if (a.range.lo < 0.5) a = awayFromZero(a);
      range = Interval::of(std::log(a.range.lo), std::log(a.range.hi));
      break;
    default:  // recip
      if (!a.range.awayFromZero(0.5)) a = awayFromZero(a);
      range = intervalDiv(Interval::point(1.0), a.range);
      break;
  }
  std::vector<ExprPtr> args;
  args.push_back(name(a.name));
  TileVal r = elementwiseResult(emitAssign("t", call(op, std::move(args))), a, range);
  r.storage = newStorage();
  addTile(r);
  if (outOfContract) leaveContract();
  return 1;
}

int KernelGenerator::stepTileScalar(int) {
  static const std::vector<Opcode> kOps = {Opcode::TileAdds,     Opcode::TileSubs,     Opcode::TileMuls,
                                           Opcode::TileDivs,     Opcode::TileMaximums, Opcode::TileMinimums,
                                           Opcode::TileLrelu};
  std::optional<TileVal> x = pickTile([&](const TileVal& v) {
    bool ooc;
    return usable(v) && v.space() == MemSpace::Vec && arithmeticAllowed(Opcode::TileAdds, v.dtype(), ooc) &&
           vecPitchOk(v.rows(), v.cols(), v.dtype());
  });
  if (!x) return 1;
  std::vector<Opcode> ops;
  for (Opcode op : kOps) {
    bool ooc;
    if (arithmeticAllowed(op, x->dtype(), ooc)) ops.push_back(op);
  }
  const Opcode op = choose_.pick(ops);
  bool outOfContract;
  arithmeticAllowed(op, x->dtype(), outOfContract);
  auto [scalar, s] = scalarOperand(x->dtype(), op == Opcode::TileDivs);
  TileVal a = *x;
  auto compute = [&, s = s] {
    switch (op) {
      case Opcode::TileAdds: return intervalAdd(a.range, s);
      case Opcode::TileSubs: return intervalSub(a.range, s);
      case Opcode::TileMuls: return intervalMul(a.range, s);
      case Opcode::TileDivs: return intervalDiv(a.range, s);
      case Opcode::TileMaximums: return intervalMax(a.range, s);
      case Opcode::TileMinimums: return intervalMin(a.range, s);
      default: return intervalLrelu(a.range, s);
    }
  };
  Interval range = compute();
  if (isFloat(a.dtype()) && !fitsBound(a.dtype(), range)) {
    if (a.dtype() != DType::FP32 && !outOfContractAllowed()) return 1;
    a = clampTile(a, kClamp);
    range = compute();
  }
  std::vector<ExprPtr> args;
  args.push_back(name(a.name));
  args.push_back(std::move(scalar));
  TileVal r = elementwiseResult(emitAssign("t", call(op, std::move(args))), a, range);
  r.storage = newStorage();
  addTile(r);
  if (outOfContract) leaveContract();
  return 1;
}

int KernelGenerator::stepScalarExpr(int) {
  const ScalarVal* base =
      pickScalar([](const ScalarVal& v) { return v.dtype == DType::FP32 && v.range.magnitude() <= 16.0; });
  std::string baseName;
  Interval baseRange;
  if (base) {
    baseName = base->name;
    baseRange = base->range;
  } else {
    baseName = newParam("x", DType::FP32, ParamRole::Operand, -8, 8);
    baseRange = Interval::of(-2.0, 2.0);
  }
  const double k = choose_.pick<double>({0.5, 2.0, 1.25, -1.0, 3.0});
  Interval range;
  ExprPtr value;
  switch (choose_.below(4)) {
    case 0:
      value = binary(BinOp::Mul, name(baseName), floatLit(k));
      range = intervalMul(baseRange, Interval::point(k));
      break;
    case 1:
      value = binary(BinOp::Add, name(baseName), floatLit(k));
      range = intervalAdd(baseRange, Interval::point(k));
      break;
    case 2:
      value = binary(BinOp::Sub, floatLit(k), name(baseName));
      range = intervalSub(Interval::point(k), baseRange);
      break;
    default:
      value = Expr::unary(UnOp::Neg, name(baseName));
      range = Interval::of(-baseRange.hi, -baseRange.lo);
      break;
  }
  ScalarVal v{emitAssign("s", std::move(value)), DType::FP32, 0, 0, range};
  addScalar(v);
  return 1;
}

int KernelGenerator::stepFull(int) {
  DType dt = DType::FP32;
  if (has(Feature::OtherDTypes) && outOfContractAllowed() && choose_.chance(30)) {
    dt = choose_.pick<DType>({DType::FP16, DType::INT32, DType::BF16});
    leaveContract();  // S9/S10: full is selected for FP32 only
  }
  const auto [rows, cols] = pickShape(dt);
  ExprPtr value;
  Interval range;
  if (dt == DType::INT32) {
    const int64_t k = choose_.pick<int64_t>({7, -3, 0, 123456});
    value = intLit(k);
    range = Interval::point(static_cast<double>(k));
  } else {
    const ScalarVal* s = choose_.chance(30) ? pickScalar([](const ScalarVal& v) {
      return v.dtype == DType::FP32 && v.range.magnitude() <= 64.0;
    })
                                            : nullptr;
    if (s) {
      value = name(s->name);
      range = s->range;
    } else {
      const double k = choose_.pick<double>({0.5, -1.25, 1.0, 0.0, 3.0, -0.125});
      value = floatLit(k);
      range = Interval::point(k);
    }
  }
  std::vector<ExprPtr> args;
  args.push_back(shape(rows, cols));
  args.push_back(Expr::dtypeRef(dt));
  args.push_back(std::move(value));
  TileVal v;
  v.name = emitAssign("t", call(Opcode::TileFull, std::move(args)));
  v.type = Type::tile(rows, cols, dt, MemSpace::Vec);
  v.def = Mask::all(rows, cols);
  v.range = range;
  v.storage = newStorage();
  v.pitchCols = cols;
  addTile(v);
  return 1;
}

// ---- out of contract ----

int KernelGenerator::stepReduction(int) {
  std::optional<TileVal> x = pickTile([&](const TileVal& v) {
    return usable(v) && v.space() == MemSpace::Vec && !v.runtimeValid && viewableLayout(v) &&
           (v.dtype() == DType::FP32 || v.dtype() == DType::FP16 || v.dtype() == DType::INT32) && v.validRows() > 0 &&
           v.validCols() > 0;
  });
  if (!x) return 1;
  // The result is a [R, 1] column or a [1, C] row, each a Vec tile of its own (a DN source's
  // columns need not fill 32-byte rows).
  const bool rowsOk = vecPitchOk(x->rows(), 1, x->dtype()), colsOk = vecPitchOk(1, x->cols(), x->dtype());
  if (!rowsOk && !colsOk) return 1;
  const bool rowWise = rowsOk && (!colsOk || choose_.chance(50));
  const bool sum = choose_.chance(40);
  Interval range = x->range;
  if (sum) range = intervalMul(x->range, Interval::of(0.0, static_cast<double>(rowWise ? x->validCols() : x->validRows())));
  if (!fitsBound(x->dtype(), range)) return 1;
  TileVal r;
  std::vector<ExprPtr> args;
  args.push_back(name(x->name));
  if (rowWise) {
    std::optional<TileVal> tmp = pickTile([&](const TileVal& v) {
      return v.space() == MemSpace::Vec && v.dtype() == x->dtype() && v.rows() >= x->rows() && v.cols() >= x->cols() &&
             v.name != x->name && !retired_.count(v.storage) && (depth() == 0 || !v.runtimeValid);
    });
    std::string tmpName;
    if (tmp) {
      tmpName = tmp->name;
    } else {
      // At least the source's shape, in whole 32-byte rows (a DN source's columns need not fill them).
      const int64_t unit = unitOf(x->dtype());
      std::vector<ExprPtr> c;
      c.push_back(shape(x->rows(), (x->cols() + unit - 1) / unit * unit));
      c.push_back(Expr::dtypeRef(x->dtype()));
      c.push_back(nullptr);
      tmpName = emitAssign("t", call(Opcode::TileCreate, std::move(c)));
    }
    args.push_back(name(tmpName));
    const Opcode op = sum ? Opcode::TileRowSum : choose_.pick<Opcode>({Opcode::TileRowMax, Opcode::TileRowMin});
    r.name = emitAssign("t", call(op, std::move(args)));
    r.type = tileType(x->rows(), 1, x->dtype(), MemSpace::Vec, x->validRows(), 1);
    r.def = Mask::rect(x->rows(), 1, x->validRows(), 1);
    r.pitchCols = 1;
  } else {
    const Opcode op = sum ? Opcode::TileColSum : choose_.pick<Opcode>({Opcode::TileColMax, Opcode::TileColMin});
    r.name = emitAssign("t", call(op, std::move(args)));
    r.type = tileType(1, x->cols(), x->dtype(), MemSpace::Vec, 1, x->validCols());
    r.def = Mask::rect(1, x->cols(), 1, x->validCols());
    r.pitchCols = x->cols();
  }
  r.range = range;
  r.storage = newStorage();
  addTile(r);
  leaveContract();  // S19: reductions keep the kernel on Tile
  return 1;
}

int KernelGenerator::stepTransposeVec(int) {
  // ND -> DN, and (once outside the contract) DN -> ND back.
  std::optional<TileVal> x = pickTile([&](const TileVal& v) {
    return usable(v) && v.space() == MemSpace::Vec && !v.runtimeValid && viewableLayout(v) &&
           (colMajorLayout(v) || v.cols() > 1);
  });
  if (!x) return 1;
  addTile(emitTranspose(*x));
  leaveContract();  // a strided relabel of a Vec tile
  return 1;
}

TileVal KernelGenerator::emitTranspose(const TileVal& x) {
  std::vector<ExprPtr> args;
  args.push_back(name(x.name));
  TileVal r = x;
  r.name = emitAssign("t", call(Opcode::TileTransposeView, std::move(args)));
  r.type = verify::transposedType(x.type);
  r.def = x.def.transposed();
  r.origin = Origin::Relabel;
  if (colMajorLayout(x)) r.pitchCols = r.cols();  // a DN tile is dense: its transpose is a dense ND tile
  return r;
}

int KernelGenerator::stepMoveVec(int) {
  std::optional<TileVal> x = pickTile([&](const TileVal& v) {
    return usable(v) && v.space() == MemSpace::Vec && !v.runtimeValid && vecPitchOk(v.rows(), v.cols(), v.dtype());
  });
  if (!x) return 1;
  std::vector<ExprPtr> args;
  args.push_back(name(x->name));
  args.push_back(Expr::spaceRef(MemSpace::Vec));
  TileVal r;
  r.name = emitAssign("t", call(Opcode::TileMove, std::move(args)));
  r.type = tileType(x->rows(), x->cols(), x->dtype(), MemSpace::Vec, x->validRows(), x->validCols());
  r.def = Mask::rect(x->rows(), x->cols(), x->validRows(), x->validCols());  // outside valid: poison
  r.range = x->range;
  r.storage = newStorage();
  r.pitchCols = x->cols();
  addTile(r);
  leaveContract();  // Vec -> Vec moves are the lowering's own branch copies, not in the op list
  return 1;
}

}  // namespace ptodiff::fuzz::detail
