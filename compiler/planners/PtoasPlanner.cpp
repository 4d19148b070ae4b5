#include "compiler/planners/PtoasPlanner.h"

#include "compiler/passes/PassManager.h"
#include "compiler/planners/PlannedStorage.h"

namespace ptodiff::storage {

bool planPtoas(Function& kernel, const Program& program, const Target& target) {
  StorageFacts facts(kernel);
  AliasFamilies families(facts, plannedInPlacePolicy(facts));
  std::vector<Root> roots = collectRoots(kernel);
  auto fail = [&](SourceLoc loc, const std::string& m) { failPass("PlanMemory", program, loc, "PTOAS: " + m); };
  placementUnits(facts, families, roots, target, fail);  // checks the roots are unplaced
  std::map<MemSpace, int64_t> used = addresslessFootprint(roots, tilesByRoot(facts), target);
  for (const auto& [space, bytes] : used)
    if (bytes > target.space(space).usableEnd()) {
      SourceLoc at = kernel.loc;
      for (const Root& r : roots)
        if (r.space == space) at = r.stmt->loc;
      fail(at, "[P1] tile.alloc: the " + std::string(memSpaceName(space)) + " roots need " + std::to_string(bytes) +
                   " bytes together (PTOAS gives every identity its own range), but " + capacityText(target, space));
    }
  return false;
}

}  // namespace ptodiff::storage
