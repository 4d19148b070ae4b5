#include "compiler/passes/lower/BufferRewriter.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "compiler/text/Printer.h"

namespace ptodiff::lower {

namespace {

std::string q(const std::string& s) { return "'" + s + "'"; }

/// The Buffer op of an elementwise Tile op.
Opcode bufferOpOf(Opcode op) {
  switch (op) {
    case Opcode::TileAdd: return Opcode::BufAdd;
    case Opcode::TileSub: return Opcode::BufSub;
    case Opcode::TileMul: return Opcode::BufMul;
    case Opcode::TileDiv: return Opcode::BufDiv;
    case Opcode::TileMaximum: return Opcode::BufMaximum;
    case Opcode::TileMinimum: return Opcode::BufMinimum;
    case Opcode::TileAbs: return Opcode::BufAbs;
    case Opcode::TileExp: return Opcode::BufExp;
    case Opcode::TileSqrt: return Opcode::BufSqrt;
    case Opcode::TileNeg: return Opcode::BufNeg;
    case Opcode::TileRelu: return Opcode::BufRelu;
    case Opcode::TileLog: return Opcode::BufLog;
    case Opcode::TileRecip: return Opcode::BufRecip;
    case Opcode::TileAdds: return Opcode::BufAdds;
    case Opcode::TileSubs: return Opcode::BufSubs;
    case Opcode::TileMuls: return Opcode::BufMuls;
    case Opcode::TileDivs: return Opcode::BufDivs;
    case Opcode::TileMaximums: return Opcode::BufMaximums;
    case Opcode::TileMinimums: return Opcode::BufMinimums;
    case Opcode::TileLrelu: return Opcode::BufLrelu;
    default: throw std::logic_error("LowerTileToBuffer: no elementwise Buffer op for " + std::string(opInfo(op).spelling));
  }
}

std::optional<double> literalFloat(const Expr& e) {
  if (e.kind == Expr::Kind::FloatLit) return e.floatValue;
  if (e.kind == Expr::Kind::Unary && e.unop == UnOp::Neg && e.args[0] && e.args[0]->kind == Expr::Kind::FloatLit)
    return -e.args[0]->floatValue;
  return std::nullopt;
}

/// A literal init_cond (True/False or pl.const(True, pl.BOOL)), or nullopt for a runtime predicate.
std::optional<bool> literalBool(const Expr& e) {
  if (e.kind == Expr::Kind::BoolLit) return e.boolValue;
  if (e.kind == Expr::Kind::Call && e.op == Opcode::Const && e.args[0] && e.args[0]->kind == Expr::Kind::BoolLit)
    return e.args[0]->boolValue;
  return std::nullopt;
}

Binder copyBinder(const Binder& b) {
  Binder out;
  out.name = b.name;
  out.annotation = b.annotation;
  out.loc = b.loc;
  return out;
}

ExprPtr floatExpr(double v, SourceLoc loc) {
  if (std::signbit(v)) return Expr::unary(UnOp::Neg, Expr::floatLit(-v, loc), loc);
  return Expr::floatLit(v, loc);
}

}  // namespace

Block BufferRewriter::run() { return block(fn_.body, nullptr); }

Block BufferRewriter::block(const Block& in, const std::vector<bool>* keepYield) {
  Block out;
  for (size_t i = 0; i < in.size(); ++i) {
    for (int r : index_.rootsDeclaredBefore(&in, i))  // P3
      for (StmtPtr& d : index_.declarations(r)) out.push_back(std::move(d));
    stmt(*in[i], out, keepYield);
  }
  return out;
}

void BufferRewriter::stmt(const Stmt& s, Block& out, const std::vector<bool>* keepYield) {
  switch (s.kind) {
    case Stmt::Kind::Assign: assign(s.as<AssignStmt>(), out); return;
    case Stmt::Kind::Eval: eval(s.as<EvalStmt>(), out); return;
    case Stmt::Kind::Return: out.push_back(returnStmt(s.as<ReturnStmt>())); return;
    case Stmt::Kind::Yield:
      if (!keepYield) throw std::logic_error("LowerTileToBuffer: a yield outside a compound statement");
      if (StmtPtr y = yieldStmt(s.as<YieldStmt>(), *keepYield)) out.push_back(std::move(y));
      return;
    case Stmt::Kind::For: out.push_back(forStmt(s.as<ForStmt>())); return;
    case Stmt::Kind::While: out.push_back(whileStmt(s.as<WhileStmt>())); return;
    case Stmt::Kind::If:
      if (StmtPtr i = ifStmt(s.as<IfStmt>())) out.push_back(std::move(i));
      return;
  }
}

void BufferRewriter::assign(const AssignStmt& s, Block& out) {
  const Expr& v = *s.value;
  if (v.kind == Expr::Kind::Call) {
    const OpInfo& oi = opInfo(v.op);
    if (oi.family == OpFamily::StorageRoot) {
      const int r = index_.rootOfStatement(&s);
      if (index_.root(r).deferred) return;  // P3: declared at its first reference instead
      for (StmtPtr& d : index_.declarations(r)) out.push_back(std::move(d));
      return;
    }
    if (oi.stage == OpStage::Tile && oi.family != OpFamily::BlockQuery) return tileOp(v, &s.target, out);
  }
  if (index_.value(s.target.slot).kind != ValueInfo::Kind::Scalar) return;  // a tile or tensor alias
  auto a = std::make_unique<AssignStmt>(s.loc);
  a->target = copyBinder(s.target);
  a->value = rewriteScalar(v);
  out.push_back(std::move(a));
}

void BufferRewriter::eval(const EvalStmt& s, Block& out) {
  const Expr& e = *s.expr;
  if (e.kind == Expr::Kind::Call && opInfo(e.op).stage == OpStage::Tile) {
    // Only a store has an effect; an unbound pure Tile op computes a value nobody reads.
    if (opInfo(e.op).family == OpFamily::Store) store(e, out);
    return;
  }
  out.push_back(evalStmt(rewriteScalar(e), s.loc));
}

StmtPtr BufferRewriter::returnStmt(const ReturnStmt& s) {
  auto r = std::make_unique<ReturnStmt>(s.loc);
  for (size_t i = 0; i < s.values.size(); ++i) {
    const Expr& e = *s.values[i];
    if (e.kind != Expr::Kind::Name || index_.value(e.slot).kind == ValueInfo::Kind::Scalar) {
      r->values.push_back(rewriteScalar(e));
      continue;
    }
    const ValueInfo& v = index_.value(e.slot);
    if (v.kind != ValueInfo::Kind::Tensor)
      failure_.fail("C6", "return", e.loc,
                    "the kernel returns the tile " + q(v.name) + "; expected kernels to return GM tensors or scalars");
    const Param& p = fn_.params.at(v.param);
    if (i < fn_.results.size() && !(fn_.results[i] == p.type))
      failure_.fail("S15", "return", e.loc,
                    "the returned tensor " + q(e.name) + " resolves to parameter " + q(p.name) + " of type " +
                        printType(p.type) + " but the declared result is " + printType(fn_.results[i]) +
                        "; expected a GM return alias matching its declared result");
    r->values.push_back(nameExpr(p.name, e.loc));  // C6: return aliases name their parameter
  }
  return r;
}

StmtPtr BufferRewriter::yieldStmt(const YieldStmt& y, const std::vector<bool>& keep) {
  auto out = std::make_unique<YieldStmt>(y.loc);
  for (size_t i = 0; i < y.values.size(); ++i) {
    if (i >= keep.size() || !keep[i]) continue;
    out->values.push_back(rewriteScalar(*y.values[i]));
    if (i < y.targets.size()) out->targets.push_back(copyBinder(y.targets[i]));
  }
  if (out->values.empty()) return nullptr;
  return out;
}

StmtPtr BufferRewriter::forStmt(const ForStmt& s) {
  auto f = std::make_unique<ForStmt>(s.loc);
  f->inductionVar = copyBinder(s.inductionVar);
  f->start = rewriteScalar(*s.start);
  f->stop = rewriteScalar(*s.stop);
  f->step = rewriteScalar(*s.step);
  std::vector<bool> keep;
  for (size_t i = 0; i < s.iterArgs.size(); ++i) {
    keep.push_back(s.iterArgs[i].type.isScalar());  // L4: only scalar carries remain, in order
    if (!keep.back()) continue;
    f->iterArgs.push_back(copyBinder(s.iterArgs[i]));
    f->inits.push_back(rewriteScalar(*s.inits[i]));
  }
  f->body = block(s.body, &keep);
  return f;
}

StmtPtr BufferRewriter::whileStmt(const WhileStmt& s) {
  auto w = std::make_unique<WhileStmt>(s.loc);
  std::vector<bool> keep;
  for (size_t i = 0; i < s.iterArgs.size(); ++i) {
    keep.push_back(s.iterArgs[i].type.isScalar());
    if (!keep.back()) continue;
    w->iterArgs.push_back(copyBinder(s.iterArgs[i]));
    w->inits.push_back(rewriteScalar(*s.inits[i]));
  }
  w->cond = rewriteScalar(*s.cond);
  w->condLoc = s.condLoc;
  w->body = block(s.body, &keep);
  return w;
}

StmtPtr BufferRewriter::ifStmt(const IfStmt& s) {
  std::vector<bool> keep;
  if (const YieldStmt* y = trailingYield(s.thenBody))
    for (const Binder& t : y->targets) keep.push_back(t.type.isScalar());  // B8
  auto i = std::make_unique<IfStmt>(s.loc);
  i->cond = rewriteScalar(*s.cond);
  i->thenBody = block(s.thenBody, &keep);
  i->elseBody = block(s.elseBody, &keep);
  if (i->thenBody.empty() && i->elseBody.empty()) return nullptr;  // nothing left to choose between
  return i;
}

// ---- tile ops ----

void BufferRewriter::tileOp(const Expr& call, const Binder* target, Block& out) {
  const OpInfo& oi = opInfo(call.op);
  if (oi.family == OpFamily::Store) return store(call, out);
  if (!target) throw std::logic_error("LowerTileToBuffer: a Tile op without a result binder");
  const Binder& b = *target;
  switch (oi.family) {
    case OpFamily::Load: return load(call, b, out);
    case OpFamily::Binary:
    case OpFamily::Unary:
    case OpFamily::TileScalar: return elementwise(call, b, out);
    case OpFamily::Full: return full(call, b, out);
    case OpFamily::Create: return setValid(b.slot, out, call.loc);
    case OpFamily::Slice: return slice(call, b, out);
    case OpFamily::Assemble: return assemble(call, b, out);
    case OpFamily::Reshape: {
      // A relabel of an allocation-level tile is an alias declared beside the allocation (P11);
      // a relabel of a window is a buffer.reshape where it is written (W2).
      const ValueInfo& v = index_.value(b.slot);
      if (v.kind == ValueInfo::Kind::Window) materializeWindow(v.window, out, call.loc);
      return;
    }
    case OpFamily::TransposeView: return;  // M5: storage indexing declared the relabelled window
    case OpFamily::SetValidShape: return setValidShape(call, b, out);
    case OpFamily::Move: return move(call, b, out);
    case OpFamily::Extract: return extract(call, b, out);
    case OpFamily::Matmul:
    case OpFamily::MatmulAcc: return matmul(call, b, out);
    default: failure_.fail("C12", opName(call), call.loc, "the op has no Buffer conversion recipe");
  }
}

void BufferRewriter::load(const Expr& call, const Binder& b, Block& out) {
  setValid(b.slot, out, call.loc);
  const ValueInfo& v = index_.value(b.slot);
  const std::string dst = index_.storageHandle(b.slot);
  const std::string tensor = tensorName(*call.args[0]);
  guarded(v.valid, call.loc, out, [&](Block& g) {
    std::vector<ExprPtr> args;
    args.push_back(nameExpr(tensor, call.loc));
    args.push_back(rewriteScalar(*call.args[1]));
    args.push_back(validPair(v.valid, call.loc));
    args.push_back(nameExpr(dst, call.loc));
    g.push_back(evalStmt(callExpr(Opcode::BufLoad, std::move(args), call.loc), call.loc));
  });
  currentVersion_[v.descriptor] = b.slot;
}

void BufferRewriter::store(const Expr& call, Block& out) {
  const int src = call.args[0]->slot;
  const ValueInfo& v = index_.value(src);
  if (v.kind != ValueInfo::Kind::Storage && v.kind != ValueInfo::Kind::Window)
    failure_.fail("C4", opName(call), call.loc, q(call.args[0]->name) + " is not a tile");
  const std::string tensor = tensorName(*call.args[2]);
  const Valid2 domain = v.valid;
  guarded(domain, call.loc, out, [&](Block& g) {
    std::vector<ExprPtr> args;
    args.push_back(nameExpr(readHandle(src, domain, g, call), call.loc));
    args.push_back(rewriteScalar(*call.args[1]));
    args.push_back(validPair(domain, call.loc));
    args.push_back(nameExpr(tensor, call.loc));
    g.push_back(evalStmt(callExpr(Opcode::BufStore, std::move(args), call.loc), call.loc));
  });
}

void BufferRewriter::elementwise(const Expr& call, const Binder& b, Block& out) {
  const OpInfo& oi = opInfo(call.op);
  const Opcode bop = bufferOpOf(call.op);
  const bool inPlaceSafe = opInfo(bop).effects.inPlaceSafe;
  setValid(b.slot, out, call.loc);
  const ValueInfo& v = index_.value(b.slot);
  const std::string dst = index_.storageHandle(b.slot);
  const ByteSpan dstSpan = index_.spanOf(b.slot);
  std::vector<int> operands = {call.args[0]->slot};
  if (oi.family == OpFamily::Binary) operands.push_back(call.args[1]->slot);
  for (int o : operands) checkDisjoint(call, dstSpan, v.name, o, inPlaceSafe, "W13");
  // V3: runtime extents of every operand must be the result's, structurally.
  for (int o : operands) {
    const ValueInfo& ov = index_.value(o);
    if ((!allConst(ov.valid) || !allConst(v.valid)) && !sameValid(ov.valid, v.valid))
      failure_.fail("V3", opName(call), call.loc,
                    "the operand " + q(ov.name) + " has valid extents " + validText(ov.valid) + " but the result " +
                        q(v.name) + " has " + validText(v.valid) +
                        "; expected structurally equal runtime valid expressions");
  }
  ExprPtr scalar;
  if (oi.family == OpFamily::TileScalar) scalar = scalarFor(*call.args[1], b.type.dtype, call);
  guarded(v.valid, call.loc, out, [&](Block& g) {
    std::vector<ExprPtr> args;
    args.push_back(nameExpr(readHandle(operands[0], v.valid, g, call), call.loc));
    if (oi.family == OpFamily::Binary) args.push_back(nameExpr(readHandle(operands[1], v.valid, g, call), call.loc));
    if (scalar) args.push_back(std::move(scalar));
    args.push_back(nameExpr(dst, call.loc));
    g.push_back(evalStmt(callExpr(bop, std::move(args), call.loc), call.loc));
  });
  currentVersion_[v.descriptor] = b.slot;
}

void BufferRewriter::full(const Expr& call, const Binder& b, Block& out) {
  setValid(b.slot, out, call.loc);
  const ValueInfo& v = index_.value(b.slot);
  const std::string dst = index_.storageHandle(b.slot);
  ExprPtr value = scalarFor(*call.args[2], b.type.dtype, call);
  guarded(v.valid, call.loc, out, [&](Block& g) {
    std::vector<ExprPtr> args;
    args.push_back(std::move(value));
    args.push_back(nameExpr(dst, call.loc));
    g.push_back(evalStmt(callExpr(Opcode::BufFull, std::move(args), call.loc), call.loc));
  });
}

void BufferRewriter::slice(const Expr& call, const Binder& b, Block& out) {
  const ValueInfo& v = index_.value(b.slot);
  // V12: a dynamic-valid window is materialized inside each guarded consumer instead.
  if (!index_.window(v.window).dynamicValid) materializeWindow(v.window, out, call.loc);
}

void BufferRewriter::assemble(const Expr& call, const Binder& b, Block& out) {
  const AssemblePlan* plan = index_.assemblePlan(b.slot);
  if (!plan) throw std::logic_error("LowerTileToBuffer: assemble without a plan");
  const ValueInfo& r = index_.value(b.slot);
  const int target = call.args[0]->slot, source = call.args[1]->slot;
  const ByteSpan resultSpan = index_.descriptorSpan(r.descriptor);
  if (plan->copyTarget && !anyZero(plan->targetValid)) {
    // W4/W5: preserve the target's valid rectangle in the result's storage first.
    checkDisjoint(call, resultSpan, r.name, target, false, "W9");
    if (!plan->sourceInPlace) checkDisjoint(call, resultSpan, r.name, source, false, "W9");
    const std::string dst = index_.handle(r.descriptor, plan->targetValid);
    const std::string src = readHandle(target, plan->targetValid, out, call);
    if (src != dst) {
      std::vector<ExprPtr> args;
      args.push_back(nameExpr(src, call.loc));
      args.push_back(nameExpr(dst, call.loc));
      out.push_back(evalStmt(callExpr(Opcode::BufCopy, std::move(args), call.loc), call.loc));
    }
  }
  if (!plan->sourceInPlace) {
    const ValueInfo& s = index_.value(source);
    const ByteSpan placed =
        resultSpan.window(literalInt(*call.args[2]->args[0]), literalInt(*call.args[2]->args[1]), s.type.rows(),
                          s.type.cols(), dtypeSize(b.type.dtype));
    checkDisjoint(call, placed, r.name + "_window", source, false, "W9");
    const std::string window = index_.names().fresh(b.name + "_window");
    std::vector<ExprPtr> args;
    args.push_back(nameExpr(index_.baseHandle(r.descriptor), call.loc));
    args.push_back(rewriteScalar(*call.args[2]));
    args.push_back(validPair(plan->sourceValid, call.loc));
    Type windowType = bufferTypeOf(s.type, plan->sourceValid);
    windowType.layout = index_.descriptor(r.descriptor).type.layout;
    out.push_back(annotatedAssign(window, windowType, callExpr(Opcode::BufSubview, std::move(args), call.loc), call.loc));
    std::vector<ExprPtr> copy;
    copy.push_back(nameExpr(readHandle(source, plan->sourceValid, out, call), call.loc));
    copy.push_back(nameExpr(window, call.loc));
    out.push_back(evalStmt(callExpr(Opcode::BufCopy, std::move(copy), call.loc), call.loc));
  }
}

void BufferRewriter::setValidShape(const Expr& call, const Binder& b, Block& out) {
  const int src = call.args[0]->slot;
  readHandle(src, index_.value(src).valid, out, call);  // V4: the setter reads the current version
  setValid(b.slot, out, call.loc);
}

void BufferRewriter::move(const Expr& call, const Binder& b, Block& out) {
  setValid(b.slot, out, call.loc);
  const ValueInfo& v = index_.value(b.slot);
  const int src = call.args[0]->slot;
  const std::string dst = index_.storageHandle(b.slot);
  const ByteSpan dstSpan = index_.spanOf(b.slot);
  const ByteSpan srcSpan = index_.spanOf(src);
  if (srcSpan.identical(dstSpan) && index_.value(src).kind == ValueInfo::Kind::Storage &&
      index_.storageHandle(src) == dst) {
    currentVersion_[v.descriptor] = b.slot;
    return;  // C5: an exact self-copy is removed
  }
  checkDisjoint(call, dstSpan, v.name, src, false, "A30");
  guarded(v.valid, call.loc, out, [&](Block& g) {
    std::vector<ExprPtr> args;
    args.push_back(nameExpr(readHandle(src, v.valid, g, call), call.loc));
    args.push_back(nameExpr(dst, call.loc));
    g.push_back(evalStmt(callExpr(Opcode::BufCopy, std::move(args), call.loc), call.loc));
  });
  currentVersion_[v.descriptor] = b.slot;
}

void BufferRewriter::extract(const Expr& call, const Binder& b, Block& out) {
  const int src = call.args[0]->slot;
  const ValueInfo& s = index_.value(src);
  if (s.kind != ValueInfo::Kind::Storage)
    failure_.fail("M5", opName(call), call.loc, "extracting from the window " + q(s.name) +
                                                    " is unsupported; expected an allocation-level Mat source");
  const std::string dst = index_.storageHandle(b.slot);
  checkDisjoint(call, index_.spanOf(b.slot), b.name, src, false, "A30");
  std::vector<ExprPtr> args;
  args.push_back(nameExpr(index_.storageHandle(src), call.loc));
  args.push_back(rewriteScalar(*call.args[1]));
  args.push_back(rewriteScalar(*call.args[2]));
  args.push_back(nameExpr(dst, call.loc));
  out.push_back(evalStmt(callExpr(Opcode::BufExtract, std::move(args), call.loc), call.loc));
}

void BufferRewriter::matmul(const Expr& call, const Binder& b, Block& out) {
  const bool accumulating = call.op == Opcode::TileMatmulAcc;
  const size_t l = accumulating ? 1 : 0;
  const int lhs = call.args[l]->slot, rhs = call.args[l + 1]->slot;
  const ValueInfo& v = index_.value(b.slot);
  // M8: an accumulator wider than the product is written through a product-shaped view.
  // Fault AccProductViewDropped: the accumulator handle itself is the destination.
  const Valid2* product = faults_.on(Fault::AccProductViewDropped) ? nullptr : index_.productView(b.slot);
  const std::string dst = product ? index_.handle(v.descriptor, *product) : index_.storageHandle(b.slot);
  const std::string lh = index_.storageHandle(lhs), rh = index_.storageHandle(rhs);
  auto emit = [&](Opcode op, Block& into) {
    std::vector<ExprPtr> args;
    args.push_back(nameExpr(lh, call.loc));
    args.push_back(nameExpr(rh, call.loc));
    args.push_back(nameExpr(dst, call.loc));
    into.push_back(evalStmt(callExpr(op, std::move(args), call.loc), call.loc));
  };
  if (!accumulating) return emit(Opcode::BufMatmul, out);
  const Expr* cond = call.args[3].get();
  if (!cond) return emit(Opcode::BufMatmulAcc, out);  // an omitted init_cond accumulates
  if (std::optional<bool> literal = literalBool(*cond))
    return emit(*literal ? Opcode::BufMatmul : Opcode::BufMatmulAcc, out);  // M7
  // M7: a runtime init_cond chooses the initializing or the accumulating write explicitly.
  auto branch = std::make_unique<IfStmt>(call.loc);
  branch->cond = rewriteScalar(*cond);
  const bool inverted = faults_.on(Fault::InitCondInverted);  // fault: the arms swapped
  emit(inverted ? Opcode::BufMatmulAcc : Opcode::BufMatmul, branch->thenBody);
  emit(inverted ? Opcode::BufMatmul : Opcode::BufMatmulAcc, branch->elseBody);
  out.push_back(std::move(branch));
}

// ---- handles ----

std::string BufferRewriter::materializeWindow(int wi, Block& out, SourceLoc loc) {
  Window& w = index_.window(wi);
  if (!w.dynamicValid && !w.handle.empty()) return w.handle;
  const ValueInfo& parent = index_.value(w.parent);
  std::string parentHandle = parent.kind == ValueInfo::Kind::Storage
                                 ? index_.baseHandle(parent.descriptor)
                                 : materializeWindow(parent.window, out, loc);
  const std::string name = index_.names().fresh(w.stem);
  std::vector<ExprPtr> args;
  args.push_back(nameExpr(parentHandle, loc));
  Opcode op = Opcode::BufReshape;
  if (!w.relabel) {
    op = Opcode::BufSubview;
    args.push_back(pairExpr(rewriteScalar(*w.offsets[0]), rewriteScalar(*w.offsets[1]), loc));
    args.push_back(validPair(w.valid, loc));  // W17: every lowered window carries its valid tuple
  }
  out.push_back(annotatedAssign(name, w.type, callExpr(op, std::move(args), loc), loc));
  if (!w.dynamicValid) w.handle = name;
  return name;
}

std::string BufferRewriter::readHandle(int slot, const Valid2& want, Block& out, const Expr& call) {
  const ValueInfo& v = index_.value(slot);
  const SourceLoc loc = call.loc;
  if (v.kind == ValueInfo::Kind::Storage) {
    const Descriptor& D = index_.descriptor(v.descriptor);
    if (D.dynamic) {
      auto current = currentVersion_.find(v.descriptor);
      if (current != currentVersion_.end() && current->second != slot &&
          !sameValid(index_.value(current->second).valid, v.valid))
        failure_.fail("V4", opName(call), loc,
                      "reads " + q(v.name) + " (valid " + validText(v.valid) + ") after " +
                          q(index_.value(current->second).name) + " changed the shared handle's valid extents to " +
                          validText(index_.value(current->second).valid) +
                          "; expected uses of the current metadata version only");
      if (!sameValid(v.valid, want))
        failure_.fail("V3", opName(call), loc,
                      "the operand " + q(v.name) + " has valid extents " + validText(v.valid) + " but is read as " +
                          validText(want) + "; expected structurally equal runtime valid expressions");
      return D.dynamicHandle;
    }
    return index_.handle(v.descriptor, want);  // V10: bridges were registered during indexing
  }
  if (v.kind == ValueInfo::Kind::Window) {
    const Window& w = index_.window(v.window);
    if (w.dynamicValid && !sameValid(w.valid, want))
      failure_.fail("V3", opName(call), loc,
                    "the window " + q(v.name) + " has valid extents " + validText(w.valid) + " but is read as " +
                        validText(want) + "; expected structurally equal runtime valid expressions");
    std::string handle = materializeWindow(v.window, out, loc);
    if (sameValid(w.valid, want)) return handle;
    // V10: a zero-offset subview gives the window the reader's valid rectangle.
    const std::string bridge = index_.names().fresh(v.name + "_as");
    std::vector<ExprPtr> args;
    args.push_back(nameExpr(handle, loc));
    args.push_back(pairExpr(intExpr(0, loc), intExpr(0, loc), loc));
    args.push_back(validPair(want, loc));
    out.push_back(annotatedAssign(bridge, bufferTypeOf(w.type, want), callExpr(Opcode::BufSubview, std::move(args), loc),
                                  loc));
    return bridge;
  }
  failure_.fail("C4", opName(call), loc, q(v.name) + " has no Buffer handle");
}

void BufferRewriter::setValid(int slot, Block& out, SourceLoc loc) {
  const ValueInfo& v = index_.value(slot);
  const Descriptor& D = index_.descriptor(v.descriptor);
  currentVersion_[v.descriptor] = slot;
  if (!D.dynamic) return;
  // An allocation starts with its physical extents; a setter restating the extents the handle
  // already holds (the same SSA expressions) would change nothing.
  const std::string key = validKey(v.valid);
  auto held = currentValid_.try_emplace(v.descriptor, validKey(fullValid(D.type.rows(), D.type.cols()))).first;
  if (held->second == key) return;
  held->second = key;
  // Fault StaleValidShape: static extents are recorded as held but never stated; the handle keeps its old ones.
  if (faults_.on(Fault::StaleValidShape) && allConst(v.valid)) return;
  std::vector<ExprPtr> args;
  args.push_back(nameExpr(D.dynamicHandle, loc));
  args.push_back(validPair(v.valid, loc));
  out.push_back(evalStmt(callExpr(Opcode::BufSetValidShape, std::move(args), loc), loc));
}

void BufferRewriter::guarded(const Valid2& domain, SourceLoc loc, Block& out,
                             const std::function<void(Block&)>& body) {
  if (anyZero(domain)) return;  // V12: constant-empty ops are deleted
  ExprPtr cond;
  for (const ValidExt& e : domain) {
    if (e.isConst()) continue;
    ExprPtr positive = Expr::binary(BinOp::Gt, e.build(loc), intExpr(0, loc), loc);
    cond = cond ? Expr::binary(BinOp::And, std::move(cond), std::move(positive), loc) : std::move(positive);
  }
  if (!cond) return body(out);
  auto guard = std::make_unique<IfStmt>(loc);
  guard->cond = std::move(cond);
  body(guard->thenBody);
  out.push_back(std::move(guard));
}

void BufferRewriter::checkDisjoint(const Expr& call, const ByteSpan& dst, const std::string& dstName, int srcSlot,
                                   bool inPlaceSafe, std::string_view overlapRule) const {
  const ByteSpan src = index_.spanOf(srcSlot);
  if (!src.overlaps(dst)) return;
  if (inPlaceSafe && src.identical(dst)) return;
  const ValueInfo& s = index_.value(srcSlot);
  std::string_view rule = overlapRule;
  if (!src.exact || !dst.exact)
    rule = "W14";
  else if (src.identical(dst) && call.op == Opcode::TileRecip)
    rule = "S13";
  failure_.fail(rule, opName(call), call.loc,
                "the destination " + q(dstName) + " (" + dst.text() + ") overlaps the operand " + q(s.name) + " (" +
                    src.text() + ")" +
                    (src.identical(dst) ? "; expected a distinct destination (the op cannot run in place)"
                                        : "; expected provably disjoint storage or the identical window of an "
                                          "in-place op"));
}

// ---- values ----

std::string BufferRewriter::tensorName(const Expr& name) const {
  const ValueInfo& v = index_.value(name.slot);
  if (v.kind != ValueInfo::Kind::Tensor) throw std::logic_error("LowerTileToBuffer: " + name.name + " is not a tensor");
  return fn_.params.at(v.param).name;
}

ExprPtr BufferRewriter::scalarFor(const Expr& e, DType to, const Expr& call) const {
  // S11: the Tile op converts its scalar to the tile dtype once; the Buffer op receives a scalar
  // that already has the destination's type (FP32 for float tiles, INT32 for INT32 tiles).
  const bool floatTile = to == DType::FP32 || to == DType::FP16 || to == DType::BF16;
  std::optional<int64_t> i = literalInt(e);
  if (!i && e.kind == Expr::Kind::Call && e.op == Opcode::Const && e.args[0]) i = literalInt(*e.args[0]);
  std::optional<double> f = literalFloat(e);
  if (!f && e.kind == Expr::Kind::Call && e.op == Opcode::Const && e.args[0]) f = literalFloat(*e.args[0]);
  const DType from = e.type.isScalar() ? e.type.dtype : DType::INDEX;
  if (floatTile) {
    if (i) {
      const float single = static_cast<float>(*i);  // one round-to-nearest-even conversion
      if (to != DType::FP32 && static_cast<double>(single) != static_cast<double>(*i))
        failure_.fail("S11", opName(call), call.loc,
                      "the integer " + std::to_string(*i) + " is not exact in FP32, so converting it for a " +
                          std::string(dtypeName(to)) + " tile would round twice; expected an exactly representable "
                          "scalar");
      return floatExpr(single, call.loc);
    }
    if (f) return floatExpr(*f, call.loc);
    if (from == DType::FP32) return rewriteScalar(e);
  } else if (to == DType::INT32) {
    if (i) {
      if (*i < std::numeric_limits<int32_t>::min() || *i > std::numeric_limits<int32_t>::max())
        failure_.fail("S11", opName(call), call.loc,
                      "the integer " + std::to_string(*i) + " does not fit the INT32 tile; expected an INT32 scalar");
      std::vector<ExprPtr> args;
      args.push_back(intExpr(*i, call.loc));
      args.push_back(Expr::dtypeRef(DType::INT32, call.loc));
      return callExpr(Opcode::Const, std::move(args), call.loc);
    }
    if (from == DType::INT32 && !f) return rewriteScalar(e);
  }
  failure_.fail("S11", opName(call), call.loc,
                "the scalar " + printExpr(e) + " of type " + std::string(dtypeName(from)) + " needs a conversion to " +
                    std::string(dtypeName(to)) + " that the IR cannot state; expected a literal or a scalar of the "
                    "tile's element type");
}

}  // namespace ptodiff::lower
