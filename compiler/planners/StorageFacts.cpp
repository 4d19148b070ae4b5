#include "compiler/planners/StorageFacts.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace ptodiff::storage {

namespace {

bool isTile(const Type& t) { return t.kind == Type::Kind::Tile; }

/// The kind of value a Tile-producing call makes, and which argument a view/in-place result aliases.
std::pair<ValueKind, const char*> classify(const Expr& call) {
  switch (opInfo(call.op).family) {
    case OpFamily::Slice:
    case OpFamily::Reshape:
    case OpFamily::SetValidShape:
    case OpFamily::TransposeView: return {ValueKind::View, "tile"};
    case OpFamily::Assemble: return {ValueKind::InPlace, "target"};
    case OpFamily::MatmulAcc: return {ValueKind::InPlace, "acc"};
    case OpFamily::Load:
    case OpFamily::Binary:
    case OpFamily::Unary:
    case OpFamily::TileScalar:
    case OpFamily::Full:
    case OpFamily::Create:
    case OpFamily::Move:
    case OpFamily::Extract:
    case OpFamily::Matmul:
    case OpFamily::RowReduce:
    case OpFamily::ColReduce: return {ValueKind::Fresh, nullptr};
    default: break;
  }
  throw std::logic_error("StorageFacts: " + std::string(opInfo(call.op).spelling) + " does not produce a Tile");
}

}  // namespace

class FactsBuilder {
 public:
  explicit FactsBuilder(StorageFacts& f) : f_(f) {}

  void run() {
    for (const Param& p : f_.fn_.params) {
      if (p.slot < 0) throw std::logic_error("StorageFacts: function '" + f_.fn_.name + "' is not verified");
      if (p.type.isTensor()) f_.tensorParams_[p.slot] = {&p};
    }
    block(f_.fn_.body, -1);
    resolveTensorAliases();
  }

 private:
  StorageFacts& f_;
  /// Tensor slot <- slots it may take its reference from (store outputs, carries, branch arms).
  std::vector<std::pair<int, int>> tensorEdges_;

  int newPoint(const Stmt* s) {
    f_.stmtAt_.push_back(s);
    return f_.numPoints_++;
  }

  void usesIn(const Expr* e, int point) {
    if (!e) return;
    if (e->kind == Expr::Kind::Name) {
      if (e->slot < 0) throw std::logic_error("StorageFacts: name '" + e->name + "' has no slot (unverified IR)");
      f_.uses_.push_back(Use{point, e->slot, e});
    }
    for (const ExprPtr& a : e->args) usesIn(a.get(), point);
  }

  static int nameSlot(const Expr* e) { return e && e->kind == Expr::Kind::Name ? e->slot : -1; }

  TileValue& add(TileValue v) {
    if (v.slot < 0) throw std::logic_error("StorageFacts: a tile value without a slot (unverified IR)");
    const auto slot = static_cast<size_t>(v.slot);
    if (f_.bySlot_.size() <= slot) f_.bySlot_.resize(slot + 1, -1);
    f_.bySlot_[slot] = static_cast<int>(f_.values_.size());
    f_.values_.push_back(std::move(v));
    return f_.values_.back();
  }

  void block(const Block& body, int loop) {
    for (const StmtPtr& s : body) statement(*s, loop);
  }

