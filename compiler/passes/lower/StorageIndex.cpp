#include "compiler/passes/lower/StorageIndex.h"

#include <numeric>
#include <stdexcept>

#include "compiler/text/Printer.h"

namespace ptodiff::lower {

namespace {

int64_t bytesOf(const Type& t) { return t.rows() * t.cols() * dtypeSize(t.dtype); }
std::string q(const std::string& s) { return "'" + s + "'"; }
std::string sp(MemSpace s) { return std::string(memSpaceName(s)); }

bool isFull(const Valid2& v, const Type& t) {
  return v[0].constant == t.rows() && v[1].constant == t.cols();
}

/// Row or column stride in bytes along `axis` of an unboxed handle with row pitch `pitch`.
int64_t strideOf(int axis, int64_t pitch, int64_t esize) { return axis == 0 ? pitch : esize; }

}  // namespace

// ---- ByteSpan ----

bool ByteSpan::overlaps(const ByteSpan& o) const {
  if (space != o.space || origin != o.origin || !(begin < o.end && o.begin < end)) return false;
  if (!exact || !o.exact || !strided || !o.strided || pitch <= 0 || pitch != o.pitch || rowBase != o.rowBase)
    return true;  // only the hulls are comparable
  const int64_t ra = (begin - rowBase) / pitch, ca = (begin - rowBase) % pitch;
  const int64_t rb = (o.begin - o.rowBase) / pitch, cb = (o.begin - o.rowBase) % pitch;
  if (ca + width > pitch || cb + o.width > pitch) return true;  // a row wraps: stay conservative
  const bool rowsMeet = ra < rb + o.rows && rb < ra + rows;
  const bool columnsMeet = ca < cb + o.width && cb < ca + width;
  return rowsMeet && columnsMeet;
}

ByteSpan ByteSpan::window(std::optional<int64_t> r0, std::optional<int64_t> c0, int64_t windowRows,
                          int64_t windowCols, int64_t esize) const {
  ByteSpan w = *this;
  w.shape = {windowRows, windowCols};
  if (!r0 || !c0) {
    w.exact = false;  // W14: somewhere inside its whole source window
    return w;
  }
  w.begin = begin + *r0 * pitch + *c0 * esize;
  w.end = w.begin + (windowRows - 1) * pitch + windowCols * esize;
  w.rows = windowRows;
  w.width = windowCols * esize;
  return w;
}

bool ByteSpan::identical(const ByteSpan& o) const {
  return exact && o.exact && space == o.space && origin == o.origin && begin == o.begin && end == o.end &&
         pitch == o.pitch && shape == o.shape;
}

std::string ByteSpan::text() const {
  return sp(space) + " bytes [" + std::to_string(begin) + ", " + std::to_string(end) + ")" +
         (exact ? "" : " (a runtime-offset window somewhere inside)");
}

int64_t Descriptor::pitch() const {
  if (type.layout.boxed()) return 0;
  const int64_t esize = dtypeSize(type.dtype);
  return type.layout.blayout == TileLayout::col_major ? type.rows() * esize : type.cols() * esize;
}

// ---- construction ----

StorageIndex::StorageIndex(const Function& fn, const PassContext& context, const Failure& failure)
    : fn_(fn), context_(context), failure_(failure), values_(static_cast<size_t>(std::max(fn.numSlots, 0))) {}

void StorageIndex::build() {
  for (size_t i = 0; i < fn_.params.size(); ++i) {
    const Param& p = fn_.params[i];
    ValueInfo& v = info(p.slot);
    v.name = p.name;
    v.loc = p.loc;
    v.kind = p.type.isTensor() ? ValueInfo::Kind::Tensor : ValueInfo::Kind::Scalar;
    v.param = static_cast<int>(i);
    names_.reserve(p.name);
  }
  prescanMembers(fn_.body);
  walkBlock(fn_.body, 0);
  checkDescriptors();
  placeLocalAccumulators();
  for (Root& r : roots_) planRoot(r);
  nameHandles();
}

int StorageIndex::rootOfStatement(const Stmt* s) const {
  auto it = rootByStatement_.find(s);
  return it == rootByStatement_.end() ? -1 : it->second;
}

const AssemblePlan* StorageIndex::assemblePlan(int resultSlot) const {
  auto it = assembles_.find(resultSlot);
  return it == assembles_.end() ? nullptr : &it->second;
}

const Valid2* StorageIndex::productView(int resultSlot) const {
  auto it = products_.find(resultSlot);
  return it == products_.end() ? nullptr : &it->second;
}

// ---- the indexing walk ----

void StorageIndex::walkBlock(const Block& block, int depth) {
  for (size_t i = 0; i < block.size(); ++i) {
    path_.emplace_back(&block, i);
    walkStmt(*block[i], depth);
    path_.pop_back();
  }
}

void StorageIndex::prescanMembers(const Block& block) {
  auto member = [&](const Binder& b) {
    if (!b.type.isTile() || !b.type.memref) return;
    const MemRef& m = *b.type.memref;
    MemberOffsets& mo = memberOffsets_[m.base];
    auto capacity = capacityOf_.find(m.base);
    if (capacity == capacityOf_.end() || !m.offset.isConst() || m.size != capacity->second) return;
    if (mo.fullCapacityBase && *mo.fullCapacityBase != m.offset.value)
      failure_.fail("P13", "tile.alloc", b.loc,
                    "full-capacity members of " + q(m.base) + " start at " + std::to_string(*mo.fullCapacityBase) +
                        " and " + std::to_string(m.offset.value) + "; expected one base address per allocation");
    mo.fullCapacityBase = m.offset.value;
  };
  for (const StmtPtr& s : block) {
    switch (s->kind) {
      case Stmt::Kind::Assign: {
        const auto& a = s->as<AssignStmt>();
        if (a.value->kind == Expr::Kind::Call && a.value->op == Opcode::TileAlloc)
          if (std::optional<int64_t> c = literalInt(*a.value->args[1])) capacityOf_[a.target.name] = *c;
        member(a.target);
        break;
      }
      case Stmt::Kind::Yield:
        for (const Binder& b : s->as<YieldStmt>().targets) member(b);
        break;
      case Stmt::Kind::For:
        for (const Binder& b : s->as<ForStmt>().iterArgs) member(b);
        prescanMembers(s->as<ForStmt>().body);
        break;
      case Stmt::Kind::While:
        for (const Binder& b : s->as<WhileStmt>().iterArgs) member(b);
        prescanMembers(s->as<WhileStmt>().body);
        break;
      case Stmt::Kind::If:
        prescanMembers(s->as<IfStmt>().thenBody);
        prescanMembers(s->as<IfStmt>().elseBody);
        break;
      case Stmt::Kind::Eval:
      case Stmt::Kind::Return: break;
    }
  }
}

void StorageIndex::noteReference(int d) {
  Root& r = roots_.at(descriptors_.at(d).root);
  if (!r.hasReference) {
    r.referenced = path_;
    r.hasReference = true;
    return;
  }
  // Keep the longest common prefix of the statement paths; where two paths part within one block,
  // the earlier statement of that block is where both are reachable from.
  Root::Path& p = r.referenced;
  size_t k = 0;
  while (k < p.size() && k < path_.size() && p[k] == path_[k]) ++k;
  if (k < p.size() && k < path_.size() && p[k].first == path_[k].first) {
    p[k].second = std::min(p[k].second, path_[k].second);
    p.resize(k + 1);
  } else {
    p.resize(k);
  }
}

void StorageIndex::placeLocalAccumulators() {
  for (size_t i = 0; i < roots_.size(); ++i) {
    Root& r = roots_[i];
    if (r.space != MemSpace::Acc || r.addressed() || !r.hasReference || r.referenced.empty()) continue;
    // Declared where it is first referenced when every reference lies inside one region other
    // than the allocation's own block (a carried or shared accumulator keeps its declaration).
    if (r.referenced.size() <= r.definedAt.size()) continue;
    if (r.definedAt.empty() || r.referenced[r.definedAt.size() - 1].first != r.definedAt.back().first) continue;
    r.deferred = true;
    deferredRoots_[r.referenced.back()].push_back(static_cast<int>(i));
  }
}

const std::vector<int>& StorageIndex::rootsDeclaredBefore(const Block* block, size_t index) const {
  static const std::vector<int> none;
  auto it = deferredRoots_.find({block, index});
  return it == deferredRoots_.end() ? none : it->second;
}

void StorageIndex::reserveScalar(const Binder& b) {
  ValueInfo& v = info(b.slot);
  v.kind = ValueInfo::Kind::Scalar;
  v.name = b.name;
  v.loc = b.loc;
  names_.reserve(b.name);
}

void StorageIndex::walkStmt(const Stmt& s, int depth) {
  switch (s.kind) {
    case Stmt::Kind::Assign: assign(s.as<AssignStmt>(), depth); return;
    case Stmt::Kind::Eval: {
      const Expr& e = *s.as<EvalStmt>().expr;
      if (e.kind == Expr::Kind::Call)
        for (const ExprPtr& a : e.args)
          if (a && a->kind == Expr::Kind::Name) noteUse(*a, depth);
      return;
    }
    case Stmt::Kind::Return:
      for (const ExprPtr& v : s.as<ReturnStmt>().values)
        if (v->kind == Expr::Kind::Name) noteUse(*v, depth);
      return;
    case Stmt::Kind::Yield: return;  // read by the enclosing compound statement
    case Stmt::Kind::For: {
      const auto& f = s.as<ForStmt>();
      reserveScalar(f.inductionVar);
      inductionLoops_[f.inductionVar.slot] = &f;
      loopCarries(f.iterArgs, f.inits, f.loc, "for", depth);
      walkBlock(f.body, depth + 1);
      loopResults(f, f.iterArgs, f.body, "for", depth);
      return;
    }
    case Stmt::Kind::While: {
      const auto& w = s.as<WhileStmt>();
      loopCarries(w.iterArgs, w.inits, w.loc, "while", depth);
      walkBlock(w.body, depth + 1);
      loopResults(w, w.iterArgs, w.body, "while", depth);
      return;
    }
    case Stmt::Kind::If: {
      const auto& i = s.as<IfStmt>();
      walkBlock(i.thenBody, depth + 1);
      walkBlock(i.elseBody, depth + 1);
      ifResults(i, depth);
      return;
    }
  }
}

void StorageIndex::assign(const AssignStmt& s, int depth) {
  const Expr& v = *s.value;
  if (v.kind == Expr::Kind::Call) {
    const OpInfo& oi = opInfo(v.op);
    if (oi.family == OpFamily::StorageRoot) return storageRoot(s, v);
    if (oi.stage == OpStage::Tile && oi.family != OpFamily::BlockQuery) return tileOp(s, v, depth);
  }
  if (v.kind == Expr::Kind::Name) return alias(s.target, v, depth);
  reserveScalar(s.target);
  scalarDefs_[s.target.slot] = &v;
}

void StorageIndex::storageRoot(const AssignStmt& s, const Expr& call) {
  const std::string op = opName(call);
  Root r;
  r.name = s.target.name;
  r.space = call.args[0]->space;
  r.loc = s.loc;
  std::optional<int64_t> capacity = literalInt(*call.args[1]);
  if (!capacity || *capacity <= 0)
    failure_.fail("P4", op, call.loc, "the capacity of " + q(r.name) + " is not a positive literal; expected bytes");
  r.capacity = *capacity;
  if (call.args[2]) r.addr = literalInt(*call.args[2]);
  if (rootByName_.count(r.name))
    failure_.fail("P2", op, call.loc, "storage root " + q(r.name) + " is bound twice; expected one tile.alloc per root");
  const std::string planner(plannerName(context_.planner));
  if (plannerAssignsAddresses(context_.planner) && !r.addressed()) {
    // P13: a production dump may omit addr= and give members absolute addresses; then only a
    // member spanning the whole capacity proves where the allocation begins.
    auto members = memberOffsets_.find(r.name);
    if (members == memberOffsets_.end())
      failure_.fail("P1", op, call.loc,
                    "allocation " + q(r.name) + " has no address under the " + planner +
                        " planner; expected addr= (addressed planners place every allocation)");
    if (!members->second.fullCapacityBase)
      failure_.fail("P13", op, call.loc,
                    "allocation " + q(r.name) + " has no addr= and only interior members, whose addresses cannot "
                    "prove where it begins; expected addr= or a member spanning its " + std::to_string(r.capacity) +
                    " bytes");
    r.addr = members->second.fullCapacityBase;
  }
  if (!plannerAssignsAddresses(context_.planner) && r.addressed())
    failure_.fail("P1", op, call.loc,
                  "allocation " + q(r.name) + " has addr=" + std::to_string(*r.addr) +
                      " under the PTOAS planner; expected an addressless allocation identity");
  if (r.capacity % 32 != 0)
    failure_.fail("P14", op, call.loc,
                  "capacity " + std::to_string(r.capacity) + " of " + q(r.name) + " is not a multiple of 32 bytes");
  if (r.addressed()) {
    const SpaceDesc& space = context_.target->space(r.space);
    if (*r.addr < 0 || *r.addr % 32 != 0)
      failure_.fail("P14", op, call.loc,
                    "address " + std::to_string(*r.addr) + " of " + q(r.name) + " is not 32-byte aligned");
    if (*r.addr + r.capacity > space.usableEnd())
      failure_.fail("P15", op, call.loc,
                    q(r.name) + " occupies [" + std::to_string(*r.addr) + ", " + std::to_string(*r.addr + r.capacity) +
                        ") beyond the usable " + sp(r.space) + " bytes [0, " + std::to_string(space.usableEnd()) +
                        ") of " + std::string(context_.target->name));
  }
  r.definedAt = path_;
  int index = static_cast<int>(roots_.size());
  rootByName_[r.name] = index;
  rootByStatement_[&s] = index;
  roots_.push_back(std::move(r));
  ValueInfo& v = info(s.target.slot);
  v.kind = ValueInfo::Kind::Root;
  v.root = index;
  v.name = s.target.name;
  v.loc = s.loc;
}

void StorageIndex::alias(const Binder& target, const Expr& source, int depth) {
  noteUse(source, depth);
  const ValueInfo src = info(source.slot);
  switch (src.kind) {
    case ValueInfo::Kind::Scalar:
      reserveScalar(target);
      scalarDefs_[target.slot] = &source;
      return;
    case ValueInfo::Kind::Tensor:
    case ValueInfo::Kind::Window: {
      ValueInfo& v = info(target.slot);
      v = src;
      v.name = target.name;
      v.loc = target.loc;
      return;
    }
    case ValueInfo::Kind::Storage: {
      int d = descriptorOf(target, "alias", target.loc);
      if (d != src.descriptor)
        failure_.fail("C5", "alias", target.loc,
                      q(target.name) + " = " + q(source.name) + " names other storage than its source; expected a "
                          "bare alias to share its source's MemRef (the conversion adds no implicit copy)");
      defineStorage(target, d, src.valid, target.loc, depth);
      return;
    }
    case ValueInfo::Kind::Root:
    case ValueInfo::Kind::None:
      failure_.fail("P2", "alias", target.loc,
                    q(target.name) + " renames the storage root " + q(source.name) + "; expected roots used only in MemRefs");
  }
}

const ValueInfo& StorageIndex::operand(const Expr& call, size_t arg, SourceLoc loc) const {
  const Expr* a = call.args.at(arg).get();
  if (!a || a->kind != Expr::Kind::Name || a->slot < 0)
    throw std::logic_error("LowerTileToBuffer: operand " + std::to_string(arg) + " of " + opName(call) +
                           " is not a resolved name");
  const ValueInfo& v = values_.at(a->slot);
  if (v.kind == ValueInfo::Kind::None)
    failure_.fail("C4", opName(call), loc, "operand " + q(a->name) + " has no indexed storage");
  return v;
}

void StorageIndex::noteUse(const Expr& name, int depth) { noteUseOfSlot(name.slot, name.loc, depth); }

void StorageIndex::noteUseOfSlot(int slot, SourceLoc loc, int depth) {
  if (slot < 0) return;
  int d = familyOf(slot);
  if (d >= 0) noteReference(d);
  if (depth == 0) return;
  if (d >= 0 && !descriptors_[d].regionUse) descriptors_[d].regionUse = loc;
}

int StorageIndex::familyOf(int slot) const {
  const ValueInfo& v = values_.at(slot);
  if (v.kind == ValueInfo::Kind::Storage) return v.descriptor;
  if (v.kind == ValueInfo::Kind::Window) return windows_.at(v.window).descriptor;
  return -1;
}

int StorageIndex::descriptorOf(const Binder& b, std::string_view op, SourceLoc loc) {
  const Type& t = b.type;
  if (!t.isTile()) throw std::logic_error("LowerTileToBuffer: descriptorOf on a non-tile binder " + b.name);
  if (!t.memref)
    failure_.fail("P18", op, loc, q(b.name) + " has no MemRef; expected planned storage on every tile");
  const MemRef& m = *t.memref;
  auto found = rootByName_.find(m.base);
  if (found == rootByName_.end())
    failure_.fail("P18", op, loc, "the MemRef of " + q(b.name) + " names " + q(m.base) + ", which is not a storage root");
  const int rootIndex = found->second;
  Root& r = roots_[rootIndex];
  if (!m.offset.isConst())
    failure_.fail("P14", op, loc,
                  "the MemRef offset of " + q(b.name) + " is symbolic; expected a static byte offset (or address)");
  const int64_t offset = m.offset.value - r.addr.value_or(0);
  const int64_t bytes = bytesOf(t);
  if (offset < 0 || offset % 32 != 0)
    failure_.fail("P14", op, loc,
                  q(b.name) + " starts " + std::to_string(offset) + " bytes into " + q(r.name) +
                      "; expected a nonnegative multiple of 32 (MemRef offset " + std::to_string(m.offset.value) +
                      (r.addressed() ? ", root address " + std::to_string(*r.addr) : std::string()) + ")");
  if (m.size < bytes)
    failure_.fail("P15", op, loc,
                  "the MemRef of " + q(b.name) + " holds " + std::to_string(m.size) + " bytes but the tile needs " +
                      std::to_string(bytes) + "; expected a MemRef covering the tile");
  if (offset + bytes > r.capacity)
    failure_.fail("P15", op, loc,
                  q(b.name) + " occupies bytes [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) +
                      ") of " + q(r.name) + ", beyond its capacity " + std::to_string(r.capacity) +
                      "; expected every view inside its allocation");
  Type type = bufferTypeOf(t, std::nullopt);
  for (int d : r.descriptors) {
    const Descriptor& D = descriptors_[d];
    if (D.offset == offset && D.type == type) return d;
  }
  Descriptor D;
  D.root = rootIndex;
  D.offset = offset;
  D.bytes = bytes;
  D.type = type;
  D.stem = b.name;
  D.loc = b.loc.known() ? b.loc : loc;
  Variant base;
  base.key = "full";
  base.loc = D.loc;
  D.variants.push_back(base);
  int index = static_cast<int>(descriptors_.size());
  descriptors_.push_back(std::move(D));
  r.descriptors.push_back(index);
  return index;
}

int StorageIndex::registerVariant(int d, const Valid2& valid, const std::string& stem, SourceLoc loc) {
  Descriptor& D = descriptors_[d];
  const bool full = isFull(valid, D.type);
  const std::string key = full ? "full" : validKey(valid);
  for (size_t i = 0; i < D.variants.size(); ++i) {
    Variant& v = D.variants[i];
    if (v.key != key) continue;
    v.used = true;
    if (v.stem.empty()) v.stem = stem;
    return static_cast<int>(i);
  }
  Variant v;
  v.key = key;
  v.valid = valid;
  v.stem = stem;
  v.loc = loc;
  v.used = true;
  D.variants.push_back(std::move(v));
  return static_cast<int>(D.variants.size() - 1);
}

void StorageIndex::markDynamic(int d, SourceLoc loc) {
  Descriptor& D = descriptors_[d];
  if (!D.dynamic) D.dynamicLoc = loc;
  D.dynamic = true;
}

void StorageIndex::defineStorage(const Binder& b, int d, const Valid2& valid, SourceLoc loc, int depth) {
  ValueInfo& v = info(b.slot);
  v.kind = ValueInfo::Kind::Storage;
  v.name = b.name;
  v.loc = b.loc.known() ? b.loc : loc;
  v.descriptor = d;
  v.valid = valid;
  v.type = b.type;
  Descriptor& D = descriptors_[d];
  noteReference(d);
  if (!allConst(valid) || anyZero(valid)) {
    // V6: a runtime extent (or an empty rectangle, which no static view may carry: V12) makes the
    // descriptor's metadata changeable, so both dimensions become dynamic.
    if (D.matrix())
      failure_.fail("V1", "tile", loc,
                    q(b.name) + " has valid extents " + validText(valid) + " in " + sp(D.type.space) +
                        "; expected static nonzero extents (runtime valid extents exist only for Vec tiles)");
    markDynamic(d, loc);
  } else {
    registerVariant(d, valid, b.name, loc);
  }
  if (depth > 0 && !D.regionUse) D.regionUse = loc;
}

Valid2 StorageIndex::validOfType(const Binder& b, std::string_view op, SourceLoc loc) const {
  Valid2 v;
  for (int axis = 0; axis < 2; ++axis) {
    Extent e = b.type.validExtent(axis);
    switch (e.kind) {
      case Extent::Kind::Const: v[axis] = ValidExt::of(e.value); break;
      case Extent::Kind::Symbol: v[axis] = ValidExt::of(*Expr::nameRef(e.symbol, loc)); break;
      case Extent::Kind::Dynamic:
        failure_.fail("V5", op, loc,
                      "the valid extent of " + q(b.name) + " on axis " + std::to_string(axis) +
                          " is computed at run time by a rule the Buffer form cannot restate; expected a constant, "
                          "a named extent, or an extent given to load, slice or set_validshape");
    }
  }
  return v;
}

void StorageIndex::tileOp(const AssignStmt& s, const Expr& call, int depth) {
  const Binder& b = s.target;
  const SourceLoc loc = call.loc;
  const std::string op = opName(call);
  const OpInfo& oi = opInfo(call.op);
  for (size_t i = 0; i < oi.params.size(); ++i)
    if (oi.params[i].kind == ParamKind::Value && call.args[i] && call.args[i]->kind == Expr::Kind::Name)
      noteUse(*call.args[i], depth);

  switch (oi.family) {
    case OpFamily::Load: {
      Valid2 valid = fullValid(b.type.rows(), b.type.cols());
      if (const Expr* v = call.args[3].get()) valid = {ValidExt::of(*v->args[0]), ValidExt::of(*v->args[1])};
      defineStorage(b, descriptorOf(b, op, loc), valid, loc, depth);
      return;
    }
    case OpFamily::Store: {
      const ValueInfo& out = operand(call, 2, loc);
      ValueInfo& v = info(b.slot);
      v.kind = ValueInfo::Kind::Tensor;
      v.param = out.param;
      v.name = b.name;
      v.loc = b.loc;
      return;
    }
    case OpFamily::Binary: {
      const ValueInfo lhs = operand(call, 0, loc);
      const ValueInfo rhs = operand(call, 1, loc);
      int d = descriptorOf(b, op, loc);
      defineStorage(b, d, lhs.valid, loc, depth);
      // V10: a static rhs with another valid rectangle is read through a view matching the result.
      if (rhs.kind == ValueInfo::Kind::Storage && !sameValid(rhs.valid, lhs.valid) && allConst(rhs.valid) &&
          allConst(lhs.valid) && !anyZero(lhs.valid))
        registerVariant(rhs.descriptor, lhs.valid, rhs.name + "_as_" + b.name, loc);
      return;
    }
    case OpFamily::Unary:
    case OpFamily::TileScalar:
    case OpFamily::Move: {
      const ValueInfo src = operand(call, 0, loc);
      if (oi.family == OpFamily::Move) {
        MemSpace from = src.type.space, to = b.type.space;
        bool supported = (from == MemSpace::Mat && (to == MemSpace::Left || to == MemSpace::Right)) ||
                         (from == MemSpace::Vec && to == MemSpace::Vec);
        if (!supported)
          failure_.fail("M5", op, loc,
                        "a " + sp(from) + " to " + sp(to) + " move has no Buffer recipe; expected Mat to Left/Right "
                        "or Vec to Vec");
      }
      defineStorage(b, descriptorOf(b, op, loc), src.valid, loc, depth);
      return;
    }
    case OpFamily::Full:
    case OpFamily::Create:
      defineStorage(b, descriptorOf(b, op, loc), fullValid(b.type.rows(), b.type.cols()), loc, depth);
      return;
    case OpFamily::Slice: defineWindow(s, call, depth); return;
    case OpFamily::Assemble: planAssemble(s, call, depth); return;
    case OpFamily::Reshape:
    case OpFamily::TransposeView: {
      const ValueInfo src = operand(call, 0, loc);
      if (src.kind == ValueInfo::Kind::Window) {
        if (oi.family == OpFamily::TransposeView)
          failure_.fail("S19", op, loc, "transposing the window " + q(src.name) +
                                            " is a strided relabel; expected transpose_view of an allocation-level tile");
        defineRelabelledWindow(s, call, call.args[0]->slot, depth);
        return;
      }
      int d = descriptorOf(b, op, loc);
      const Descriptor& from = descriptors_[src.descriptor];
      const Descriptor& to = descriptors_[d];
      if (from.root != to.root || from.offset != to.offset)
        failure_.fail("P11", op, loc,
                      q(b.name) + " does not name the storage window of " + q(src.name) + " (root " +
                          q(roots_[to.root].name) + " at byte " + std::to_string(to.offset) + " vs " +
                          q(roots_[from.root].name) + " at byte " + std::to_string(from.offset) +
                          "); expected a relabel to keep its source's MemRef");
      if (!descriptors_[src.descriptor].relabelOrAssemble) descriptors_[src.descriptor].relabelOrAssemble = loc;
      if (!descriptors_[d].relabelOrAssemble) descriptors_[d].relabelOrAssemble = loc;
      // Fault ReshapeWidensValid: the relabelled tile is taken as fully valid.
      const bool widened = oi.family == OpFamily::Reshape && context_.faults.on(Fault::ReshapeWidensValid);
      defineStorage(b, d, widened ? fullValid(b.type.rows(), b.type.cols()) : validOfType(b, op, loc), loc, depth);
      return;
    }
    case OpFamily::SetValidShape: {
      const ValueInfo src = operand(call, 0, loc);
      if (src.kind == ValueInfo::Kind::Window)
        failure_.fail("V5", op, loc, "setting the valid shape of the window " + q(src.name) +
                                         " is unsupported; expected a setter on an allocation-backed tile");
      int d = descriptorOf(b, op, loc);
      if (d != src.descriptor)
        failure_.fail("V8", op, loc,
                      q(b.name) + " does not name the storage of " + q(src.name) +
                          "; expected set_validshape to update its input's handle in place");
      markDynamic(d, loc);
      defineStorage(b, d, {ValidExt::of(*call.args[1]), ValidExt::of(*call.args[2])}, loc, depth);
      return;
    }
    case OpFamily::Extract:
    case OpFamily::Matmul:
      defineStorage(b, descriptorOf(b, op, loc), validOfType(b, op, loc), loc, depth);
      return;
    case OpFamily::MatmulAcc: {
      const ValueInfo acc = operand(call, 0, loc);
      const ValueInfo lhs = operand(call, 1, loc);
      const ValueInfo rhs = operand(call, 2, loc);
      int d = descriptorOf(b, op, loc);
      if (acc.kind != ValueInfo::Kind::Storage || d != acc.descriptor)
        failure_.fail("M6", op, loc,
                      q(b.name) + " is not written in place into the accumulator " + q(acc.name) +
                          "; expected matmul_acc's result to share its accumulator's storage");
      defineStorage(b, d, acc.valid, loc, depth);
      Valid2 product = {lhs.valid[0], rhs.valid[1]};
      if (!sameValid(product, acc.valid)) {
        // M8: the native matmul destination must match the product.
        registerVariant(d, product, b.name + "_product", loc);
        products_[b.slot] = product;
      }
      return;
    }
    case OpFamily::RowReduce:
    case OpFamily::ColReduce:
      failure_.fail("S19", op, loc, "reductions have no Buffer recipe; expected the kernel to stay on the Tile path");
    default:
      failure_.fail("C12", op, loc, "the op has no Buffer conversion recipe");
  }
}

void StorageIndex::checkWindowAlignment(const Expr& call, const std::array<const Expr*, 2>& offsets, int64_t esize,
                                        const ByteSpan& parentSpan, SourceLoc loc) const {
  int64_t constBytes = parentSpan.exact ? parentSpan.begin : 0;
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t stride = strideOf(axis, parentSpan.pitch, esize);
    if (std::optional<int64_t> c = literalInt(*offsets[axis])) {
      constBytes += *c * stride;
      continue;
    }
    const int64_t need = 32 / std::gcd<int64_t>(32, stride);
    if (!provablyMultipleOf(*offsets[axis], need, ScalarOrigins{&scalarDefs_, &inductionLoops_}))
      failure_.fail("W16", opName(call), loc,
                    "the window offset " + std::string(axis == 0 ? "row " : "column ") +
                        printExpr(*offsets[axis]) + " is not provably a multiple of " +
                        std::to_string(need) + ", so the window base may not be 32-byte aligned; expected a "
                        "provably aligned offset");
  }
  if (constBytes % 32 != 0)
    failure_.fail("W16", opName(call), loc,
                  "the window starts at byte " + std::to_string(constBytes) +
                      ", which is not 32-byte aligned; expected an aligned vector base address");
}


