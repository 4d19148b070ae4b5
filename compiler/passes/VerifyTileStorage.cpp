#include "compiler/passes/VerifyTileStorage.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "compiler/planners/Liveness.h"
#include "compiler/planners/PlannedStorage.h"

namespace ptodiff {

namespace {

using namespace storage;

constexpr std::string_view kPassName = "VerifyTileStorage";

std::string q(const std::string& name) { return "'" + name + "'"; }
std::string range(int64_t begin, int64_t end) { return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")"; }

class KernelStorageChecker {
 public:
  KernelStorageChecker(const Function& fn, const PassContext& context, std::string file,
                       std::vector<Diagnostic>& out, bool generations)
      : fn_(fn), context_(context), file_(std::move(file)), out_(out), generations_(generations), facts_(fn),
        families_(facts_, plannedInPlacePolicy(facts_)), live_(facts_, families_, context.faults) {}

  void run() {
    roots_ = rootsByName(fn_);
    tiles_ = tilesByRoot(facts_);
    checkRoots();
    for (const TileValue& v : facts_.values())
      if (v.isAssign()) checkMemRef(v);
    if (!addressed()) checkAddresslessCapacity();
    checkOverlap();
    if (generations_) checkGenerations();
  }

 private:
  const Function& fn_;
  const PassContext& context_;
  std::string file_;
  std::vector<Diagnostic>& out_;
  bool generations_;
  StorageFacts facts_;
  AliasFamilies families_;
  Liveness live_;
  std::map<std::string, Root> roots_;
  std::map<std::string, std::vector<const Type*>> tiles_;

  bool addressed() const { return plannerAssignsAddresses(context_.planner); }
  std::string planner() const { return std::string(plannerName(context_.planner)); }

  Diagnostic& error(SourceLoc loc, const std::string& rule, const std::string& message) {
    out_.push_back(Diagnostic{Severity::Error, file_, loc,
                              std::string(kPassName) + " [" + rule + "]: " + message, {}});
    return out_.back();
  }
  void note(Diagnostic& d, SourceLoc loc, const std::string& message) {
    d.notes.push_back(Diagnostic{Severity::Note, file_, loc, message, {}});
  }

  void checkRoots() {
    for (const auto& [name, r] : roots_) {
      const SpaceDesc& space = context_.target->space(r.space);
      // Built only for a report (a check run on every planned program).
      auto where = [&] {
        return q(name) + " (" + std::string(memSpaceName(r.space)) + ", " + std::to_string(r.size) + " bytes)";
      };
      if (!addressed()) {
        if (r.addr) error(r.stmt->loc, "P1", where() + " has addr=" + std::to_string(*r.addr) + ", but " + planner() +
                                                 " gives allocation identities only; expected no address");
        continue;
      }
      if (!r.addr) {
        error(r.stmt->loc, "P1", where() + " has no address, but " + planner() +
                                     " places every root; expected pl.tile.alloc(..., addr=A)");
        continue;
      }
      auto tiles = tiles_.find(name);
      const int64_t alignment =
          storageAlignment(tiles == tiles_.end() ? std::vector<const Type*>{} : tiles->second, *context_.target);
      ByteRange bytes{*r.addr, *r.addr + r.size};
      if (*r.addr % alignment != 0)
        error(r.stmt->loc, "P14", where() + " starts at " + std::to_string(*r.addr) + ", not a multiple of " +
                                      std::to_string(alignment) + " bytes");
      if (bytes.end > space.capacity)
        error(r.stmt->loc, "P14", where() + " occupies " + range(bytes.begin, bytes.end) + ", but " +
                                      capacityText(*context_.target, r.space));
      else if (space.reserved && space.reserved->overlaps(bytes))
        error(r.stmt->loc, "P14", where() + " occupies " + range(bytes.begin, bytes.end) + ", touching the reserved range " +
                                      range(space.reserved->begin, space.reserved->end) + " of " +
                                      std::string(context_.target->name));
    }
  }

  /// Whether `v` is a view whose source is placed at run time (placedAtRunTime).
  bool viewOfRuntimeWindow(const TileValue& v) const {
    if (v.kind != ValueKind::View) return false;
    const TileValue* src = facts_.value(v.source);
    std::set<int> seen;
    return src && placedAtRunTime(*src, seen);
  }