  void statement(const Stmt& s, int loop) {
    switch (s.kind) {
      case Stmt::Kind::Assign: assign(s.as<AssignStmt>(), loop); return;
      case Stmt::Kind::Eval: usesIn(s.as<EvalStmt>().expr.get(), newPoint(&s)); return;
      case Stmt::Kind::Return: {
        int p = newPoint(&s);
        for (const ExprPtr& v : s.as<ReturnStmt>().values) usesIn(v.get(), p);
        return;
      }
      case Stmt::Kind::Yield: {
        int p = newPoint(&s);
        for (const ExprPtr& v : s.as<YieldStmt>().values) usesIn(v.get(), p);
        return;
      }
      case Stmt::Kind::For: {
        const auto& f = s.as<ForStmt>();
        int header = newPoint(&s);
        usesIn(f.start.get(), header);
        usesIn(f.stop.get(), header);
        usesIn(f.step.get(), header);
        for (const ExprPtr& e : f.inits) usesIn(e.get(), header);
        f_.inductionVars_[f.inductionVar.slot] = &f;
        loopStatement(s, f.iterArgs, f.inits, f.body, header, loop);
        return;
      }
      case Stmt::Kind::While: {
        const auto& w = s.as<WhileStmt>();
        int header = newPoint(&s);
        for (const ExprPtr& e : w.inits) usesIn(e.get(), header);
        usesIn(w.cond.get(), header);
        loopStatement(s, w.iterArgs, w.inits, w.body, header, loop);
        return;
      }
      case Stmt::Kind::If: {
        const auto& i = s.as<IfStmt>();
        int condPoint = newPoint(&s);
        usesIn(i.cond.get(), condPoint);
        block(i.thenBody, loop);
        int elseBegin = f_.numPoints_;
        block(i.elseBody, loop);
        int end = newPoint(nullptr);
        f_.branches_.push_back(BranchExtent{&s, condPoint, elseBegin, end});
        const YieldStmt* thenYield = trailingYield(i.thenBody);
        const YieldStmt* elseYield = trailingYield(i.elseBody);
        if (!thenYield) return;
        for (size_t k = 0; k < thenYield->targets.size(); ++k) {
          const Binder& b = thenYield->targets[k];
          std::vector<int> arms = {nameSlot(thenYield->values[k].get())};
          if (elseYield && k < elseYield->values.size()) arms.push_back(nameSlot(elseYield->values[k].get()));
          if (isTile(b.type)) {
            TileValue v;
            v.slot = b.slot;
            v.kind = ValueKind::BranchResult;
            v.binder = &b;
            v.type = b.type;
            v.stmt = &s;
            v.point = end;
            v.incoming = arms;
            v.loop = loop;
            add(std::move(v));
          } else if (b.type.isTensor()) {
            for (int a : arms) tensorEdges_.push_back({b.slot, a});
          }
        }
        return;
      }
    }
  }

  void assign(const AssignStmt& a, int loop) {
    int p = newPoint(&a);
    usesIn(a.value.get(), p);
    const Binder& b = a.target;
    if (b.slot < 0) throw std::logic_error("StorageFacts: binder '" + b.name + "' has no slot (unverified IR)");
    const Expr& value = *a.value;
    if (b.type.isScalar()) {
      f_.scalarDefs_[b.slot] = &value;
      return;
    }
    if (b.type.isTensor()) {
      if (value.kind == Expr::Kind::Name) tensorEdges_.push_back({b.slot, value.slot});
      if (value.kind == Expr::Kind::Call && opInfo(value.op).family == OpFamily::Store)
        tensorEdges_.push_back({b.slot, nameSlot(value.arg("output_tensor"))});
      return;
    }
    if (!isTile(b.type)) return;  // storage roots (Ptr)
    TileValue v;
    v.slot = b.slot;
    v.binder = &b;
    v.type = b.type;
    v.stmt = &a;
    v.call = &value;
    v.point = p;
    v.loop = loop;
    if (value.kind == Expr::Kind::Name) {
      v.kind = ValueKind::View;  // a rename shares its source's storage
      v.source = value.slot;
    } else if (value.kind == Expr::Kind::Call) {
      auto [kind, sourceParam] = classify(value);
      v.kind = kind;
      if (sourceParam) v.source = nameSlot(value.arg(sourceParam));
    } else {
      throw std::logic_error("StorageFacts: Tile value '" + b.name + "' is not defined by a call or a name");
    }
    add(std::move(v));
  }