void StorageIndex::defineWindow(const AssignStmt& s, const Expr& call, int depth) {
  const Binder& b = s.target;
  const SourceLoc loc = call.loc;
  const std::string op = opName(call);
  const int parentSlot = call.args[0]->slot;
  const ValueInfo parent = operand(call, 0, loc);
  ByteSpan parentSpan;
  int family = -1;
  if (parent.kind == ValueInfo::Kind::Storage) {
    Descriptor& P = descriptors_[parent.descriptor];
    if (P.type.space != MemSpace::Vec || P.type.layout.boxed() || P.type.layout.blayout != TileLayout::row_major)
      failure_.fail("S19", op, loc,
                    "a window of the " + sp(P.type.space) + " tile " + q(parent.name) +
                        " is not a row-major Vec window; expected slices of dense row-major Vec tiles");
    P.windowParent = true;
    parentSpan = descriptorSpan(parent.descriptor);
    family = parent.descriptor;
  } else if (parent.kind == ValueInfo::Kind::Window) {
    const Window& pw = windows_[parent.window];
    if (pw.relabel)
      failure_.fail("S20", op, loc, "slicing the relabelled window " + q(parent.name) +
                                        " is unsupported; expected slices of allocation-level tiles or plain windows");
    if (pw.dynamicValid)
      failure_.fail("V5", op, loc, "slicing the dynamic-valid window " + q(parent.name) +
                                       " makes a nested dynamic-valid window; expected a static-valid parent window");
    parentSpan = pw.span;
    family = pw.descriptor;
  } else {
    failure_.fail("C4", op, loc, q(parent.name) + " is not a tile");
  }
  if (b.type.memref && b.type.memref->base != roots_[descriptors_[family].root].name)
    failure_.fail("P18", op, loc,
                  "the MemRef of the window " + q(b.name) + " names " + q(b.type.memref->base) + " but its source lives in " +
                      q(roots_[descriptors_[family].root].name) + "; expected a view to share its source's root");

  const std::array<const Expr*, 2> offsets = {call.args[2]->args[0].get(), call.args[2]->args[1].get()};
  const Expr* requested = call.args[3].get();
  Valid2 valid;
  for (int axis = 0; axis < 2; ++axis) {
    Extent e = b.type.validExtent(axis);
    if (e.isConst()) {
      valid[axis] = ValidExt::of(e.value);
    } else if (e.kind == Extent::Kind::Symbol) {
      valid[axis] = ValidExt::of(*Expr::nameRef(e.symbol, loc));
    } else {
      // windowValid's min(requested, clamp(parent valid - offset)) has an expression only when the
      // window certainly lies inside the parent's valid region: then it is the requested extent.
      const ValidExt& pv = parent.valid[axis];
      const int64_t window = b.type.shape[axis];
      std::optional<int64_t> off = literalInt(*offsets[axis]);
      const int64_t parentExtent = parent.type.shape[axis];
      bool insideValid = pv.isConst() && (*pv.constant == parentExtent || (off && *pv.constant - *off >= window));
      if (!requested || !insideValid)
        failure_.fail("V5", op, loc,
                      "the valid extent of the window " + q(b.name) + " on axis " + std::to_string(axis) +
                          " is min(requested, parent valid - offset) at run time; expected a window inside its "
                          "parent's valid region with an explicit valid_shape");
      valid[axis] = ValidExt::of(*requested->args[axis]);
    }
  }
  // Checked once both axes are known: the message prints the whole valid tuple.
  for (const ValidExt& axis : valid)
    if (axis.isConst() && *axis.constant <= 0)
      failure_.fail("W17", op, loc,
                    "the window " + q(b.name) + " has valid extents " + validText(valid) +
                        "; expected positive constant extents (zero-valid windows are rejected)");

  Window w;
  w.parent = parentSlot;
  w.offsets = {std::shared_ptr<const Expr>(offsets[0]->clone()), std::shared_ptr<const Expr>(offsets[1]->clone())};
  w.valid = valid;
  w.dynamicValid = !allConst(valid);
  w.type = bufferTypeOf(b.type, valid);
  w.descriptor = family;
  w.stem = b.name;
  w.loc = loc;
  const int64_t esize = dtypeSize(b.type.dtype);
  w.span = parentSpan.window(literalInt(*offsets[0]), literalInt(*offsets[1]), b.type.rows(), b.type.cols(), esize);
  checkWindowAlignment(call, offsets, esize, parentSpan, loc);

  int index = static_cast<int>(windows_.size());
  windows_.push_back(std::move(w));
  ValueInfo& v = info(b.slot);
  v.kind = ValueInfo::Kind::Window;
  v.window = index;
  v.valid = valid;
  v.type = b.type;
  v.name = b.name;
  v.loc = b.loc;
  if (depth > 0 && !descriptors_[family].regionUse) descriptors_[family].regionUse = loc;
}

