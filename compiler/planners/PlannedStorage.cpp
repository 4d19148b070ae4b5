#include "compiler/planners/PlannedStorage.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace ptodiff::storage {

namespace {

template <class B, class Visit>
void forEachBlock(B& body, const Visit& visit) {
  visit(body);
  for (auto& s : body) {
    switch (s->kind) {
      case Stmt::Kind::For: forEachBlock(s->template as<ForStmt>().body, visit); break;
      case Stmt::Kind::While: forEachBlock(s->template as<WhileStmt>().body, visit); break;
      case Stmt::Kind::If:
        forEachBlock(s->template as<IfStmt>().thenBody, visit);
        forEachBlock(s->template as<IfStmt>().elseBody, visit);
        break;
      default: break;
    }
  }
}

bool isRootStatement(const Stmt& s) {
  if (s.kind != Stmt::Kind::Assign) return false;
  const Expr& v = *s.as<AssignStmt>().value;
  return v.kind == Expr::Kind::Call && v.op == Opcode::TileAlloc;
}

std::optional<int64_t> literal(const Expr* e) {
  if (e && e->kind == Expr::Kind::IntLit) return e->intValue;
  return std::nullopt;
}

}  // namespace

std::vector<Root> collectRoots(const Function& fn) {
  std::vector<Root> roots;
  forEachBlock(fn.body, [&](const Block& block) {
    for (const StmtPtr& s : block) {
      if (!isRootStatement(*s)) continue;
      const auto& a = s->as<AssignStmt>();
      const Expr& call = *a.value;
      Root r;
      r.name = a.target.name;
      r.space = call.args[0] && call.args[0]->kind == Expr::Kind::SpaceRef ? call.args[0]->space : MemSpace::Vec;
      r.size = literal(call.args[1].get()).value_or(0);
      r.addr = literal(call.args.size() > 2 ? call.args[2].get() : nullptr);
      r.stmt = &a;
      roots.push_back(r);
    }
  });
  return roots;
}

std::map<std::string, Root> rootsByName(const Function& fn) {
  std::map<std::string, Root> out;
  for (Root& r : collectRoots(fn)) out.emplace(r.name, r);
  return out;
}

void forEachMemRef(Function& fn, const std::function<void(MemRef&, Binder&)>& visit) {
  auto binder = [&](Binder& b) {
    if (b.annotation && b.annotation->memref) visit(*b.annotation->memref, b);
  };
  forEachBlock(fn.body, [&](Block& block) {
    for (StmtPtr& s : block) {
      switch (s->kind) {
        case Stmt::Kind::Assign: binder(s->as<AssignStmt>().target); break;
        case Stmt::Kind::Yield:
          for (Binder& b : s->as<YieldStmt>().targets) binder(b);
          break;
        case Stmt::Kind::For:
          for (Binder& b : s->as<ForStmt>().iterArgs) binder(b);
          break;
        case Stmt::Kind::While:
          for (Binder& b : s->as<WhileStmt>().iterArgs) binder(b);
          break;
        default: break;
      }
    }
  });
}

void eraseRootStatements(Function& fn, const std::vector<std::string>& names) {
  std::set<std::string> doomed(names.begin(), names.end());
  forEachBlock(fn.body, [&](Block& block) {
    std::erase_if(block, [&](const StmtPtr& s) {
      return isRootStatement(*s) && doomed.count(s->as<AssignStmt>().target.name) != 0;
    });
  });
}

void setRootPlacement(Function& fn, const std::string& name, std::optional<int64_t> addr, int64_t size) {
  forEachBlock(fn.body, [&](Block& block) {
    for (StmtPtr& s : block) {
      if (!isRootStatement(*s) || s->as<AssignStmt>().target.name != name) continue;
      std::vector<ExprPtr>& args = s->as<AssignStmt>().value->args;
      args.resize(3);
      args[1] = Expr::intLit(size, s->loc);
      args[2] = addr ? Expr::intLit(*addr, s->loc) : nullptr;
    }
  });
}

StmtPtr makeRootStatement(const std::string& name, MemSpace space, int64_t size, SourceLoc loc) {
  auto s = std::make_unique<AssignStmt>(loc);
  s->target.name = name;
  s->target.annotation = Type::ptr();
  s->target.loc = loc;
  std::vector<ExprPtr> args;
  args.push_back(Expr::spaceRef(space, loc));
  args.push_back(Expr::intLit(size, loc));
  args.push_back(nullptr);
  s->value = Expr::call(Opcode::TileAlloc, std::move(args), loc);
  return s;
}

