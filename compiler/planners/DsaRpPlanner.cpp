#include "compiler/planners/DsaRpPlanner.h"

#include <algorithm>

#include "compiler/passes/PassManager.h"
#include "compiler/planners/Liveness.h"
#include "compiler/planners/PlannedStorage.h"

namespace ptodiff::storage {

namespace {

class DsaRpPlanner {
 public:
  DsaRpPlanner(Function& kernel, const Program& program, const Target& target, FaultSwitch faults)
      : kernel_(kernel), program_(program), target_(target), faults_(faults), facts_(kernel),
        families_(facts_, plannedInPlacePolicy(facts_)), live_(facts_, families_, faults) {}

  bool run() {
    std::vector<Root> roots = collectRoots(kernel_);
    if (roots.empty()) return false;
    units_ = placementUnits(facts_, families_, roots, target_,
                            [&](SourceLoc loc, const std::string& m) { fail(loc, m); });
    std::map<std::string, RootPlacement> placement;
    for (size_t i : placementOrder()) {
      addr_[i] = lowestFreeAddress(i);
      placement[units_[i].root.name] = RootPlacement{units_[i].root.name, addr_[i], units_[i].root.size};
    }
    applyPlacement(kernel_, placement);
    return true;
  }

 private:
  Function& kernel_;
  const Program& program_;
  const Target& target_;
  FaultSwitch faults_;
  StorageFacts facts_;
  AliasFamilies families_;
  Liveness live_;
  std::vector<PlacementUnit> units_;
  std::map<size_t, int64_t> addr_;  // placed units

  [[noreturn]] void fail(SourceLoc loc, const std::string& message) const {
    failPass("PlanMemory", program_, loc, "DSA_RP: " + message);
  }

  int firstPoint(const PlacementUnit& u) const {
    int first = facts_.numPoints();
    for (int id : u.identities) first = std::min(first, live_.range(id).start);
    return first;
  }

  /// Largest first; ties by first live point, then statement order.
  std::vector<size_t> placementOrder() const {
    std::vector<size_t> order(units_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (units_[a].root.size != units_[b].root.size) return units_[a].root.size > units_[b].root.size;
      return firstPoint(units_[a]) < firstPoint(units_[b]);
    });
    return order;
  }

  /// Live together at some point (the in-place exception is not taken: outputs never sit on inputs).
  bool liveTogether(const PlacementUnit& a, const PlacementUnit& b) const {
    for (int x : a.identities)
      for (int y : b.identities) {
        if (faults_.on(Fault::DsaRpPackingIgnoresLifetimes)) {
          // The fault: each lifetime ends one point early, so a last read and a definition at the
          // same point look disjoint.
          const LiveRange rx = live_.range(x), ry = live_.range(y);
          if (rx.start <= ry.end - 1 && ry.start <= rx.end - 1) return true;
          continue;
        }
        if (live_.relation(x, y) != Overlap::Disjoint) return true;
      }
    return false;
  }

  int64_t lowestFreeAddress(size_t i) const {
    const PlacementUnit& u = units_[i];
    const SpaceDesc& space = target_.space(u.root.space);
    std::vector<ByteRange> taken;
    if (space.reserved) taken.push_back(*space.reserved);
    for (const auto& [j, addr] : addr_)
      if (units_[j].root.space == u.root.space && liveTogether(u, units_[j]))
        taken.push_back(ByteRange{addr, addr + units_[j].root.size});
    std::vector<int64_t> candidates = {0};
    for (const ByteRange& t : taken) candidates.push_back(alignUp(t.end, u.alignment));
    std::sort(candidates.begin(), candidates.end());
    for (int64_t a : candidates) {
      ByteRange want{a, a + u.root.size};
      if (want.end > space.capacity) break;
      if (std::none_of(taken.begin(), taken.end(), [&](const ByteRange& t) { return t.overlaps(want); })) return a;
    }
    int64_t together = u.root.size;
    for (const auto& [j, addr] : addr_)
      if (units_[j].root.space == u.root.space && liveTogether(u, units_[j])) together += units_[j].root.size;
    fail(u.root.stmt->loc, "[P1] tile.alloc: root '" + u.root.name + "' (" + std::to_string(u.root.size) +
                               " bytes of " + std::string(memSpaceName(u.root.space)) +
                               ") finds no free range: it is live together with " +
                               std::to_string(together) + " bytes in all, but " + capacityText(target_, u.root.space));
  }
};

}  // namespace

bool planDsaRp(Function& kernel, const Program& program, const Target& target, FaultSwitch faults) {
  return DsaRpPlanner(kernel, program, target, faults).run();
}

}  // namespace ptodiff::storage