  void loopStatement(const Stmt& s, const std::vector<Binder>& iterArgs, const std::vector<ExprPtr>& inits,
                     const Block& body, int header, int parent) {
    int index = static_cast<int>(f_.loops_.size());
    f_.loops_.push_back(LoopExtent{&s, header, -1, parent});
    const YieldStmt* y = trailingYield(body);
    auto incomingOf = [&](size_t k) {
      std::vector<int> in = {k < inits.size() ? nameSlot(inits[k].get()) : -1};
      if (y && k < y->values.size()) in.push_back(nameSlot(y->values[k].get()));
      return in;
    };
    for (size_t k = 0; k < iterArgs.size(); ++k) {
      const Binder& b = iterArgs[k];
      if (isTile(b.type)) {
        TileValue v;
        v.slot = b.slot;
        v.kind = ValueKind::LoopCarry;
        v.binder = &b;
        v.type = b.type;
        v.stmt = &s;
        v.point = header;
        v.incoming = incomingOf(k);
        v.loop = index;
        add(std::move(v));
      } else if (b.type.isTensor()) {
        for (int in : incomingOf(k)) tensorEdges_.push_back({b.slot, in});
      }
    }
    block(body, index);
    int backedge = newPoint(nullptr);
    f_.loops_[index].backedge = backedge;
    if (!y) return;
    for (size_t k = 0; k < y->targets.size() && k < iterArgs.size(); ++k) {
      const Binder& b = y->targets[k];
      if (isTile(b.type)) {
        TileValue v;
        v.slot = b.slot;
        v.kind = ValueKind::LoopResult;
        v.binder = &b;
        v.type = b.type;
        v.stmt = &s;
        v.point = backedge;
        v.incoming = incomingOf(k);
        v.loop = parent;
        add(std::move(v));
      } else if (b.type.isTensor()) {
        for (int in : incomingOf(k)) tensorEdges_.push_back({b.slot, in});
      }
    }
  }

  /// Tensor references through stores, renames and control flow, to a fixpoint (carries refer to
  /// values defined later in their bodies).
  void resolveTensorAliases() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto [to, from] : tensorEdges_) {
        auto src = f_.tensorParams_.find(from);
        if (src == f_.tensorParams_.end()) continue;
        std::vector<const Param*> params = src->second;  // copy: `to` may be inserted below
        std::vector<const Param*>& dst = f_.tensorParams_[to];
        for (const Param* p : params)
          if (std::find(dst.begin(), dst.end(), p) == dst.end()) {
            dst.push_back(p);
            changed = true;
          }
      }
    }
  }
};

StorageFacts::StorageFacts(const Function& fn) : fn_(fn) { FactsBuilder(*this).run(); }

const TileValue* StorageFacts::value(int slot) const {
  if (slot < 0 || static_cast<size_t>(slot) >= bySlot_.size() || bySlot_[static_cast<size_t>(slot)] < 0) return nullptr;
  return &values_[static_cast<size_t>(bySlot_[static_cast<size_t>(slot)])];
}

const Stmt* StorageFacts::statementAt(int point) const {
  if (point < 0 || point >= numPoints_) return nullptr;
  return stmtAt_[point];
}

int StorageFacts::pointOf(const Stmt* s) const {
  // Rarely asked (a few times per kernel), so a scan of the points rather than a map built for every kernel.
  if (!s) return -1;
  const auto it = std::find(stmtAt_.rbegin(), stmtAt_.rend(), s);
  return it == stmtAt_.rend() ? -1 : static_cast<int>(stmtAt_.rend() - it) - 1;
}

bool StorageFacts::exclusive(int a, int b) const {
  for (const BranchExtent& br : branches_) {
    bool aThen = br.inThen(a), bThen = br.inThen(b), aElse = br.inElse(a), bElse = br.inElse(b);
    if ((aThen && bElse) || (aElse && bThen)) return true;
  }
  return false;
}

