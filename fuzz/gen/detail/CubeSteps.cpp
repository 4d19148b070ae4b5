// The cube step (contract rule M1): GM -> load -> Mat -> move/extract -> Left/Right ->
// matmul/matmul_acc -> Acc -> store -> GM, in four forms: one matmul of whole (possibly
// partially valid) operands, a chain of matmul_acc over K chunks with literal and runtime
// init_cond, a K loop carrying the accumulator (or, with nested control, an outer loop carrying it
// through an inner K loop or an accumulator phi), and an accumulator phi. K loops may also carry an
// operand (Left, Right or Mat) or a second accumulator; out of the contract an If may choose an operand.
//
// Shapes are whole fractal boxes (Mat/Left NZ 16 x 32/esize, Right ZN 32/esize x 16, Acc 16 x 16)
// and every extract offset is box-aligned. Product lanes are defined when every folded operand
// lane is; matmul_acc's touched-box rule poisons the rest of each touched Acc box, so partial
// products are box-aligned (16 columns or 16 rows of a 32-wide or 32-tall accumulator) and leave
// the other boxes intact.
#include <algorithm>

#include "fuzz/gen/detail/KernelGenerator.h"

namespace ptodiff::fuzz::detail {

namespace {

constexpr int64_t kAccBox = 16;  // Acc fractal 1024: 16 x 16 FP32/INT32 boxes

/// Lanes of the [M, N] product defined in every run: (i, j) inside [0, vrL) x [0, vcR) whose
/// folded operand lanes k < vcL are all defined.
Mask productMask(const TileVal& lhs, const TileVal& rhs) {
  const int64_t M = lhs.rows(), N = rhs.cols();
  const int64_t vrL = lhs.validRows(), vcL = lhs.validCols(), vcR = rhs.validCols();
  // The usual case: both operands defined on their valid rectangles, which the fold reads.
  if (lhs.def.covers(vrL, vcL) && rhs.def.covers(vcL, vcR)) return Mask::rect(M, N, vrL, vcR);
  Mask m = Mask::none(M, N);
  for (int64_t i = 0; i < vrL; ++i)
    for (int64_t j = 0; j < vcR; ++j) {
      bool defined = true;
      for (int64_t k = 0; k < vcL && defined; ++k) defined = lhs.def.at(i, k) && rhs.def.at(k, j);
      m.set(i, j, defined);
    }
  return m;
}

}  // namespace

int KernelGenerator::stepCube(int) {
  DType dt = DType::FP16;
  switch (choose_.weighted({4, 2, 1, 1})) {
    case 1: dt = DType::FP32; break;
    case 2: dt = DType::BF16; break;
    case 3: dt = DType::INT8; break;
    default: break;
  }
  const int64_t kUnit = 32 / dtypeSize(dt);  // box extent along K of Left (NZ) and Right (ZN)
  const DType accDt = dt == DType::INT8 ? DType::INT32 : DType::FP32;
  const double inMag = dt == DType::INT8 ? 128.0 : 1.0;
  const int64_t M = 16 * choose_.between(1, 2);
  const bool transposedB = has(Feature::TransposeView) && choose_.chance(40);
  // INT8's Mat box is 16 x 32: an untransposed [K, N] operand needs N a multiple of 32.
  const int64_t N = (dt == DType::INT8 && !transposedB) ? 32 : 16 * choose_.between(1, 2);
  // K chunks are multiples of 16 (B's Mat box rows) and of the Left/Right box along K.
  const int64_t Kc = std::max<int64_t>(16, kUnit) * (kUnit == 32 ? 1 : choose_.between(1, 2));
  const int64_t chunks = choose_.between(1, 3);
  const int64_t K = Kc * chunks;
  const int loopForm = has(Feature::For) && controlAllowed() ? 2 : 0;
  const int phiForm = has(Feature::If) && controlAllowed() ? 2 : 0;
  const size_t form = choose_.weighted({3, 2, loopForm, phiForm});
  const bool partial = form == 0 && has(Feature::StaticPartialValid) && choose_.chance(40);
  int64_t vrA = M, vkA = K, vkB = K, vnB = N;
  if (partial) {
    vrA = choose_.between(1, M);
    vkA = choose_.between(1, K);
    vkB = choose_.between(vkA, K);  // R's rows cover every folded k < vc_L
    vnB = choose_.between(1, N);
  }

  auto loadMat = [&](int64_t rows, int64_t cols, int64_t vr, int64_t vc, IndexExpr row) {
    const size_t t = inTensor(dt, row.hi + vr, vc);
    std::vector<ExprPtr> args;
    args.push_back(name(tensors_[t].name));
    args.push_back(list(std::move(row.expr), intLit(0)));
    args.push_back(shape(rows, cols));
    args.push_back(vr != rows || vc != cols ? list(intLit(vr), intLit(vc)) : nullptr);
    args.push_back(Expr::spaceRef(MemSpace::Mat));
    TileVal v;
    v.name = emitAssign("t", call(Opcode::TileLoad, std::move(args)));
    v.type = tileType(rows, cols, dt, MemSpace::Mat, vr, vc);
    v.def = Mask::rect(rows, cols, vr, vc);
    v.range = Interval::of(-inMag, inMag);
    v.storage = newStorage();
    v.pitchCols = cols;
    return v;
  };
  auto moveTo = [&](const TileVal& src, MemSpace space) {
    std::vector<ExprPtr> args;
    args.push_back(name(src.name));
    args.push_back(Expr::spaceRef(space));
    TileVal v = src;
    v.name = emitAssign("t", call(Opcode::TileMove, std::move(args)));
    v.type = tileType(src.rows(), src.cols(), dt, space, src.validRows(), src.validCols());
    v.def = Mask::rect(src.rows(), src.cols(), src.validRows(), src.validCols());  // the valid region only
    v.storage = newStorage();
    v.origin = Origin::Own;
    return v;
  };
  // A whole-box window of a fully valid, fully defined Mat tile, copied into `space`.
  auto extractTo = [&](const TileVal& src, ExprPtr r0, ExprPtr c0, int64_t rows, int64_t cols, MemSpace space) {
    std::vector<ExprPtr> args;
    args.push_back(name(src.name));
    args.push_back(std::move(r0));
    args.push_back(std::move(c0));
    args.push_back(shape(rows, cols));
    args.push_back(Expr::spaceRef(space));
    TileVal v = src;
    v.name = emitAssign("t", call(Opcode::TileExtract, std::move(args)));
    v.type = Type::tile(rows, cols, dt, space);
    v.def = Mask::all(rows, cols);
    v.storage = newStorage();
    v.origin = Origin::Own;
    return v;
  };
  auto matmul = [&](const TileVal& lhs, const TileVal& rhs) {
    std::vector<ExprPtr> args;
    args.push_back(name(lhs.name));
    args.push_back(name(rhs.name));
    TileVal c;
    c.name = emitAssign("t", call(Opcode::TileMatmul, std::move(args)));
    c.type = tileType(M, N, accDt, MemSpace::Acc, lhs.validRows(), rhs.validCols());
    c.def = productMask(lhs, rhs);
    c.validDefined = c.def.covers(lhs.validRows(), rhs.validCols());
    const double bound = static_cast<double>(lhs.validCols()) * inMag * inMag;
    c.range = Interval::of(-bound, bound);
    c.storage = newStorage();
    c.pitchCols = N;
    return c;
  };
  // init: nullptr (omitted: accumulate), a literal, or a runtime BOOL (either may happen).
  auto matmulAcc = [&](const TileVal& acc, const TileVal& lhs, const TileVal& rhs, ExprPtr init) {
    const bool alwaysInit = init && init->kind == Expr::Kind::BoolLit && init->boolValue;
    const Mask product = productMask(lhs, rhs);
    const int64_t pr = lhs.validRows(), pc = rhs.validCols();
    std::vector<ExprPtr> args;
    args.push_back(name(acc.name));
    args.push_back(name(lhs.name));
    args.push_back(name(rhs.name));
    args.push_back(std::move(init));
    TileVal c = acc;
    c.name = emitAssign("t", call(Opcode::TileMatmulAcc, std::move(args)));
    // Touched boxes: product lanes hold the (accumulated) product, the rest of the box is poison;
    // untouched boxes keep the accumulator's lanes.
    for (int64_t bi = 0; bi < M; bi += kAccBox)
      for (int64_t bj = 0; bj < N; bj += kAccBox) {
        if (bi >= pr || bj >= pc) continue;
        for (int64_t i = bi; i < bi + kAccBox; ++i)
          for (int64_t j = bj; j < bj + kAccBox; ++j) {
            const bool lane = i < pr && j < pc;
            c.def.set(i, j, lane && product.at(i, j) && (alwaysInit || acc.def.at(i, j)));
          }
      }
    c.validDefined = c.def.covers(c.validRows(), c.validCols());
    const double bound = static_cast<double>(lhs.validCols()) * inMag * inMag + (alwaysInit ? 0.0 : acc.range.hi);
    c.range = Interval::of(-bound, bound);
    c.storage = newStorage();
    return c;
  };
  auto initCond = [&]() -> ExprPtr {
    switch (choose_.weighted({2, 1, 1, 1})) {
      case 1: return Expr::boolLit(false);
      case 2: return Expr::boolLit(true);
      case 3: {
        if (const ScalarVal* f = pickScalar([](const ScalarVal& v) { return v.dtype == DType::BOOL; }))
          return name(f->name);
        return name(newParam("f", DType::BOOL, ParamRole::Flag, 0, 1));
      }
      default: return nullptr;
    }
  };

  IndexExpr rowA = (!blockIdx_.empty() && choose_.chance(50))
                       ? IndexExpr{mul(name(blockIdx_), intLit(M)), 0, (blockNum_ - 1) * M}
                       : IndexExpr{intLit(0), 0, 0};
  const TileVal aMat = loadMat(M, K, vrA, vkA, std::move(rowA));
  TileVal bMat;
  if (transposedB) {
    // B^T in GM, relabelled on Mat (NZ -> ZN): emits nothing in the lowering (M5).
    bMat = emitTranspose(loadMat(N, K, vnB, vkB, {intLit(0), 0, 0}));
  } else {
    bMat = loadMat(K, N, vkB, vnB, {intLit(0), 0, 0});
  }
  auto chunkL = [&](ExprPtr k0) { return extractTo(aMat, intLit(0), std::move(k0), M, Kc, MemSpace::Left); };
  auto chunkR = [&](ExprPtr k0) { return extractTo(bMat, std::move(k0), intLit(0), Kc, N, MemSpace::Right); };
  auto chunk = [&](bool left, ExprPtr k0) { return left ? chunkL(std::move(k0)) : chunkR(std::move(k0)); };
  // Whether B's K chunks may be loaded on Mat by themselves ([Kc, N]: INT8's Mat box needs 32 columns).
  const bool matChunks = dt != DType::INT8 || N % 32 == 0;
  // `pl.yield_(value)` binding `target`, ending the region being generated.
  auto yieldTo = [&](const std::string& value, const std::string& target) {
    std::vector<ExprPtr> values;
    values.push_back(name(value));
    emit(makeYield(std::move(values), {target}));
  };
  // A K loop's trip count: a literal in [1, chunks] or a runtime `nk` in [0, chunks].
  auto kTrips = [&]() -> IndexExpr {
    if (choose_.chance(50)) {
      const int64_t t = choose_.between(1, chunks);
      return {intLit(t), t, t};
    }
    std::string n = newParam("nk", DType::INDEX, ParamRole::LoopCount, 0, chunks);
    return {name(n), 0, chunks};
  };
  // `for i in range(stop)` with `init` as its one carry: the loop and the names of its index, its
  // carry and its result.
  struct CarryLoop {
    std::unique_ptr<ForStmt> loop;
    std::string index, carry, result;
  };
  auto carryLoop = [&](const TileVal& init, ExprPtr stop) {
    CarryLoop out{std::make_unique<ForStmt>(SourceLoc{}), fresh("i"), fresh("c"), fresh("r")};
    out.loop->inductionVar.name = out.index;
    out.loop->start = intLit(0);
    out.loop->stop = std::move(stop);
    out.loop->step = intLit(1);
    out.loop->iterArgs.push_back(binder(out.carry));
    out.loop->inits.push_back(name(init.name));
    return out;
  };
  // for k in range(trips): acc = matmul_acc(acc, A[:, k], B[k, :], init_cond = k == 0 or omitted);
  // the loop's result. A fifth of the loops also carry an operand (M11: one storage alias, no
  // matrix copy): a Left or Right prefetch, whose next chunk (k + 1 mod chunks) is extracted after
  // the last read of the current one, so it lands in the carry's storage; a Left or Right chunk
  // yielded back unchanged; or B's chunk on Mat, loaded from GM after its move to Right.
  // With `secondAccumulator` (a loop straight in the kernel's regions, whose result is stored once)
  // a tenth of the loops carry a second accumulator next to the first, continued by the same
  // operands and stored after the loop: two Acc carries, each its own storage (L1, A3).
  auto accumulateInLoop = [&](const TileVal& init, IndexExpr trips, bool initFirst, bool secondAccumulator) {
    // PrefetchMat carries B's K chunk on Mat, loaded from GM.
    enum class Operand { None, PrefetchLeft, PrefetchRight, InvariantLeft, InvariantRight, PrefetchMat };
    const auto operand = static_cast<Operand>(choose_.weighted({20, 1, 1, 1, 1, matChunks ? 1 : 0}));
    const bool carriesLeft = operand == Operand::PrefetchLeft || operand == Operand::InvariantLeft;
    const bool carriesMat = operand == Operand::PrefetchMat;
    const bool prefetch = operand == Operand::PrefetchLeft || operand == Operand::PrefetchRight;
    auto matChunk = [&](IndexExpr row) { return loadMat(Kc, N, Kc, N, std::move(row)); };
    std::optional<TileVal> first;  // the carried operand's initial value
    if (carriesMat)
      first = matChunk({intLit(0), 0, 0});
    else if (operand != Operand::None)
      first = chunk(carriesLeft, intLit(prefetch ? 0 : Kc * choose_.below(chunks)));
    std::optional<TileVal> second;  // the second accumulator's initial value
    if (secondAccumulator && choose_.chance(10)) second = matmul(chunkL(intLit(0)), chunkR(intLit(0)));
    const int64_t tripsHi = trips.hi;
    auto [loop, k, carry, result] = carryLoop(init, std::move(trips.expr));
    std::string operandCarry, secondCarry, secondResult;
    if (first) {
      operandCarry = fresh("c");
      loop->iterArgs.push_back(binder(operandCarry));
      loop->inits.push_back(name(first->name));
    }
    if (second) {
      secondCarry = fresh("c");
      secondResult = fresh("r");
      loop->iterArgs.push_back(binder(secondCarry));
      loop->inits.push_back(name(second->name));
    }
    scopes_.push_back(Scope{&loop->body, {}, {}, {}});
    TileVal carried = init;
    carried.name = carry;
    auto operandOr = [&](bool left) {
      if (first && carriesLeft == left) {
        TileVal v = *first;
        v.name = operandCarry;
        return carriesMat ? moveTo(v, MemSpace::Right) : v;
      }
      return chunk(left, mul(name(k), intLit(Kc)));
    };
    TileVal lhs = operandOr(true);
    TileVal rhs = operandOr(false);
    ExprPtr cond = initFirst ? binary(BinOp::Eq, name(k), intLit(0)) : nullptr;
    TileVal next = matmulAcc(carried, lhs, rhs, std::move(cond));
    const double secondBound =
        second ? second->range.hi + static_cast<double>(tripsHi * Kc) * inMag * inMag : 0.0;
    std::string secondNext;
    if (second) {
      TileVal carried2 = *second;
      carried2.name = secondCarry;
      carried2.range = Interval::of(-secondBound, secondBound);
      secondNext = matmulAcc(carried2, lhs, rhs, nullptr).name;
    }
    std::vector<ExprPtr> values;
    std::vector<std::string> targets{result};
    values.push_back(name(next.name));
    if (first) {
      // The next chunk comes after every read of the current one (the second accumulator's too).
      std::string operandNext = operandCarry;
      auto nextChunk = [&] { return mul(binary(BinOp::Mod, add(name(k), intLit(1)), intLit(chunks)), intLit(Kc)); };
      if (prefetch) operandNext = chunk(carriesLeft, nextChunk()).name;
      if (carriesMat) operandNext = matChunk({nextChunk(), 0, (chunks - 1) * Kc}).name;
      values.push_back(name(operandNext));
      targets.push_back(fresh("r"));
    }
    if (second) {
      values.push_back(name(secondNext));
      targets.push_back(secondResult);
    }
    emit(makeYield(std::move(values), targets));
    scopes_.pop_back();
    emit(std::move(loop));
    if (second) {
      // Full products onto a fully defined start: every lane stays defined, for any trip count.
      TileVal r = *second;
      r.name = secondResult;
      r.range = Interval::of(-secondBound, secondBound);
      r.storage = newStorage();
      addTile(r);
      if (r.validDefined) storeTile(r);
    }
    // Every trip rewrites the whole accumulator (full products), the first one from scratch when
    // it starts from `create`: all lanes are defined after any trip count the case can take.
    TileVal out = init;
    out.name = result;
    out.def = Mask::all(M, N);
    out.validDefined = true;
    const double bound = init.range.hi + static_cast<double>(trips.hi * Kc) * inMag * inMag;
    out.range = Interval::of(-bound, bound);
    out.storage = newStorage();
    return out;
  };

  // An accumulator phi (A15): one arm of an If continues `seed` in place (directly, or with a K
  // loop of its own), the other keeps it, continues it too, or (outside the contract) computes
  // another product, a divergent Acc branch (B13). The If's result.
  auto accumulatorPhi = [&](const TileVal& seed) {
    const int64_t j1 = choose_.below(chunks);
    const TileVal lhs = chunkL(intLit(j1 * Kc)), rhs = chunkR(intLit(j1 * Kc));
    const bool divergent = outOfContractAllowed() && choose_.chance(40);
    const bool continueInThen = choose_.chance(50);
    const bool bothContinue = !divergent && choose_.chance(20);  // B1: both arms update it in place
    auto ifs = std::make_unique<IfStmt>(SourceLoc{});
    ifs->cond = pickCondition();
    const std::string result = fresh("r");
    auto arm = [&](Block& body, bool continues) {
      scopes_.push_back(Scope{&body, {}, {}, {}});
      TileVal v;
      if (continues && has(Feature::For) && controlAllowed() && choose_.chance(40)) {
        // A15 "via a local loop": the arm continues the accumulator with a K loop of its own.
        v = accumulateInLoop(seed, kTrips(), false, false);
      } else {
        v = continues ? matmulAcc(seed, lhs, rhs, initCond()) : divergent ? matmul(lhs, rhs) : seed;
      }
      yieldTo(v.name, result);
      scopes_.pop_back();
      return v;
    };
    const TileVal thenValue = arm(ifs->thenBody, continueInThen);
    const TileVal elseValue = arm(ifs->elseBody, bothContinue || !continueInThen);
    emit(std::move(ifs));
    TileVal out = thenValue;
    out.name = result;
    out.def = thenValue.def.intersect(elseValue.def);
    out.validDefined = out.def.covers(out.validRows(), out.validCols());
    out.range = thenValue.range.hull(elseValue.range);
    out.storage = newStorage();
    if (divergent) leaveContract();  // B13: no Acc -> Acc copy joins two accumulators
    return out;
  };
  // for o in range(trips) (or `while k < trips`): acc = (a K loop, or an accumulator phi,
  // continuing acc): K tiled twice, or a phi inside a loop carrying the accumulator (A15 "in While
  // too"; the carry is bound anew on every trip, so no entry copy is needed). The loop's result.
  auto accumulateInOuterLoop = [&](const TileVal& init) {
    IndexExpr trips = kTrips();
    const bool asWhile = has(Feature::While) && choose_.chance(50);
    std::unique_ptr<Stmt> loop;
    Block* body = nullptr;
    std::string carry, result, counter;
    if (asWhile) {
      auto w = std::make_unique<WhileStmt>(SourceLoc{});
      carry = fresh("c");
      counter = fresh("k");
      w->iterArgs.push_back(binder(carry));
      w->inits.push_back(name(init.name));
      w->iterArgs.push_back(binder(counter));
      w->inits.push_back(intLit(0));
      w->cond = binary(BinOp::Lt, name(counter), std::move(trips.expr));
      body = &w->body;
      loop = std::move(w);
    } else {
      CarryLoop f = carryLoop(init, std::move(trips.expr));
      carry = f.carry;
      result = f.result;
      body = &f.loop->body;
      loop = std::move(f.loop);
    }
    // Each trip adds at most `chunks` products of Kc lanes (or replaces the accumulator by one), so
    // the carry stays within the bound of the last trip on every trip.
    const double perTrip = static_cast<double>(chunks * Kc) * inMag * inMag;
    const double bound = init.range.hi + static_cast<double>(trips.hi) * perTrip;
    scopes_.push_back(Scope{body, {}, {}, {}});
    TileVal carried = init;
    carried.name = carry;
    carried.range = Interval::of(-bound, bound);
    const bool phi = has(Feature::If) && choose_.chance(50);
    TileVal next = phi ? accumulatorPhi(carried) : accumulateInLoop(carried, kTrips(), false, false);
    if (asWhile) {
      result = fresh("r");
      std::vector<ExprPtr> values;
      values.push_back(name(next.name));
      values.push_back(name(emitAssign("k", add(name(counter), intLit(1)))));
      emit(makeYield(std::move(values), {result, fresh("r")}));
    } else {
      yieldTo(next.name, result);
    }
    scopes_.pop_back();
    emit(std::move(loop));
    TileVal out = next;
    out.name = result;
    out.def = init.def.intersect(next.def);
    out.validDefined = out.def.covers(out.validRows(), out.validCols());
    out.range = Interval::of(-bound, bound);
    out.storage = newStorage();
    return out;
  };

  // An If choosing a Left or Right chunk: its arms' extracts live in different storage, and the one
  // destination the Buffer path needs would take a Left -> Left (or Right) copy (B13 read for every
  // matrix space, M14), so the kernel stays on Tile, where the result names the storage of the arm
  // that ran (C13).
  const bool operandPhi = outOfContractAllowed() && has(Feature::If) && controlAllowed() && choose_.chance(15);
  // `mat`: B's chunk loaded on Mat in each arm, moved to Right after.
  auto chunkOfAnIf = [&](bool left, bool mat) {
    auto ifs = std::make_unique<IfStmt>(SourceLoc{});
    ifs->cond = pickCondition();
    const std::string result = fresh("r");
    TileVal v;
    for (Block* body : {&ifs->thenBody, &ifs->elseBody}) {
      scopes_.push_back(Scope{body, {}, {}, {}});
      const int64_t k0 = Kc * choose_.below(chunks);
      v = mat ? loadMat(Kc, N, Kc, N, {intLit(k0), k0, k0}) : chunk(left, intLit(k0));
      yieldTo(v.name, result);
      scopes_.pop_back();
    }
    emit(std::move(ifs));
    v.name = result;
    v.storage = newStorage();
    leaveContract();
    return mat ? moveTo(v, MemSpace::Right) : v;
  };

  TileVal acc;
  if (form == 0) {
    acc = matmul(moveTo(aMat, MemSpace::Left), moveTo(bMat, MemSpace::Right));
  } else if (form == 1) {
    const int64_t j0 = choose_.below(chunks);
    acc = matmul(chunkL(intLit(j0 * Kc)), chunkR(intLit(j0 * Kc)));
    const int64_t steps = choose_.between(1, 2);
    for (int64_t s = 0; s < steps; ++s) {
      const int64_t j = choose_.below(chunks);
      TileVal lhs;
      if (M == 32 && choose_.chance(30)) {
        // A product 16 rows tall touches only the first Acc box row; the rest keeps acc. Like the
        // narrow product below, the Acc is wider than the product (M8: a product-shaped view).
        lhs = moveTo(loadMat(M, Kc, kAccBox, Kc, {intLit(0), 0, 0}), MemSpace::Left);
      } else if (operandPhi && s == 0) {
        lhs = chunkOfAnIf(true, false);
      } else {
        lhs = chunkL(intLit(j * Kc));
      }
      TileVal rhs;
      if (N == 32 && choose_.chance(30)) {
        // A product 16 columns wide touches only the first Acc box column; the rest keeps acc.
        rhs = moveTo(loadMat(Kc, N, Kc, kAccBox, {intLit(j * Kc), j * Kc, j * Kc}), MemSpace::Right);
      } else if (operandPhi && s == steps - 1 && choose_.chance(50)) {
        rhs = chunkOfAnIf(false, matChunks && choose_.chance(40));
      } else {
        rhs = chunkR(intLit(j * Kc));
      }
      acc = matmulAcc(acc, lhs, rhs, initCond());
    }
  } else if (form == 3) {
    const int64_t j0 = choose_.below(chunks);
    acc = accumulatorPhi(matmul(chunkL(intLit(j0 * Kc)), chunkR(intLit(j0 * Kc))));
  } else if (has(Feature::NestedControl) && depth() + 1 < maxDepth() && choose_.chance(35)) {
    acc = accumulateInOuterLoop(matmul(chunkL(intLit(0)), chunkR(intLit(0))));
  } else {
    // for k in range(trips): acc = matmul_acc(acc, A[:, k], B[k, :], init_cond = k == 0 or omitted)
    const bool fromCreate = choose_.chance(30);
    IndexExpr trips{intLit(1), 1, 1};
    if (fromCreate || choose_.chance(40)) {
      const int64_t v = choose_.between(1, chunks);  // a created accumulator needs a first trip
      trips = {intLit(v), v, v};
    } else {
      std::string n = newParam("nk", DType::INDEX, ParamRole::LoopCount, 0, chunks);
      trips = {name(n), 0, chunks};
    }
    TileVal init;
    if (fromCreate) {
      std::vector<ExprPtr> args;
      args.push_back(shape(M, N));
      args.push_back(Expr::dtypeRef(accDt));
      args.push_back(Expr::spaceRef(MemSpace::Acc));
      init.name = emitAssign("t", call(Opcode::TileCreate, std::move(args)));
      init.type = Type::tile(M, N, accDt, MemSpace::Acc);
      init.def = Mask::none(M, N);
      init.validDefined = false;
      init.storage = newStorage();
      init.pitchCols = N;
    } else {
      init = matmul(chunkL(intLit(0)), chunkR(intLit(0)));
    }
    const bool initFirst = fromCreate || choose_.chance(60);
    acc = accumulateInLoop(init, std::move(trips), initFirst, true);
    // A second K loop continues the first one's result (A7, L8: either may run zero times).
    if (choose_.chance(25)) acc = accumulateInLoop(acc, kTrips(), false, true);
  }

  addTile(acc);
  if (acc.validDefined) {
    storeTile(acc);
    if (outOfContractAllowed() && choose_.chance(30)) {
      TileVal v = moveTo(acc, MemSpace::Vec);  // Acc -> Vec: the fix-pipe to UB, not on M1's path
      v.type = tileType(M, N, accDt, MemSpace::Vec, acc.validRows(), acc.validCols());
      v.pitchCols = N;
      addTile(v);
      leaveContract();
    }
  }
  return form >= 2 ? 3 : 2;
}

}  // namespace ptodiff::fuzz::detail
