// `ptodiff fuzz`, `ptodiff fuzz merge` and `ptodiff replay` as a user runs them: exit statuses,
// usage errors, determinism across --jobs, reproducers that replay, and a real SIGKILL + --resume.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/unit/tools/RunPtodiff.h"
#include "tests/unit/tools/TempDir.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::TempDir;

using testing::Outcome;
using testing::runPtodiff;

nlohmann::json readReport(const TempDir& dir, const std::string& out) {
  return nlohmann::json::parse(testing::readFileBytes(dir.file(out + "/report.json")));
}

// Small, fast campaigns: one feature the reference lowering handles, no shrinking.
constexpr const char* kQuick = "--features elementwise-fp32 --shrink-time 0 --progress-interval 100s";
// A step budget of one statement makes every case fail with `timeout` on the Tile run: a real
// failing verdict that does not depend on a bug in the lowering.
constexpr const char* kTimeouts = "--features elementwise-fp32 --shrink-time 0 --progress-interval 100s --step-budget 1";

TEST(FuzzCommand, CleanCampaignExitsZeroAndWritesTheReports) {
  TempDir dir;
  const Outcome o = runPtodiff(dir, std::string("fuzz --cases 6 --jobs 2 --seed 3 --out o ") + kQuick);
  ASSERT_EQ(o.exitCode, 0) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("ptodiff fuzz: 6 cases"));
  EXPECT_THAT(o.out, HasSubstr("0 failing cases, 0 distinct signatures"));
  EXPECT_THAT(o.err, HasSubstr("[fuzz] 6 cases"));  // the plain progress line (stderr is no terminal)
  for (const char* f : {"report.json", "report.md", "junit.xml", "checkpoint.json"})
    EXPECT_TRUE(fs::exists(dir.file(std::string("o/") + f))) << f;
  const auto j = readReport(dir, "o");
  EXPECT_EQ(j["cases"], 6);
  EXPECT_EQ(j["failures"], 0);
  EXPECT_EQ(j["config"]["features"], "elementwise-fp32");
  EXPECT_EQ(j["feature_coverage"]["elementwise-fp32"], 6);
  EXPECT_GT(j["interpreter_runs"].get<int>(), 0);
}

TEST(FuzzCommand, FailingCasesExitOneAndTheirReproducersReplay) {
  TempDir dir;
  const Outcome o = runPtodiff(dir, std::string("fuzz --cases 8 --jobs 2 --out o ") + kTimeouts);
  ASSERT_EQ(o.exitCode, 1) << o.out << o.err;
  const auto j = readReport(dir, "o");
  EXPECT_EQ(j["failures"], 8);
  ASSERT_GE(j["signatures"].size(), 1u);
  const auto& first = j["signatures"][0];
  EXPECT_EQ(first["kind"], "timeout");
  EXPECT_EQ(first["stage"], "tile");
  EXPECT_EQ(first["first_case"], 0);
  const std::string replay = first["replay"];
  EXPECT_THAT(replay, HasSubstr(" --step-budget 1"));
  EXPECT_THAT(o.out, HasSubstr(replay));
  // The replay command as printed reproduces the same signature (exit 1: a failing verdict).
  const Outcome r = runPtodiff(dir, replay.substr(std::string("ptodiff ").size()));
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("reproduced: " + first["signature"].get<std::string>()));
  // Under the default budget the same reproducer passes and says the signature is gone.
  const Outcome pass = runPtodiff(dir, "replay o/" + first["reproducer"].get<std::string>());
  EXPECT_EQ(pass.exitCode, 0) << pass.out << pass.err;
  EXPECT_THAT(pass.out, HasSubstr("pass\nnot reproduced: expected " + first["signature"].get<std::string>()));
}

TEST(FuzzCommand, JobsDoNotChangeCasesVerdictsOrDigest) {
  TempDir dir;
  // Mixed verdicts: budget 12 lets short kernels pass and stops long ones.
  const std::string opts = "--cases 24 --seed 11 --features elementwise-fp32 --shrink-time 0 --step-budget 12 ";
  const Outcome one = runPtodiff(dir, "fuzz --jobs 1 --out j1 " + opts);
  const Outcome two = runPtodiff(dir, "fuzz --jobs 2 --out j2 " + opts);
  ASSERT_EQ(one.exitCode, two.exitCode) << one.err << two.err;
  const auto a = readReport(dir, "j1"), b = readReport(dir, "j2");
  EXPECT_EQ(a["verdict_digest"], b["verdict_digest"]);
  EXPECT_EQ(a["failures"], b["failures"]);
  EXPECT_EQ(a["jobs"], 1);
  EXPECT_EQ(b["jobs"], 2);
  ASSERT_EQ(a["signatures"].size(), b["signatures"].size());
  for (size_t i = 0; i < a["signatures"].size(); ++i) {
    EXPECT_EQ(a["signatures"][i]["signature"], b["signatures"][i]["signature"]);
    EXPECT_EQ(a["signatures"][i]["first_case"], b["signatures"][i]["first_case"]);
    EXPECT_EQ(a["signatures"][i]["count"], b["signatures"][i]["count"]);
  }
  EXPECT_GT(a["failures"].get<int>(), 0);
  EXPECT_LT(a["failures"].get<int>(), 24);
}

