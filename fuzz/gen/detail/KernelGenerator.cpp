// KernelGenerator: the driver (step selection, prologue, final stores), IR emission helpers,
// values in scope, scalar parameters, GM tensors, and finishing the case (parameter list, Out
// segment bases, return, scalar sets).
#include "fuzz/gen/detail/KernelGenerator.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ptodiff::fuzz::detail {

KernelGenerator::KernelGenerator(const GenConfig& config, FeatureSet features, int size, std::string function)
    : config_(config), features_(features), size_(std::clamp(size, 0, rc::kNominalSize)), function_(std::move(function)) {}

GeneratedCase KernelGenerator::generate() {
  GeneratedCase out;
  out.features = features_;
  kernel_.name = function_;
  kernel_.type = FunctionType::InCore;
  kernel_.stage = FunctionStage::Tile;
  scopes_.push_back(Scope{&kernel_.body, {}, {}, {}});

  // The budget is the first pick after the features: shrinking it regenerates a shorter kernel.
  const int budget =
      static_cast<int>(choose_.shrinkingFrom(2 + size_ * config_.maxStatements / rc::kNominalSize, 1));
  blockNum_ = has(Feature::MultiBlock) ? choose_.between(2, std::max(2, config_.maxBlocks)) : 1;
  out.inputSeed = choose_.seed();
  // A few working shapes most tiles share, so elementwise ops find equal-shaped operands.
  const int64_t shapeCount = choose_.between(1, 3);
  for (int64_t i = 0; i < shapeCount; ++i) {
    int64_t rows = choose_.pick<int64_t>({16, 8, 4, 1, 32, 12, 2, 5, 24, 3});
    int64_t cols = choose_.pick<int64_t>({32, 16, 64, 48});
    while (rows > 1 && rows * cols > config_.maxTileElements) rows /= 2;
    workShapes_.push_back({rows, cols});
  }

  genPrologue();
  genBlock(budget);
  genFinalStores();
  finish(out);
  drawScalarSets(out);
  return out;
}

// ---- driver ----

int KernelGenerator::genBlock(int budget) {
  int used = 0;
  while (used < budget) used += std::max(1, genStep(budget - used));
  return used;
}

int KernelGenerator::genStep(int budget) {
  using Step = int (KernelGenerator::*)(int);
  struct Option {
    int weight;
    Step step;
  };
  if (vecStorageBytes_ >= config_.maxVecStorageBytes) return budget;  // the kernel's Vec storage is spent
  const bool anyTile = !visibleTiles([&](const TileVal& v) { return usable(v) && v.space() == MemSpace::Vec; }).empty();
  const bool ooc = outOfContractAllowed();
  const bool control = controlAllowed() && budget >= 2;
  // Loads first: shrinking the step choice heads toward plain load/store kernels.
  const Option options[] = {
      {anyTile ? 2 : 8, &KernelGenerator::stepLoad},
      {anyTile ? 3 : 0, &KernelGenerator::stepStore},
      {has(Feature::ElementwiseFP32) || has(Feature::OtherDTypes) ? 4 : 0, &KernelGenerator::stepBinary},
      {has(Feature::ElementwiseFP32) ? 3 : 0, &KernelGenerator::stepUnary},
      {has(Feature::TileScalar) ? 3 : 0, &KernelGenerator::stepTileScalar},
      {has(Feature::TileScalar) ? 1 : 0, &KernelGenerator::stepScalarExpr},
      {has(Feature::Full) ? 2 : 0, &KernelGenerator::stepFull},
      {has(Feature::Slices) ? 3 : 0, &KernelGenerator::stepSlice},
      {has(Feature::Slices) && ooc ? 1 : 0, &KernelGenerator::stepExtract},
      {has(Feature::Assemble) ? 3 : 0, &KernelGenerator::stepAssemble},
      {has(Feature::Assemble) ? 1 : 0, &KernelGenerator::stepCreateAssemble},
      {has(Feature::Reshape) ? 2 : 0, &KernelGenerator::stepReshape},
      {has(Feature::StaticPartialValid) ? 2 : 0, &KernelGenerator::stepSetValidStatic},
      {has(Feature::RuntimeValid) && depth() == 0 ? 3 : 0, &KernelGenerator::stepRuntimeValid},
      {has(Feature::If) && control ? 2 : 0, &KernelGenerator::stepIf},
      {has(Feature::For) && control ? 2 : 0, &KernelGenerator::stepFor},
      {has(Feature::While) && control ? 2 : 0, &KernelGenerator::stepWhile},
      {has(Feature::For) && has(Feature::Assemble) && control ? 1 : 0, &KernelGenerator::stepFillLoop},
      {has(Feature::Cube) ? 2 : 0, &KernelGenerator::stepCube},
      {ooc ? 1 : 0, &KernelGenerator::stepReduction},
      {has(Feature::TransposeView) && ooc ? 2 : 0, &KernelGenerator::stepTransposeVec},
      {ooc ? 1 : 0, &KernelGenerator::stepMoveVec},
  };
  std::vector<int> weights;
  for (const Option& o : options) weights.push_back(o.weight);
  return (this->*options[choose_.weighted(weights)].step)(budget);
}