void StorageIndex::defineRelabelledWindow(const AssignStmt& s, const Expr& call, int parentSlot, int depth) {
  const Binder& b = s.target;
  const SourceLoc loc = call.loc;
  const std::string op = opName(call);
  const ValueInfo& parent = values_.at(parentSlot);
  const Window pw = windows_[parent.window];
  if (pw.dynamicValid)
    failure_.fail("V5", op, loc, "relabelling the dynamic-valid window " + q(parent.name) +
                                     " is unsupported; expected a static-valid window");
  if (!pw.span.exact)
    failure_.fail("S19", op, loc, "relabelling the runtime-offset window " + q(parent.name) +
                                      " is unsupported; expected a window at static offsets");
  const int64_t esize = dtypeSize(pw.type.dtype);
  if (pw.type.rows() > 1 && pw.type.cols() * esize != pw.span.pitch)
    failure_.fail("P11", op, loc,
                  "the window " + q(parent.name) + " has rows of " + std::to_string(pw.type.cols() * esize) +
                      " bytes at a pitch of " + std::to_string(pw.span.pitch) +
                      "; expected a dense row pitch (or a single row) for a relabel");
  Valid2 valid = validOfType(b, op, loc);
  if (!allConst(valid) || anyZero(valid))
    failure_.fail("W17", op, loc, "the relabelled window " + q(b.name) + " has valid extents " + validText(valid) +
                                      "; expected positive constant extents");
  Window w;
  w.parent = parentSlot;
  w.relabel = true;
  w.valid = valid;
  w.type = bufferTypeOf(b.type, valid);
  w.descriptor = pw.descriptor;
  w.stem = b.name;
  w.loc = loc;
  w.span = pw.span;
  w.span.shape = b.type.shape;
  w.span.pitch = b.type.cols() * esize;
  w.span.end = w.span.begin + bytesOf(b.type);
  w.span.strided = false;  // a dense relabel: its hull is exact
  int index = static_cast<int>(windows_.size());
  windows_.push_back(std::move(w));
  ValueInfo& v = info(b.slot);
  v.kind = ValueInfo::Kind::Window;
  v.window = index;
  v.valid = valid;
  v.type = b.type;
  v.name = b.name;
  v.loc = b.loc;
  if (depth > 0 && !descriptors_[pw.descriptor].regionUse) descriptors_[pw.descriptor].regionUse = loc;
}

