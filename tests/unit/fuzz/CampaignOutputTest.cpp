// Campaign outputs: atomic writing, checkpoints and --resume after a kill, --shard slices, merge,
// and the report schema (spec/fuzz.md "Campaign", DESIGN.md "Scale beyond one machine").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "fuzz/campaign/AtomicFiles.h"
#include "fuzz/campaign/CaseRunner.h"
#include "fuzz/campaign/Report.h"
#include "fuzz/campaign/Reproducer.h"
#include "tests/unit/fuzz/CampaignTestSupport.h"

namespace ptodiff::fuzz {
namespace {

namespace fs = std::filesystem;
using campaigntest::readFile;
using campaigntest::run;
using campaigntest::ScratchDir;
using campaigntest::smallConfig;
using campaigntest::temporariesUnder;
using ::testing::HasSubstr;

TEST(AtomicFiles, AFolderWhoseWritingFailsLeavesNothing) {
  ScratchDir dir;
  EXPECT_THROW(writeFolderAtomically(dir / "repro", [](const fs::path& tmp) {
                 std::ofstream(tmp / "program.py") << "half";
                 throw std::runtime_error("killed while writing");
               }),
               std::runtime_error);
  EXPECT_FALSE(fs::exists(dir / "repro"));
  EXPECT_TRUE(temporariesUnder(dir.path()).empty());
}

TEST(AtomicFiles, AFolderIsReplacedWhole) {
  ScratchDir dir;
  writeFolderAtomically(dir / "r", [](const fs::path& tmp) {
    std::ofstream(tmp / "a") << "1";
    std::ofstream(tmp / "old-only") << "x";
  });
  writeFolderAtomically(dir / "r", [](const fs::path& tmp) { std::ofstream(tmp / "a") << "2"; });
  EXPECT_EQ(readFile(dir / "r" / "a"), "2");
  EXPECT_FALSE(fs::exists(dir / "r" / "old-only"));
  EXPECT_TRUE(temporariesUnder(dir.path()).empty());
}

TEST(AtomicFiles, FilesAreReplacedAndStaleTemporariesRemoved) {
  ScratchDir dir;
  writeFileAtomically(dir / "f.json", "one");
  writeFileAtomically(dir / "f.json", "two");
  EXPECT_EQ(readFile(dir / "f.json"), "two");
  fs::create_directories(dir / ".tmp-sig-0123-99-0");
  std::ofstream(dir / ".tmp-sig-0123-99-0" / "program.py") << "half";
  std::ofstream(dir / ".tmp-checkpoint.json-99-1") << "{";
  std::ofstream(dir / "keep.txt") << "k";
  removeStaleTemporaries(dir.path());
  EXPECT_TRUE(temporariesUnder(dir.path()).empty());
  EXPECT_TRUE(fs::exists(dir / "keep.txt"));
  EXPECT_TRUE(fs::exists(dir / "f.json"));
}

TEST(CampaignResume, AKilledCampaignContinuesWithTheSameCountsAndDigest) {
  ScratchDir dir;
  CampaignConfig whole = smallConfig(40, 2);
  whole.outDir = (dir / "whole").string();
  const CampaignResult reference = run(whole);

  // The "killed" run: stopped after its second batch, with a half-written reproducer left behind
  // as SIGKILL would leave it (a temporary folder; the checkpoint is always whole).
  CampaignConfig part = smallConfig(40, 2);
  part.outDir = (dir / "part").string();
  std::atomic<bool> stop{false};
  int batches = 0;
  CampaignHooks hooks;
  hooks.runner = campaigntest::fakeRunner;
  hooks.stop = &stop;
  hooks.progress = [&](const CampaignState&) {
    if (++batches == 2) stop = true;
  };
  const CampaignResult killed = runCampaign(part, hooks);
  ASSERT_TRUE(killed.interrupted);
  ASSERT_EQ(killed.state.cases, 16u);  // two batches of 2 jobs x 4 cases
  fs::create_directories(dir / "part" / "repro" / ".tmp-sig-deadbeef-1-0");
  std::ofstream(dir / "part" / "repro" / ".tmp-sig-deadbeef-1-0" / "program.py") << "import pypto";

  part.resume = true;
  const CampaignResult resumed = run(part);
  EXPECT_FALSE(resumed.interrupted);
  ASSERT_EQ(resumed.records.size(), 24u);  // only the cases the first run did not consume
  EXPECT_EQ(resumed.records.front().index, 16u);
  EXPECT_EQ(resumed.state.cases, 40u);
  EXPECT_EQ(resumed.state.runs, 2u);
  EXPECT_EQ(resumed.state.verdictDigest, reference.state.verdictDigest);
  EXPECT_EQ(resumed.state.failingCases, reference.state.failingCases);
  EXPECT_EQ(resumed.state.featureCases, reference.state.featureCases);
  ASSERT_EQ(resumed.state.signatures.size(), reference.state.signatures.size());
  for (const auto& [sig, r] : reference.state.signatures) {
    EXPECT_EQ(resumed.state.signatures.at(sig).firstCase, r.firstCase);
    EXPECT_EQ(resumed.state.signatures.at(sig).count, r.count);
    EXPECT_TRUE(fs::exists(dir / "part" / r.reproducer / "program.py")) << sig;
  }
  EXPECT_TRUE(temporariesUnder(dir / "part").empty());
}

// A stop request (SIGINT, SIGTERM) ends a batch at the cases in flight, not at the batch's end:
// batches are long, and nothing after the request starts. The finished cases count, and a resume
// runs the rest to the same digest.
TEST(CampaignResume, AStopRequestEndsTheBatchAtTheCaseInFlight) {
  ScratchDir dir;
  CampaignConfig whole = smallConfig(40, 1);
  whole.batchPerJob = 64;
  whole.outDir = (dir / "whole").string();
  const CampaignResult reference = run(whole);

  CampaignConfig part = whole;
  part.outDir = (dir / "part").string();
  std::atomic<bool> stop{false};
  int ran = 0;
  CampaignHooks hooks;
  hooks.runner = [&](const Program& p, const std::vector<CaseSpec>& sets) {
    if (++ran == 5) stop = true;  // the request arrives while the fifth case runs
    return campaigntest::fakeRunner(p, sets);
  };
  hooks.stop = &stop;
  const CampaignResult stopped = runCampaign(part, hooks);
  ASSERT_TRUE(stopped.interrupted);
  EXPECT_EQ(ran, 5);
  EXPECT_EQ(stopped.state.cases, 5u);  // of a batch of 40

  part.resume = true;
  const CampaignResult resumed = run(part);
  EXPECT_EQ(resumed.records.front().index, 5u);
  EXPECT_EQ(resumed.state.cases, 40u);
  EXPECT_EQ(resumed.state.verdictDigest, reference.state.verdictDigest);
}

TEST(CampaignResume, ACheckpointOfAnotherConfigurationIsRefused) {
  ScratchDir dir;
  CampaignConfig c = smallConfig(4);
  c.outDir = (dir / "out").string();
  run(c);
  c.resume = true;
  c.seed = 99;
  try {
    run(c);
    FAIL() << "resumed another configuration";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("checkpoint.json' was written by another configuration"));
  }
  c.seed = 7;
  c.shardCount = 2;
  try {
    run(c);
    FAIL() << "resumed another shard";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("checkpoint.json' belongs to shard 0/1"));
  }
  c.shardCount = 1;
  c.outDir = (dir / "none").string();
  try {
    run(c);
    FAIL() << "resumed without a checkpoint";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("--resume: no checkpoint at"));
  }
}

