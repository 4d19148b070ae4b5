#include "compiler/planners/Liveness.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace ptodiff::storage {

Liveness::Liveness(const StorageFacts& facts, const AliasFamilies& families, FaultSwitch faults)
    : faults_(faults), facts_(facts), families_(families) {
  // Counting sort of the uses by point (two arrays rather than a map of vectors: one of these is
  // built per planner and per check of every case).
  usesStart_.assign(static_cast<size_t>(std::max(facts_.numPoints(), 0)) + 1, 0);
  for (const Use& u : facts_.uses()) {
    if (u.point < 0 || u.point >= facts_.numPoints()) throw std::logic_error("Liveness: a use outside the kernel's points");
    ++usesStart_[static_cast<size_t>(u.point) + 1];
  }
  for (size_t p = 1; p < usesStart_.size(); ++p) usesStart_[p] += usesStart_[p - 1];
  usesAt_.resize(facts_.uses().size());
  std::vector<size_t> next(usesStart_.begin(), usesStart_.end() - 1);
  for (const Use& u : facts_.uses()) usesAt_[next[static_cast<size_t>(u.point)]++] = &u;
  collectReferences();
  if (!faults_.on(Fault::LivenessIgnoresLoopExtension)) extendOverLoops();
  groupVersions();
}

int Liveness::versionRoot(int identity) const {
  auto it = versionOf_.find(identity);
  while (it != versionOf_.end() && it->second != identity) {
    identity = it->second;
    it = versionOf_.find(identity);
  }
  return identity;
}

void Liveness::groupVersions() {
  for (int identity : families_.identities()) versionOf_[identity] = identity;
  for (const TileValue& v : facts_.values()) {
    if (v.kind != ValueKind::LoopCarry && v.kind != ValueKind::LoopResult && v.kind != ValueKind::BranchResult) continue;
    const std::vector<int>& family = families_.family(v.slot);
    for (size_t i = 0; i < family.size(); ++i)
      for (size_t j = i + 1; j < family.size(); ++j) {
        std::optional<ByteWindow> a = identityWindow(facts_, family[i]), b = identityWindow(facts_, family[j]);
        if (!a || !b || !(*a == *b)) continue;
        int ra = versionRoot(family[i]), rb = versionRoot(family[j]);
        if (ra != rb) versionOf_[std::max(ra, rb)] = std::min(ra, rb);
      }
  }
  // Each identity then points at its group's root directly, and each group lists its identities:
  // generationOverlaps asks for every identity's versions, which a scan of all identities per
  // question made quadratic.
  for (auto& [identity, root] : versionOf_) root = versionRoot(identity);
  for (const auto& [identity, root] : versionOf_) versionMembers_[root].push_back(identity);
}

bool Liveness::sameVersions(int a, int b) const { return versionRoot(a) == versionRoot(b); }

void Liveness::collectReferences() {
  auto reference = [&](int slot, int point) {
    for (int identity : families_.family(slot)) {
      auto [it, fresh] = ranges_.try_emplace(identity, LiveRange{point, point});
      if (fresh) continue;
      it->second.start = std::min(it->second.start, point);
      it->second.end = std::max(it->second.end, point);
    }
  };
  for (const TileValue& v : facts_.values()) reference(v.slot, v.point);
  const bool skipViews = faults_.on(Fault::LivenessIgnoresViewUses);
  for (const Use& u : facts_.uses()) {
    const TileValue* v = facts_.value(u.slot);
    if (!v || (skipViews && v->kind == ValueKind::View)) continue;
    reference(u.slot, u.point);
  }
}

