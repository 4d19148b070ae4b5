#include "compiler/passes/Pipeline.h"

#include <stdexcept>

#include "compiler/passes/InitMemRef.h"
#include "compiler/passes/LowerTileToBuffer.h"
#include "compiler/passes/MaterializeSemanticAliases.h"
#include "compiler/passes/SelectBufferIRFunctions.h"
#include "compiler/passes/VerifyTileStorage.h"
#include "compiler/planners/PlanMemory.h"

namespace ptodiff {

namespace {

/// The pass a factory makes, or an unavailable stand-in named `name` when the factory throws.
template <class Factory>
std::unique_ptr<Pass> createOrStandIn(std::string name, Factory factory) {
  try {
    return factory();
  } catch (const std::exception& e) {
    return makeUnavailablePass(std::move(name), e.what());
  }
}

}  // namespace

std::vector<std::unique_ptr<Pass>> buildLoweringPipeline() {
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(createInitMemRefPass());
  passes.push_back(createSelectBufferIRFunctionsPass());
  passes.push_back(createMaterializeSemanticAliasesPass());  // always runs (A2)
  passes.push_back(createPlanMemoryPass());
  passes.push_back(createVerifyTileStoragePass());
  passes.push_back(createOrStandIn("LowerTileToBuffer", createLowerTileToBufferPass));
  return passes;
}

std::vector<std::string> loweringPassNames() {
  std::vector<std::string> names;
  for (const auto& p : buildLoweringPipeline()) names.emplace_back(p->name());
  return names;
}

PassManager makeLoweringPassManager(PassManagerOptions options) {
  PassManager pm(std::move(options));
  for (auto& p : buildLoweringPipeline()) pm.add(std::move(p));
  return pm;
}

}  // namespace ptodiff