TEST(CampaignShards, ShardsAreDisjointAndTogetherRunTheUnshardedCases) {
  const CampaignResult whole = run(smallConfig(30, 2));
  std::map<uint64_t, uint64_t> hashes;
  for (const CaseRecord& r : whole.records) hashes[r.index] = r.programHash;
  std::set<uint64_t> covered;
  for (uint64_t k = 0; k < 3; ++k) {
    CampaignConfig c = smallConfig(10, 2);
    c.shardIndex = k;
    c.shardCount = 3;
    for (const CaseRecord& r : run(c).records) {
      EXPECT_EQ(r.index % 3, k);
      EXPECT_TRUE(covered.insert(r.index).second) << "case " << r.index << " ran in two shards";
      EXPECT_EQ(r.programHash, hashes.at(r.index)) << "case " << r.index;
    }
  }
  EXPECT_EQ(covered.size(), 30u);
  EXPECT_EQ(*covered.rbegin(), 29u);
}

TEST(CampaignShards, MergeSumsCountsKeepsEarliestSignaturesAndCopiesReproducers) {
  ScratchDir dir;
  std::vector<fs::path> dirs;
  std::vector<CampaignState> states;
  for (uint64_t k = 0; k < 2; ++k) {
    CampaignConfig c = smallConfig(20, 1);
    c.shardIndex = k;
    c.shardCount = 2;
    c.outDir = (dir / ("shard" + std::to_string(k))).string();
    states.push_back(run(c).state);
    writeReports(c, states.back());
    dirs.push_back(c.outDir);
  }
  const CampaignState merged = mergeShards(dirs, dir / "merged");
  EXPECT_EQ(merged.cases, 40u);
  EXPECT_EQ(merged.failingCases, states[0].failingCases + states[1].failingCases);
  const uint64_t digest = fnv1a("1 " + hex64(states[1].verdictDigest) + "\n",
                                fnv1a("0 " + hex64(states[0].verdictDigest) + "\n"));
  EXPECT_EQ(merged.verdictDigest, digest);
  for (const auto& [sig, r] : merged.signatures) {
    uint64_t first = ~uint64_t{0}, count = 0;
    for (const CampaignState& s : states)
      if (s.signatures.count(sig)) {
        first = std::min(first, s.signatures.at(sig).firstCase);
        count += s.signatures.at(sig).count;
      }
    EXPECT_EQ(r.firstCase, first) << sig;
    EXPECT_EQ(r.count, count) << sig;
    EXPECT_TRUE(fs::exists(dir / "merged" / r.reproducer / "program.py")) << sig;
    EXPECT_EQ(r.replayCommand, "ptodiff replay " + (dir / "merged" / r.reproducer).string());
  }
  EXPECT_TRUE(fs::exists(dir / "merged" / "report.json"));
  EXPECT_TRUE(fs::exists(dir / "merged" / "junit.xml"));
  // The same shard twice is an error naming it.
  try {
    mergeShards({dirs[0], dirs[0]}, dir / "bad");
    FAIL() << "merged a shard twice";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("merge: shard 0 appears twice"));
  }
}