void Liveness::extendOverLoops() {
  // Which identities each loop's carries may hold, and which identities are referenced inside it.
  const std::vector<LoopExtent>& loops = facts_.loops();
  std::vector<std::vector<int>> carried(loops.size()), referenced(loops.size());
  for (const TileValue& v : facts_.values()) {
    if (v.kind == ValueKind::LoopCarry)
      for (int identity : families_.family(v.slot)) carried[v.loop].push_back(identity);
  }
  auto noteReference = [&](int slot, int point) {
    for (size_t l = 0; l < loops.size(); ++l)
      if (loops[l].contains(point))
        for (int identity : families_.family(slot)) referenced[l].push_back(identity);
  };
  for (const TileValue& v : facts_.values()) noteReference(v.slot, v.point);
  for (const Use& u : facts_.uses())
    if (facts_.value(u.slot)) noteReference(u.slot, u.point);

  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t l = 0; l < loops.size(); ++l) {
      const LoopExtent& loop = loops[l];
      auto widen = [&](int identity, bool wholeLoop) {
        LiveRange& r = ranges_.at(identity);
        LiveRange before = r;
        if (wholeLoop) r.start = std::min(r.start, loop.header);
        r.end = std::max(r.end, loop.backedge);
        changed = changed || r.start != before.start || r.end != before.end;
      };
      for (int identity : carried[l]) widen(identity, true);
      for (int identity : referenced[l])
        if (ranges_.at(identity).start < loop.header) widen(identity, false);
    }
  }
}

LiveRange Liveness::range(int identity) const {
  auto it = ranges_.find(identity);
  if (it == ranges_.end()) throw std::logic_error("Liveness: slot " + std::to_string(identity) + " is not an identity");
  return it->second;
}

bool Liveness::readsInPlace(const TileValue& result, int operandSlot) const {
  if (result.kind != ValueKind::Fresh || !result.call || result.call->kind != Expr::Kind::Call) return false;
  const OpInfo& info = opInfo(result.call->op);
  bool elementwise =
      info.family == OpFamily::Binary || info.family == OpFamily::Unary || info.family == OpFamily::TileScalar;
  const TileValue* operand = facts_.value(operandSlot);
  const bool inPlaceSafe =
      (elementwise && info.effects.inPlaceSafe) || faults_.on(Fault::InPlaceReuseForUnsafeOps);
  return inPlaceSafe && operand && families_.coversWholeIdentity(operandSlot) &&
         samePhysicalTile(operand->type, result.type);
}

bool Liveness::endsInPlaceInto(int ending, int starting) const {
  const TileValue* result = facts_.value(starting);
  const LiveRange endRange = range(ending);
  if (!result || result->point != endRange.end || range(starting).start != result->point) return false;
  const auto point = static_cast<size_t>(result->point);
  if (point + 1 >= usesStart_.size()) return false;
  bool readsEnding = false;
  for (size_t i = usesStart_[point]; i < usesStart_[point + 1]; ++i) {
    const Use* u = usesAt_[i];
    const std::vector<int>& family = families_.family(u->slot);
    if (std::find(family.begin(), family.end(), ending) == family.end()) continue;
    if (family.size() != 1 || !readsInPlace(*result, u->slot)) return false;
    readsEnding = true;
  }
  return readsEnding;
}

Overlap Liveness::relation(int a, int b) const {
  LiveRange ra = range(a), rb = range(b);
  if (!ra.intersects(rb)) return Overlap::Disjoint;
  if (ra.end == rb.start && endsInPlaceInto(a, b)) return Overlap::InPlace;
  if (rb.end == ra.start && endsInPlaceInto(b, a)) return Overlap::InPlace;
  return Overlap::Conflict;
}

