// ci/qualify (spec/fuzz.md "Qualification", docs/faults.md) run as CI runs it, on the built ptodiff
// (PTODIFF=...): per fault a --stop-on-failure campaign; qualify.json and qualify.md summarise
// detection, time, cases and reduced size. Two faults the campaign finds within seconds keep the
// test short; a zero budget checks the undetected path and its exit status.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/faults/Faults.h"
#include "tests/unit/tools/TempDir.h"

namespace ptodiff {
namespace {

using ::testing::HasSubstr;
using testing::readFileBytes;
using testing::TempDir;

struct ScriptOutcome {
  int exitCode = -1;
  std::string out, err;
};

ScriptOutcome runQualify(const TempDir& dir, const std::string& args) {
  const std::string command = "cd '" + dir.path().string() + "' && PTODIFF='" PTODIFF_BINARY "' '" PTODIFF_TESTS_DIR
                              "/../ci/qualify' " + args + " >.stdout 2>.stderr";
  const int status = std::system(command.c_str());
  ScriptOutcome o;
  o.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  o.out = readFileBytes(dir.file(".stdout"));
  o.err = readFileBytes(dir.file(".stderr"));
  return o;
}

const std::vector<std::string> kKeys = {"fault",  "detected", "seconds", "cases", "signature", "reduced_statements",
                                        "pass",   "bug_class"};

TEST(Qualify, TwoQuicklyFoundFaultsAreDetectedWithTheirFirstCaseAndReducedSize) {
  TempDir dir;
  const ScriptOutcome o =
      runQualify(dir, "--time-per-fault 20s --jobs 1 --seed 1 --out q --faults stale-valid-shape,init-cond-inverted");
  ASSERT_EQ(o.exitCode, 0) << o.out << o.err;
  const nlohmann::ordered_json rows = nlohmann::ordered_json::parse(readFileBytes(dir.file("q/qualify.json")));
  ASSERT_TRUE(rows.is_array());
  ASSERT_EQ(rows.size(), 2u);
  const std::vector<std::string> names = {"stale-valid-shape", "init-cond-inverted"};
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    std::vector<std::string> keys;
    for (auto it = row.begin(); it != row.end(); ++it) keys.push_back(it.key());
    ASSERT_GE(keys.size(), kKeys.size());
    EXPECT_EQ(std::vector<std::string>(keys.begin(), keys.begin() + static_cast<long>(kKeys.size())), kKeys);
    EXPECT_EQ(row["fault"], names[i]);
    const FaultInfo& info = faultInfo(*parseFault(names[i]));
    EXPECT_EQ(row["pass"], std::string(info.pass));
    EXPECT_EQ(row["bug_class"], std::string(info.bugClass));
    EXPECT_EQ(row["detected"], true) << row.dump();
    EXPECT_GE(row["cases"].get<int>(), 1);
    EXPECT_FALSE(row["signature"].get<std::string>().empty());
    EXPECT_GE(row["reduced_statements"].get<int>(), 1);
    EXPECT_LE(row["reduced_statements"].get<int>(), row["statements_before_reduction"].get<int>());
    // The row is the campaign's own measurement: its report's first failing case and time.
    const nlohmann::json report = nlohmann::json::parse(readFileBytes(dir.file("q/" + names[i] + "/report.json")));
    EXPECT_EQ(row["cases"].get<uint64_t>(), report["first_failing_case"].get<uint64_t>() + 1);
    EXPECT_EQ(report["cases"], row["cases"]);  // --stop-on-failure: nothing ran after it
    EXPECT_DOUBLE_EQ(row["seconds"].get<double>(), report["first_failure_seconds"].get<double>());
    EXPECT_GT(row["seconds"].get<double>(), 0.0);
    EXPECT_LE(row["seconds"].get<double>(), report["elapsed_seconds"].get<double>());
    EXPECT_EQ(report["signatures"][0]["signature"], row["signature"]);
  }
  const std::string md = readFileBytes(dir.file("q/qualify.md"));
  EXPECT_THAT(md, HasSubstr("**Detected: 2/2**"));
  EXPECT_THAT(md, HasSubstr("Median time to detection: "));
  EXPECT_THAT(md, HasSubstr("| fault | pass | bug class | detected | seconds | cases | signature | reduced statements |"));
  EXPECT_THAT(md, HasSubstr("| stale-valid-shape | LowerTileToBuffer | "));
  EXPECT_THAT(md, HasSubstr("| init-cond-inverted | LowerTileToBuffer | "));
}

TEST(Qualify, AFaultNotFoundInItsBudgetIsReportedAndExitsOne) {
  TempDir dir;
  const ScriptOutcome o = runQualify(dir, "--time-per-fault 0s --jobs 1 --out q --faults stale-valid-shape");
  ASSERT_EQ(o.exitCode, 1) << o.out << o.err;
  const nlohmann::json rows = nlohmann::json::parse(readFileBytes(dir.file("q/qualify.json")));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["detected"], false);
  EXPECT_TRUE(rows[0]["seconds"].is_null());
  EXPECT_TRUE(rows[0]["signature"].is_null());
  EXPECT_TRUE(rows[0]["reduced_statements"].is_null());
  EXPECT_EQ(rows[0]["cases"], 0);
  const std::string md = readFileBytes(dir.file("q/qualify.md"));
  EXPECT_THAT(md, HasSubstr("**Detected: 0/1**"));
  EXPECT_THAT(md, HasSubstr("| stale-valid-shape | LowerTileToBuffer | "));
  EXPECT_THAT(md, HasSubstr("| **no** | - | 0 | - | - |"));
}

TEST(Qualify, AnUnknownFaultIsAUsageError) {
  TempDir dir;
  const ScriptOutcome o = runQualify(dir, "--out q --faults stale-valid-shape,no-such-fault");
  EXPECT_EQ(o.exitCode, 2) << o.out << o.err;
  EXPECT_THAT(o.err, HasSubstr("ci/qualify: error: --faults: unknown fault no-such-fault; expected some of "));
  EXPECT_THAT(o.err, HasSubstr(std::string(faultCatalogue().front().name)));
}

}  // namespace
}  // namespace ptodiff
