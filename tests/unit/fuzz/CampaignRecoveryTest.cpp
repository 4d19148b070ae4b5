// Fault tolerance of long campaigns (docs/robustness.md): verdicts decided by the supervisor count
// exactly as if the runner had given them, supervised workers that die from a signal or hang are
// replaced without changing any count, and output writes fail cleanly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "compiler/text/Parser.h"
#include "compiler/text/Printer.h"
#include "fuzz/campaign/AtomicFiles.h"
#include "fuzz/campaign/Report.h"
#include "fuzz/campaign/Supervisor.h"
#include "tests/unit/fuzz/CampaignTestSupport.h"

namespace ptodiff::fuzz {
namespace {

namespace fs = std::filesystem;
using campaigntest::fakeRunner;
using campaigntest::readFile;
using campaigntest::ScratchDir;
using campaigntest::smallConfig;
using campaigntest::temporariesUnder;
using ::testing::HasSubstr;

/// The program text a runner sees for case g (the campaign prints and re-parses each case).
std::string runnerText(const CampaignConfig& c, uint64_t g) {
  const GeneratedCase gc = generateCase(caseSeed(c.seed, g), caseSize(g), c.gen);
  return printProgram(parseProgramText(printProgram(gc.program), "program.py"));
}

/// Cases of `c` whose runner text is one of `texts`' keys, for runners that single them out.
std::map<std::string, uint64_t> textsOf(const CampaignConfig& c, const std::set<uint64_t>& cases) {
  std::map<std::string, uint64_t> out;
  for (uint64_t g : cases) out[runnerText(c, g)] = g;
  return out;
}

void expectSameCounts(const CampaignState& a, const CampaignState& b) {
  EXPECT_EQ(a.cases, b.cases);
  EXPECT_EQ(a.nextLocal, b.nextLocal);
  EXPECT_EQ(a.failingCases, b.failingCases);
  EXPECT_EQ(a.verdictDigest, b.verdictDigest);
  EXPECT_EQ(a.verdictCounts, b.verdictCounts);
  EXPECT_EQ(a.featureCases, b.featureCases);
  EXPECT_EQ(a.outOfContractCases, b.outOfContractCases);
  ASSERT_EQ(a.signatures.size(), b.signatures.size());
  for (const auto& [sig, r] : a.signatures) {
    ASSERT_TRUE(b.signatures.count(sig)) << sig;
    EXPECT_EQ(r.firstCase, b.signatures.at(sig).firstCase) << sig;
    EXPECT_EQ(r.count, b.signatures.at(sig).count) << sig;
  }
}

const std::set<uint64_t> kCrashing = {3, 10, 17};

TEST(CampaignRecovery, SignalAndWallClockVerdictsHaveFixedSignatures) {
  EXPECT_EQ(signatureOf(signalVerdict(SIGSEGV, 4, CasePhase::Run)), "crash/-/signal-SIGSEGV/-/-");
  EXPECT_EQ(signatureOf(signalVerdict(SIGABRT, 4, CasePhase::Generate)), "crash/-/signal-SIGABRT/-/-");
  EXPECT_THAT(signalVerdict(SIGSEGV, 4, CasePhase::Run).detail,
              HasSubstr("died from SIGSEGV (Segmentation fault) while running case 4"));
  EXPECT_EQ(signatureOf(wallClockVerdict(2.5, 9, CasePhase::Run)), "timeout/-/wall-clock/-/-");
  EXPECT_THAT(wallClockVerdict(2.5, 9, CasePhase::Run).detail, HasSubstr("after 2.5 s of wall-clock time running case 9"));
  EXPECT_EQ(signalName(SIGBUS), "SIGBUS");
}

TEST(CampaignRecovery, DecidedVerdictsCountAsIfTheRunnerGaveThemAndAreNeverRun) {
  const CampaignConfig config = smallConfig(24, 1);
  const auto crashing = textsOf(config, kCrashing);
  ASSERT_EQ(crashing.size(), kCrashing.size());
  const Verdict crash = signalVerdict(SIGSEGV, 0, CasePhase::Run);
  // The reference: a runner that itself answers `crash` for those cases.
  const CampaignResult reference = campaigntest::run(config, [&](const Program& p, const std::vector<CaseSpec>& s) {
    if (crashing.count(printProgram(p))) {
      CaseOutcome o;
      o.failures.push_back(crash);
      return o;
    }
    return fakeRunner(p, s);
  });
  for (int jobs : {1, 2}) {
    CampaignConfig c = config;
    c.jobs = jobs;
    CampaignRestart restart;
    for (uint64_t g : kCrashing) restart.verdicts[g] = crash;
    restart.serialThrough = 12;  // the batches up to case 12 run one case at a time
    restart.runStart = std::chrono::steady_clock::now();
    std::atomic<int> ranDecided{0};
    CampaignHooks hooks;
    hooks.runner = [&](const Program& p, const std::vector<CaseSpec>& s) {
      if (crashing.count(printProgram(p))) ++ranDecided;
      return fakeRunner(p, s);
    };
    hooks.keepCaseRecords = true;
    hooks.restart = &restart;
    const CampaignResult decided = runCampaign(c, hooks);
    EXPECT_EQ(ranDecided.load(), 0) << "jobs " << jobs;
    expectSameCounts(decided.state, reference.state);
    ASSERT_EQ(decided.records.size(), reference.records.size());
    for (size_t i = 0; i < decided.records.size(); ++i) {
      EXPECT_EQ(decided.records[i].programHash, reference.records[i].programHash) << i;
      EXPECT_EQ(decided.records[i].verdict, reference.records[i].verdict) << i;
    }
    EXPECT_EQ(decided.records[3].verdict, "crash/-/signal-SIGSEGV/-/-");
  }
}

TEST(CampaignRecovery, ADecidedCrashGetsAnUnshrunkReproducerAndAContinuingRunIsNotANewRun) {
  ScratchDir dir;
  CampaignConfig c = smallConfig(12, 1);
  c.outDir = (dir / "out").string();
  c.shrinkSeconds = 0.2;
  const auto crashing = textsOf(c, {5});
  // The run's own checkpoint, as the supervisor writes it before its first worker.
  CampaignState initial;
  initial.fingerprint = configFingerprint(c);
  fs::create_directories(c.outDir);
  writeCheckpoint(c.outDir, c, initial);
  CampaignRestart restart;
  restart.verdicts[5] = signalVerdict(SIGSEGV, 5, CasePhase::Run);
  restart.continuing = true;
  restart.runStart = std::chrono::steady_clock::now();
  int ranDecided = 0;
  CampaignHooks hooks;
  hooks.runner = [&](const Program& p, const std::vector<CaseSpec>& s) {
    if (crashing.count(printProgram(p))) ++ranDecided;
    return fakeRunner(p, s);
  };
  hooks.restart = &restart;
  c.resume = true;
  const CampaignResult r = runCampaign(c, hooks);
  EXPECT_EQ(ranDecided, 0);  // not even by the shrinker
  EXPECT_EQ(r.state.runs, 1u);
  EXPECT_EQ(r.state.cases, 12u);
  const SignatureRecord& rec = r.state.signatures.at("crash/-/signal-SIGSEGV/-/-");
  EXPECT_EQ(rec.firstCase, 5u);
  EXPECT_EQ(rec.statementsAfter, rec.statementsBefore);
  const fs::path repro = dir / "out" / rec.reproducer;
  for (const char* f : {"program.py", "case.json", "reproducer.json", "README.md"})
    EXPECT_TRUE(fs::exists(repro / f)) << f;
  EXPECT_EQ(printProgram(parseProgramText(readFile(repro / "program.py"), "program.py")), crashing.begin()->first);
  EXPECT_THAT(readFile(repro / "reproducer.json"), HasSubstr("\"stage\": \"signal-SIGSEGV\""));
}

/// A runner that dies from SIGSEGV on the given cases, as a planted interpreter fault would.
CaseRunner segfaultingOn(std::map<std::string, uint64_t> texts) {
  return [texts = std::move(texts)](const Program& p, const std::vector<CaseSpec>& s) {
    if (texts.count(printProgram(p))) std::raise(SIGSEGV);
    return fakeRunner(p, s);
  };
}

// The supervisor forks: run with one job so no OpenMP thread pool exists across the fork
// (runSupervisedCampaign's precondition; the tools tests drive --jobs 2 through the binary).
TEST(CampaignRecovery, ASupervisedCampaignSurvivesSegfaultsWithTheSameCountsAsDecidedCrashes) {
  ScratchDir dir;
  CampaignConfig c = smallConfig(24, 1);
  const auto crashing = textsOf(c, kCrashing);
  const Verdict crash = signalVerdict(SIGSEGV, 0, CasePhase::Run);
  const CampaignResult reference = campaigntest::run(c, [&](const Program& p, const std::vector<CaseSpec>& s) {
    if (crashing.count(printProgram(p))) {
      CaseOutcome o;
      o.failures.push_back(crash);
      return o;
    }
    return fakeRunner(p, s);
  });
  c.outDir = (dir / "out").string();
  CampaignHooks hooks;
  hooks.runner = segfaultingOn(crashing);
  SupervisorOptions options;
  options.caseTimeoutSeconds = 30;
  const CampaignResult supervised = runSupervisedCampaign(c, hooks, options);
  expectSameCounts(supervised.state, reference.state);
  EXPECT_EQ(supervised.state.runs, 1u);
  EXPECT_FALSE(supervised.interrupted);
  const SignatureRecord& rec = supervised.state.signatures.at("crash/-/signal-SIGSEGV/-/-");
  EXPECT_EQ(rec.firstCase, 3u);
  EXPECT_EQ(rec.count, 3u);
  EXPECT_TRUE(fs::exists(dir / "out" / rec.reproducer / "program.py"));
  EXPECT_TRUE(temporariesUnder(dir / "out").empty());
}

TEST(CampaignRecovery, ASupervisedCaseThatHangsGetsAWallClockTimeout) {
  ScratchDir dir;
  CampaignConfig c = smallConfig(8, 1);
  c.outDir = (dir / "out").string();
  const auto hanging = textsOf(c, {2});
  CampaignHooks hooks;
  hooks.runner = [&](const Program& p, const std::vector<CaseSpec>& s) {
    if (hanging.count(printProgram(p)))
      for (;;) ::pause();
    return fakeRunner(p, s);
  };
  SupervisorOptions options;
  options.caseTimeoutSeconds = 0.5;
  const CampaignResult r = runSupervisedCampaign(c, hooks, options);
  EXPECT_EQ(r.state.cases, 8u);
  const SignatureRecord& rec = r.state.signatures.at("timeout/-/wall-clock/-/-");
  EXPECT_EQ(rec.firstCase, 2u);
  EXPECT_EQ(rec.count, 1u);
  EXPECT_THAT(rec.first.detail, HasSubstr("killed after 0.5 s of wall-clock time running case 2"));
}

TEST(CampaignRecovery, AWorkerErrorIsTheSupervisorsError) {
  ScratchDir dir;
  CampaignConfig c = smallConfig(4, 1);
  c.outDir = (dir / "out").string();
  c.resume = true;
  CampaignHooks hooks;
  hooks.runner = fakeRunner;
  // No checkpoint to resume: refused before anything is created or forked.
  try {
    runSupervisedCampaign(c, hooks, {});
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("--resume: no checkpoint at '"));
  }
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(AtomicFiles, AFailedWriteKeepsTheOldFileAndLeavesNoTemporary) {
  ScratchDir dir;
  // A folder in the file's place makes the final rename fail after the temporary was written.
  fs::create_directories(dir / "report.json" / "x");
  try {
    writeFileAtomically(dir / "report.json", "{}");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot rename to '" + (dir / "report.json").string() + "': "));
  }
  EXPECT_TRUE(fs::is_directory(dir / "report.json" / "x"));
  EXPECT_TRUE(temporariesUnder(dir.path()).empty());
  try {
    writeFileAtomically(dir / "missing" / "f.json", "{}");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot create '" + (dir / "missing" / "f.json").string() + "': No such file or directory");
  }
}

TEST(AtomicFiles, AnOutputFolderThatCannotBeCreatedIsRefusedWithTheReason) {
  ScratchDir dir;
  std::ofstream(dir / "file") << "x";
  try {
    checkWritableFolder(dir / "file" / "out");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot create output folder '" + (dir / "file" / "out").string() + "': Not a directory"));
  }
  checkWritableFolder(dir / "fresh" / "repro");
  EXPECT_TRUE(fs::is_directory(dir / "fresh" / "repro"));
  EXPECT_TRUE(temporariesUnder(dir.path()).empty());  // the probe is gone
}

}  // namespace
}  // namespace ptodiff::fuzz
