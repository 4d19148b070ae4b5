#include "compiler/planners/PlanMemory.h"

#include "compiler/passes/VerifyTileStorage.h"
#include "compiler/planners/DsaRpPlanner.h"
#include "compiler/planners/PtoasPlanner.h"
#include "compiler/planners/PypToPlanner.h"

namespace ptodiff {

namespace {

class PlanMemoryPass final : public Pass {
 public:
  std::string_view name() const override { return "PlanMemory"; }
  std::string_view summary() const override {
    return "plans storage with the context's planner: PYPTO (lifetime reuse + addresses), DSA_RP (interval "
           "packing of identities) or PTOAS (identities only)";
  }

  bool run(Program& program, const PassContext& context) override {
    bool changed = false;
    for (Function& f : program.functions) {
      if (f.stage != FunctionStage::Tile || f.type == FunctionType::Orchestration) continue;
      switch (context.planner) {
        case Planner::PYPTO: changed = storage::planPyPto(f, program, *context.target, context.faults) || changed; break;
        case Planner::DSA_RP:
          changed = storage::planDsaRp(f, program, *context.target, context.faults) || changed;
          break;
        case Planner::PTOAS: changed = storage::planPtoas(f, program, *context.target) || changed; break;
      }
    }
    return changed;
  }

  std::vector<Diagnostic> checkPostcondition(const Program& program, const PassContext& context) const override {
    return checkTileStorage(program, context, /*generations=*/false);
  }
};

}  // namespace

std::unique_ptr<Pass> createPlanMemoryPass() { return std::make_unique<PlanMemoryPass>(); }

}  // namespace ptodiff