void KernelGenerator::genPrologue() {
  if (blockNum_ > 1) {
    blockIdx_ = emitAssign("blk", call(Opcode::TileGetBlockIdx, {}));
    addScalar({blockIdx_, DType::INDEX, 0, blockNum_ - 1, {}});
    if (choose_.chance(50)) {
      std::string nb = emitAssign("nb", call(Opcode::TileGetBlockNum, {}));
      addScalar({nb, DType::INDEX, blockNum_, blockNum_, {}});
    }
    if (choose_.chance(50)) {
      std::string sub = emitAssign("sub", call(Opcode::TileGetSubblockIdx, {}));
      addScalar({sub, DType::INDEX, 0, 0, {}});
    }
  }
  baseInsertAt_ = kernel_.body.size();
}

void KernelGenerator::genFinalStores() {
  // Observe the last results: up to two recent top-level values no store has written yet.
  std::vector<const TileVal*> pending = visibleTiles([&](const TileVal& v) {
    return usable(v) && (v.space() == MemSpace::Vec || v.space() == MemSpace::Acc) && !stored_.count(v.name);
  });
  std::vector<TileVal> chosen;
  for (size_t i = 0; i < pending.size() && i < 2; ++i) chosen.push_back(*pending[i]);
  for (const TileVal& v : chosen) storeTile(v);
  bool anyOut = std::any_of(tensors_.begin(), tensors_.end(), [](const GmTensor& t) { return t.out; });
  if (!anyOut) {
    std::optional<TileVal> v = genLoad(false);
    addTile(*v);
    storeTile(*v);
  }
}

// ---- emission ----

std::string KernelGenerator::fresh(const std::string& prefix) { return prefix + std::to_string(counters_[prefix]++); }

void KernelGenerator::emit(StmtPtr s) { scopes_.back().block->push_back(std::move(s)); }

std::string KernelGenerator::emitAssign(const std::string& prefix, ExprPtr value) {
  auto s = std::make_unique<AssignStmt>(SourceLoc{});
  std::string n = fresh(prefix);
  s->target.name = n;
  s->value = std::move(value);
  emit(std::move(s));
  return n;
}

ExprPtr KernelGenerator::name(const std::string& n) { return Expr::nameRef(n); }

Binder KernelGenerator::binder(const std::string& n) {
  Binder b;
  b.name = n;
  return b;
}

std::unique_ptr<YieldStmt> KernelGenerator::makeYield(std::vector<ExprPtr> values,
                                                      const std::vector<std::string>& targets) {
  auto y = std::make_unique<YieldStmt>(SourceLoc{});
  y->values = std::move(values);
  for (const std::string& t : targets) y->targets.push_back(binder(t));
  return y;
}

