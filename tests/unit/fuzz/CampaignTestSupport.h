// Fake runners and scratch folders for the campaign tests: the campaign's logic (order, dedup,
// reproducers, checkpoints, shards, reports) is checked independently of the real lowering.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/text/Printer.h"
#include "fuzz/campaign/Campaign.h"
#include "fuzz/campaign/Digest.h"

namespace ptodiff::fuzz::campaigntest {

/// A deterministic fake: fails with a signature chosen from the program text, so failures depend
/// on the generated case only (never on the thread or the order the case ran in).
inline CaseOutcome fakeRunner(const Program& program, const std::vector<CaseSpec>& sets) {
  const uint64_t h = fnv1a(printProgram(program));
  CaseOutcome out;
  out.interpreterRuns = sets.size();
  out.phaseSeconds["fake"] = 0.001;
  if (h % 5 == 0) out.failures.push_back({"mismatch", "", "buffer", "tile.add", "PYPTO", "fake mismatch", 0});
  if (h % 7 == 0) out.failures.push_back({"hazard", "overlap", "planned", "", "DSA_RP", "fake overlap", sets.size() - 1});
  if (countStatements(program) >= 30)
    out.failures.push_back({"timeout", "", "tile", "", "", "fake timeout of a long kernel", 0});
  return out;
}

/// A campaign configuration for tests: small kernels, a fixed seed, no shrinking.
inline CampaignConfig smallConfig(uint64_t cases, int jobs = 1) {
  CampaignConfig c;
  c.seed = 7;
  c.cases = cases;
  c.jobs = jobs;
  c.gen.maxStatements = 30;
  c.shrinkSeconds = 0.0;
  c.batchPerJob = 4;
  c.checkpointSeconds = 0.0;  // a checkpoint after every batch
  return c;
}

inline CampaignResult run(const CampaignConfig& c, CaseRunner runner = fakeRunner) {
  CampaignHooks hooks;
  hooks.runner = std::move(runner);
  hooks.keepCaseRecords = true;
  return runCampaign(c, hooks);
}

/// A scratch folder per test, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("ptodiff_campaign_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string readFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Every path under `root` whose name starts with the temporary prefix.
inline std::vector<std::string> temporariesUnder(const std::filesystem::path& root) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root))
    if (e.path().filename().string().rfind(".tmp-", 0) == 0) out.push_back(e.path().string());
  return out;
}

}  // namespace ptodiff::fuzz::campaigntest