bool StorageFacts::yieldedByArmExcluding(const TileValue& v, size_t index, int point) const {
  if (v.kind != ValueKind::BranchResult || v.incoming.size() != 2) return false;
  for (const BranchExtent& b : branches_)
    if (b.stmt == v.stmt) return index == 1 ? b.inThen(point) : b.inElse(point);
  return false;
}

bool StorageFacts::freshEachTrip(int slot, int a, int b) const {
  int l = innermostLoop(a);
  while (l >= 0 && !loops_[static_cast<size_t>(l)].contains(b)) l = loops_[static_cast<size_t>(l)].parent;
  if (l < 0) return true;
  const LoopExtent& loop = loops_[static_cast<size_t>(l)];
  std::set<int> seen;
  std::function<bool(int)> fresh = [&](int s) {
    const TileValue* v = value(s);
    if (!v) return false;
    // A cycle of carries inside the body is bound on this trip from what flows into it.
    if (!seen.insert(s).second) return true;
    if (v->kind == ValueKind::LoopCarry && v->stmt == loop.stmt) return true;
    if (v->point <= loop.header) return false;
    switch (v->kind) {
      case ValueKind::Fresh: return true;
      case ValueKind::View:  // shows its source's bytes
      case ValueKind::InPlace: return fresh(v->source);  // keeps the input's bytes outside its write
      default: return std::all_of(v->incoming.begin(), v->incoming.end(), fresh);
    }
  };
  return fresh(slot);
}

bool StorageFacts::leavesLoopHolding(const TileValue& v, int point) const {
  if (v.kind != ValueKind::LoopResult || v.incoming.size() < 2) return false;
  return std::any_of(loops_.begin(), loops_.end(),
                     [&](const LoopExtent& l) { return l.stmt == v.stmt && l.contains(point); });
}

std::optional<int64_t> StorageFacts::constantTrips(int loop) const {
  const Stmt* s = loops_.at(loop).stmt;
  if (s->kind != Stmt::Kind::For) return std::nullopt;
  const auto& f = s->as<ForStmt>();
  auto lit = [](const ExprPtr& e) { return e->kind == Expr::Kind::IntLit ? std::optional<int64_t>(e->intValue) : std::nullopt; };
  std::optional<int64_t> start = lit(f.start), stop = lit(f.stop), step = lit(f.step);
  if (!start || !stop || !step || *step <= 0) return std::nullopt;
  return *stop <= *start ? 0 : (*stop - *start + *step - 1) / *step;
}

bool StorageFacts::insideControlFlow(int point) const {
  if (innermostLoop(point) >= 0) return true;
  for (const BranchExtent& b : branches_)
    if (b.cond < point && point < b.end) return true;
  return false;
}

int StorageFacts::innermostLoop(int point) const {
  int best = -1;
  for (size_t i = 0; i < loops_.size(); ++i)
    if (loops_[i].contains(point) && (best < 0 || loops_[i].header > loops_[best].header)) best = static_cast<int>(i);
  return best;
}

const std::vector<const Param*>& StorageFacts::tensorParams(int slot) const {
  static const std::vector<const Param*> kNone;
  auto it = tensorParams_.find(slot);
  return it == tensorParams_.end() ? kNone : it->second;
}

std::optional<MemRef> StorageFacts::staticMemRef(int slot) const {
  const TileValue* v = value(slot);
  if (!v) return std::nullopt;
  if (v->isAssign()) return v->type.memref;
  if (v->incoming.empty() || v->incoming[0] < 0) return std::nullopt;
  return staticMemRef(v->incoming[0]);
}

// ---- alias families ----

bool allInPlaceFollow(const TileValue&) { return true; }

InPlacePolicy plannedInPlacePolicy(const StorageFacts& facts) {
  return [&facts](const TileValue& v) {
    std::optional<MemRef> own = facts.staticMemRef(v.slot), input = facts.staticMemRef(v.source);
    return own && input && *own == *input;
  };
}