ExprPtr KernelGenerator::intLit(int64_t v) {
  if (v < 0) return Expr::unary(UnOp::Neg, Expr::intLit(-v));
  return Expr::intLit(v);
}

ExprPtr KernelGenerator::floatLit(double v) {
  if (std::signbit(v)) return Expr::unary(UnOp::Neg, Expr::floatLit(-v));
  return Expr::floatLit(v);
}

ExprPtr KernelGenerator::list(ExprPtr a, ExprPtr b) {
  std::vector<ExprPtr> elems;
  elems.push_back(std::move(a));
  elems.push_back(std::move(b));
  return Expr::list(std::move(elems));
}

ExprPtr KernelGenerator::shape(int64_t rows, int64_t cols) { return list(intLit(rows), intLit(cols)); }

ExprPtr KernelGenerator::call(Opcode op, std::vector<ExprPtr> args) { return Expr::call(op, std::move(args)); }

ExprPtr KernelGenerator::binary(BinOp op, ExprPtr a, ExprPtr b) { return Expr::binary(op, std::move(a), std::move(b)); }

ExprPtr KernelGenerator::add(ExprPtr a, ExprPtr b) {
  if (!a) return b;
  return binary(BinOp::Add, std::move(a), std::move(b));
}

ExprPtr KernelGenerator::mul(ExprPtr a, ExprPtr b) { return binary(BinOp::Mul, std::move(a), std::move(b)); }

// ---- values in scope ----

bool KernelGenerator::usable(const TileVal& v) const {
  if (!v.validDefined || retired_.count(v.storage)) return false;
  // Dynamic valid state must not cross user control flow (V5): runtime-valid tiles exist only at
  // the top level and are invisible inside regions.
  return depth() == 0 || !v.runtimeValid;
}

std::vector<const TileVal*> KernelGenerator::visibleTiles(const std::function<bool(const TileVal&)>& pred) const {
  std::vector<const TileVal*> out;
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope)
    for (auto v = scope->tiles.rbegin(); v != scope->tiles.rend(); ++v)
      if (pred(*v)) out.push_back(&*v);
  return out;
}

std::vector<const KernelGenerator::ScalarVal*> KernelGenerator::visibleScalars(
    const std::function<bool(const ScalarVal&)>& pred) const {
  std::vector<const ScalarVal*> out;
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope)
    for (auto v = scope->scalars.rbegin(); v != scope->scalars.rend(); ++v)
      if (pred(*v)) out.push_back(&*v);
  return out;
}

std::optional<TileVal> KernelGenerator::pickTile(const std::function<bool(const TileVal&)>& pred) {
  std::vector<const TileVal*> candidates = visibleTiles(pred);
  if (candidates.empty()) return std::nullopt;
  const int64_t n = static_cast<int64_t>(candidates.size());
  // Mostly one of the latest values (deep dataflow chains), sometimes any.
  const int64_t i = choose_.chance(40) ? choose_.below(n) : choose_.below(std::min<int64_t>(n, 3));
  return *candidates[static_cast<size_t>(i)];
}

const KernelGenerator::ScalarVal* KernelGenerator::pickScalar(const std::function<bool(const ScalarVal&)>& pred) {
  std::vector<const ScalarVal*> candidates = visibleScalars(pred);
  if (candidates.empty()) return nullptr;
  return candidates[static_cast<size_t>(choose_.below(static_cast<int64_t>(candidates.size())))];
}

std::string KernelGenerator::currentTensorName(size_t tensor) const {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope)
    if (auto it = scope->tensorNames.find(tensor); it != scope->tensorNames.end()) return it->second;
  return tensors_[tensor].name;
}

int64_t KernelGenerator::pickOutTensor(int percent) {
  std::vector<int64_t> outs;
  for (size_t i = 0; i < tensors_.size(); ++i)
    if (tensors_[i].out) outs.push_back(static_cast<int64_t>(i));
  if (outs.empty() || !choose_.chance(percent)) return -1;
  return choose_.pick(outs);
}