int64_t alignUp(int64_t value, int64_t alignment) {
  if (alignment <= 1) return value;
  return (value + alignment - 1) / alignment * alignment;
}

int64_t elementOffset(const Type& t, int64_t r, int64_t c) {
  const int64_t rows = t.rows(), cols = t.cols();
  if (!t.layout.boxed()) return t.layout.blayout == TileLayout::col_major ? c * rows + r : r * cols + c;
  const int64_t inner = t.layout.fractal / dtypeSize(t.dtype) / 16;
  const bool rowMajorBox = t.layout.slayout == TileLayout::row_major;
  const int64_t boxRows = rowMajorBox ? 16 : inner, boxCols = rowMajorBox ? inner : 16;
  const int64_t sr = r / boxRows, ir = r % boxRows, sc = c / boxCols, ic = c % boxCols;
  const int64_t box = t.layout.blayout == TileLayout::col_major ? sc * (rows / boxRows) + sr : sr * (cols / boxCols) + sc;
  const int64_t within = rowMajorBox ? ir * boxCols + ic : ic * boxRows + ir;
  return box * boxRows * boxCols + within;
}

int64_t windowSpan(const Type& frame, int64_t r, int64_t c, int64_t h, int64_t w) {
  const int64_t es = dtypeSize(frame.dtype);
  return (elementOffset(frame, r + h - 1, c + w - 1) - elementOffset(frame, r, c)) * es + es;
}

int64_t boxBytes(const Type& t) { return t.layout.boxed() ? t.layout.fractal : 0; }

int64_t storageAlignment(const std::vector<const Type*>& tiles, const Target& target) {
  int64_t a = target.baseAlignment;
  for (const Type* t : tiles) a = std::max(a, boxBytes(*t));
  return a;
}

std::map<std::string, std::vector<const Type*>> tilesByRoot(const StorageFacts& facts) {
  std::map<std::string, std::vector<const Type*>> out;
  for (const TileValue& v : facts.values())
    if (v.isAssign() && v.type.memref) out[v.type.memref->base].push_back(&v.type);
  return out;
}

std::optional<ByteWindow> identityWindow(const StorageFacts& facts, int identity) {
  const TileValue* v = facts.value(identity);
  if (!v || !v->type.memref || !v->type.memref->offset.isConst()) return std::nullopt;
  const MemRef& m = *v->type.memref;
  return ByteWindow{m.base, m.offset.value, m.offset.value + m.size};
}

std::map<MemSpace, int64_t> addresslessFootprint(const std::vector<Root>& roots,
                                                 const std::map<std::string, std::vector<const Type*>>& tiles,
                                                 const Target& target) {
  std::map<MemSpace, int64_t> used;
  for (const Root& r : roots) {
    auto it = tiles.find(r.name);
    int64_t alignment = storageAlignment(it == tiles.end() ? std::vector<const Type*>{} : it->second, target);
    int64_t& cursor = used[r.space];
    cursor = alignUp(cursor, alignment) + r.size;
  }
  return used;
}

