// RapidCheck generator of random *syntactically* valid IR programs for the text round-trip
// property (RoundTripTest.cpp).
//
// The programs need not verify: names are drawn from a small pool without regard to scoping, and
// op arguments only have the right syntactic kind (a ShapeList is a list of integer literals, a
// Space is a SpaceRef, ...). What they do respect is everything the text format can express:
//   - negative numbers are Unary(Neg, literal) (the parser never produces a negative literal);
//   - float literals are finite or +inf, never NaN (NaN has no text form);
//   - annotations appear only on assignment targets and single yield targets (Python has no syntax
//     for annotating loop variables or several targets at once);
//   - a return is only the last statement of a function body;
//   - types are canonical (valid shape canonicalized, as the parser does).
// Every choice is a RapidCheck pick inside gen::exec, so failures shrink.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "compiler/ir/IR.h"
#include "compiler/text/Printer.h"

namespace ptodiff {
/// Counterexamples show as program text (RapidCheck finds showValue by argument-dependent lookup).
inline void showValue(const Program& p, std::ostream& os) { os << "\n" << printProgram(p); }
}  // namespace ptodiff

namespace ptodiff::testgen {

struct TextGenLimits {
  int maxDepth = 3;           // nesting of compound statements
  int maxExprDepth = 3;       // nesting of scalar expressions
  int maxStmtsPerBlock = 5;
  int maxFunctions = 3;
  int maxParams = 4;
};

namespace detail {

inline int pick(int lo, int hiInclusive) { return *rc::gen::inRange(lo, hiInclusive + 1); }
inline bool coin(int percent = 50) { return pick(0, 99) < percent; }

inline std::string genName() {
  static const char* const kPool[] = {"a", "b", "x", "y", "acc", "tile_0", "n", "mem_vec_0", "out", "i", "self_", "T"};
  return kPool[pick(0, static_cast<int>(std::size(kPool)) - 1)];
}

inline DType genDType() { return static_cast<DType>(pick(0, static_cast<int>(DType::BOOL))); }
inline MemSpace genSpace() { return static_cast<MemSpace>(pick(0, static_cast<int>(MemSpace::Acc))); }
inline TileLayout genTileLayout() { return static_cast<TileLayout>(pick(0, static_cast<int>(TileLayout::col_major))); }

inline Extent genExtent() {
  switch (pick(0, 2)) {
    case 0: return Extent::constant(pick(0, 300));
    case 1: return Extent::named(genName());
    default: return Extent::dynamic();
  }
}

inline double genFloatMagnitude() {
  switch (pick(0, 3)) {
    case 0: return static_cast<double>(pick(0, 1000)) / 8.0;  // short decimal forms
    case 1: {
      static const double kSpecial[] = {0.0, 1e-5, 0.1, 1e16, 1e300, std::numeric_limits<double>::denorm_min(),
                                        std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity()};
      return kSpecial[pick(0, static_cast<int>(std::size(kSpecial)) - 1)];
    }
    default: {
      double v = *rc::gen::arbitrary<double>();
      return std::isfinite(v) ? std::fabs(v) : 1.5;
    }
  }
}

inline int64_t genIntMagnitude() {
  if (coin(80)) return pick(0, 64);
  return *rc::gen::inRange<int64_t>(0, std::numeric_limits<int64_t>::max());
}

inline Type genTileLike(bool isBuffer) {
  int64_t rows = pick(1, 64), cols = pick(1, 64);
  Type t = isBuffer ? Type::buffer(rows, cols, genDType(), genSpace()) : Type::tile(rows, cols, genDType(), genSpace());
  if (coin(40)) {
    t.layout.blayout = genTileLayout();
    t.layout.slayout = genTileLayout();
  }
  if (coin(25)) t.layout.fractal = 256 << pick(0, 3);
  if (coin(40)) t.valid = std::array<Extent, 2>{genExtent(), genExtent()};
  if (!isBuffer && coin(40)) t.memref = MemRef{genName(), genExtent(), pick(0, 1 << 16)};
  t.canonicalizeValid();
  return t;
}

inline Type genType() {
  switch (pick(0, 5)) {
    case 0: return Type::scalar(genDType());
    case 1: return Type::tensor({pick(1, 128), pick(1, 128)}, genDType());
    case 2: return Type::ptr();
    case 3: return genTileLike(/*isBuffer=*/true);
    default: return genTileLike(/*isBuffer=*/false);
  }
}

inline ExprPtr genLiteral() {
  ExprPtr lit;
  switch (pick(0, 2)) {
    case 0: lit = Expr::intLit(genIntMagnitude()); break;
    case 1: lit = Expr::floatLit(genFloatMagnitude()); break;
    default: return Expr::boolLit(coin());
  }
  return coin(25) ? Expr::unary(UnOp::Neg, std::move(lit)) : std::move(lit);
}

inline ExprPtr genScalarExpr(int depth);
inline ExprPtr genOpCall(int depth);

inline ExprPtr genList(int maxLen, const std::function<ExprPtr()>& elem) {
  std::vector<ExprPtr> elems;
  for (int i = pick(0, maxLen); i > 0; --i) elems.push_back(elem());
  return Expr::list(std::move(elems));
}

inline ExprPtr genArgument(ParamKind kind, int depth) {
  switch (kind) {
    case ParamKind::Value: return Expr::nameRef(genName());
    case ParamKind::Scalar: return genScalarExpr(depth);
    case ParamKind::IndexList: return genList(3, [&] { return genScalarExpr(depth); });
    case ParamKind::ShapeList: return genList(3, [] { return Expr::intLit(genIntMagnitude()); });
    case ParamKind::DType: return Expr::dtypeRef(genDType());
    case ParamKind::Space: return Expr::spaceRef(genSpace());
    case ParamKind::ValidTuple: return genList(2, [&] { return genScalarExpr(depth); });
  }
  return Expr::nameRef(genName());
}

/// A call of any registry op, one slot per parameter; optional ones omitted at random.
inline ExprPtr genOpCall(int depth) {
  auto ops = allOps();
  const OpInfo& info = ops[pick(0, static_cast<int>(ops.size()) - 1)];
  std::vector<ExprPtr> args;
  for (const ParamSpec& p : info.params)
    args.push_back(p.optional && coin() ? nullptr : genArgument(p.kind, depth - 1));
  return Expr::call(info.code, std::move(args));
}

inline ExprPtr genScalarExpr(int depth) {
  int choice = depth <= 0 ? pick(0, 1) : pick(0, 6);
  switch (choice) {
    case 0: return genLiteral();
    case 1: return Expr::nameRef(genName());
    case 2: return Expr::unary(coin() ? UnOp::Neg : UnOp::Not, genScalarExpr(depth - 1));
    case 3:
    case 4: {
      auto op = static_cast<BinOp>(pick(0, static_cast<int>(BinOp::Or)));
      ExprPtr lhs = genScalarExpr(depth - 1);
      return Expr::binary(op, std::move(lhs), genScalarExpr(depth - 1));
    }
    case 5: {
      std::vector<ExprPtr> args;
      args.push_back(genLiteral());
      args.push_back(Expr::dtypeRef(genDType()));
      return Expr::call(Opcode::Const, std::move(args));
    }
    default: return genOpCall(depth);
  }
}

inline Binder genBinder(bool mayAnnotate) {
  Binder b;
  b.name = genName();
  if (mayAnnotate && coin(40)) b.annotation = genType();
  return b;
}

inline std::vector<Binder> genBinders(int max) {
  std::vector<Binder> out;
  for (int i = pick(0, max); i > 0; --i) out.push_back(genBinder(false));
  return out;
}

inline std::vector<ExprPtr> genExprs(int max, const TextGenLimits& lim) {
  std::vector<ExprPtr> out;
  for (int i = pick(0, max); i > 0; --i) out.push_back(genScalarExpr(lim.maxExprDepth));
  return out;
}

inline Block genBlock(int depth, const TextGenLimits& lim);

inline StmtPtr genStmt(int depth, const TextGenLimits& lim) {
  const int e = lim.maxExprDepth;
  int choice = depth <= 0 ? pick(0, 2) : pick(0, 5);
  switch (choice) {
    case 0: {
      auto s = std::make_unique<AssignStmt>(SourceLoc{});
      s->target = genBinder(true);
      s->value = coin() ? genOpCall(e) : genScalarExpr(e);
      return s;
    }
    case 1: {
      auto s = std::make_unique<EvalStmt>(SourceLoc{});
      s->expr = coin(70) ? genOpCall(e) : genScalarExpr(e);
      return s;
    }
    case 2: {
      auto s = std::make_unique<YieldStmt>(SourceLoc{});
      int n = pick(0, 3);
      for (int i = 0; i < n; ++i) s->targets.push_back(genBinder(/*mayAnnotate=*/n == 1));
      s->values = genExprs(3, lim);
      return s;
    }
    case 3: {
      auto s = std::make_unique<ForStmt>(SourceLoc{});
      s->inductionVar = genBinder(false);
      // Favour the canonical short forms so both printed arities get exercised.
      s->start = coin() ? Expr::intLit(0) : genScalarExpr(e);
      s->stop = genScalarExpr(e);
      s->step = coin() ? Expr::intLit(1) : genScalarExpr(e);
      s->iterArgs = genBinders(2);
      s->inits = genExprs(2, lim);
      s->body = genBlock(depth - 1, lim);
      return s;
    }
    case 4: {
      auto s = std::make_unique<IfStmt>(SourceLoc{});
      s->cond = genScalarExpr(e);
      s->thenBody = genBlock(depth - 1, lim);
      if (coin()) s->elseBody = genBlock(depth - 1, lim);
      return s;
    }
    default: {
      auto s = std::make_unique<WhileStmt>(SourceLoc{});
      s->iterArgs = genBinders(2);
      s->inits = genExprs(2, lim);
      s->cond = genScalarExpr(e);
      s->body = genBlock(depth - 1, lim);
      return s;
    }
  }
}

inline Block genBlock(int depth, const TextGenLimits& lim) {
  Block b;
  for (int i = pick(0, lim.maxStmtsPerBlock); i > 0; --i) b.push_back(genStmt(depth, lim));
  return b;
}

inline Function genFunction(const TextGenLimits& lim) {
  Function f;
  f.name = genName();
  f.type = static_cast<FunctionType>(pick(0, static_cast<int>(FunctionType::Orchestration)));
  f.stage = coin() ? FunctionStage::Tile : FunctionStage::Buffer;
  for (int i = pick(0, lim.maxParams); i > 0; --i) {
    Param p;
    p.name = genName();
    if (coin(70)) {
      p.type = Type::tensor({pick(1, 128), pick(1, 128)}, genDType());
      p.direction = static_cast<ParamDirection>(pick(0, 2));
    } else {
      p.type = Type::scalar(genDType());
    }
    f.params.push_back(std::move(p));
  }
  for (int i = pick(0, 2); i > 0; --i) f.results.push_back(genType());
  f.body = genBlock(lim.maxDepth, lim);
  if (coin(60)) {
    auto r = std::make_unique<ReturnStmt>(SourceLoc{});
    r->values = genExprs(2, lim);
    f.body.push_back(std::move(r));
  }
  return f;
}

}  // namespace detail

/// Random programs within `lim`; held by shared_ptr because RapidCheck values must be copyable.
inline rc::Gen<std::shared_ptr<const Program>> genTextProgram(TextGenLimits lim = {}) {
  return rc::gen::exec([lim] {
    auto p = std::make_shared<Program>();
    p->name = detail::genName();
    for (int i = detail::pick(1, lim.maxFunctions); i > 0; --i) p->functions.push_back(detail::genFunction(lim));
    return std::shared_ptr<const Program>(std::move(p));
  });
}

}  // namespace ptodiff::testgen
