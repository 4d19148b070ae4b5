// The judge's reports: device.html is static and self-contained (no script, no external asset) with
// per-op and per-dtype histograms; junit.xml and device.md name every failing sub-case.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include <nlohmann/json.hpp>

#include "device/Report.h"

namespace ptodiff::device {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

DeviceReport sampleReport() {
  DeviceReport r;
  r.outputs = "/tmp/outs";
  r.runner = "ci/device/pypto-runner";
  r.bundles = 2;
  SubcaseJudgement pass;
  pass.bundle = "gen-1-0000";
  pass.subcase = "s0";
  pass.scalars = "n=0";
  pass.replay = "ptodiff run a.py";
  pass.tensors.push_back({"out", "FP32", "tile.exp", 512, 512, 512, 0, 0, 0, 0.4, SubcaseVerdict::Pass, ""});
  SubcaseJudgement fail = pass;
  fail.bundle = "gen-1-0001";
  fail.subcase = "s1";
  fail.verdict = SubcaseVerdict::Oracle;
  fail.detail = "out: 1 of 512 judged element(s) fail the oracle (FP32); first at (row 2, col 3): <x & y>";
  fail.replay = "ptodiff run b.py --scalar 'n=1'";
  r.subcases = {pass, fail};
  Histogram h;
  h.counts = {100, 200, 300, 0, 5, 2, 1, 0, 0};
  h.worst = 1.5;
  r.byDtype["FP32"] = h;
  r.byOp["tile.exp"] = h;
  Histogram add;
  add.counts = {7, 0, 0, 0, 0, 0, 0, 0, 0};
  add.unjudgeable = 3;
  r.byOp["tile.add"] = add;
  return r;
}

TEST(DeviceReportHtml, IsSelfContainedAndStructured) {
  const std::string html = deviceHtml(sampleReport());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u);
  EXPECT_THAT(html, HasSubstr("<meta charset=\"utf-8\">"));
  EXPECT_THAT(html, HasSubstr("<style>"));
  // Nothing that needs a network or a script engine.
  for (const char* banned : {"http://", "https://", "<script", "<link", "src=", "@import", "url("})
    EXPECT_THAT(html, Not(HasSubstr(banned))) << banned;
  EXPECT_THAT(html, HasSubstr("<title>ptodiff device judgement: fail</title>"));
  EXPECT_THAT(html, HasSubstr("<p id=\"summary\">2 sub-case(s) of 2 bundle(s): 1 pass, 1 fail (1 oracle)."));
  // One figure per dtype and per op, each with nine bars; failing buckets are red.
  const std::regex figure("<figure class=\"hist\" data-group=\"([^\"]+)\">");
  std::vector<std::string> groups;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), figure); it != std::sregex_iterator(); ++it)
    groups.push_back((*it)[1]);
  EXPECT_EQ(groups, (std::vector<std::string>{"FP32", "tile.add", "tile.exp"}));
  EXPECT_THAT(html, HasSubstr("<div class=\"hists\" id=\"by-dtype\">"));
  EXPECT_THAT(html, HasSubstr("<div class=\"hists\" id=\"by-op\">"));
  const std::regex bar("<div class=\"bar (ok|fail)\" style=\"height:[0-9.]+px\" title=\"([^\"]+)\"></div>");
  size_t bars = 0, failBars = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), bar); it != std::sregex_iterator(); ++it) {
    ++bars;
    failBars += (*it)[1] == "fail";
  }
  EXPECT_EQ(bars, 3u * kRatioBuckets);
  EXPECT_EQ(failBars, 3u * (kRatioBuckets - kFirstFailingBucket));
  EXPECT_THAT(html, HasSubstr("title=\"(1, 2]: 1\""));
  EXPECT_THAT(html, HasSubstr("<b>tile.add</b> &mdash; 7 judged, 0 outside the bound, worst finite r 0, 3 not judgeable"));
  // The sub-case table lists the failing one first, escaped, with its replay command.
  const size_t failRow = html.find("<tr class=\"fail\"><td>gen-1-0001</td><td>s1</td><td>oracle</td>");
  const size_t passRow = html.find("<tr class=\"pass\"><td>gen-1-0000</td>");
  ASSERT_NE(failRow, std::string::npos);
  ASSERT_NE(passRow, std::string::npos);
  EXPECT_LT(failRow, passRow);
  EXPECT_THAT(html, HasSubstr("(row 2, col 3): &lt;x &amp; y&gt;"));
  EXPECT_THAT(html, HasSubstr("<code>ptodiff run b.py --scalar &#39;n=1&#39;</code>"));
  EXPECT_EQ(html.substr(html.size() - 8), "</html>\n");
}

TEST(DeviceReportJunit, OneTestcasePerSubcaseWithFailures) {
  const std::string x = deviceJunit(sampleReport());
  EXPECT_THAT(x, HasSubstr("<testsuites name=\"ptodiff device\" tests=\"2\" failures=\"1\">"));
  EXPECT_THAT(x, HasSubstr("<testsuite name=\"gen-1-0000\" tests=\"1\" failures=\"0\">\n    <testcase classname=\"gen-1-0000\" name=\"s0\"/>"));
  EXPECT_THAT(x, HasSubstr("<testcase classname=\"gen-1-0001\" name=\"s1\">\n      <failure type=\"oracle\" message=\"out: 1 of 512"));
  EXPECT_THAT(x, HasSubstr("&lt;x &amp; y&gt;\">scalars: n=0\nreplay: ptodiff run b.py --scalar &#39;n=1&#39;</failure>"));
}

TEST(DeviceReportMarkdownAndJson, NameFailuresAndHistograms) {
  const std::string md = deviceMarkdown(sampleReport());
  EXPECT_THAT(md, HasSubstr("- result: **fail** — 2 sub-case(s) of 2 bundle(s): 1 pass, 1 fail (1 oracle)"));
  EXPECT_THAT(md, HasSubstr("| FP32 | 608 | 100 | 200 | 300 | 0 | 5 | 2 | 1 | 0 | 0 | 0 | 1.5 |"));
  EXPECT_THAT(md, HasSubstr("- `gen-1-0001/s1` **oracle** (n=0): out: 1 of 512"));
  const nlohmann::json j = nlohmann::json::parse(deviceJson(sampleReport()));
  EXPECT_EQ(j["result"], "fail");
  EXPECT_EQ(j["counts"]["oracle"], 1);
  EXPECT_EQ(j["histograms"]["by_op"]["tile.add"]["not_judgeable"], 3);
  EXPECT_EQ(j["histograms"]["by_dtype"]["FP32"]["failing"], 1);
  EXPECT_EQ(j["subcases"][1]["tensors"][0]["op"], "tile.exp");
}

}  // namespace
}  // namespace ptodiff::device
