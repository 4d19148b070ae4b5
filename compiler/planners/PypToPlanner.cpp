#include "compiler/planners/PypToPlanner.h"

#include <algorithm>

#include "compiler/passes/PassManager.h"
#include "compiler/planners/Liveness.h"
#include "compiler/planners/PlannedStorage.h"

namespace ptodiff::storage {

namespace {

/// A shared root: the units placed at one address, largest (its first member) first. A member
/// `merged` into it names the survivor root (the first merged member); the others keep their own
/// root at the same address (V9: dynamic storage that may not become one handle with the rest).
struct SharedRoot {
  MemSpace space;
  std::vector<size_t> members;
  std::vector<bool> merged;
  int64_t size = 0;
  int64_t alignment = 32;
};

enum class Fit { No, Merge, ShareAddress };

class PyPtoPlanner {
 public:
  PyPtoPlanner(Function& kernel, const Program& program, const Target& target, FaultSwitch faults)
      : kernel_(kernel), program_(program), target_(target), facts_(kernel),
        families_(facts_, plannedInPlacePolicy(facts_)), live_(facts_, families_, faults) {}

  bool run() {
    std::vector<Root> roots = collectRoots(kernel_);
    if (roots.empty()) return false;
    units_ = placementUnits(facts_, families_, roots, target_,
                            [&](SourceLoc loc, const std::string& m) { fail(loc, m); });
    reuse();
    applyPlacement(kernel_, assignAddresses());
    return true;
  }

 private:
  Function& kernel_;
  const Program& program_;
  const Target& target_;
  StorageFacts facts_;
  AliasFamilies families_;
  Liveness live_;
  std::vector<PlacementUnit> units_;
  std::vector<SharedRoot> shared_;

  [[noreturn]] void fail(SourceLoc loc, const std::string& message) const {
    failPass("PlanMemory", program_, loc, "PYPTO: " + message);
  }

  /// Whether two identities may sit in one root at their current root-relative windows.
  bool mayShare(int a, int b) const {
    switch (live_.relation(a, b)) {
      case Overlap::Disjoint: return true;
      case Overlap::InPlace: return identityWindow(facts_, a) && identityWindow(facts_, a)->begin == identityWindow(facts_, b)->begin &&
                                    identityWindow(facts_, a)->end == identityWindow(facts_, b)->end;
      case Overlap::Conflict: return false;
    }
    return false;
  }

  /// V9 with V5: a merged root is one Buffer handle. When it holds dynamic storage, every member must
  /// be tiles of one physical type covering their whole root, all in straight-line code.
  bool mergeable(const PlacementUnit& u, const SharedRoot& into) const {
    std::vector<const PlacementUnit*> group{&u};
    for (size_t i = 0; i < into.members.size(); ++i)
      if (into.merged[i]) group.push_back(&units_[into.members[i]]);
    if (std::none_of(group.begin(), group.end(), [](const PlacementUnit* g) { return g->dynamicValid; })) return true;
    const Type* model = nullptr;
    for (const PlacementUnit* g : group) {
      if (!g->straightLineOnly) return false;
      for (const Type* t : g->tiles) {
        if (!model) model = t;
        if (!samePhysicalTile(*t, *model) || !t->memref || !(t->memref->offset == Extent::constant(0)) ||
            t->memref->size != g->root.size)
          return false;
      }
    }
    return true;
  }

  Fit fit(const PlacementUnit& u, const SharedRoot& into) const {
    if (into.space != u.root.space || into.size < u.root.size) return Fit::No;
    for (size_t m : into.members)
      for (int a : u.identities)
        for (int b : units_[m].identities)
          if (!mayShare(a, b)) return Fit::No;
    return mergeable(u, into) ? Fit::Merge : Fit::ShareAddress;
  }

  /// First fit, largest first (ties in statement order), per space.
  void reuse() {
    std::vector<size_t> order(units_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return units_[a].root.size > units_[b].root.size; });
    for (size_t i : order) {
      const PlacementUnit& u = units_[i];
      bool placed = false;
      for (SharedRoot& into : shared_) {
        const Fit f = fit(u, into);
        if (f == Fit::No) continue;
        into.members.push_back(i);
        into.merged.push_back(f == Fit::Merge);
        into.alignment = std::max(into.alignment, u.alignment);
        placed = true;
        break;
      }
      if (!placed) shared_.push_back(SharedRoot{u.root.space, {i}, {true}, u.root.size, u.alignment});
    }
    // Addresses go out in the order the surviving roots are written.
    std::sort(shared_.begin(), shared_.end(), [&](const SharedRoot& a, const SharedRoot& b) {
      return firstInStatementOrder(a) < firstInStatementOrder(b);
    });
  }

  static size_t firstInStatementOrder(const SharedRoot& s) { return *std::min_element(s.members.begin(), s.members.end()); }

  std::map<std::string, RootPlacement> assignAddresses() const {
    std::map<std::string, RootPlacement> out;
    std::map<MemSpace, int64_t> cursor;
    for (const SharedRoot& s : shared_) {
      const PlacementUnit& survivor = units_[s.members.front()];
      const int64_t addr = alignUp(cursor[s.space], s.alignment);
      const int64_t usable = target_.space(s.space).usableEnd();
      if (addr + s.size > usable)
        fail(survivor.root.stmt->loc, "[P1] tile.alloc: " + std::string(memSpaceName(s.space)) + " storage needs " +
                                          std::to_string(addr + s.size) + " bytes after reuse, but " +
                                          capacityText(target_, s.space) + "; root '" + survivor.root.name +
                                          "' (" + std::to_string(s.size) + " bytes) does not fit");
      cursor[s.space] = addr + s.size;
      const PlacementUnit* mergedInto = nullptr;
      for (size_t i = 0; i < s.members.size(); ++i) {
        const PlacementUnit& member = units_[s.members[i]];
        if (!s.merged[i]) {
          out[member.root.name] = RootPlacement{member.root.name, addr, member.root.size};
          continue;
        }
        if (!mergedInto) mergedInto = &member;
        out[member.root.name] = RootPlacement{mergedInto->root.name, addr, mergedInto->root.size};
      }
    }
    return out;
  }
};

}  // namespace

bool planPyPto(Function& kernel, const Program& program, const Target& target, FaultSwitch faults) {
  return PyPtoPlanner(kernel, program, target, faults).run();
}

}  // namespace ptodiff::storage