void StorageIndex::planAssemble(const AssignStmt& s, const Expr& call, int depth) {
  const Binder& b = s.target;
  const SourceLoc loc = call.loc;
  const std::string op = opName(call);
  const ValueInfo target = operand(call, 0, loc);
  const ValueInfo source = operand(call, 1, loc);
  if (target.kind == ValueInfo::Kind::Window)
    failure_.fail("W7", op, loc, "the assemble target " + q(target.name) +
                                     " is a window; expected an allocation-level target tile");
  if (b.type.space != MemSpace::Vec)
    failure_.fail("W8", op, loc, "assembling " + sp(b.type.space) +
                                     " tiles has no Buffer recipe; expected a Vec target and source");
  int d = descriptorOf(b, op, loc);
  Valid2 resultValid = validOfType(b, op, loc);
  if (!allConst(resultValid) || !allConst(target.valid) || !allConst(source.valid))
    failure_.fail("V5", op, loc,
                  "assembling dynamic-valid tiles is unsupported (target " + validText(target.valid) + ", source " +
                      validText(source.valid) + "); expected static valid extents");
  if (anyZero(source.valid))
    failure_.fail("W17", op, loc, "the assemble source " + q(source.name) + " has valid extents " +
                                      validText(source.valid) + "; expected a nonempty source (zero-valid windows are rejected)");
  const Descriptor& T = descriptors_[target.descriptor];
  const int64_t sourcePitch = source.kind == ValueInfo::Kind::Window ? windows_[source.window].span.pitch
                                                                      : descriptors_[source.descriptor].pitch();
  if (sourcePitch != T.pitch())
    failure_.fail("W7", op, loc,
                  "the source " + q(source.name) + " has a row pitch of " + std::to_string(sourcePitch) +
                      " bytes but the target " + q(target.name) + " of " + std::to_string(T.pitch()) +
                      "; expected matching row pitches");

  AssemblePlan plan;
  plan.targetValid = target.valid;
  // The copy writes through a fully valid view of the source's physical window (spec/lowering.md step 6):
  // the device copies the whole source, and the Tile semantics replace the whole window, so a partially valid
  // source still moves every lane it holds.
  plan.sourceValid = fullValid(source.type.rows(), source.type.cols());
  // Fault AssembleSourceValidOnly: the copy (window and source bridge) takes the source's valid extents.
  if (context_.faults.on(Fault::AssembleSourceValidOnly)) plan.sourceValid = source.valid;
  if (source.kind == ValueInfo::Kind::Storage && !sameValid(source.valid, plan.sourceValid))
    registerVariant(source.descriptor, plan.sourceValid, source.name + "_whole", loc);
  plan.copyTarget = target.descriptor != d;
  if (plan.copyTarget && !anyZero(target.valid)) {
    // W5: when assemble grows the valid region, the preserving copy writes only the target's old
    // valid rectangle, through a view of the result's storage with exactly that rectangle.
    registerVariant(d, target.valid, b.name + "_prev", loc);
  }

  // W6: a source that already is the placed window was written in place.
  const std::array<const Expr*, 2> offsets = {call.args[2]->args[0].get(), call.args[2]->args[1].get()};
  const int64_t esize = dtypeSize(b.type.dtype);
  const ByteSpan placed = descriptorSpan(d).window(literalInt(*offsets[0]), literalInt(*offsets[1]),
                                                   source.type.rows(), source.type.cols(), esize);
  if (source.kind == ValueInfo::Kind::Window) {
    const Window& w = windows_[source.window];
    if (w.span.identical(placed)) {
      plan.sourceInPlace = true;
    } else if (!w.relabel && !w.span.exact && !placed.exact && values_.at(w.parent).kind == ValueInfo::Kind::Storage &&
               values_.at(w.parent).descriptor == d && w.type.shape == source.type.shape) {
      plan.sourceInPlace = ValidExt::of(*w.offsets[0]).key == ValidExt::of(*offsets[0]).key &&
                           ValidExt::of(*w.offsets[1]).key == ValidExt::of(*offsets[1]).key;
    }
  }
  if (!plan.sourceInPlace) {
    descriptors_[d].windowParent = true;
    checkWindowAlignment(call, offsets, esize, descriptorSpan(d), loc);
  }
  for (int fam : {target.descriptor, d, familyOf(call.args[1]->slot)})
    if (fam >= 0 && !descriptors_[fam].relabelOrAssemble) descriptors_[fam].relabelOrAssemble = loc;
  defineStorage(b, d, resultValid, loc, depth);
  assembles_[b.slot] = plan;
}

