// The pipeline's head (its first kPlannerIndependentPasses passes) gives the same program under
// every planner, so the oracle's LoweringCache runs it once per case and starts each planner from
// its result. If a head pass starts reading PassContext::planner, these tests fail and the constant
// must shrink.
#include <gtest/gtest.h>

#include "compiler/passes/Pipeline.h"
#include "compiler/text/Printer.h"
#include "tests/unit/compiler/PassTestSupport.h"

namespace ptodiff {
namespace {

using namespace testsupport;

TEST(PipelineHead, EndsRightBeforeTheFirstPassThatReadsThePlanner) {
  const std::vector<std::string> names = loweringPassNames();
  ASSERT_GT(names.size(), kPlannerIndependentPasses);
  EXPECT_EQ(names[kPlannerIndependentPasses], "PlanMemory");
}

/// The printed head result under `planner`, or the error it stopped with.
std::string headUnder(const Program& p, Planner planner, const Target& target) {
  const std::string lastHeadPass = loweringPassNames()[kPlannerIndependentPasses - 1];
  try {
    return printProgram(lowerUpTo(p, contextFor(planner, target), lastHeadPass));
  } catch (const DiagnosticError& e) {
    return "error: " + e.diagnostic().message;
  }
}

TEST(PipelineHead, IsTheSameUnderEveryPlannerForEverySuiteProgramAndGoldenInput) {
  std::vector<std::filesystem::path> files = suitePrograms();
  for (const std::filesystem::path& g : lowerGoldens()) files.push_back(g);
  ASSERT_GT(files.size(), 20u);
  for (const std::filesystem::path& f : files) {
    const Program p = parseVerified(goldenInput(readText(f)), f.filename().string());
    for (const Target* t : {&targetA2A3(), &targetA5()}) {
      const std::string pypto = headUnder(p, Planner::PYPTO, *t);
      EXPECT_EQ(headUnder(p, Planner::DSA_RP, *t), pypto) << f << " on " << t->name;
      EXPECT_EQ(headUnder(p, Planner::PTOAS, *t), pypto) << f << " on " << t->name;
    }
  }
}

}  // namespace
}  // namespace ptodiff