// ---- parameters and GM ----

std::string KernelGenerator::newParam(const std::string& prefix, DType dt, ParamRole role, int64_t lo, int64_t hi) {
  std::string n = fresh(prefix);
  params_.push_back({n, dt, role, lo, hi});
  ScalarVal v{n, dt, lo, hi, {}};
  if (role == ParamRole::Operand || role == ParamRole::Divisor)
    v.range = Interval::of(static_cast<double>(lo) / 4.0, static_cast<double>(hi) / 4.0);
  if (dt == DType::INDEX || dt == DType::INT32) v.range = Interval::of(static_cast<double>(lo), static_cast<double>(hi));
  // Parameters are visible everywhere: they live in the kernel's scope.
  scopes_.front().scalars.push_back(std::move(v));
  return n;
}

size_t KernelGenerator::inTensor(DType dt, int64_t rowsNeeded, int64_t colsNeeded) {
  std::vector<size_t> existing;
  for (size_t i = 0; i < tensors_.size(); ++i)
    if (!tensors_[i].out && tensors_[i].dtype == dt) existing.push_back(i);
  size_t t;
  if (!existing.empty() && choose_.chance(60)) {
    t = choose_.pick(existing);
  } else {
    t = tensors_.size();
    tensors_.push_back({fresh("a"), dt, false, 0, 0, {}});
  }
  tensors_[t].rows = std::max(tensors_[t].rows, rowsNeeded);
  tensors_[t].cols = std::max(tensors_[t].cols, colsNeeded);
  return t;
}

size_t KernelGenerator::outTensor(DType dt) {
  std::vector<size_t> existing;
  for (size_t i = 0; i < tensors_.size(); ++i)
    if (tensors_[i].out && tensors_[i].dtype == dt) existing.push_back(i);
  if (!existing.empty() && choose_.chance(70)) return choose_.pick(existing);
  GmTensor t{fresh("out"), dt, true, 0, 0, {}};
  if (blockNum_ > 1) t.base = fresh("ob");
  tensors_.push_back(std::move(t));
  return tensors_.size() - 1;
}

KernelGenerator::IndexExpr KernelGenerator::offsetExpr(int64_t maxValue, int64_t align, bool allowRuntime) {
  const int64_t units = std::max<int64_t>(maxValue, 0) / align;
  if (!allowRuntime || units == 0 || !choose_.chance(35)) {
    const int64_t v = align * choose_.below(units + 1);
    return {intLit(v), v, v};
  }
  auto scaled = [&](ExprPtr e) { return align == 1 ? std::move(e) : mul(std::move(e), intLit(align)); };
  auto inScope = [&](int64_t maxHi) {
    return pickScalar([&](const ScalarVal& v) {
      return v.dtype == DType::INDEX && v.lo >= 0 && v.hi <= maxHi && v.hi > v.lo;
    });
  };
  // A scalar already in scope (block index, induction variable, loop count, loop carry, If result)
  // whose every value fits; now and then the sum of two of them or half of one, terms the
  // lowering's alignment and equality proofs (W6, W16) must read through.
  const ScalarVal* s = choose_.chance(50) ? inScope(units) : nullptr;
  IndexExpr base{nullptr, 0, units * align};
  const size_t compound = s ? choose_.weighted({6, 1, 1}) : 0;
  const ScalarVal* t = compound == 1 && s->hi < units ? inScope(units - s->hi) : nullptr;
  const ScalarVal* h = compound == 2 ? inScope(2 * units + 1) : nullptr;
  if (t) {
    base = {scaled(add(name(s->name), name(t->name))), (s->lo + t->lo) * align, (s->hi + t->hi) * align};
  } else if (h) {
    base = {scaled(binary(BinOp::FloorDiv, name(h->name), intLit(2))), h->lo / 2 * align, h->hi / 2 * align};
  } else if (s) {
    base = {scaled(name(s->name)), s->lo * align, s->hi * align};
  } else {
    base.expr = scaled(name(newParam("off", DType::INDEX, ParamRole::Offset, 0, units)));
  }
  // Related offsets of one scalar: its complement `M - s * unit` and shifts `s * unit + c`, so the
  // lowering's equality, overlap and alignment proofs (W6, W11, W16) meet more than one shape.
  const int64_t top = units * align;
  switch (choose_.weighted({6, 1, 1})) {
    case 1: return {binary(BinOp::Sub, intLit(top), std::move(base.expr)), top - base.hi, top - base.lo};
    case 2:
      if (top - base.hi >= align) {
        const int64_t c = align * choose_.between(1, (top - base.hi) / align);
        return {add(std::move(base.expr), intLit(c)), base.lo + c, base.hi + c};
      }
      break;
    default: break;
  }
  return base;
}