TEST(FuzzCommand, BadUsageExitsTwoWithTheReason) {
  TempDir dir;
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"fuzz --time 5x --out a", "ptodiff fuzz: error: --time: '5x' is not a duration such as 60s, 5m or 1h\n"},
      {"fuzz --cases 1 --shard 2/2 --out a", "ptodiff fuzz: error: --shard: '2/2' is not K/N with 0 <= K < N\n"},
      {"fuzz --cases 1 --features loops --out a", "ptodiff fuzz: error: --features: unknown feature 'loops'\n"},
      {"fuzz --cases 1 --time 1s", "ptodiff: error: --time excludes --cases\n"},
      {"fuzz --cases 1 --planners GREEDY", "ptodiff: error: --planners: GREEDY not in {PYPTO,DSA_RP,PTOAS}\n"},
      {"fuzz --cases 1 --resume --out none", "ptodiff fuzz: error: --resume: no checkpoint at 'none/checkpoint.json'\n"},
  };
  for (const Case& c : cases) {
    const Outcome o = runPtodiff(dir, c.args);
    EXPECT_EQ(o.exitCode, 2) << c.args << "\n" << o.err;
    EXPECT_THAT(o.err, HasSubstr(c.message)) << c.args;
  }
  EXPECT_FALSE(fs::exists(dir.file("none")));  // a refused --resume creates nothing
  // A folder that holds a campaign is not overwritten by a new one.
  ASSERT_EQ(runPtodiff(dir, std::string("fuzz --cases 1 --out taken ") + kQuick).exitCode, 0);
  const Outcome again = runPtodiff(dir, std::string("fuzz --cases 1 --out taken ") + kQuick);
  EXPECT_EQ(again.exitCode, 2);
  EXPECT_THAT(again.err, HasSubstr("ptodiff fuzz: error: --out 'taken' holds a campaign already: add --resume"));
}

TEST(FuzzCommand, ShardsMergeIntoOneReport) {
  TempDir dir;
  for (int k = 0; k < 2; ++k)
    ASSERT_EQ(runPtodiff(dir, "fuzz --cases 4 --shard " + std::to_string(k) + "/2 --out s" + std::to_string(k) + " " +
                                  kTimeouts)
                  .exitCode,
              1);
  const Outcome m = runPtodiff(dir, "fuzz merge s0 s1 --out merged");
  EXPECT_EQ(m.exitCode, 1) << m.err;
  EXPECT_THAT(m.out, HasSubstr("ptodiff fuzz merge: 2 shards, 8 cases, 8 failing cases"));
  const auto j = readReport(dir, "merged");
  EXPECT_EQ(j["cases"], 8);
  EXPECT_EQ(j["merged_shards"], 2);
  EXPECT_EQ(j["config"]["shard"], "merged 0,1 of 2");
  for (const auto& s : j["signatures"]) EXPECT_TRUE(fs::exists(dir.file("merged/" + s["reproducer"].get<std::string>())));
  const Outcome bad = runPtodiff(dir, "fuzz merge s0 s0 --out m2");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_THAT(bad.err, HasSubstr("ptodiff fuzz: error: merge: shard 0 appears twice ('s0')"));
}

TEST(FuzzCommand, SigkillThenResumeLeavesNoHalfReproducerAndContinuesTheCounts) {
  TempDir dir;
  const std::string out = dir.file("k");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Long enough never to finish before the kill; every case fails, so reproducers are being
    // written all the time the process runs.
    ::execl(PTODIFF_BINARY, PTODIFF_BINARY, "fuzz", "--cases", "1000000", "--jobs", "2", "--features",
            "elementwise-fp32", "--shrink-time", "0", "--step-budget", "1", "--progress-interval", "100s", "--out",
            out.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Kill once a checkpoint with some cases exists (at most 60 s).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  uint64_t checkpointed = 0;
  while (std::chrono::steady_clock::now() < deadline && checkpointed < 64) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::string text = testing::readFileBytes(out + "/checkpoint.json");
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_discarded() && j.contains("state")) checkpointed = j["state"]["cases"].get<uint64_t>();
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the campaign ended before the kill";
  ASSERT_GE(checkpointed, 64u);

  // Every reproducer under its final name is complete (temporaries may remain; resume deletes them).
  for (const auto& e : fs::directory_iterator(out + "/repro")) {
    if (e.path().filename().string().rfind(".tmp-", 0) == 0) continue;
    for (const char* f : {"program.py", "case.json", "reproducer.json", "README.md"})
      EXPECT_TRUE(fs::exists(e.path() / f)) << e.path() << " lacks " << f;
  }
  const auto killed = nlohmann::json::parse(testing::readFileBytes(out + "/checkpoint.json"));
  const uint64_t before = killed["state"]["cases"];
  const uint64_t total = before + 40;
  const std::string resume = "fuzz --resume --jobs 1 --cases " + std::to_string(total) + " --out k " + kTimeouts;
  const Outcome o = runPtodiff(dir, resume);
  ASSERT_EQ(o.exitCode, 1) << o.err;
  const auto j = readReport(dir, "k");
  EXPECT_EQ(j["cases"], total);
  EXPECT_EQ(j["failures"], total);
  EXPECT_EQ(j["runs"], 2);
  for (const auto& e : fs::recursive_directory_iterator(out))
    EXPECT_NE(e.path().filename().string().rfind(".tmp-", 0), 0u) << e.path();
  // Counts continued exactly: an uninterrupted campaign of the same length has the same digest.
  ASSERT_EQ(runPtodiff(dir, "fuzz --jobs 2 --cases " + std::to_string(total) + " --out whole " + kTimeouts).exitCode, 1);
  EXPECT_EQ(readReport(dir, "whole")["verdict_digest"], j["verdict_digest"]);
}

}  // namespace
}  // namespace ptodiff