  /// Whether `v` sits where a slice at a runtime offset puts it: such a slice, a view of one, or a
  /// carry, loop or branch result one may be bound to. Those binders have no MemRef of their own
  /// (they denote the storage of the value bound to them), so a view of one whose arm or initial
  /// value is a runtime window is placed at run time too (an If yielding a runtime-offset slice, its
  /// result carried by a loop: the entry copy's widening setter is such a view).
  bool placedAtRunTime(const TileValue& v, std::set<int>& seen) const {
    if (!seen.insert(v.slot).second) return false;
    if (v.kind == ValueKind::View) {
      if (!v.type.memref || v.type.memref->offset.isConst()) return false;
      if (v.call->kind == Expr::Kind::Call && opInfo(v.call->op).family == OpFamily::Slice) return true;
      const TileValue* src = facts_.value(v.source);
      return src && placedAtRunTime(*src, seen);
    }
    if (v.kind != ValueKind::LoopCarry && v.kind != ValueKind::LoopResult && v.kind != ValueKind::BranchResult)
      return false;
    return std::any_of(v.incoming.begin(), v.incoming.end(), [&](int in) {
      const TileValue* bound = facts_.value(in);
      return bound && placedAtRunTime(*bound, seen);
    });
  }

  /// Closure of one value's MemRef.
  void checkMemRef(const TileValue& v) {
    auto name = [&] { return q(v.binder->name); };  // built only for a report
    if (!v.type.memref) {
      error(v.binder->loc, "P18", name() + " has no pl.MemRef; expected every Tile value of a planned kernel to name its storage");
      return;
    }
    const MemRef& m = *v.type.memref;
    auto root = roots_.find(m.base);
    if (root == roots_.end())  // the verifier only accepts MemRef bases bound by pl.tile.alloc
      throw std::logic_error("VerifyTileStorage: " + name() + " names " + q(m.base) + ", which is no storage root");
    const Root& r = root->second;
    const bool isSlice = v.kind == ValueKind::View && v.call->kind == Expr::Kind::Call &&
                         opInfo(v.call->op).family == OpFamily::Slice;
    // A view of a runtime-offset window (reshape, transpose_view, set_validshape, a rename) shares
    // its source's MemRef, so it is placed at run time exactly where that window is.
    const bool placedAtRunTime = isSlice || viewOfRuntimeWindow(v);
    if (m.size <= 0) error(v.binder->loc, "P14", name() + " has a MemRef of " + std::to_string(m.size) + " bytes");
    if (v.kind != ValueKind::View && m.size < tileBytes(v.type))
      error(v.binder->loc, "P14", "the MemRef of " + name() + " holds " + std::to_string(m.size) +
                                      " bytes but the tile needs " + std::to_string(tileBytes(v.type)));
    if (!m.offset.isConst()) {
      if (!placedAtRunTime)
        error(v.binder->loc, "P14", name() + " has a runtime MemRef offset; only a slice window (or a view of one) may "
                                           "be placed at run time");
      else if (m.size > r.size)
        error(v.binder->loc, "P14", "the window of " + name() + " spans " + std::to_string(m.size) + " bytes, more than root " +
                                        q(r.name) + " holds (" + std::to_string(r.size) + ")");
      return;
    }
    const int64_t offset = m.offset.value;
    // P14 binds Tile-path kernels too: the hardware addresses every UB tile, view or not, from a
    // 32-byte aligned base, so an unaligned window is unrealizable whichever path lowers it.
    if (offset < 0 || offset % 32 != 0)
      error(v.binder->loc, "P14", name() + " has MemRef offset " + std::to_string(offset) +
                                      "; expected a nonnegative multiple of 32");
    const int64_t base = r.addr.value_or(0);
    if (offset - base < 0 || offset - base + m.size > r.size)
      error(v.binder->loc, "P14", name() + " occupies " + range(offset, offset + m.size) + ", outside root " + q(r.name) +
                                      " at " + range(base, base + r.size));
    if (v.kind == ValueKind::View) checkInsideSource(v, m);
  }

  void checkInsideSource(const TileValue& v, const MemRef& m) {
    std::optional<MemRef> src = facts_.staticMemRef(v.source);
    if (!src) return;
    if (src->base != m.base) {
      error(v.binder->loc, "P18", q(v.binder->name) + " is a view but names root " + q(m.base) + " while its source names " +
                                      q(src->base));
      return;
    }
    if (!src->offset.isConst()) return;
    const int64_t so = src->offset.value;
    if (m.offset.value < so || m.offset.value + m.size > so + src->size)
      error(v.binder->loc, "P18", q(v.binder->name) + " occupies " + range(m.offset.value, m.offset.value + m.size) +
                                      ", outside its source's window " + range(so, so + src->size));
  }

  void checkAddresslessCapacity() {
    std::vector<Root> ordered = collectRoots(fn_);
    std::map<MemSpace, int64_t> used = addresslessFootprint(ordered, tiles_, *context_.target);
    for (const auto& [space, bytes] : used)
      if (bytes > context_.target->space(space).usableEnd())
        error(fn_.loc, "P1", "the " + std::string(memSpaceName(space)) + " roots of kernel " + q(fn_.name) + " need " +
                                 std::to_string(bytes) + " bytes together, but " + capacityText(*context_.target, space));
  }

