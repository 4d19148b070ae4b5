// The reference lowering pipeline (spec/lowering.md), as one straight list:
//
//   InitMemRef -> SelectBufferIRFunctions -> [MaterializeSemanticAliases: not yet written] ->
//   PlanMemory (PYPTO | DSA_RP | PTOAS) -> VerifyTileStorage -> LowerTileToBuffer
//
// MaterializeSemanticAliases belongs between selection and planning (S2, A2). Until it exists,
// SelectBufferIRFunctions keeps on Tile every kernel whose Buffer lowering would need it, so the
// pipeline stays correct without it (docs/lowering.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/passes/PassManager.h"

namespace ptodiff {

/// The passes in pipeline order. A pass whose factory is still a placeholder (throws) is replaced
/// by one that reports itself unavailable when it runs, so earlier passes stay usable.
std::vector<std::unique_ptr<Pass>> buildLoweringPipeline();

/// The names of the pipeline's passes, in order.
std::vector<std::string> loweringPassNames();

/// A PassManager holding the whole pipeline.
PassManager makeLoweringPassManager(PassManagerOptions options);

}  // namespace ptodiff