// ---- control flow ----

void StorageIndex::loopCarries(const std::vector<Binder>& iterArgs, const std::vector<ExprPtr>& inits, SourceLoc loc,
                               std::string_view what, int depth) {
  for (const ExprPtr& init : inits)
    if (init->kind == Expr::Kind::Name) noteUse(*init, depth);
  for (size_t i = 0; i < iterArgs.size() && i < inits.size(); ++i) {
    const Binder& carry = iterArgs[i];
    const Expr& init = *inits[i];
    if (carry.type.isScalar()) {
      reserveScalar(carry);
      continue;
    }
    if (init.kind != Expr::Kind::Name)
      failure_.fail("L1", what, loc, "the initial value of carry " + q(carry.name) + " is not a name");
    const ValueInfo src = info(init.slot);
    if (src.kind == ValueInfo::Kind::Tensor) {
      ValueInfo& v = info(carry.slot);
      v = src;
      v.name = carry.name;
      v.loc = carry.loc;
      continue;
    }
    if (src.kind == ValueInfo::Kind::Window)
      failure_.fail("S19", what, loc, "the window " + q(src.name) + " is carried by the loop as " + q(carry.name) +
                                          "; expected windows to stay inside the region that cuts them");
    if (src.kind != ValueInfo::Kind::Storage)
      failure_.fail("L1", what, loc, "carry " + q(carry.name) + " starts from " + q(src.name) + ", which has no storage");
    int d = descriptorOf(carry, what, carry.loc.known() ? carry.loc : loc);
    if (d != src.descriptor)
      failure_.fail("L1", what, loc,
                    "carry " + q(carry.name) + " does not name the storage of its initial value " + q(src.name) +
                        "; expected entry copies planned before lowering (one storage per carry)");
    defineStorage(carry, d, src.valid, loc, depth + 1);
  }
}