std::vector<PlacementUnit> placementUnits(const StorageFacts& facts, const AliasFamilies& families,
                                          const std::vector<Root>& roots, const Target& target,
                                          const std::function<void(SourceLoc, const std::string&)>& fail) {
  std::map<std::string, std::vector<const Type*>> tiles = tilesByRoot(facts);
  std::vector<PlacementUnit> units;
  std::map<std::string, size_t> index;
  for (const Root& r : roots) {
    if (r.addr)
      fail(r.stmt->loc, "[P1] tile.alloc: root '" + r.name + "' already has an address (addr=" +
                            std::to_string(*r.addr) + "); expected the unplaced roots InitMemRef makes");
    PlacementUnit u;
    u.root = r;
    u.tiles = tiles[r.name];
    u.alignment = storageAlignment(u.tiles, target);
    for (const Type* t : u.tiles) u.dynamicValid = u.dynamicValid || hasDynamicValidExtents(*t);
    index[r.name] = units.size();
    units.push_back(std::move(u));
  }
  // Values are in definition order, so a call's operands have their unit by the time it is seen.
  std::map<int, size_t> unitOfSlot;
  for (const TileValue& v : facts.values()) {
    auto is = [&](OpFamily f) { return v.call && v.call->kind == Expr::Kind::Call && opInfo(v.call->op).family == f; };
    const bool relabelOrAssemble = is(OpFamily::Assemble) || is(OpFamily::Reshape) || is(OpFamily::TransposeView);
    // Storage an assemble reads or writes, a relabel reads, or a window is cut from: the lowering
    // keeps all of these away from a dynamic handle (V5), so such storage must not join one.
    if (relabelOrAssemble || is(OpFamily::Slice))
      for (const ExprPtr& arg : v.call->args)
        if (arg && arg->kind == Expr::Kind::Name)
          if (auto it = unitOfSlot.find(arg->slot); it != unitOfSlot.end()) units[it->second].straightLineOnly = false;
    std::optional<MemRef> m = facts.staticMemRef(v.slot);
    auto it = m ? index.find(m->base) : index.end();
    if (it == index.end()) continue;
    PlacementUnit& u = units[it->second];
    unitOfSlot[v.slot] = it->second;
    if (is(OpFamily::SetValidShape)) u.dynamicValid = true;
    const bool boundByControlFlow =
        v.kind == ValueKind::LoopCarry || v.kind == ValueKind::LoopResult || v.kind == ValueKind::BranchResult;
    if (boundByControlFlow || facts.insideControlFlow(v.point) || relabelOrAssemble) u.straightLineOnly = false;
  }
  for (const Use& use : facts.uses())
    if (auto it = unitOfSlot.find(use.slot); it != unitOfSlot.end() && facts.insideControlFlow(use.point))
      units[it->second].straightLineOnly = false;
  for (int identity : families.identities()) {
    const TileValue* v = facts.value(identity);
    auto it = v && v->type.memref ? index.find(v->type.memref->base) : index.end();
    if (it == index.end()) {
      const bool call = v && v->call && v->call->kind == Expr::Kind::Call;
      fail(v ? v->binder->loc : SourceLoc{}, "[P18] " + std::string(call ? opInfo(v->call->op).spelling : "tile") +
                                                 ": '" + (v ? v->binder->name : std::string("?")) +
                                                 "' names no storage root; expected InitMemRef's output");
      continue;  // `fail` throws; never place an identity without a root
    }
    units[it->second].identities.push_back(identity);
  }
  return units;
}

void applyPlacement(Function& fn, const std::map<std::string, RootPlacement>& placement) {
  std::vector<std::string> merged;
  for (const auto& [name, p] : placement)
    if (p.survivor != name) merged.push_back(name);
  forEachMemRef(fn, [&](MemRef& m, Binder&) {
    auto it = placement.find(m.base);
    if (it == placement.end()) return;
    const RootPlacement& p = it->second;
    m.base = p.survivor;
    if (p.addr && m.offset.isConst()) m.offset = Extent::constant(m.offset.value + *p.addr);
  });
  eraseRootStatements(fn, merged);
  for (const auto& [name, p] : placement)
    if (p.survivor == name) setRootPlacement(fn, name, p.addr, p.size);
}

std::string capacityText(const Target& target, MemSpace space) {
  const SpaceDesc& d = target.space(space);
  std::string out = "the " + std::string(target.name) + " target's " + std::string(memSpaceName(space)) + " holds " +
                    std::to_string(d.usableEnd()) + " usable bytes";
  if (d.reserved)
    out += " ([" + std::to_string(d.reserved->begin) + ", " + std::to_string(d.reserved->end) + ") is reserved)";
  return out;
}

std::string rootNameSpace(MemSpace space) {
  std::string out(memSpaceName(space));
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

void collectBoundNames(const Block& body, std::set<std::string>& out) {
  for (const StmtPtr& s : body) {
    switch (s->kind) {
      case Stmt::Kind::Assign: out.insert(s->as<AssignStmt>().target.name); break;
      case Stmt::Kind::Yield:
        for (const Binder& b : s->as<YieldStmt>().targets) out.insert(b.name);
        break;
      case Stmt::Kind::For: {
        const auto& f = s->as<ForStmt>();
        out.insert(f.inductionVar.name);
        for (const Binder& b : f.iterArgs) out.insert(b.name);
        collectBoundNames(f.body, out);
        break;
      }
      case Stmt::Kind::While: {
        const auto& w = s->as<WhileStmt>();
        for (const Binder& b : w.iterArgs) out.insert(b.name);
        collectBoundNames(w.body, out);
        break;
      }
      case Stmt::Kind::If:
        collectBoundNames(s->as<IfStmt>().thenBody, out);
        collectBoundNames(s->as<IfStmt>().elseBody, out);
        break;
      default: break;
    }
  }
}

}  // namespace ptodiff::storage