std::pair<ExprPtr, Interval> KernelGenerator::scalarOperand(DType dt, bool divisor) {
  if (dt == DType::INT32) {
    const size_t how = choose_.weighted({3, 1, 1});
    if (how == 1) {
      std::string p = newParam("iv", DType::INT32, ParamRole::IntOperand, -100, 100);
      return {name(p), Interval::of(-100, 100)};
    }
    if (how == 2 && outOfContractAllowed()) {  // S11: the Buffer IR states no INDEX -> INT32 conversion
      if (const ScalarVal* s = pickScalar([](const ScalarVal& v) { return v.dtype == DType::INDEX; })) {
        leaveContract();
        return {name(s->name), Interval::of(static_cast<double>(s->lo), static_cast<double>(s->hi))};
      }
    }
    const int64_t k = choose_.pick<int64_t>({1, -3, 7, 1000, -2000000000, 65537});
    std::vector<ExprPtr> args;
    args.push_back(intLit(k));
    args.push_back(Expr::dtypeRef(DType::INT32));
    return {call(Opcode::Const, std::move(args)), Interval::point(static_cast<double>(k))};
  }
  const size_t how = choose_.weighted({4, 2, 2, 1});
  if (how == 1) {  // a new runtime scalar
    if (divisor) {
      std::string p = newParam("d", DType::FP32, ParamRole::Divisor, 2, 16);
      return {name(p), Interval::of(0.5, 4.0)};
    }
    std::string p = newParam("x", DType::FP32, ParamRole::Operand, -8, 8);
    return {name(p), Interval::of(-2.0, 2.0)};
  }
  if (how == 2) {  // an FP32 scalar in scope
    if (const ScalarVal* s = pickScalar([&](const ScalarVal& v) {
          return v.dtype == DType::FP32 && v.range.magnitude() <= 64.0 && (!divisor || v.range.awayFromZero(0.5));
        }))
      return {name(s->name), s->range};
  }
  // An INDEX scalar converted to the tile dtype: S11, the Buffer IR states no such conversion.
  if (how == 3 && !divisor && outOfContractAllowed()) {
    if (const ScalarVal* s = pickScalar([](const ScalarVal& v) { return v.dtype == DType::INDEX && v.hi <= 64; })) {
      leaveContract();
      return {name(s->name), Interval::of(static_cast<double>(s->lo), static_cast<double>(s->hi))};
    }
  }
  const double v = divisor ? choose_.pick<double>({2.0, 0.5, 4.0, -2.0, 1.5, -0.5})
                           : choose_.pick<double>({1.0, 0.5, 2.0, -1.5, 0.25, 3.0, -0.75, 0.0});
  return {floatLit(v), Interval::point(v)};
}

// ---- finishing ----

