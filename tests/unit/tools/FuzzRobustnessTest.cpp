// `ptodiff fuzz` survives what a long run meets (docs/robustness.md): a case that segfaults or
// hangs inside the interpreter (planted with PTODIFF_TEST_SEGFAULT_OP / PTODIFF_TEST_HANG_OP), a
// SIGKILL, SIGINT/SIGTERM, a read-only output folder and a full disk. Every test drives the real
// binary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/unit/tools/RunPtodiff.h"
#include "tests/unit/tools/TempDir.h"

namespace ptodiff {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::Outcome;
using testing::readFileBytes;
using testing::runPtodiff;
using testing::TempDir;
using Clock = std::chrono::steady_clock;

// Small, fast campaigns of one feature the lowering handles: every failure below is planted.
constexpr const char* kQuick = "--features elementwise-fp32 --shrink-time 0 --progress-interval 100s";
// The op the planted faults fire on: rare enough in these campaigns that a few cases hit it.
constexpr const char* kPlantedOp = "tile.log";
constexpr const char* kCrashSignature = "crash/-/signal-SIGSEGV/-/-";

/// Sets an environment variable for the scope of a test (the binary inherits it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { ::setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

nlohmann::json readJson(const std::string& path) { return nlohmann::json::parse(readFileBytes(path)); }

/// Runs `script` with /bin/sh inside `dir`, output captured as runPtodiff does; PTODIFF is the binary.
Outcome runShell(const TempDir& dir, const std::string& script) {
  const std::string outFile = dir.file(".stdout"), errFile = dir.file(".stderr");
  const std::string command = "cd '" + dir.path().string() + "' && PTODIFF='" PTODIFF_BINARY "' && " + script + " >'" +
                              outFile + "' 2>'" + errFile + "'";
  const int status = std::system(command.c_str());
  Outcome o;
  o.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = readFileBytes(outFile);
  o.err = readFileBytes(errFile);
  return o;
}

/// `ptodiff ARGS` in the background, in its own process group, output into dir/.stdout and .stderr.
pid_t spawnPtodiff(const TempDir& dir, const std::vector<std::string>& args) {
  const std::string outFile = dir.file(".stdout"), errFile = dir.file(".stderr");
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::setpgid(0, 0);
  if (::chdir(dir.path().c_str()) != 0) ::_exit(127);
  if (!std::freopen(outFile.c_str(), "w", stdout) || !std::freopen(errFile.c_str(), "w", stderr)) ::_exit(127);
  std::vector<char*> argv;
  std::string binary = PTODIFF_BINARY;
  argv.push_back(binary.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(PTODIFF_BINARY, argv.data());
  ::_exit(127);
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// How long a running campaign may take to make progress or to stop: the waits end as soon as it does,
/// so this only matters on a slow machine (a sanitizer build under load needs far more than 8 s).
constexpr double kProgressSeconds = 120.0;

/// The cases OUT/checkpoint.json has counted once it has at least `atLeast` (nullopt after `seconds`).
std::optional<uint64_t> awaitCheckpoint(const TempDir& dir, const std::string& out, uint64_t atLeast, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < deadline) {
    const auto j = nlohmann::json::parse(readFileBytes(dir.file(out + "/checkpoint.json")), nullptr, false);
    if (!j.is_discarded() && j.contains("state") && j["state"]["cases"].get<uint64_t>() >= atLeast)
      return j["state"]["cases"].get<uint64_t>();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::nullopt;
}

/// The exit status as RunPtodiff.h reports it (128 + signal when killed); -1 after `seconds`.
int awaitExit(pid_t pid, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (Clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

std::vector<std::string> temporariesUnder(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().filename().string().rfind(".tmp-", 0) == 0) out.push_back(e.path().string());
  return out;
}

const nlohmann::json* findSignature(const nlohmann::json& report, const std::string& signature) {
  for (const auto& s : report["signatures"])
    if (s["signature"] == signature) return &s;
  return nullptr;
}

/// The cases whose verdict is `signature` (every failing case of these campaigns is planted).
void expectOnlyPlantedFailures(const nlohmann::json& report, const std::string& signature) {
  ASSERT_EQ(report["signatures"].size(), 1u) << report["signatures"].dump(1);
  EXPECT_EQ(report["signatures"][0]["signature"], signature);
  EXPECT_EQ(report["signatures"][0]["count"], report["failures"]);
}

TEST(FuzzRobustness, APlantedSegfaultIsACrashVerdictWithAReproducerAndEveryCaseIsCounted) {
  TempDir dir;
  ScopedEnv planted("PTODIFF_TEST_SEGFAULT_OP", kPlantedOp);
  const Outcome o = runPtodiff(dir, std::string("fuzz --cases 40 --jobs 1 --seed 5 --out o ") + kQuick);
  ASSERT_EQ(o.exitCode, 1) << o.out << o.err;
  const auto j = readJson(dir.file("o/report.json"));
  EXPECT_EQ(j["cases"], 40);
  expectOnlyPlantedFailures(j, kCrashSignature);
  const auto* crash = findSignature(j, kCrashSignature);
  ASSERT_NE(crash, nullptr);
  EXPECT_GE((*crash)["count"].get<int>(), 1);
  EXPECT_LT((*crash)["count"].get<int>(), 40);
  EXPECT_EQ((*crash)["kind"], "crash");
  EXPECT_EQ((*crash)["stage"], "signal-SIGSEGV");
  EXPECT_THAT((*crash)["verdict"]["detail"].get<std::string>(),
              HasSubstr("the campaign worker process died from SIGSEGV (Segmentation fault) while running case " +
                        std::to_string((*crash)["first_case"].get<int>())));
  EXPECT_THAT(o.err, HasSubstr("[fuzz] case " + std::to_string((*crash)["first_case"].get<int>()) +
                               ": the campaign worker process died from SIGSEGV"));
  EXPECT_EQ(j["runs"], 1);  // worker restarts are not resumes
  // The reproducer holds the case as generated, with the op; replaying it crashes the same way.
  const std::string repro = "o/" + (*crash)["reproducer"].get<std::string>();
  EXPECT_THAT(readFileBytes(dir.file(repro + "/program.py")), HasSubstr(std::string("pl.") + kPlantedOp));
  const Outcome replay = runPtodiff(dir, "replay " + repro);
  EXPECT_EQ(replay.exitCode, 128 + SIGSEGV) << replay.out << replay.err;
  EXPECT_TRUE(temporariesUnder(dir.file("o")).empty());
}

TEST(FuzzRobustness, InProcessCampaignsHaveNoCrashRecovery) {
  TempDir dir;
  ScopedEnv planted("PTODIFF_TEST_SEGFAULT_OP", kPlantedOp);
  const Outcome o = runPtodiff(dir, std::string("fuzz --in-process --cases 40 --jobs 1 --seed 5 --out o ") + kQuick);
  EXPECT_EQ(o.exitCode, 128 + SIGSEGV) << o.out << o.err;
  EXPECT_FALSE(fs::exists(dir.file("o/report.json")));
}

TEST(FuzzRobustness, APlantedCrashGivesTheSameVerdictsAndDigestForAnyJobs) {
  TempDir dir;
  ScopedEnv planted("PTODIFF_TEST_SEGFAULT_OP", kPlantedOp);
  const std::string opts = std::string("--cases 40 --seed 5 ") + kQuick;
  const Outcome one = runPtodiff(dir, "fuzz --jobs 1 --out j1 " + opts);
  const Outcome two = runPtodiff(dir, "fuzz --jobs 2 --out j2 " + opts);
  ASSERT_EQ(one.exitCode, 1) << one.err;
  ASSERT_EQ(two.exitCode, 1) << two.err;
  const auto a = readJson(dir.file("j1/report.json")), b = readJson(dir.file("j2/report.json"));
  EXPECT_EQ(a["verdict_digest"], b["verdict_digest"]);
  EXPECT_EQ(a["cases"], 40);
  EXPECT_EQ(b["cases"], 40);
  EXPECT_EQ(a["failures"], b["failures"]);
  EXPECT_EQ(a["verdict_counts"], b["verdict_counts"]);
  ASSERT_EQ(a["signatures"].size(), b["signatures"].size());
  for (size_t i = 0; i < a["signatures"].size(); ++i) {
    EXPECT_EQ(a["signatures"][i]["signature"], b["signatures"][i]["signature"]);
    EXPECT_EQ(a["signatures"][i]["first_case"], b["signatures"][i]["first_case"]);
    EXPECT_EQ(a["signatures"][i]["count"], b["signatures"][i]["count"]);
  }
  EXPECT_GE(a["failures"].get<int>(), 2);  // several crashes, so the comparison is not vacuous
}

TEST(FuzzRobustness, SigkillDuringACrashingCampaignThenResumeContinuesTheCounts) {
  TempDir dir;
  ScopedEnv planted("PTODIFF_TEST_SEGFAULT_OP", kPlantedOp);
  const pid_t pid = spawnPtodiff(dir, words(std::string("fuzz --cases 1000000 --jobs 2 --seed 5 --out k ") + kQuick));
  ASSERT_GT(pid, 0);
  const auto seen = awaitCheckpoint(dir, "k", 32, kProgressSeconds);
  ::kill(pid, SIGKILL);  // the supervisor only: its worker must die with it
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(seen) << readFileBytes(dir.file(".stderr"));
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  // The worker follows within moments; until then it could still write into k.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (const auto& e : fs::directory_iterator(dir.file("k/repro"))) {
    if (e.path().filename().string().rfind(".tmp-", 0) == 0) continue;
    for (const char* f : {"program.py", "case.json", "reproducer.json", "README.md"})
      EXPECT_TRUE(fs::exists(e.path() / f)) << e.path() << " lacks " << f;
  }
  const uint64_t before = readJson(dir.file("k/checkpoint.json"))["state"]["cases"];
  const uint64_t total = before + 16;
  const Outcome resumed =
      runPtodiff(dir, "fuzz --resume --jobs 1 --seed 5 --cases " + std::to_string(total) + " --out k " + kQuick);
  ASSERT_EQ(resumed.exitCode, 1) << resumed.err;
  const auto j = readJson(dir.file("k/report.json"));
  EXPECT_EQ(j["cases"], total);
  EXPECT_EQ(j["runs"], 2);
  EXPECT_TRUE(temporariesUnder(dir.file("k")).empty());
  // Counts continued exactly: an uninterrupted campaign of the same length has the same digest.
  const Outcome whole = runPtodiff(dir, "fuzz --jobs 2 --seed 5 --cases " + std::to_string(total) + " --out whole " + kQuick);
  ASSERT_EQ(whole.exitCode, 1) << whole.err;
  const auto w = readJson(dir.file("whole/report.json"));
  EXPECT_EQ(w["verdict_digest"], j["verdict_digest"]);
  EXPECT_EQ(w["failures"], j["failures"]);
  EXPECT_GE(j["failures"].get<int>(), 1);
}

TEST(FuzzRobustness, SigintOrSigtermMidCampaignWritesACompleteReportOfWhatRan) {
  for (const int signal : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(signal == SIGINT ? "SIGINT to the process group" : "SIGTERM to the supervisor");
    TempDir dir;
    const pid_t pid = spawnPtodiff(dir, words(std::string("fuzz --cases 1000000 --jobs 2 --out i ") + kQuick));
    ASSERT_GT(pid, 0);
    const auto seen = awaitCheckpoint(dir, "i", 32, kProgressSeconds);
    // A terminal's ^C reaches every process of the group; `kill` or a scheduler only the supervisor.
    ::kill(signal == SIGINT ? -pid : pid, signal);
    const int code = awaitExit(pid, kProgressSeconds);
    ASSERT_TRUE(seen) << readFileBytes(dir.file(".stderr"));
    EXPECT_EQ(code, 0) << readFileBytes(dir.file(".stderr"));
    EXPECT_THAT(readFileBytes(dir.file(".stdout")), HasSubstr("(interrupted: continue with --resume)"));
    const auto report = readJson(dir.file("i/report.json"));
    const auto checkpoint = readJson(dir.file("i/checkpoint.json"));
    EXPECT_GE(report["cases"].get<uint64_t>(), *seen);
    EXPECT_EQ(report["cases"], checkpoint["state"]["cases"]);
    EXPECT_EQ(report["verdict_digest"], checkpoint["state"]["verdict_digest"]);
    EXPECT_THAT(readFileBytes(dir.file("i/report.md")), HasSubstr("| cases | " + report["cases"].dump() + " |"));
    EXPECT_THAT(readFileBytes(dir.file("i/junit.xml")), HasSubstr("name=\"campaign (" + report["cases"].dump() + " cases)\""));
    EXPECT_TRUE(temporariesUnder(dir.file("i")).empty());
    // The interrupted campaign continues where it stopped.
    const uint64_t total = report["cases"].get<uint64_t>() + 8;
    const Outcome resumed = runPtodiff(dir, "fuzz --resume --jobs 2 --cases " + std::to_string(total) + " --out i " + kQuick);
    EXPECT_EQ(resumed.exitCode, 0) << resumed.err;
    EXPECT_EQ(readJson(dir.file("i/report.json"))["cases"], total);
  }
}

TEST(FuzzRobustness, APlantedHangIsAWallClockTimeoutAndTheCampaignGoesOn) {
  TempDir dir;
  ScopedEnv planted("PTODIFF_TEST_HANG_OP", kPlantedOp);
  const auto start = Clock::now();
  const Outcome o =
      runPtodiff(dir, std::string("fuzz --cases 24 --jobs 2 --seed 5 --case-timeout 500ms --out h ") + kQuick);
  ASSERT_EQ(o.exitCode, 1) << o.out << o.err;
  const auto j = readJson(dir.file("h/report.json"));
  EXPECT_EQ(j["cases"], 24);
  expectOnlyPlantedFailures(j, "timeout/-/wall-clock/-/-");
  const auto& t = j["signatures"][0];
  EXPECT_EQ(t["kind"], "timeout");
  EXPECT_THAT(t["verdict"]["detail"].get<std::string>(),
              HasSubstr("killed after 0.5 s of wall-clock time running case " + t["first_case"].dump()));
  EXPECT_TRUE(fs::exists(dir.file("h/" + t["reproducer"].get<std::string>() + "/program.py")));
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 30.0);
  // A malformed budget is a usage error.
  const Outcome bad = runPtodiff(dir, "fuzz --cases 1 --case-timeout 0 --out b");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_THAT(bad.err, HasSubstr("ptodiff fuzz: error: --case-timeout: '0' is not a positive duration\n"));
}

TEST(FuzzRobustness, AnOutputFolderUnderAFileIsRefusedAtTheStart) {
  TempDir dir;
  testing::writeFileBytes(dir.file("afile"), "x");
  const Outcome o = runPtodiff(dir, std::string("fuzz --cases 2 --out afile/o ") + kQuick);
  EXPECT_EQ(o.exitCode, 2) << o.out << o.err;
  EXPECT_EQ(o.err, "ptodiff fuzz: error: cannot create output folder 'afile/o': Not a directory\n");
}

/// Whether this process may make private mounts (root in a namespace-capable container).
bool canMountPrivately(const TempDir& dir) {
  return runShell(dir, "unshare -m sh -c 'mkdir -p probe && mount -t tmpfs -o size=64k tmpfs probe'").exitCode == 0;
}

TEST(FuzzRobustness, AReadOnlyOutputFolderIsRefusedAtTheStart) {
  TempDir dir;
  fs::create_directories(dir.file("ro"));
  Outcome o;
  std::string reason;
  if (::geteuid() != 0) {
    fs::permissions(dir.file("ro"), fs::perms::owner_read | fs::perms::owner_exec);
    o = runPtodiff(dir, std::string("fuzz --cases 2 --out ro ") + kQuick);
    fs::permissions(dir.file("ro"), fs::perms::owner_all);
    reason = "Permission denied";
  } else {
    // Root writes into any mode-0555 folder: a read-only bind mount refuses root too.
    if (!canMountPrivately(dir)) GTEST_SKIP() << "root without private mounts: no read-only folder to test";
    o = runShell(dir, std::string("unshare -m sh -c 'mount --bind ro ro && mount -o remount,bind,ro ro && "
                                  "exec \"$0\" fuzz --cases 2 --out ro ") +
                          kQuick + "' \"$PTODIFF\"");
    reason = "Read-only file system";
  }
  EXPECT_EQ(o.exitCode, 2) << o.out << o.err;
  EXPECT_THAT(o.err, HasSubstr("ptodiff fuzz: error: output folder 'ro' is not writable: cannot create 'ro/.tmp-write-probe-"));
  EXPECT_THAT(o.err, HasSubstr("': " + reason + "\n"));
  EXPECT_TRUE(fs::is_empty(dir.file("ro")));
}

TEST(FuzzRobustness, AFileSizeLimitFailsCleanlyAndKeepsTheOldReport) {
  TempDir dir;
  ASSERT_EQ(runPtodiff(dir, std::string("fuzz --cases 4 --out o ") + kQuick).exitCode, 0);
  const std::string report = readFileBytes(dir.file("o/report.json"));
  const std::string checkpoint = readFileBytes(dir.file("o/checkpoint.json"));
  // 2 blocks of 512 bytes: the checkpoint no longer fits (EFBIG, as ENOSPC would fail it).
  const Outcome o = runShell(dir, std::string("ulimit -f 2 && \"$PTODIFF\" fuzz --resume --cases 8 --out o ") + kQuick);
  EXPECT_EQ(o.exitCode, 2) << o.out << o.err;
  EXPECT_EQ(o.err, "ptodiff fuzz: error: cannot write 'o/checkpoint.json': File too large\n");
  EXPECT_EQ(readFileBytes(dir.file("o/report.json")), report);
  EXPECT_EQ(readFileBytes(dir.file("o/checkpoint.json")), checkpoint);
  EXPECT_TRUE(temporariesUnder(dir.file("o")).empty());
}

TEST(FuzzRobustness, AFullDiskFailsWithTheReasonAndLeavesNoHalfWrittenFile) {
  TempDir dir;
  if (!canMountPrivately(dir)) GTEST_SKIP() << "needs a private tmpfs mount (root in a namespace-capable system)";
  fs::create_directories(dir.file("full"));
  // Every case fails (step budget 1), so reproducers fill the 64 KiB disk within a few cases. The
  // mount vanishes with its namespace: what the disk held is listed and copied out first.
  const Outcome o = runShell(
      dir, "unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs full && "
           "\"$0\" fuzz --cases 200 --jobs 1 --step-budget 1 --out full/o " + std::string(kQuick) + "; rc=$?; "
           "find full/o -name \".tmp-*\" > temporaries; cp full/o/report.json report.json 2>/dev/null; "
           "cp full/o/checkpoint.json checkpoint.json; exit $rc' \"$PTODIFF\"");
  EXPECT_EQ(o.exitCode, 2) << o.out << o.err;
  EXPECT_THAT(o.err, HasSubstr("ptodiff fuzz: error: cannot "));
  EXPECT_THAT(o.err, HasSubstr("No space left on device"));
  EXPECT_EQ(readFileBytes(dir.file("temporaries")), "");
  // The checkpoint (and a report, when one was written) are whole JSON documents.
  EXPECT_FALSE(nlohmann::json::parse(readFileBytes(dir.file("checkpoint.json")), nullptr, false).is_discarded());
  if (fs::exists(dir.file("report.json"))) {
    EXPECT_FALSE(nlohmann::json::parse(readFileBytes(dir.file("report.json")), nullptr, false).is_discarded());
  }
}

}  // namespace
}  // namespace ptodiff
