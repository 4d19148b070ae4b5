// The campaign driver (spec/fuzz.md "Campaign"): determinism for any --jobs, dedup by signature,
// reproducers, the crash verdict, shrinking. Checkpoints, shards, merge and reports are in
// CampaignOutputTest.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "compiler/verify/Verifier.h"
#include "fuzz/campaign/Report.h"
#include "fuzz/campaign/Reproducer.h"
#include "tests/unit/fuzz/CampaignTestSupport.h"

namespace ptodiff::fuzz {
namespace {

using campaigntest::fakeRunner;
using campaigntest::run;
using campaigntest::ScratchDir;
using campaigntest::smallConfig;
using ::testing::HasSubstr;

TEST(Campaign, SameSeedGivesSameCasesVerdictsAndDigestForAnyJobs) {
  const CampaignResult one = run(smallConfig(48, 1));
  const CampaignResult two = run(smallConfig(48, 2));
  ASSERT_EQ(one.records.size(), 48u);
  ASSERT_EQ(two.records.size(), 48u);
  for (size_t i = 0; i < one.records.size(); ++i) {
    EXPECT_EQ(one.records[i].index, i);
    EXPECT_EQ(one.records[i].index, two.records[i].index);
    EXPECT_EQ(one.records[i].programHash, two.records[i].programHash) << "case " << i;
    EXPECT_EQ(one.records[i].verdict, two.records[i].verdict) << "case " << i;
  }
  EXPECT_EQ(one.state.verdictDigest, two.state.verdictDigest);
  EXPECT_EQ(one.state.failingCases, two.state.failingCases);
  EXPECT_EQ(one.state.featureCases, two.state.featureCases);
  ASSERT_EQ(one.state.signatures.size(), two.state.signatures.size());
  for (const auto& [sig, r] : one.state.signatures) {
    ASSERT_TRUE(two.state.signatures.count(sig)) << sig;
    EXPECT_EQ(r.firstCase, two.state.signatures.at(sig).firstCase) << sig;
    EXPECT_EQ(r.count, two.state.signatures.at(sig).count) << sig;
  }
  // The fake fails on some cases and passes others, so the comparison above is not vacuous.
  EXPECT_GT(one.state.failingCases, 0u);
  EXPECT_LT(one.state.failingCases, 48u);
}

TEST(Campaign, DigestChangesWithTheSeedAndWithAVerdict) {
  const CampaignResult base = run(smallConfig(16));
  CampaignConfig other = smallConfig(16);
  other.seed = 8;
  EXPECT_NE(run(other).state.verdictDigest, base.state.verdictDigest);
  // Same cases, one verdict flipped: the digest covers verdicts, not only programs.
  int calls = 0;
  const CampaignResult flipped = run(smallConfig(16), [&calls](const Program& p, const std::vector<CaseSpec>& s) {
    CaseOutcome o = fakeRunner(p, s);
    if (calls++ == 3) o.failures.push_back({"sentinel", "", "buffer", "", "PTOAS", "flipped", 0});
    return o;
  });
  EXPECT_NE(flipped.state.verdictDigest, base.state.verdictDigest);
}

TEST(Campaign, FailuresAreDeduplicatedBySignatureWithTheirFirstCase) {
  const CampaignResult r = run(smallConfig(60, 2));
  std::map<std::string, uint64_t> first, count;
  uint64_t failing = 0;
  for (const CaseRecord& c : r.records) {
    if (c.verdict == "pass") continue;
    ++failing;
    std::stringstream parts(c.verdict);
    for (std::string sig; std::getline(parts, sig, ';');) {
      first.try_emplace(sig, c.index);
      ++count[sig];
    }
  }
  EXPECT_EQ(r.state.failingCases, failing);
  ASSERT_EQ(r.state.signatures.size(), first.size());
  EXPECT_GE(first.size(), 2u);
  for (const auto& [sig, rec] : r.state.signatures) {
    EXPECT_EQ(rec.firstCase, first.at(sig)) << sig;
    EXPECT_EQ(rec.count, count.at(sig)) << sig;
    EXPECT_EQ(rec.signature, signatureOf(rec.first));
    EXPECT_EQ(rec.firstCaseSeed, caseSeed(7, rec.firstCase));
  }
  EXPECT_TRUE(r.state.signatures.count("mismatch/-/buffer/tile.add/PYPTO"));
  EXPECT_TRUE(r.state.signatures.count("hazard/overlap/planned/-/DSA_RP"));
}

TEST(Campaign, SignatureFormatUsesDashForEmptyFields) {
  EXPECT_EQ(signatureOf({"hazard", "live-clobber", "planned", "tile.add", "PYPTO", "x", 0}),
            "hazard/live-clobber/planned/tile.add/PYPTO");
  EXPECT_EQ(signatureOf({"timeout", "", "tile", "", "", "x", 0}), "timeout/-/tile/-/-");
}

TEST(Campaign, ARunnerThatThrowsIsACrashVerdictNotAnAbort) {
  const CampaignResult r = run(smallConfig(8, 2), [](const Program&, const std::vector<CaseSpec>&) -> CaseOutcome {
    throw std::runtime_error("boom");
  });
  EXPECT_EQ(r.state.cases, 8u);
  EXPECT_EQ(r.state.failingCases, 8u);
  ASSERT_EQ(r.state.signatures.size(), 1u);
  const SignatureRecord& rec = r.state.signatures.begin()->second;
  EXPECT_EQ(rec.signature, "crash/-/runner/-/-");
  EXPECT_EQ(rec.first.detail, "boom");
  EXPECT_EQ(rec.count, 8u);
}

TEST(Campaign, FeatureCoverageCountsTheSwarmSubsets) {
  const CampaignResult r = run(smallConfig(40));
  uint64_t total = 0;
  for (uint64_t n : r.state.featureCases) {
    EXPECT_LE(n, 40u);
    total += n;
  }
  EXPECT_GT(total, 0u);
  CampaignConfig fixed = smallConfig(10);
  fixed.gen.features = FeatureSet::of({Feature::ElementwiseFP32});
  const CampaignResult f = run(fixed);
  EXPECT_EQ(f.state.featureCases[static_cast<size_t>(Feature::ElementwiseFP32)], 10u);
  EXPECT_EQ(f.state.featureCases[static_cast<size_t>(Feature::Cube)], 0u);
}

TEST(Campaign, EveryNewSignatureGetsACompleteReproducer) {
  ScratchDir dir;
  CampaignConfig c = smallConfig(40, 2);
  c.outDir = (dir / "out").string();
  const CampaignResult r = run(c);
  ASSERT_FALSE(r.state.signatures.empty());
  for (const auto& [sig, rec] : r.state.signatures) {
    const std::filesystem::path folder = dir / "out" / rec.reproducer;
    EXPECT_EQ(rec.reproducer, "repro/" + reproducerName(sig));
    for (const char* file : {"program.py", "case.json", "reproducer.json", "README.md"})
      EXPECT_TRUE(std::filesystem::exists(folder / file)) << folder << " " << file;
    EXPECT_EQ(rec.replayCommand, "ptodiff replay " + folder.string());
    EXPECT_THAT(campaigntest::readFile(folder / "README.md"), HasSubstr(rec.replayCommand));
    LoadedReproducer loaded = loadReproducer(folder);
    EXPECT_EQ(loaded.signature, sig);
    EXPECT_TRUE(verifyProgram(loaded.program).empty()) << sig;
    // The saved case still shows the signature under the same runner (inputs come from .npy).
    std::vector<std::string> seen;
    for (const Verdict& v : fakeRunner(loaded.program, {loaded.spec}).failures) seen.push_back(signatureOf(v));
    EXPECT_THAT(seen, ::testing::Contains(sig));
    EXPECT_EQ(loaded.spec.planners, c.planners);
  }
  EXPECT_TRUE(campaigntest::temporariesUnder(dir.path()).empty());
}

TEST(Campaign, ShrinkingKeepsTheSignatureAndNeverGrowsTheKernel) {
  // Fails on every kernel with at least 6 statements: shrinking must find a smaller one that
  // still has 6 or more.
  const CaseRunner atLeastSix = [](const Program& p, const std::vector<CaseSpec>&) {
    CaseOutcome o;
    if (countStatements(p) >= 6) o.failures.push_back({"mismatch", "", "buffer", "", "PYPTO", "long", 0});
    return o;
  };
  CampaignConfig c = smallConfig(1);
  c.gen.maxStatements = 40;
  uint64_t seed = 0;
  int64_t before = 0;
  for (uint64_t s = 1; s < 50 && before < 20; ++s) {  // a case well above the threshold
    seed = s;
    before = countStatements(generateCase(seed, 100, c.gen).program);
  }
  ASSERT_GE(before, 20);
  const GeneratedCase shrunk = shrinkCase(seed, 100, c, atLeastSix, "mismatch/-/buffer/-/PYPTO", 20.0);
  const int64_t after = countStatements(shrunk.program);
  EXPECT_GE(after, 6);
  EXPECT_LT(after, before);
}

TEST(Campaign, ReproducersAreReducedStructurallyAfterShrinking) {
  // Fails on every kernel computing tile.exp. RapidCheck's shrinking keeps the generator's frame
  // (parameters, the final stores); the structural reducer (fuzz/reduce) then edits the program
  // itself, down to a tile, its exp and the return.
  const CaseRunner usesExp = [](const Program& p, const std::vector<CaseSpec>&) {
    CaseOutcome o;
    if (printProgram(p).find("pl.tile.exp(") != std::string::npos)
      o.failures.push_back({"mismatch", "", "buffer", "tile.exp", "PYPTO", "uses exp", 0});
    return o;
  };
  ScratchDir dir;
  CampaignConfig c = smallConfig(40);
  c.outDir = (dir / "out").string();
  c.shrinkSeconds = 20.0;
  const CampaignResult r = run(c, usesExp);
  ASSERT_EQ(r.state.signatures.size(), 1u);
  const SignatureRecord& rec = r.state.signatures.begin()->second;
  EXPECT_LE(rec.statementsAfter, 4) << "before: " << rec.statementsBefore;
  LoadedReproducer loaded = loadReproducer(dir / "out" / rec.reproducer);
  EXPECT_TRUE(verifyProgram(loaded.program).empty());
  EXPECT_EQ(countStatements(loaded.program), rec.statementsAfter);
  EXPECT_FALSE(usesExp(loaded.program.clone(), {loaded.spec}).failures.empty());
}

TEST(Campaign, BadShardIsRejected) {
  CampaignConfig c = smallConfig(1);
  c.shardIndex = 2;
  c.shardCount = 2;
  EXPECT_THROW(run(c), std::invalid_argument);
}

// --stop-on-failure (spec/fuzz.md "Qualification"): the campaign ends at the first failing case in
// case order, which is the same case a full campaign first fails on, for any --jobs or batch size.
TEST(Campaign, StopOnFailureEndsAtTheFirstFailingCaseForAnyJobs) {
  // The fake fails by program hash: the first seed from 7 whose first case passes makes the early
  // stop observable, whatever programs the generator makes.
  uint64_t seed = 7;
  CampaignResult full;
  uint64_t firstFailing = 0;
  for (;; ++seed) {
    CampaignConfig c = smallConfig(60, 1);
    c.seed = seed;
    full = run(c);
    firstFailing = 0;
    while (firstFailing < full.records.size() && full.records[firstFailing].verdict == "pass") ++firstFailing;
    if (firstFailing > 0 || seed == 40) break;
  }
  ASSERT_GT(firstFailing, 0u) << "the fake must pass some cases first, or stopping early is not observable";
  ASSERT_LT(firstFailing + 1, 60u);
  ASSERT_EQ(full.state.firstFailingCase, firstFailing);  // recorded without the flag too
  EXPECT_FALSE(full.stoppedOnFailure);

  std::optional<uint64_t> digest;
  for (int jobs : {1, 2, 3}) {
    for (int batchPerJob : {1, 4, 16}) {
      CampaignConfig c = smallConfig(60, jobs);
      c.seed = seed;
      c.batchPerJob = batchPerJob;
      c.stopOnFailure = true;
      const CampaignResult r = run(c);
      SCOPED_TRACE("jobs " + std::to_string(jobs) + ", batch " + std::to_string(batchPerJob));
      EXPECT_TRUE(r.stoppedOnFailure);
      EXPECT_FALSE(r.interrupted);
      ASSERT_EQ(r.state.firstFailingCase, firstFailing);
      EXPECT_EQ(r.state.cases, firstFailing + 1);
      EXPECT_EQ(r.state.nextLocal, firstFailing + 1);
      EXPECT_EQ(r.state.failingCases, 1u);
      ASSERT_EQ(r.records.size(), firstFailing + 1);
      for (uint64_t i = 0; i < firstFailing; ++i) EXPECT_EQ(r.records[i].verdict, "pass") << i;
      EXPECT_EQ(r.records.back().verdict, full.records[firstFailing].verdict);
      for (const auto& [sig, rec] : r.state.signatures) {
        EXPECT_EQ(rec.firstCase, firstFailing) << sig;
        EXPECT_EQ(rec.count, 1u) << sig;
      }
      ASSERT_TRUE(r.state.firstFailureSeconds.has_value());
      EXPECT_GE(*r.state.firstFailureSeconds, 0.0);
      EXPECT_LE(*r.state.firstFailureSeconds, r.state.elapsedSeconds);
      if (digest) {
        EXPECT_EQ(r.state.verdictDigest, *digest);  // the same cases consumed, whatever the batching
      }
      digest = r.state.verdictDigest;
    }
  }
}

TEST(Campaign, StopOnFailureRunsEveryCaseWhenNoneFails) {
  CampaignConfig c = smallConfig(20, 2);
  c.stopOnFailure = true;
  const CampaignResult r = run(c, [](const Program&, const std::vector<CaseSpec>&) { return CaseOutcome{}; });
  EXPECT_FALSE(r.stoppedOnFailure);
  EXPECT_EQ(r.state.cases, 20u);
  EXPECT_FALSE(r.state.firstFailingCase.has_value());
  EXPECT_FALSE(r.state.firstFailureSeconds.has_value());
  const nlohmann::ordered_json report = reportJson(c, r.state);
  EXPECT_TRUE(report["first_failing_case"].is_null());
  EXPECT_TRUE(report["first_failure_seconds"].is_null());
  EXPECT_EQ(report["config"]["stop_on_failure"], true);
}

TEST(Campaign, StopOnFailureReportsAndReducesTheFirstSignatureAndResumesNoFurther) {
  ScratchDir dir;
  CampaignConfig c = smallConfig(60, 2);
  c.outDir = (dir / "out").string();
  c.stopOnFailure = true;
  c.shrinkSeconds = 5.0;
  const CampaignResult r = run(c);
  ASSERT_TRUE(r.stoppedOnFailure);
  ASSERT_TRUE(r.state.firstFailingCase.has_value());
  writeReports(c, r.state);
  const nlohmann::json report = nlohmann::json::parse(campaigntest::readFile(dir / "out" / "report.json"));
  EXPECT_EQ(report["first_failing_case"], *r.state.firstFailingCase);
  EXPECT_EQ(report["cases"], *r.state.firstFailingCase + 1);
  EXPECT_DOUBLE_EQ(report["first_failure_seconds"].get<double>(), *r.state.firstFailureSeconds);
  ASSERT_FALSE(report["signatures"].empty());
  for (const auto& s : report["signatures"]) {
    EXPECT_EQ(s["first_case"], *r.state.firstFailingCase);
    EXPECT_FALSE(s["reproducer"].get<std::string>().empty());
    EXPECT_TRUE(std::filesystem::exists(dir / "out" / s["reproducer"].get<std::string>() / "program.py"));
    EXPECT_LE(s["statements_after"].get<int64_t>(), s["statements_before"].get<int64_t>());
    EXPECT_GE(s["statements_after"].get<int64_t>(), 1);
  }
  // The checkpoint keeps the first failure; resuming a stopped campaign runs nothing more.
  const CampaignState roundTrip =
      stateFromJson(nlohmann::ordered_json::parse(campaigntest::readFile(dir / "out" / "report.json")), "report.json");
  EXPECT_EQ(roundTrip.firstFailingCase, r.state.firstFailingCase);
  EXPECT_EQ(roundTrip.firstFailureSeconds, r.state.firstFailureSeconds);
  c.resume = true;
  const CampaignResult resumed = run(c);
  EXPECT_EQ(resumed.state.cases, r.state.cases);
  EXPECT_EQ(resumed.state.firstFailingCase, r.state.firstFailingCase);
  EXPECT_TRUE(resumed.stoppedOnFailure);
}

}  // namespace
}  // namespace ptodiff::fuzz