void KernelGenerator::finish(GeneratedCase& out) {
  // Out segments: block b writes rows [b * segment, (b + 1) * segment) of each Out tensor.
  std::vector<StmtPtr> bases;
  for (GmTensor& t : tensors_) {
    if (!t.out) continue;
    t.rows = std::max<int64_t>(t.rows, 1);
    t.cols = std::max<int64_t>(t.cols, 1);
    if (t.base.empty()) continue;
    auto s = std::make_unique<AssignStmt>(SourceLoc{});
    s->target.name = t.base;
    s->value = mul(name(blockIdx_), intLit(t.rows));
    bases.push_back(std::move(s));
  }
  kernel_.body.insert(kernel_.body.begin() + static_cast<std::ptrdiff_t>(baseInsertAt_),
                      std::make_move_iterator(bases.begin()), std::make_move_iterator(bases.end()));

  auto param = [](const std::string& n, Type t, ParamDirection dir) {
    Param p;
    p.name = n;
    p.type = std::move(t);
    p.direction = dir;
    return p;
  };
  for (GmTensor& t : tensors_) {
    if (t.out) continue;
    t.rows = std::max<int64_t>(t.rows, 1);
    t.cols = std::max<int64_t>(t.cols, 1);
    kernel_.params.push_back(param(t.name, Type::tensor({t.rows, t.cols}, t.dtype), ParamDirection::In));
    TensorInit init;
    init.kind = TensorInit::Kind::Uniform;
    if (t.dtype == DType::INT32) {
      init.low = static_cast<double>(std::numeric_limits<int32_t>::min());
      init.high = static_cast<double>(std::numeric_limits<int32_t>::max());
    } else if (t.dtype == DType::INT8) {
      init.low = -128;
      init.high = 127;
    }
    out.tensorInits[t.name] = init;
  }
  for (const ScalarParam& p : params_) kernel_.params.push_back(param(p.name, Type::scalar(p.dtype), ParamDirection::In));
  auto ret = std::make_unique<ReturnStmt>(SourceLoc{});
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const GmTensor& t = tensors_[i];
    if (!t.out) continue;
    Type type = Type::tensor({t.rows * blockNum_, t.cols}, t.dtype);
    kernel_.params.push_back(param(t.name, type, t.readBack ? ParamDirection::InOut : ParamDirection::Out));
    kernel_.results.push_back(type);
    ret->values.push_back(name(currentTensorName(i)));
  }
  kernel_.body.push_back(std::move(ret));

  out.program.name = "generated";
  out.program.functions.push_back(std::move(kernel_));
  out.blockNum = blockNum_;
  out.inContract = inContract_;
}

void KernelGenerator::drawScalarSets(GeneratedCase& out) {
  if (params_.empty()) {
    out.scalarSets.assign(1, {});
    return;
  }
  const int sets = std::max(1, config_.scalarSets);
  out.scalarSets.assign(static_cast<size_t>(sets), {});
  for (const ScalarParam& p : params_) {
    const int64_t span = p.hi - p.lo + 1;
    // Loop counts and flags rotate through their range so consecutive sets take different paths.
    const int64_t base = p.role == ParamRole::LoopCount ? choose_.below(span) : p.role == ParamRole::Flag ? choose_.below(2) : 0;
    for (int k = 0; k < sets; ++k) {
      int64_t v;
      switch (p.role) {
        case ParamRole::LoopCount: v = p.lo + (base + k) % span; break;
        case ParamRole::Flag: v = (base + k) % 2; break;
        case ParamRole::ValidExtent: {
          const size_t how = choose_.weighted({6, 2, 2});  // inside, empty, full
          v = how == 0 ? choose_.between(p.lo, p.hi) : how == 1 ? p.lo : p.hi;
          break;
        }
        default: v = choose_.between(p.lo, p.hi); break;
      }
      ScalarValue value;
      switch (p.dtype) {
        case DType::BOOL: value = ScalarValue::boolean(v != 0); break;
        case DType::FP32: value = ScalarValue::fp32(static_cast<float>(v) / 4.0f); break;
        case DType::INT32: value = ScalarValue{DType::INT32, v, 0.0f}; break;
        default: value = ScalarValue::index(v); break;
      }
      out.scalarSets[static_cast<size_t>(k)][p.name] = value;
    }
  }
}

}  // namespace ptodiff::fuzz::detail
