// Issue 11's symbolic equivalence as a law over generated kernels: the reference lowering computes
// every output element with the Tile program's formula, on every runtime path and under every
// planner (the campaign's runner with every case sampled); and the campaign's sampling is a pure
// function of the case, written into its case files.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/campaign/Campaign.h"
#include "fuzz/campaign/CaseRunner.h"
#include "fuzz/gen/ProgramGen.h"

namespace ptodiff::fuzz {
namespace {

// One planner and one runtime path per case, drawn: a whole campaign case runs three planners on up to
// three scalar sets, which under the sanitizers costs about a second; the law is the same for each.
RC_GTEST_PROP(SymbolicEquivalence, GeneratedKernelsLowerFormulaForFormulaUnderEveryPlanner, ()) {
  const GeneratedCase c = *genCase();
  CampaignConfig config;
  config.symbolicEvery = 1;  // every case
  config.planners = {*rc::gen::element<std::string>("PYPTO", "DSA_RP", "PTOAS")};
  const std::vector<CaseSpec> all = caseSpecsFor(c, config);
  RC_ASSERT(!all.empty());
  const CaseSpec spec = all[*rc::gen::inRange<size_t>(0, all.size())];
  RC_ASSERT(spec.symbolic);
  RC_TAG(config.planners.front());
  const CaseOutcome outcome = runDifferentialCase(c.program.clone(), {spec}, config.stepBudget);
  for (const Verdict& v : outcome.failures) RC_LOG() << signatureOf(v) << ": " << v.detail << "\n";
  RC_ASSERT(outcome.failures.empty());
}

TEST(SymbolicSampling, OneCaseInNChosenByItsInputSeedAndRecordedInItsCaseFiles) {
  EXPECT_FALSE(symbolicSampled(12345, 0));
  EXPECT_TRUE(symbolicSampled(12345, 1));
  int sampled = 0;
  for (uint64_t seed = 0; seed < 4000; ++seed) sampled += symbolicSampled(seed, 4) ? 1 : 0;
  EXPECT_NEAR(sampled, 1000, 100);  // a hash, so consecutive seeds spread evenly
  CampaignConfig config;
  config.symbolicEvery = 4;
  for (uint64_t i = 0; i < 20; ++i) {
    const GeneratedCase c = generateCase(i * 7919 + 3, 20, config.gen);
    for (const CaseSpec& spec : caseSpecsFor(c, config)) EXPECT_EQ(spec.symbolic, symbolicSampled(c.inputSeed, 4));
  }
}

}  // namespace
}  // namespace ptodiff::fuzz
