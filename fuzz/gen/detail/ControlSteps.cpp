// Control-flow steps: if/else, pl.range and pl.while_ loops with tile, scalar and tensor carries.
//
// Loop counts and branch conditions come from runtime scalars whose scalar sets rotate through
// zero, one and several trips and both arms. A loop carry is assumed to hold what its initial
// value holds (mask) within a widened range; every yielded value is chosen (or clamped) so the
// assumption holds on the back edge too, which makes it hold for any trip count, zero included.
#include <algorithm>
#include <cmath>
#include <functional>

#include "fuzz/gen/detail/KernelGenerator.h"

namespace ptodiff::fuzz::detail {

namespace {

/// The range a float loop carry is assumed to stay in: its initial range widened to a
/// symmetric integer bound (an exact FP32 literal for the clamp guard).
Interval carryRange(const TileVal& init) {
  const double bound = std::max(16.0, std::ceil(init.range.magnitude()));
  return Interval::of(-bound, bound);
}

/// `values` with slot j moved to position order[j].
template <class T>
std::vector<T> permuted(std::vector<T> values, const std::vector<size_t>& order) {
  std::vector<T> out(values.size());
  for (size_t j = 0; j < values.size(); ++j) out[order[j]] = std::move(values[j]);
  return out;
}

}  // namespace

std::vector<size_t> KernelGenerator::slotOrder(size_t n) {
  std::vector<size_t> order(n);
  for (size_t j = 0; j < n; ++j) order[j] = j;
  if (n > 1 && choose_.chance(35))
    for (size_t j = n - 1; j > 0; --j) std::swap(order[j], order[static_cast<size_t>(choose_.below(static_cast<int64_t>(j) + 1))]);
  return order;
}

std::optional<KernelGenerator::SwapPair> KernelGenerator::drawSwapPair(int percent) {
  if (!choose_.chance(percent)) return std::nullopt;
  const int64_t maxTrips = std::max(1, config_.maxLoopTrips);
  auto start = [&]() -> std::pair<ExprPtr, ScalarVal> {
    if (choose_.chance(50))
      if (const ScalarVal* s = pickScalar([&](const ScalarVal& v) {
            return v.dtype == DType::INDEX && v.lo >= 0 && v.hi <= maxTrips;
          }))
        return {name(s->name), *s};
    const int64_t v = choose_.between(0, maxTrips);
    return {intLit(v), ScalarVal{"", DType::INDEX, v, v, {}}};
  };
  auto [initA, a] = start();
  auto [initB, b] = start();
  // Each carry holds either start on any trip: both take the hull of the two ranges.
  const int64_t lo = std::min(a.lo, b.lo), hi = std::max(a.hi, b.hi);
  SwapPair pair{ScalarVal{fresh("p"), DType::INDEX, lo, hi, {}}, ScalarVal{fresh("p"), DType::INDEX, lo, hi, {}},
                std::move(initA), std::move(initB)};
  return pair;
}

void KernelGenerator::appendSwapSlots(const SwapPair& swap, std::vector<Binder>& iterArgs, std::vector<ExprPtr>& inits) {
  iterArgs.push_back(binder(swap.a.name));
  inits.push_back(swap.initA->clone());
  iterArgs.push_back(binder(swap.b.name));
  inits.push_back(swap.initB->clone());
}

void KernelGenerator::appendSwapYields(const SwapPair& swap, std::vector<ExprPtr>& values) {
  values.push_back(name(swap.b.name));
  values.push_back(name(swap.a.name));
}

std::vector<size_t> KernelGenerator::reorderSlots(std::vector<Binder>& iterArgs, std::vector<ExprPtr>& inits,
                                                  std::vector<ExprPtr>& values) {
  const std::vector<size_t> order = slotOrder(values.size());
  iterArgs = permuted(std::move(iterArgs), order);
  inits = permuted(std::move(inits), order);
  values = permuted(std::move(values), order);
  return order;
}

bool KernelGenerator::carryable(const TileVal& v, bool viewsToo) const {
  // V5: dynamic valid state does not cross regions of a kernel in the contract; once the kernel is
  // outside it (the Tile path), runtime-valid tiles are carried and yielded like any other (a Tile
  // program may, and InitMemRef and MaterializeSemanticAliases must place them). Windows and
  // relabels cross only with `viewsToo` (viewCarriesAllowed), and only in a layout the lowering can
  // copy: ND by a move (M14), DN (out of the contract) through its transposed view
  // (docs/lowering.md, "Col-major tiles"). The region's copies make the carry or result a tile of
  // its own to the generator, carried and copied again like one.
  return usable(v) && v.space() == MemSpace::Vec && (!v.runtimeValid || !inContract_) &&
         (v.origin == Origin::Own || (viewsToo && viewableLayout(v)));
}

bool KernelGenerator::viewCarriesAllowed() { return choose_.chance(inContract_ ? 20 : 50); }

TileVal KernelGenerator::carryOf(const TileVal& init) const {
  // A carry is a value of its own at the Tile level whatever storage its init or yields name. In
  // a selected kernel MaterializeSemanticAliases gives a window or relabel init an entry copy, a
  // dense tile of the carry's type (L3), so the contract sees the carry's own pitch. A kernel
  // already outside the contract stays on Tile, where the carry names its init's storage.
  TileVal c = init;
  if (c.isView()) {
    c.origin = Origin::Own;
    if (inContract_) c.pitchCols = c.cols();
  }
  return c;
}

std::vector<TileVal> KernelGenerator::pickCarryInits(int maxCount, bool viewsToo) {
  std::vector<TileVal> inits;
  const int64_t n = choose_.between(0, maxCount);
  for (int64_t i = 0; i < n; ++i) {
    std::optional<TileVal> v;
    if (i > 0 && choose_.chance(50)) {
      // The type of the first carry again: yields may swap the two, or fan one value out.
      const Type want = inits.front().type;
      v = pickTile([&](const TileVal& t) { return carryable(t, viewsToo) && t.type == want; });
    }
    if (!v) v = pickTile([&](const TileVal& t) { return carryable(t, viewsToo); });
    if (!v) break;
    inits.push_back(*v);
  }
  return inits;
}

TileVal KernelGenerator::pickYield(const TileVal& want, bool loopCarry, bool viewsToo) {
  auto eligible = [&](const TileVal& v) {
    if (!carryable(v, viewsToo) || !(v.type == want.type)) return false;
    if (!loopCarry) return true;  // an if result is the arms' intersection: any defined value fits
    return v.def.contains(want.def) && (!isFloat(v.dtype()) || want.range.contains(v.range));
  };
  // A recent value that only misses the carry's range becomes eligible through a clamp.
  if (loopCarry && isFloat(want.dtype()) && (want.dtype() == DType::FP32 || outOfContractAllowed()) &&
      choose_.chance(30)) {
    // The clamp's result takes the implicit layout of its shape, so a tile in another one (a DN
    // carry of more than one column) cannot be clamped into its own type.
    std::optional<TileVal> u = pickTile([&](const TileVal& v) {
      return carryable(v) && v.type == want.type && !want.range.contains(v.range) &&
             Type::tile(v.rows(), v.cols(), v.dtype(), MemSpace::Vec).layout == v.type.layout &&
             Mask::rect(v.rows(), v.cols(), v.validRows(), v.validCols()).contains(want.def);
    });
    if (u) return clampTile(*u, want.range.hi);
  }
  // A DN slot also takes the transposed view of a fitting ND value, made here: few DN values of
  // the slot's exact type live in a region otherwise.
  if (viewsToo && colMajorLayout(want) && choose_.chance(40)) {
    std::optional<TileVal> u = pickTile([&](const TileVal& v) {
      if (!usable(v) || v.space() != MemSpace::Vec || v.runtimeValid || !plainLayout(v)) return false;
      if (v.rows() != want.cols() || v.cols() != want.rows() || v.dtype() != want.dtype()) return false;
      if (v.validRows() != want.validCols() || v.validCols() != want.validRows()) return false;
      return !loopCarry ||
             (v.def.transposed().contains(want.def) && (!isFloat(v.dtype()) || want.range.contains(v.range)));
    });
    if (u) {
      TileVal t = emitTranspose(*u);
      addTile(t);
      if (eligible(t)) return t;
    }
  }
  if (choose_.chance(65))
    if (std::optional<TileVal> v = pickTile(eligible)) return *v;
  return want;  // the carry itself, or the if's outside value: always eligible
}

std::optional<TileVal> KernelGenerator::shrinkCarry(const TileVal& c) {
  if (!outOfContractAllowed() || !has(Feature::StaticPartialValid) || c.origin != Origin::Own || c.runtimeValid ||
      !plainLayout(c) || !choose_.chance(20))
    return std::nullopt;
  const int64_t vr = choose_.between(0, c.validRows()), vc = choose_.between(0, c.validCols());
  TileVal shrunk = emitSetValid(c, intLit(vr), intLit(vc), std::array<Extent, 2>{Extent::constant(vr), Extent::constant(vc)},
                                false);
  leaveContract();
  pinned_.insert(shrunk.storage);  // the yield sets it back: no step of the body may retire it
  addTile(shrunk);
  return shrunk;
}

TileVal KernelGenerator::restoreCarry(const TileVal& shrunk, const TileVal& c) {
  pinned_.erase(pinned_.find(shrunk.storage));
  TileVal r = emitSetValid(shrunk, intLit(c.validRows()), intLit(c.validCols()), c.type.valid, false);
  addTile(r);
  return r;
}

std::vector<std::optional<TileVal>> KernelGenerator::shrinkCarries(const std::vector<TileVal>& carries) {
  std::vector<std::optional<TileVal>> shrunk;
  for (const TileVal& c : carries) shrunk.push_back(shrinkCarry(c));
  return shrunk;
}

std::vector<ExprPtr> KernelGenerator::carryYields(const std::vector<TileVal>& carries,
                                                  const std::vector<std::optional<TileVal>>& shrunk, bool viewsToo) {
  std::vector<std::string> restored;
  for (size_t i = 0; i < carries.size(); ++i)
    restored.push_back(shrunk[i] ? restoreCarry(*shrunk[i], carries[i]).name : "");
  std::vector<ExprPtr> values;
  for (size_t i = 0; i < carries.size(); ++i)
    values.push_back(name(shrunk[i] ? restored[i] : pickYield(carries[i], true, viewsToo).name));
  return values;
}

KernelGenerator::IndexExpr KernelGenerator::loopCount() {
  const int64_t maxTrips = std::max(1, config_.maxLoopTrips);
  switch (choose_.weighted({2, 2, 3})) {
    case 1:
      if (const ScalarVal* s = pickScalar([&](const ScalarVal& v) {
            return v.dtype == DType::INDEX && v.lo >= 0 && v.hi <= maxTrips && v.hi >= 1;
          }))
        return {name(s->name), s->lo, s->hi};
      [[fallthrough]];
    case 2: {
      std::string n = newParam("n", DType::INDEX, ParamRole::LoopCount, 0, maxTrips);
      return {name(n), 0, maxTrips};
    }
    default: {
      const int64_t v = choose_.chance(10) ? 0 : choose_.between(1, maxTrips);
      return {intLit(v), v, v};
    }
  }
}

ExprPtr KernelGenerator::pickCondition() {
  auto flag = [&]() -> ExprPtr {
    if (choose_.chance(40))
      if (const ScalarVal* f = pickScalar([](const ScalarVal& v) { return v.dtype == DType::BOOL; }))
        return name(f->name);
    return name(newParam("f", DType::BOOL, ParamRole::Flag, 0, 1));
  };
  auto varying = [&]() {
    return pickScalar([](const ScalarVal& v) { return v.dtype == DType::INDEX && v.hi > v.lo && v.lo >= 0; });
  };
  switch (choose_.weighted({4, 1, blockIdx_.empty() ? 0 : 2, 2, 1})) {
    case 1: return Expr::unary(UnOp::Not, flag());
    case 2:
      if (choose_.chance(50))
        return binary(BinOp::Eq, binary(BinOp::Mod, name(blockIdx_), intLit(2)), intLit(0));
      return binary(BinOp::Eq, name(blockIdx_), intLit(0));
    case 3:
      if (const ScalarVal* s = varying()) {
        if (choose_.chance(50)) return binary(BinOp::Eq, binary(BinOp::Mod, name(s->name), intLit(2)), intLit(0));
        return binary(BinOp::Gt, name(s->name), intLit(s->lo));
      }
      return flag();
    case 4: {
      ExprPtr f = flag();
      if (const ScalarVal* s = varying())
        return binary(choose_.chance(50) ? BinOp::And : BinOp::Or, std::move(f),
                      binary(BinOp::Lt, name(s->name), intLit(s->hi)));
      return f;
    }
    default: return flag();
  }
}

int KernelGenerator::stepIf(int budget) {
  ExprPtr cond = pickCondition();
  // The If may yield windows and relabels. Once the kernel is outside the contract (it stays on
  // Tile), its result names the storage of whichever arm ran, in another root or at another pitch
  // than the then arm's value that its MemRef names (C13), and InitMemRef must plan the result's
  // views, relabels and in-place updates for every arm (docs/lowering.md). In a selected kernel
  // each arm copies its view into the result's own root (B1, B4; the Buffer path yields no window).
  const bool viewsToo = viewCarriesAllowed();
  const std::vector<TileVal> templates = pickCarryInits(2, viewsToo);
  // An optional scalar result: 1 = FP32, 2 = INDEX usable as a later loop count or offset.
  const size_t scalarKind = choose_.chance(30) ? 1 + choose_.below(2) : 0;
  const ScalarVal* fpBase = nullptr;
  if (scalarKind == 1) {
    fpBase = pickScalar([](const ScalarVal& v) { return v.dtype == DType::FP32 && v.range.magnitude() <= 16.0; });
    if (!fpBase) {
      newParam("x", DType::FP32, ParamRole::Operand, -8, 8);
      fpBase = pickScalar([](const ScalarVal& v) { return v.dtype == DType::FP32 && v.range.magnitude() <= 16.0; });
    }
  }
  const ScalarVal fpBaseValue = fpBase ? *fpBase : ScalarVal{};
  const int64_t tensor = pickOutTensor(20);
  const bool results = !templates.empty() || scalarKind != 0 || tensor >= 0;
  const bool withElse = results || choose_.chance(60);
  const int thenBudget = static_cast<int>(choose_.between(1, std::max(1, std::min(budget - 1, 5))));
  const int elseBudget = withElse ? static_cast<int>(choose_.between(0, std::max(0, std::min(budget - 1, 5)))) : 0;

  std::vector<std::string> targets;
  for (size_t i = 0; i < templates.size() + (scalarKind ? 1 : 0) + (tensor >= 0 ? 1 : 0); ++i) targets.push_back(fresh("r"));
  const std::vector<size_t> order = slotOrder(targets.size());
  for (const TileVal& t : templates) pinned_.insert(t.storage);

  auto ifs = std::make_unique<IfStmt>(SourceLoc{});
  ifs->cond = std::move(cond);
  struct Arm {
    std::vector<TileVal> tiles;
    ScalarVal scalar;
  };
  int used = 1;
  auto genArm = [&](Block& body, int armBudget) {
    scopes_.push_back(Scope{&body, {}, {}, {}});
    if (armBudget > 0) used += genBlock(armBudget);
    Arm arm;
    std::vector<ExprPtr> values;
    for (const TileVal& t : templates) {
      arm.tiles.push_back(pickYield(t, false, viewsToo));
      values.push_back(name(arm.tiles.back().name));
    }
    if (scalarKind == 1) {
      arm.scalar = fpBaseValue;
      if (choose_.chance(50)) {
        const double k = choose_.pick<double>({0.5, -1.0, 2.0});
        arm.scalar.name = emitAssign("s", binary(BinOp::Mul, name(fpBaseValue.name), floatLit(k)));
        arm.scalar.range = intervalMul(fpBaseValue.range, Interval::point(k));
      }
      values.push_back(name(arm.scalar.name));
    } else if (scalarKind == 2) {
      const int64_t maxTrips = std::max(1, config_.maxLoopTrips);
      const ScalarVal* s = choose_.chance(50) ? pickScalar([&](const ScalarVal& v) {
        return v.dtype == DType::INDEX && v.lo >= 0 && v.hi <= maxTrips;
      })
                                              : nullptr;
      if (s) {
        arm.scalar = *s;
      } else {
        const int64_t v = choose_.between(0, maxTrips);
        arm.scalar = ScalarVal{emitAssign("q", intLit(v)), DType::INDEX, v, v, {}};
      }
      values.push_back(name(arm.scalar.name));
    }
    if (tensor >= 0) values.push_back(name(currentTensorName(static_cast<size_t>(tensor))));
    if (!values.empty()) emit(makeYield(permuted(std::move(values), order), targets));
    scopes_.pop_back();
    return arm;
  };
  const Arm thenArm = genArm(ifs->thenBody, thenBudget);
  const Arm elseArm = withElse ? genArm(ifs->elseBody, elseBudget) : Arm{};
  emit(std::move(ifs));
  for (const TileVal& t : templates) pinned_.erase(pinned_.find(t.storage));

  size_t slot = 0;
  for (size_t i = 0; i < templates.size(); ++i, ++slot) {
    TileVal r = templates[i];
    r.name = targets[order[slot]];
    r.def = thenArm.tiles[i].def.intersect(elseArm.tiles[i].def);
    r.range = thenArm.tiles[i].range.hull(elseArm.tiles[i].range);
    r.validDefined = r.def.covers(r.validRows(), r.validCols());
    r.storage = newStorage();
    // A window arm's rows keep their parent's pitch; what is written against the result's pitch
    // (a create as wide as it, say) needs room for the widest arm. A selected kernel's result is a
    // dense root of its own (B1).
    if (thenArm.tiles[i].isView() || elseArm.tiles[i].isView()) {
      r.pitchCols = inContract_ ? r.cols()
                                : std::max({r.pitchCols, thenArm.tiles[i].pitchCols, elseArm.tiles[i].pitchCols});
      r.origin = Origin::Own;  // a value of its own at the Tile level, whatever storage it names
    }
    addTile(r);
  }
  if (scalarKind) {
    ScalarVal r = thenArm.scalar;
    r.name = targets[order[slot++]];
    r.lo = std::min(thenArm.scalar.lo, elseArm.scalar.lo);
    r.hi = std::max(thenArm.scalar.hi, elseArm.scalar.hi);
    r.range = thenArm.scalar.range.hull(elseArm.scalar.range);
    addScalar(r);
  }
  if (tensor >= 0) setTensorName(static_cast<size_t>(tensor), targets[order[slot]]);
  return used;
}

int KernelGenerator::stepFor(int budget) {
  IndexExpr count = loopCount();
  const int64_t trips = count.hi;
  const size_t form = choose_.weighted({4, 1, 1, outOfContractAllowed() ? 1 : 0});
  const bool viewsToo = viewCarriesAllowed();
  const std::vector<TileVal> inits = pickCarryInits(3, viewsToo);
  const bool fpCarry = has(Feature::TileScalar) && choose_.chance(25);
  const bool counter = choose_.chance(20);
  const std::optional<SwapPair> swap = drawSwapPair(15);
  const int64_t tensor = pickOutTensor(25);
  const int bodyBudget = static_cast<int>(choose_.between(1, std::max(1, std::min(budget - 1, 6))));

  auto loop = std::make_unique<ForStmt>(SourceLoc{});
  ForStmt& f = *loop;
  const std::string iv = fresh("i");
  f.inductionVar = binder(iv);
  ExprPtr tripIndex;
  int64_t ivLo = 0, ivHi = std::max<int64_t>(trips - 1, 0);
  switch (form) {
    case 1:  // range(1, n + 1)
      f.start = intLit(1);
      f.stop = add(std::move(count.expr), intLit(1));
      f.step = intLit(1);
      tripIndex = binary(BinOp::Sub, name(iv), intLit(1));
      ivLo = 1;
      ivHi = std::max<int64_t>(trips, 1);
      break;
    case 2:  // range(0, 2 n, 2)
      f.start = intLit(0);
      f.stop = mul(std::move(count.expr), intLit(2));
      f.step = intLit(2);
      tripIndex = binary(BinOp::FloorDiv, name(iv), intLit(2));
      ivHi *= 2;
      break;
    case 3: {  // a step from a scalar: S17 keeps the kernel on Tile
      const std::string st = newParam("st", DType::INDEX, ParamRole::Step, 1, 3);
      f.start = intLit(0);
      f.stop = mul(std::move(count.expr), name(st));
      f.step = name(st);
      tripIndex = binary(BinOp::FloorDiv, name(iv), name(st));
      ivHi *= 3;
      leaveContract();
      break;
    }
    default:
      f.start = intLit(0);
      f.stop = std::move(count.expr);
      f.step = intLit(1);
      tripIndex = name(iv);
      break;
  }

  std::vector<TileVal> carries;
  for (const TileVal& init : inits) {
    TileVal c = carryOf(init);
    c.name = fresh("c");
    if (isFloat(c.dtype())) c.range = carryRange(init);
    c.storage = newStorage();
    f.iterArgs.push_back(binder(c.name));
    f.inits.push_back(name(init.name));
    carries.push_back(c);
    pinned_.insert(init.storage);
    pinned_.insert(c.storage);
  }
  ScalarVal fp;
  if (fpCarry) {
    const ScalarVal* base =
        pickScalar([](const ScalarVal& v) { return v.dtype == DType::FP32 && v.range.magnitude() <= 16.0; });
    Interval initRange = base ? base->range : Interval::point(0.5);
    f.inits.push_back(base ? name(base->name) : floatLit(0.5));
    const double T = static_cast<double>(trips);
    fp = ScalarVal{fresh("s"), DType::FP32, 0, 0,
                   Interval::of(std::min(initRange.lo, 0.0) - T, std::max(initRange.hi, 0.0) + T)};
    f.iterArgs.push_back(binder(fp.name));
  }
  std::string k;
  if (counter) {
    k = fresh("k");
    f.iterArgs.push_back(binder(k));
    f.inits.push_back(intLit(0));
  }
  if (swap) appendSwapSlots(*swap, f.iterArgs, f.inits);
  std::string g;
  if (tensor >= 0) {
    g = fresh("g");
    f.iterArgs.push_back(binder(g));
    f.inits.push_back(name(currentTensorName(static_cast<size_t>(tensor))));
  }

  scopes_.push_back(Scope{&f.body, {}, {}, {}});
  loops_.push_back({std::move(tripIndex), trips});
  addScalar({iv, DType::INDEX, ivLo, ivHi, {}});
  for (const TileVal& c : carries) addTile(c);
  const std::vector<std::optional<TileVal>> shrunk = shrinkCarries(carries);
  if (fpCarry) addScalar(fp);
  if (counter) addScalar({k, DType::INDEX, 0, std::max<int64_t>(trips - 1, 0), {}});
  if (swap) {
    addScalar(swap->a);
    addScalar(swap->b);
  }
  if (tensor >= 0) setTensorName(static_cast<size_t>(tensor), g);
  const int used = genBlock(bodyBudget);

  std::vector<ExprPtr> values = carryYields(carries, shrunk, viewsToo);
  if (fpCarry) {
    // s + d with |d| <= 1, or s * 0.5: within the assumed range for any trip count.
    const size_t how = choose_.below(3);
    ExprPtr update = how == 0   ? binary(BinOp::Mul, name(fp.name), floatLit(0.5))
                     : how == 1 ? binary(BinOp::Add, name(fp.name), floatLit(1.0))
                                : binary(BinOp::Sub, name(fp.name), floatLit(0.25));
    values.push_back(name(emitAssign("s", std::move(update))));
  }
  if (counter) values.push_back(name(emitAssign("k", add(name(k), intLit(1)))));
  if (swap) appendSwapYields(*swap, values);
  if (tensor >= 0) values.push_back(name(currentTensorName(static_cast<size_t>(tensor))));
  std::vector<std::string> targets;
  for (size_t i = 0; i < values.size(); ++i) targets.push_back(fresh("r"));
  const std::vector<size_t> order = reorderSlots(f.iterArgs, f.inits, values);
  if (!values.empty()) emit(makeYield(std::move(values), targets));
  scopes_.pop_back();
  loops_.pop_back();
  for (const TileVal& init : inits) pinned_.erase(pinned_.find(init.storage));
  for (const TileVal& c : carries) pinned_.erase(pinned_.find(c.storage));
  emit(std::move(loop));

  size_t slot = 0;
  auto result = [&] { return targets[order[slot++]]; };
  for (const TileVal& c : carries) {
    TileVal r = c;
    r.name = result();
    r.storage = newStorage();
    addTile(r);
  }
  if (fpCarry) {
    ScalarVal r = fp;
    r.name = result();
    addScalar(r);
  }
  if (counter) addScalar({result(), DType::INDEX, 0, trips, {}});
  if (swap)
    for (ScalarVal r : {swap->a, swap->b}) {
      r.name = result();
      addScalar(r);
    }
  if (tensor >= 0) setTensorName(static_cast<size_t>(tensor), result());
  return 1 + used;
}

int KernelGenerator::stepWhile(int budget) {
  IndexExpr bound = loopCount();
  const int64_t trips = bound.hi;
  const bool viewsToo = viewCarriesAllowed();
  const std::vector<TileVal> inits = pickCarryInits(2, viewsToo);
  const std::optional<SwapPair> swap = drawSwapPair(20);
  const int64_t tensor = pickOutTensor(25);
  const int bodyBudget = static_cast<int>(choose_.between(1, std::max(1, std::min(budget - 1, 6))));

  auto loop = std::make_unique<WhileStmt>(SourceLoc{});
  WhileStmt& w = *loop;
  std::vector<TileVal> carries;
  for (const TileVal& init : inits) {
    TileVal c = carryOf(init);
    c.name = fresh("c");
    if (isFloat(c.dtype())) c.range = carryRange(init);
    c.storage = newStorage();
    w.iterArgs.push_back(binder(c.name));
    w.inits.push_back(name(init.name));
    carries.push_back(c);
    pinned_.insert(init.storage);
    pinned_.insert(c.storage);
  }
  std::string g;
  if (tensor >= 0) {
    g = fresh("g");
    w.iterArgs.push_back(binder(g));
    w.inits.push_back(name(currentTensorName(static_cast<size_t>(tensor))));
  }
  // The counter bounds the trips; an extra conjunct may only end the loop earlier.
  const std::string k = fresh("k");
  w.iterArgs.push_back(binder(k));
  w.inits.push_back(intLit(0));
  if (swap) appendSwapSlots(*swap, w.iterArgs, w.inits);
  ExprPtr cond = binary(BinOp::Lt, name(k), std::move(bound.expr));
  if (swap && choose_.chance(50)) {
    // Unequal starts flip `a <= b` every trip, so the loop ends after at most one trip; a
    // lowering that assigns the swap one carry after the other makes them equal and runs on.
    cond = binary(BinOp::And, std::move(cond), binary(BinOp::Le, name(swap->a.name), name(swap->b.name)));
  } else if (choose_.chance(25)) {
    ExprPtr f = pickCondition();
    if (choose_.chance(50))
      f = binary(BinOp::Or, binary(BinOp::Ne, name(k), intLit(1)), std::move(f));
    cond = binary(BinOp::And, std::move(cond), std::move(f));
  }
  w.cond = std::move(cond);

  scopes_.push_back(Scope{&w.body, {}, {}, {}});
  loops_.push_back({name(k), trips});
  addScalar({k, DType::INDEX, 0, std::max<int64_t>(trips - 1, 0), {}});
  if (swap) {
    addScalar(swap->a);
    addScalar(swap->b);
  }
  for (const TileVal& c : carries) addTile(c);
  const std::vector<std::optional<TileVal>> shrunk = shrinkCarries(carries);
  if (tensor >= 0) setTensorName(static_cast<size_t>(tensor), g);
  const int used = genBlock(bodyBudget);

  std::vector<ExprPtr> values = carryYields(carries, shrunk, viewsToo);
  if (tensor >= 0) values.push_back(name(currentTensorName(static_cast<size_t>(tensor))));
  values.push_back(name(emitAssign("k", add(name(k), intLit(1)))));
  if (swap) appendSwapYields(*swap, values);
  std::vector<std::string> targets;
  for (size_t i = 0; i < values.size(); ++i) targets.push_back(fresh("r"));
  const std::vector<size_t> order = reorderSlots(w.iterArgs, w.inits, values);
  emit(makeYield(std::move(values), targets));
  scopes_.pop_back();
  loops_.pop_back();
  for (const TileVal& init : inits) pinned_.erase(pinned_.find(init.storage));
  for (const TileVal& c : carries) pinned_.erase(pinned_.find(c.storage));
  emit(std::move(loop));

  size_t slot = 0;
  auto result = [&] { return targets[order[slot++]]; };
  for (const TileVal& c : carries) {
    TileVal r = c;
    r.name = result();
    r.storage = newStorage();
    addTile(r);
  }
  if (tensor >= 0) setTensorName(static_cast<size_t>(tensor), result());
  addScalar({result(), DType::INDEX, 0, trips, {}});
  if (swap)
    for (ScalarVal r : {swap->a, swap->b}) {
      r.name = result();
      addScalar(r);
    }
  return 1 + used;
}

int KernelGenerator::stepFillLoop(int budget) {
  // No single trip defines the tile: the carry is never an operand, and only the static trip
  // counts make the result defined everywhere. Each assemble updates the carry in place (W4, A21),
  // so every path must keep the chunks of earlier trips in the one storage the loops carry, while
  // the window moves with the loop index (W16 proves a column offset's alignment from a For loop's
  // start and step; a row offset needs none, the row pitch is whole 32-byte units).
  std::optional<TileVal> donor;
  if (has(Feature::Slices) && choose_.chance(60))
    donor = pickTile([&](const TileVal& v) {
      return usable(v) && v.space() == MemSpace::Vec && !v.runtimeValid && plainLayout(v) && v.fullyValid() &&
             v.def.full() && v.origin != Origin::Relabel && v.pitchCols == v.cols() &&
             v.cols() % unitOf(v.dtype()) == 0;
    });
  const DType dt = donor ? donor->dtype() : pickVecDType();
  const auto [R, C] = donor ? std::array<int64_t, 2>{donor->rows(), donor->cols()} : pickShape(dt);
  // Chunks along rows (any source) or, from a donor, along 32-byte column units; 2 to 5 trips.
  auto chunkSizes = [](int64_t extent, int64_t step) {
    std::vector<int64_t> sizes;
    for (int64_t d = step; d < extent; d += step)
      if (extent % d == 0 && extent / d <= 5) sizes.push_back(d);
    return sizes;
  };
  const std::vector<int64_t> rowChunks = chunkSizes(R, 1);
  const std::vector<int64_t> colChunks = donor ? chunkSizes(C, unitOf(dt)) : std::vector<int64_t>{};
  if (rowChunks.empty() && colChunks.empty()) return 1;

  // One loop along one axis, or (a donor's 2-D tiling, when nesting allows) a loop along each axis,
  // the inner one carrying the outer one's carry.
  struct Level {
    bool rows = true;
    int64_t chunk = 1, trips = 1;
    size_t form = 0;  // For: i * chunk, (n - 1) * chunk - i * chunk, i of range(0, n * chunk, chunk); While: k * chunk
    bool isWhile = false;
    std::string index;
  };
  std::vector<Level> levels;
  auto level = [&](bool rows) {
    Level l;
    l.rows = rows;
    l.chunk = choose_.pick(rows ? rowChunks : colChunks);
    l.trips = (rows ? R : C) / l.chunk;
    l.isWhile = rows && has(Feature::While) && choose_.chance(25);
    l.form = l.isWhile ? 0 : choose_.below(3);
    return l;
  };
  if (!rowChunks.empty() && !colChunks.empty() && depth() + 1 < maxDepth() && choose_.chance(35)) {
    const bool rowsOuter = choose_.chance(50);
    levels.push_back(level(rowsOuter));
    levels.push_back(level(!rowsOuter));
  } else {
    levels.push_back(level(colChunks.empty() || (!rowChunks.empty() && choose_.chance(60))));
  }
  auto window = [&](const Level& l) -> IndexExpr {
    const int64_t last = (l.trips - 1) * l.chunk;
    switch (l.form) {
      case 1: return {binary(BinOp::Sub, intLit(last), mul(name(l.index), intLit(l.chunk))), 0, last};
      case 2: return {name(l.index), 0, last};
      default: return {mul(name(l.index), intLit(l.chunk)), 0, last};
    }
  };
  auto levelOn = [&](bool rows) -> const Level* {
    for (const Level& l : levels)
      if (l.rows == rows) return &l;
    return nullptr;
  };
  // The window offset and chunk extent on an axis: its loop's, else the whole axis from 0.
  auto offsetOn = [&](bool rows) {
    const Level* l = levelOn(rows);
    return l ? window(*l) : IndexExpr{intLit(0), 0, 0};
  };
  auto chunkOn = [&](bool rows) {
    const Level* l = levelOn(rows);
    return l ? l->chunk : rows ? R : C;
  };

  TileVal created = emitCreate(R, C, dt);
  if (donor) pinned_.insert(donor->storage);  // a setter in a body must not retire the chunks' source
  int used = 0;
  Interval range = donor ? donor->range : inputRange(dt);
  // Emits level `at` carrying `init`; returns the name of its result.
  std::function<std::string(size_t, const std::string&)> emitLevel = [&](size_t at, const std::string& init) {
    Level& l = levels[at];
    const std::string carry = fresh("c");
    std::unique_ptr<Stmt> loop;
    Block* body = nullptr;
    ExprPtr tripIndex;
    int64_t indexHi = l.trips - 1;
    if (l.isWhile) {
      auto w = std::make_unique<WhileStmt>(SourceLoc{});
      l.index = fresh("k");
      w->iterArgs = {binder(carry), binder(l.index)};
      w->inits.push_back(name(init));
      w->inits.push_back(intLit(0));
      w->cond = binary(BinOp::Lt, name(l.index), intLit(l.trips));
      body = &w->body;
      tripIndex = name(l.index);
      loop = std::move(w);
    } else {
      auto f = std::make_unique<ForStmt>(SourceLoc{});
      l.index = fresh("i");
      f->inductionVar = binder(l.index);
      f->start = intLit(0);
      f->stop = intLit(l.form == 2 ? l.trips * l.chunk : l.trips);
      f->step = intLit(l.form == 2 ? l.chunk : 1);
      f->iterArgs.push_back(binder(carry));
      f->inits.push_back(name(init));
      body = &f->body;
      tripIndex = l.form == 2 ? binary(BinOp::FloorDiv, name(l.index), intLit(l.chunk)) : name(l.index);
      if (l.form == 2) indexHi *= l.chunk;
      loop = std::move(f);
    }
    scopes_.push_back(Scope{body, {}, {}, {}});
    loops_.push_back({std::move(tripIndex), l.trips});
    addScalar({l.index, DType::INDEX, 0, indexHi, {}});
    std::string yielded;
    if (at + 1 < levels.size()) {
      yielded = emitLevel(at + 1, carry);
    } else {
      if (choose_.chance(40))
        used = genBlock(static_cast<int>(choose_.between(1, std::max<int64_t>(1, std::min(budget - 1, 3)))));
      const int64_t rows = chunkOn(true), cols = chunkOn(false);
      TileVal piece;
      if (donor) {
        piece = emitSlice(*donor, rows, cols, offsetOn(true), offsetOn(false), std::nullopt);
      } else {
        // Reads never race: every block may read the same rows.
        const size_t t = inTensor(dt, R, C);
        piece = emitVecLoad(name(tensors_[t].name), offsetOn(true).expr, 0, {rows, C}, {rows, C}, false, dt, range);
      }
      addTile(piece);
      // A computed chunk has a pitch of its own, equal to the carry's only for whole rows (W7).
      if (cols == C && dt == DType::FP32 && has(Feature::ElementwiseFP32) && choose_.chance(40)) piece = absTile(piece);
      range = piece.range;
      TileVal target = created;
      target.name = carry;
      target.range = range;
      target.storage = newStorage();
      yielded = emitAssemble(target, piece, offsetOn(true), offsetOn(false)).name;
    }
    std::vector<ExprPtr> values;
    values.push_back(name(yielded));
    std::vector<std::string> targets = {fresh("r")};
    if (l.isWhile) {
      values.push_back(name(emitAssign("k", add(name(l.index), intLit(1)))));
      targets.push_back(fresh("r"));
    }
    emit(makeYield(std::move(values), targets));
    scopes_.pop_back();
    loops_.pop_back();
    emit(std::move(loop));
    if (l.isWhile) addScalar({targets[1], DType::INDEX, l.trips, l.trips, {}});
    return targets[0];
  };
  const std::string result = emitLevel(0, created.name);
  if (donor) pinned_.erase(pinned_.find(donor->storage));

  TileVal r = created;
  r.name = result;
  r.def = Mask::all(R, C);
  r.validDefined = true;
  r.range = range;
  r.storage = newStorage();
  addTile(r);
  return 1 + used;
}

}  // namespace ptodiff::fuzz::detail