void StorageIndex::loopResults(const Stmt& loop, const std::vector<Binder>& iterArgs, const Block& body,
                               std::string_view what, int depth) {
  const YieldStmt* y = trailingYield(body);
  if (!y) return;
  for (const ExprPtr& v : y->values)
    if (v->kind == Expr::Kind::Name) noteUse(*v, depth + 1);
  for (size_t i = 0; i < iterArgs.size() && i < y->values.size() && i < y->targets.size(); ++i) {
    const Binder& carry = iterArgs[i];
    const Binder& result = y->targets[i];
    const Expr& value = *y->values[i];
    const ValueInfo carried = info(carry.slot);
    if (carry.type.isScalar()) {
      reserveScalar(result);
      continue;
    }
    const ValueInfo yielded = value.kind == Expr::Kind::Name ? info(value.slot) : ValueInfo{};
    if (carried.kind == ValueInfo::Kind::Tensor) {
      if (yielded.kind != ValueInfo::Kind::Tensor || yielded.param != carried.param)
        failure_.fail("L5", what, value.loc,
                      "the tensor carry " + q(carry.name) + " starts as parameter " +
                          q(fn_.params[carried.param].name) + " but the backedge yields " +
                          (yielded.kind == ValueInfo::Kind::Tensor ? "parameter " + q(fn_.params[yielded.param].name)
                                                                   : std::string("another value")) +
                          "; expected a GM carry to stay on one parameter");
      ValueInfo& r = info(result.slot);
      r = carried;
      r.name = result.name;
      r.loc = result.loc;
      continue;
    }
    if (yielded.kind == ValueInfo::Kind::Window)
      failure_.fail("S19", what, value.loc, "the window " + q(yielded.name) + " is yielded for carry " +
                                                q(carry.name) + "; expected windows to stay inside their region");
    if (yielded.kind != ValueInfo::Kind::Storage || yielded.descriptor != carried.descriptor)
      failure_.fail("L1", what, value.loc,
                    "the backedge yields " + q(yielded.name) + " for carry " + q(carry.name) +
                        " in other storage; expected the yielded value, the carry and the result to share one "
                        "legalized storage window (carry copies are planned before lowering)");
    int d = descriptorOf(result, what, result.loc.known() ? result.loc : loop.loc);
    if (d != carried.descriptor)
      failure_.fail("L1", what, loop.loc,
                    "the loop result " + q(result.name) + " does not name the storage of carry " + q(carry.name) +
                        "; expected one storage per carry");
    defineStorage(result, d, carried.valid, loop.loc, depth);
  }
}