TEST(CampaignReport, ReportJsonHasTheDocumentedSchema) {
  ScratchDir dir;
  CampaignConfig c = smallConfig(24, 2);
  c.outDir = (dir / "out").string();
  const CampaignResult r = run(c);
  writeReports(c, r.state);
  const auto j = nlohmann::json::parse(readFile(dir / "out" / "report.json"));
  for (const char* key : {"config", "cases", "cases_per_second", "jobs", "failures", "signatures", "feature_coverage",
                          "verdict_digest", "phase_seconds", "interpreter_runs", "elapsed_seconds", "verdict_counts"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["cases"], 24);
  EXPECT_EQ(j["jobs"], 2);
  EXPECT_EQ(j["failures"], r.state.failingCases);
  EXPECT_EQ(j["verdict_digest"], hex64(r.state.verdictDigest));
  EXPECT_EQ(j["config"]["seed"], 7);
  EXPECT_EQ(j["config"]["shard"], "0/1");
  EXPECT_EQ(j["feature_coverage"].size(), static_cast<size_t>(kNumFeatures));
  EXPECT_TRUE(j["phase_seconds"].contains("generation"));
  EXPECT_TRUE(j["phase_seconds"].contains("fake"));  // the runner's phases are summed in
  ASSERT_EQ(j["signatures"].size(), r.state.signatures.size());
  uint64_t previous = 0;
  for (const auto& s : j["signatures"]) {
    for (const char* key : {"signature", "kind", "hazard", "stage", "op", "planner", "first_case", "reproducer",
                            "statements_before", "statements_after", "replay", "count"})
      EXPECT_TRUE(s.contains(key)) << key;
    EXPECT_GE(s["first_case"].get<uint64_t>(), previous);  // listed in first-case order
    previous = s["first_case"];
  }
  // The report reads back into the same state (merge relies on it).
  const CampaignState back = stateFromJson(nlohmann::ordered_json::parse(readFile(dir / "out" / "report.json")), "r");
  EXPECT_EQ(back.verdictDigest, r.state.verdictDigest);
  EXPECT_EQ(back.signatures.size(), r.state.signatures.size());
  EXPECT_EQ(back.featureCases, r.state.featureCases);
}

TEST(CampaignReport, JunitHasOneTestcasePerSignature) {
  const CampaignResult r = run(smallConfig(24));
  const std::string xml = junitXml(r.state);
  size_t testcases = 0;
  for (size_t at = xml.find("<testcase"); at != std::string::npos; at = xml.find("<testcase", at + 1)) ++testcases;
  ASSERT_GE(r.state.signatures.size(), 1u);
  EXPECT_EQ(testcases, r.state.signatures.size());
  EXPECT_THAT(xml, HasSubstr("failures=\"" + std::to_string(r.state.signatures.size()) + "\""));
  for (const auto& [sig, rec] : r.state.signatures) EXPECT_THAT(xml, HasSubstr("name=\"" + sig + "\""));

  CampaignState clean;
  clean.cases = 5;
  EXPECT_THAT(junitXml(clean), HasSubstr("<testcase classname=\"ptodiff.fuzz\" name=\"campaign (5 cases)\"/>"));
  EXPECT_THAT(junitXml(clean), HasSubstr("failures=\"0\""));
}

TEST(CampaignReport, MarkdownSummarisesCountsSignaturesAndTime) {
  const CampaignResult r = run(smallConfig(12));
  const std::string md = reportMarkdown(smallConfig(12), r.state);
  EXPECT_THAT(md, HasSubstr("| cases | 12 |"));
  EXPECT_THAT(md, HasSubstr("| verdict digest | `" + hex64(r.state.verdictDigest) + "` |"));
  EXPECT_THAT(md, HasSubstr("## Where the time goes"));
  for (const auto& [sig, rec] : r.state.signatures) EXPECT_THAT(md, HasSubstr("`" + sig + "`"));
}

TEST(CampaignReport, PhaseTableGivesSecondsAndShares) {
  CampaignState state;
  state.phaseSeconds = {{"compile", 3.0}, {"planned", 0.5}, {"tile", 0.5}};
  const std::string md = reportMarkdown(smallConfig(1), state);
  EXPECT_THAT(md, HasSubstr("| phase | seconds | share |\n|---|---|---|\n"));
  EXPECT_THAT(md, HasSubstr("| compile | 3.00 | 75.0% |\n"));
  EXPECT_THAT(md, HasSubstr("| planned | 0.50 | 12.5% |\n"));
  EXPECT_THAT(md, HasSubstr("| tile | 0.50 | 12.5% |\n"));
}

// The production runner splits its time into the library's stages; the names are the report's.
TEST(CampaignReport, DifferentialRunnerTimesItsStages) {
  const CampaignConfig config = smallConfig(4);
  const std::set<std::string> known = {"verify", "setup", "compile", "tile", "oracle", "planned", "buffer", "differential"};
  std::set<std::string> seen;
  for (uint64_t g = 0; g < 4; ++g) {
    const GeneratedCase c = generateCase(caseSeed(config.seed, g), caseSize(g), config.gen);
    const CaseOutcome outcome = runDifferentialCase(c.program.clone(), caseSpecsFor(c, config), config.stepBudget);
    for (const auto& [phase, seconds] : outcome.phaseSeconds) {
      EXPECT_TRUE(known.count(phase)) << phase;
      EXPECT_GE(seconds, 0.0) << phase;
      seen.insert(phase);
    }
  }
  EXPECT_TRUE(seen.count("tile") && seen.count("compile")) << "no lowering was timed";
}

}  // namespace
}  // namespace ptodiff::fuzz
