// The reference lowering pipeline (spec/lowering.md), as one straight list:
//
//   InitMemRef -> SelectBufferIRFunctions -> MaterializeSemanticAliases ->
//   PlanMemory (PYPTO | DSA_RP | PTOAS) -> VerifyTileStorage -> LowerTileToBuffer
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "compiler/passes/PassManager.h"

namespace ptodiff {

/// The passes in pipeline order. A pass whose factory is still a placeholder (throws) is replaced
/// by one that reports itself unavailable when it runs, so earlier passes stay usable.
std::vector<std::unique_ptr<Pass>> buildLoweringPipeline();

/// The pipeline's first passes never read PassContext::planner (PlanMemory is the first that
/// does), so their result is the same under every planner: a caller lowering one program under
/// several planners runs them once (the oracle's LoweringCache). A test holds this to the passes.
inline constexpr size_t kPlannerIndependentPasses = 3;

/// The names of the pipeline's passes, in order.
std::vector<std::string> loweringPassNames();

/// A PassManager holding the whole pipeline.
PassManager makeLoweringPassManager(PassManagerOptions options);

}  // namespace ptodiff