void StorageIndex::ifResults(const IfStmt& s, int depth) {
  const YieldStmt* yt = trailingYield(s.thenBody);
  const YieldStmt* ye = trailingYield(s.elseBody);
  for (const YieldStmt* y : {yt, ye})
    if (y)
      for (const ExprPtr& v : y->values)
        if (v->kind == Expr::Kind::Name) noteUse(*v, depth + 1);
  if (!yt || !ye) return;
  for (size_t i = 0; i < yt->targets.size() && i < yt->values.size() && i < ye->values.size(); ++i) {
    const Binder& result = yt->targets[i];
    if (result.type.isScalar()) {
      reserveScalar(result);
      continue;
    }
    const Expr* arms[2] = {yt->values[i].get(), ye->values[i].get()};
    ValueInfo vals[2];
    for (int a = 0; a < 2; ++a) {
      if (arms[a]->kind == Expr::Kind::Name) vals[a] = info(arms[a]->slot);
      if (vals[a].kind == ValueInfo::Kind::Window)
        failure_.fail("S19", "if", arms[a]->loc, "the window " + q(vals[a].name) + " is yielded as the branch result " +
                                                     q(result.name) + "; expected windows to stay inside their region");
    }
    if (result.type.isTensor()) {
      if (vals[0].kind != ValueInfo::Kind::Tensor || vals[1].kind != ValueInfo::Kind::Tensor ||
          vals[0].param != vals[1].param)
        failure_.fail("B10", "if", s.loc,
                      "the branch result " + q(result.name) + " aliases different GM tensors in its arms; expected "
                      "both arms to resolve to one parameter");
      ValueInfo& r = info(result.slot);
      r = vals[0];
      r.name = result.name;
      r.loc = result.loc;
      continue;
    }
    int d = descriptorOf(result, "if", result.loc.known() ? result.loc : s.loc);
    for (int a = 0; a < 2; ++a)
      if (vals[a].kind != ValueInfo::Kind::Storage || vals[a].descriptor != d)
        failure_.fail("B1", "if", arms[a]->loc,
                      "the " + std::string(a == 0 ? "then" : "else") + " arm yields " + q(vals[a].name) +
                          " for the branch result " + q(result.name) + " in other storage; expected storage "
                          "legalization to give both arms the result's destination");
    if (!sameValid(vals[0].valid, vals[1].valid))
      failure_.fail("V5", "if", s.loc,
                    "the arms of the branch result " + q(result.name) + " have valid extents " +
                        validText(vals[0].valid) + " and " + validText(vals[1].valid) +
                        "; expected one valid state (dynamic valid state may not cross control flow)");
    defineStorage(result, d, vals[0].valid, s.loc, depth);
  }
}

}  // namespace ptodiff::lower