std::vector<int> Liveness::versionsOf(const std::vector<int>& identities) const {
  std::vector<int> out;
  for (int id : identities)
    if (auto group = versionMembers_.find(versionRoot(id)); group != versionMembers_.end())
      out.insert(out.end(), group->second.begin(), group->second.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<GenerationOverlap> Liveness::generationOverlaps() const {
  std::vector<GenerationOverlap> out;
  for (int identity : families_.identities()) {
    const TileValue* def = facts_.value(identity);
    if (!def) continue;
    std::vector<int> versions = versionsOf({identity});
    // A lone identity has no earlier generation unless its definition repeats; a version of shared
    // storage overwrites the others whenever it runs at all.
    if (versions.size() == 1 ? !mayRunTwice(def->point) : neverRuns(def->point)) continue;
    staleReads(StorageWrite{identity, std::move(versions), def->point, def, nullptr}, out);
  }
  // A row reduction writes poison over whatever its tmp_tile holds, every time it runs: unlike a
  // definition, the storage it writes existed before, so even its first run makes a generation.
  for (const TileValue& v : facts_.values()) {
    const Expr* tmp = scratchOperand(v);
    if (!tmp || neverRuns(v.point) || families_.family(tmp->slot).empty()) continue;
    const std::vector<int>& written = families_.family(tmp->slot);
    staleReads(StorageWrite{written.front(), versionsOf(written), v.point, nullptr, tmp}, out);
  }
  return out;
}

void Liveness::staleReads(const StorageWrite& write, std::vector<GenerationOverlap>& out) const {
  const std::vector<int>& versions = write.versions;
  auto holds = [&](int slot) {
    const std::vector<int>& f = families_.family(slot);
    return std::any_of(versions.begin(), versions.end(),
                       [&](int version) { return std::binary_search(f.begin(), f.end(), version); });
  };
  // Values that may hold an earlier generation once this write has happened: those bound before
  // it on a path that reaches it (for a definition's own identity, their only way to it is a
  // carry), and what is built on them.
  std::set<int> stale;
  for (const TileValue& v : facts_.values())
    if (v.point < write.point && holds(v.slot) && !facts_.exclusive(v.point, write.point)) stale.insert(v.slot);
  bool changed = true;
  while (changed) {
    changed = false;
    for (const TileValue& v : facts_.values()) {
      if (v.point <= write.point || stale.count(v.slot) || !holds(v.slot)) continue;
      bool fromStale = (v.kind == ValueKind::View || v.kind == ValueKind::InPlace) && stale.count(v.source);
      // Leaving a loop that holds the write yields the last trip's value: the init only reaches
      // the result when no trip (and so no rewrite) ran.
      const bool leavesWritingLoop = facts_.leavesLoopHolding(v, write.point);
      for (size_t k = leavesWritingLoop ? 1 : 0; k < v.incoming.size(); ++k)
        fromStale = fromStale || (stale.count(v.incoming[k]) && !untouchedByWrite(v, k, write.point));
      if (fromStale) changed = stale.insert(v.slot).second || changed;
    }
  }
  for (const Use& u : facts_.uses()) {
    // A reduction only writes its tmp_tile: handing the operand over reads nothing, on any trip.
    if (isScratchOperand(u)) continue;
    // Binding a value to a carry, a result or a return reads nothing; staleness flows through
    // the binding into `stale` and is caught where the bound value is read.
    const Stmt* at = facts_.statementAt(u.point);
    if (!stale.count(u.slot) || !at || (at->kind != Stmt::Kind::Assign && at->kind != Stmt::Kind::Eval)) continue;
    // Defining a view reads no bytes (A8): the view is stale itself and its reads are checked.
    if (at->kind == Stmt::Kind::Assign) {
      const TileValue* defined = facts_.value(at->as<AssignStmt>().target.slot);
      if (defined && defined->kind == ValueKind::View && defined->source == u.slot) continue;
    }
    const GenerationOverlap found{write.identity, &u, u.slot, write.point, write.scratch != nullptr};
    if (readAgainInALaterTrip(u, write.point) || carriesStaleIntoThisTrip(u, write.point, stale) ||
        rebindsStaleInALaterTrip(u, write.point, stale)) {
      out.push_back(found);
      continue;
    }
    if (u.point < write.point || facts_.exclusive(u.point, write.point)) continue;
    // The defining op itself may read the old generation only as an in-place-safe op reading
    // exactly the storage it writes; a reduction's source never shares its tmp's storage.
    if (u.point == write.point && write.definition && readsInPlace(*write.definition, u.slot)) continue;
    out.push_back(found);
  }
}

bool Liveness::untouchedByWrite(const TileValue& v, size_t index, int writePoint) const {
  // The arm of an If that excludes the write runs only when the write does not (A15: the other
  // arm continues the value in place); a write on an earlier trip of a loop holding the If shows
  // only through bytes not written anew on this trip.
  return facts_.yieldedByArmExcluding(v, index, writePoint) &&
         facts_.freshEachTrip(v.incoming[index], facts_.pointOf(v.stmt), writePoint);
}

const Expr* Liveness::scratchOperand(const TileValue& v) {
  if (v.kind != ValueKind::Fresh || !v.call || v.call->kind != Expr::Kind::Call ||
      opInfo(v.call->op).family != OpFamily::RowReduce)
    return nullptr;
  return v.call->arg("tmp_tile");
}

bool Liveness::isScratchOperand(const Use& u) const {
  const Stmt* at = facts_.statementAt(u.point);
  if (!at || at->kind != Stmt::Kind::Assign) return false;
  const TileValue* defined = facts_.value(at->as<AssignStmt>().target.slot);
  return defined && scratchOperand(*defined) == u.expr;
}

bool Liveness::neverRuns(int point) const {
  for (int l = facts_.innermostLoop(point); l >= 0; l = facts_.loops()[l].parent) {
    std::optional<int64_t> trips = facts_.constantTrips(l);
    if (trips && *trips == 0) return true;
  }
  return false;
}

bool Liveness::mayRunTwice(int point) const {
  bool repeats = false;
  for (int l = facts_.innermostLoop(point); l >= 0; l = facts_.loops()[l].parent) {
    std::optional<int64_t> trips = facts_.constantTrips(l);
    if (trips && *trips == 0) return false;  // never runs at all
    repeats = repeats || !trips || *trips > 1;
  }
  return repeats;
}

bool Liveness::carriesStaleIntoThisTrip(const Use& u, int definition, const std::set<int>& stale) const {
  const TileValue* v = facts_.value(u.slot);
  if (!v || v->kind != ValueKind::LoopCarry || v->incoming.size() < 2 || !stale.count(v->incoming[1])) return false;
  const LoopExtent* loop = loopOf(v->stmt);
  return loop && loop->contains(definition) && loop->contains(u.point);
}

bool Liveness::rebindsStaleInALaterTrip(const Use& u, int definition, const std::set<int>& stale) const {
  const TileValue* carry = facts_.value(u.slot);
  for (int depth = 0; carry && carry->kind == ValueKind::LoopCarry && !carry->incoming.empty() && depth < 64; ++depth) {
    const TileValue* init = facts_.value(carry->incoming[0]);
    if (!init) return false;
    if (stale.count(init->slot))
      for (int l = facts_.innermostLoop(definition); l >= 0; l = facts_.loops()[l].parent) {
        const LoopExtent& loop = facts_.loops()[l];
        if (init->point < loop.header && loop.header < carry->point && loop.contains(u.point)) return true;
      }
    carry = init;
  }
  return false;
}

bool Liveness::readAgainInALaterTrip(const Use& u, int definition) const {
  const TileValue* v = facts_.value(u.slot);
  for (int l = facts_.innermostLoop(definition); l >= 0; l = facts_.loops()[l].parent) {
    const LoopExtent& loop = facts_.loops()[l];
    if (v && v->point < loop.header && loop.header < u.point && loop.contains(u.point)) return true;
  }
  return false;
}

const LoopExtent* Liveness::loopOf(const Stmt* loop) const {
  for (const LoopExtent& l : facts_.loops())
    if (l.stmt == loop) return &l;
  return nullptr;
}

uint32_t Liveness::lineOf(int point) const {
  const Stmt* s = facts_.statementAt(point);
  return s ? s->loc.line : 0;
}

std::string Liveness::describe(int identity) const {
  const TileValue* v = facts_.value(identity);
  if (!v || !v->binder) return "slot " + std::to_string(identity);
  return "'" + v->binder->name + "' (line " + std::to_string(v->binder->loc.line) + ")";
}

}  // namespace ptodiff::storage