AliasFamilies::AliasFamilies(const StorageFacts& facts, const InPlacePolicy& follows) : facts_(facts) {
  for (const TileValue& v : facts.values()) {
    if (v.kind == ValueKind::InPlace) follows_[v.slot] = follows(v);
    bool identity = v.kind == ValueKind::Fresh || (v.kind == ValueKind::InPlace && !follows_[v.slot]);
    if (identity) {
      identities_.push_back(v.slot);
      identitySet_.insert(v.slot);
      family_[v.slot] = {v.slot};
    }
  }
  // Families only grow; loops make later definitions flow into earlier carries, hence the fixpoint.
  bool changed = true;
  while (changed) {
    changed = false;
    for (const TileValue& v : facts.values()) {
      if (isIdentity(v.slot)) continue;
      std::vector<int> next;
      auto merge = [&](int from) {
        if (from < 0) return;
        auto it = family_.find(from);
        if (it == family_.end()) return;
        std::vector<int> out;
        std::set_union(next.begin(), next.end(), it->second.begin(), it->second.end(), std::back_inserter(out));
        next = std::move(out);
      };
      if (v.kind == ValueKind::View || v.kind == ValueKind::InPlace) merge(v.source);
      for (int in : v.incoming) merge(in);
      std::vector<int>& current = family_[v.slot];
      if (next != current) {
        current = std::move(next);
        changed = true;
      }
    }
  }
}

const std::vector<int>& AliasFamilies::family(int slot) const {
  static const std::vector<int> kNone;
  auto it = family_.find(slot);
  return it == family_.end() ? kNone : it->second;
}

bool AliasFamilies::isIdentity(int slot) const { return identitySet_.count(slot) != 0; }

bool AliasFamilies::coversWholeIdentity(int slot) const {
  std::set<int> visiting;
  return coversWhole(slot, visiting);
}

bool AliasFamilies::coversWhole(int slot, std::set<int>& visiting) const {
  const TileValue* v = facts_.value(slot);
  if (!v || !visiting.insert(slot).second) return v != nullptr;  // a cycle adds no new storage
  switch (v->kind) {
    case ValueKind::Fresh: return true;
    case ValueKind::View: {
      // A rename or a set_validshape names the same bytes with the same physical type as its source.
      const bool sameBytes = v->call && (v->call->kind == Expr::Kind::Name ||
                                         (v->call->kind == Expr::Kind::Call &&
                                          opInfo(v->call->op).family == OpFamily::SetValidShape));
      return sameBytes && coversWhole(v->source, visiting);
    }
    case ValueKind::InPlace: {
      auto it = follows_.find(slot);
      if (it == follows_.end() || !it->second) return true;  // its own identity
      return coversWhole(v->source, visiting);
    }
    case ValueKind::LoopCarry:
    case ValueKind::LoopResult:
    case ValueKind::BranchResult:
      for (int in : v->incoming)
        if (in < 0 || !coversWhole(in, visiting)) return false;
      return true;
  }
  return false;
}

// ---- type helpers ----

bool samePhysicalTile(const Type& a, const Type& b) {
  return a.isTile() && b.isTile() && a.shape == b.shape && a.dtype == b.dtype && a.space == b.space &&
         a.layout == b.layout;
}

int64_t tileBytes(const Type& t) { return t.rows() * t.cols() * dtypeSize(t.dtype); }

bool hasRuntimeValid(const Type& t) {
  return t.valid && (!(*t.valid)[0].isConst() || !(*t.valid)[1].isConst());
}

bool hasDynamicValidExtents(const Type& t) {
  for (int axis = 0; axis < 2; ++axis)
    if (const Extent e = t.validExtent(axis); !e.isConst() || e.value <= 0) return true;
  return false;
}

}  // namespace ptodiff::storage