  /// Bytes of an identity in one comparable frame: absolute under addressed planners, root-relative
  /// (and compared only within one root) under PTOAS.
  std::optional<ByteWindow> bytesOf(int identity) const {
    std::optional<ByteWindow> w = identityWindow(facts_, identity);
    if (!w || !addressed()) return w;
    w->root.clear();  // one address space per memory space
    return w;
  }

  /// One root per identity cannot hold two trips' generations of it at once (L9).
  void checkGenerations() {
    for (const GenerationOverlap& g : live_.generationOverlaps()) {
      const TileValue* def = facts_.value(g.identity);
      const MemSpace space = def->binder->type.space;
      // Only Vec tiles have a copy (tile.move); a matrix tile's two generations cannot both live, so
      // the program has no lowering at all, on either path (M11, M14).
      const std::string remedy =
          space == MemSpace::Vec
              ? "keeping both needs a copy (MaterializeSemanticAliases' entry copies or parallel transfers)"
              : "keeping both needs a " + std::string(memSpaceName(space)) + " -> " + std::string(memSpaceName(space)) +
                    " copy, which the target cannot perform (M11, M14); expected the new value to be computed "
                    "after the last read of the old one";
      Diagnostic& d = error(g.use->expr->loc, "L9",
                            q(g.use->expr->name) + " may hold an earlier version of the storage of " +
                                live_.describe(g.identity) + ", which is written again before the read; " + remedy);
      note(d, def->binder->loc, q(def->binder->name) + " is written here");
    }
  }

  /// A Vec move whose result is its source's identical window and type: a no-op the lowering
  /// removes (C5) and the interpreters accept (decisions.md PT9), so not a clobber.
  bool exactSelfCopy(const TileValue& copy, const TileValue& source) const {
    if (copy.kind != ValueKind::Fresh || !copy.call || copy.call->kind != Expr::Kind::Call ||
        opInfo(copy.call->op).family != OpFamily::Move || copy.call->args.empty() ||
        copy.call->args[0]->slot != source.slot)
      return false;
    return samePhysicalTile(copy.type, source.type) && copy.type.memref == source.type.memref;
  }

  void checkOverlap() {
    const std::vector<int>& ids = families_.identities();
    for (size_t i = 0; i < ids.size(); ++i) {
      const TileValue* a = facts_.value(ids[i]);
      std::optional<ByteWindow> wa = bytesOf(ids[i]);
      if (!wa) continue;
      for (size_t j = i + 1; j < ids.size(); ++j) {
        const TileValue* b = facts_.value(ids[j]);
        std::optional<ByteWindow> wb = bytesOf(ids[j]);
        if (!wb || a->type.space != b->type.space || wa->root != wb->root || !wa->overlaps(*wb)) continue;
        // Versions of one must-alias storage overwrite each other by design; checkGenerations
        // proves no value is read after another version replaced it.
        if (live_.sameVersions(ids[i], ids[j])) continue;
        Overlap rel = live_.relation(ids[i], ids[j]);
        if (rel == Overlap::Disjoint || (rel == Overlap::InPlace && *wa == *wb)) continue;
        if (*wa == *wb && (exactSelfCopy(*a, *b) || exactSelfCopy(*b, *a))) continue;
        Diagnostic& d = error(b->binder->loc, "P18",
                              live_.describe(ids[i]) + " and " + live_.describe(ids[j]) +
                                  " are live at the same time but their storage overlaps: " + range(wa->begin, wa->end) +
                                  " and " + range(wb->begin, wb->end) + " of " + std::string(memSpaceName(a->type.space)) +
                                  (rel == Overlap::InPlace ? " (an in-place op may only write exactly its input's window)" : ""));
        note(d, a->binder->loc, q(a->binder->name) + " is defined here");
      }
    }
  }
};

bool isPlannedKernel(const Function& f) {
  return f.stage == FunctionStage::Tile && f.type != FunctionType::Orchestration;
}

class VerifyTileStoragePass final : public Pass {
 public:
  std::string_view name() const override { return kPassName; }
  std::string_view summary() const override {
    return "checks planned storage: closure, capacity, and no overlap of simultaneously live allocations";
  }

  bool run(Program& program, const PassContext& context) override {
    std::vector<Diagnostic> problems = checkTileStorage(program, context);
    if (problems.empty()) return false;
    Diagnostic first = problems.front();
    for (size_t i = 1; i < problems.size(); ++i) first.notes.push_back(problems[i]);
    throw DiagnosticError(std::move(first));
  }
};

}  // namespace

std::vector<Diagnostic> checkTileStorage(const Program& program, const PassContext& context, bool generations) {
  std::vector<Diagnostic> out;
  const std::string file = program.source ? program.source->name : std::string();
  for (const Function& f : program.functions)
    if (isPlannedKernel(f)) KernelStorageChecker(f, context, file, out, generations).run();
  return out;
}

std::unique_ptr<Pass> createVerifyTileStoragePass() { return std::make_unique<VerifyTileStoragePass>(); }

}  // namespace ptodiff
