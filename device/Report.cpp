#include "device/Report.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compiler/ir/SourceLoc.h"

namespace ptodiff::device {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

constexpr SubcaseVerdict kFailingVerdicts[] = {SubcaseVerdict::RunnerFailure, SubcaseVerdict::MissingOutput,
                                               SubcaseVerdict::BadOutput, SubcaseVerdict::Sentinel,
                                               SubcaseVerdict::Oracle};

std::string number(double x, int digits = 3) {
  if (std::isinf(x)) return "inf";
  std::ostringstream s;
  s << std::setprecision(digits) << x;
  return s.str();
}

std::string escapeXml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // XML 1.0 forbids most control characters even when escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') out += '?';
        else out += c;
    }
  }
  return out;
}

ordered_json histogramJson(const Histogram& h) {
  ordered_json buckets = ordered_json::array();
  for (int b = 0; b < kRatioBuckets; ++b)
    buckets.push_back({{"ratio", std::string(ratioBucketLabel(b))}, {"count", h.counts[static_cast<size_t>(b)]}});
  return {{"buckets", buckets},
          {"judged", h.total()},
          {"failing", h.failing()},
          {"not_judgeable", h.unjudgeable},
          {"worst_ratio", h.worst}};
}

std::string summaryLine(const DeviceReport& r) {
  std::ostringstream s;
  s << r.subcases.size() << " sub-case(s) of " << r.bundles << " bundle(s): " << r.count(SubcaseVerdict::Pass)
    << " pass, " << r.failing() << " fail";
  std::string parts;
  for (SubcaseVerdict v : kFailingVerdicts)
    if (r.count(v)) parts += (parts.empty() ? "" : ", ") + std::to_string(r.count(v)) + " " + std::string(subcaseVerdictName(v));
  if (!parts.empty()) s << " (" << parts << ")";
  return s.str();
}

/// One histogram as a row of CSS bars: bar height is the bucket's share of the largest bucket.
std::string htmlHistogram(const std::string& title, const Histogram& h) {
  int64_t largest = 1;
  for (int64_t c : h.counts) largest = std::max(largest, c);
  std::ostringstream s;
  s << "<figure class=\"hist\" data-group=\"" << escapeXml(title) << "\">\n<figcaption><b>" << escapeXml(title)
    << "</b> &mdash; " << h.total() << " judged, " << h.failing() << " outside the bound, worst finite r " << number(h.worst)
    << (h.unjudgeable ? ", " + std::to_string(h.unjudgeable) + " not judgeable" : "") << "</figcaption>\n"
    << "<div class=\"bars\">\n";
  for (int b = 0; b < kRatioBuckets; ++b) {
    const int64_t c = h.counts[static_cast<size_t>(b)];
    const double height = c == 0 ? 0.0 : 4.0 + 96.0 * static_cast<double>(c) / static_cast<double>(largest);
    s << "<div class=\"col\"><span class=\"n\">" << c << "</span><div class=\"bar " << (b >= kFirstFailingBucket ? "fail" : "ok")
      << "\" style=\"height:" << number(height, 4) << "px\" title=\"" << escapeXml(std::string(ratioBucketLabel(b)))
      << ": " << c << "\"></div><span class=\"lab\">" << escapeXml(std::string(ratioBucketLabel(b)))
      << "</span></div>\n";
  }
  s << "</div>\n</figure>\n";
  return s.str();
}

}  // namespace

std::string deviceJson(const DeviceReport& r) {
  ordered_json j;
  j["outputs"] = r.outputs;
  j["runner"] = r.runner.empty() ? ordered_json(nullptr) : ordered_json(r.runner);
  j["result"] = r.pass() ? "pass" : "fail";
  j["bundles"] = r.bundles;
  j["subcase_count"] = r.subcases.size();
  ordered_json counts = ordered_json::object();
  counts["pass"] = r.count(SubcaseVerdict::Pass);
  for (SubcaseVerdict v : kFailingVerdicts) counts[std::string(subcaseVerdictName(v))] = r.count(v);
  j["counts"] = counts;
  ordered_json subs = ordered_json::array();
  for (const SubcaseJudgement& s : r.subcases) {
    ordered_json e;
    e["bundle"] = s.bundle;
    e["subcase"] = s.subcase;
    e["verdict"] = std::string(subcaseVerdictName(s.verdict));
    e["detail"] = s.detail;
    e["scalars"] = s.scalars;
    e["covers"] = s.covers;
    e["profile"] = s.profile;
    e["replay"] = s.replay;
    ordered_json tensors = ordered_json::array();
    for (const TensorJudgement& t : s.tensors)
      tensors.push_back({{"name", t.name},
                         {"dtype", t.dtype},
                         {"op", t.op},
                         {"verdict", std::string(subcaseVerdictName(t.verdict))},
                         {"elements", t.elements},
                         {"written", t.written},
                         {"judged", t.judged},
                         {"failing", t.failing},
                         {"not_judgeable", t.unjudgeable},
                         {"sentinel_changed", t.sentinelChanged},
                         {"worst_ratio", std::isinf(t.worstRatio) ? ordered_json("inf") : ordered_json(t.worstRatio)},
                         {"detail", t.detail}});
    e["tensors"] = std::move(tensors);
    subs.push_back(std::move(e));
  }
  j["subcases"] = std::move(subs);
  ordered_json byOp = ordered_json::object(), byDtype = ordered_json::object();
  for (const auto& [op, h] : r.byOp) byOp[op] = histogramJson(h);
  for (const auto& [dt, h] : r.byDtype) byDtype[dt] = histogramJson(h);
  j["histograms"] = {{"by_op", byOp}, {"by_dtype", byDtype}};
  return j.dump(2) + "\n";
}

std::string deviceMarkdown(const DeviceReport& r) {
  std::ostringstream md;
  md << "# ptodiff device judgement\n\n"
     << "- outputs: `" << r.outputs << "`" << (r.runner.empty() ? "" : ", runner: `" + r.runner + "`") << "\n"
     << "- result: **" << (r.pass() ? "pass" : "fail") << "** — " << summaryLine(r) << "\n\n";
  md << "## |y - v| / (e + tiny) per dtype\n\n| dtype | judged | ";
  for (int b = 0; b < kRatioBuckets; ++b) md << ratioBucketLabel(b) << " | ";
  md << "not judgeable | worst |\n|---|---|";
  for (int b = 0; b < kRatioBuckets; ++b) md << "---|";
  md << "---|---|\n";
  auto rows = [&](const std::map<std::string, Histogram>& groups) {
    for (const auto& [name, h] : groups) {
      md << "| " << name << " | " << h.total() << " | ";
      for (int64_t c : h.counts) md << c << " | ";
      md << h.unjudgeable << " | " << number(h.worst) << " |\n";
    }
  };
  rows(r.byDtype);
  md << "\n## |y - v| / (e + tiny) per op\n\n| op | judged | ";
  for (int b = 0; b < kRatioBuckets; ++b) md << ratioBucketLabel(b) << " | ";
  md << "not judgeable | worst |\n|---|---|";
  for (int b = 0; b < kRatioBuckets; ++b) md << "---|";
  md << "---|---|\n";
  rows(r.byOp);
  md << "\n## Failing sub-cases\n\n";
  if (r.pass()) md << "None.\n";
  for (const SubcaseJudgement& s : r.subcases) {
    if (s.pass()) continue;
    md << "- `" << s.bundle << "/" << s.subcase << "` **" << subcaseVerdictName(s.verdict) << "** (" << s.scalars
       << "): " << s.detail << "\n  - replay on the CPU: `" << s.replay << "`\n";
  }
  return md.str();
}

std::string deviceJunit(const DeviceReport& r) {
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<testsuites name=\"ptodiff device\" tests=\"" << r.subcases.size() << "\" failures=\"" << r.failing() << "\">\n";
  size_t i = 0;
  while (i < r.subcases.size()) {
    size_t end = i;
    size_t failures = 0;
    while (end < r.subcases.size() && r.subcases[end].bundle == r.subcases[i].bundle) failures += !r.subcases[end++].pass();
    x << "  <testsuite name=\"" << escapeXml(r.subcases[i].bundle) << "\" tests=\"" << end - i << "\" failures=\""
      << failures << "\">\n";
    for (; i < end; ++i) {
      const SubcaseJudgement& s = r.subcases[i];
      x << "    <testcase classname=\"" << escapeXml(s.bundle) << "\" name=\"" << escapeXml(s.subcase) << "\"";
      if (s.pass()) {
        x << "/>\n";
        continue;
      }
      x << ">\n      <failure type=\"" << subcaseVerdictName(s.verdict) << "\" message=\"" << escapeXml(s.detail)
        << "\">" << escapeXml("scalars: " + s.scalars + "\nreplay: " + s.replay) << "</failure>\n    </testcase>\n";
    }
    x << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  return x.str();
}

std::string deviceHtml(const DeviceReport& r) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<title>ptodiff device judgement: " << (r.pass() ? "pass" : "fail") << "</title>\n<style>\n"
    << "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
    << "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}\n"
    << ".verdict-pass{color:#17692e}.verdict-fail{color:#b3261e}\n"
    << ".hists{display:flex;flex-wrap:wrap;gap:1.2em}\n"
    << ".hist{margin:0;border:1px solid #ccc;padding:.6em;border-radius:4px}\n"
    << ".hist figcaption{font-size:.85em;margin-bottom:.4em}\n"
    << ".bars{display:flex;align-items:flex-end;gap:3px;height:140px}\n"
    << ".col{display:flex;flex-direction:column;align-items:center;justify-content:flex-end;width:64px;height:140px}\n"
    << ".bar{width:34px}.bar.ok{background:#4c9a5f}.bar.fail{background:#c8473d}\n"
    << ".n{font-size:.7em}.lab{font-size:.65em;white-space:nowrap}\n"
    << "table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;"
       "vertical-align:top}\n"
    << "tr.fail td{background:#fbeceb}code{font-size:.9em}\n"
    << "</style>\n</head>\n<body>\n"
    << "<h1>ptodiff device judgement: <span class=\"verdict-" << (r.pass() ? "pass" : "fail") << "\">"
    << (r.pass() ? "pass" : "fail") << "</span></h1>\n"
    << "<p id=\"summary\">" << escapeXml(summaryLine(r)) << ". Outputs: <code>" << escapeXml(r.outputs) << "</code>"
    << (r.runner.empty() ? "" : ", runner: <code>" + escapeXml(r.runner) + "</code>") << ".</p>\n"
    << "<p>Each judged element contributes r = |y &minus; v| / (e + tiny): y the device's value, v the oracle's, e its "
       "bound under the tolerance profile. Green buckets (r &le; 1) pass, red ones fail. Elements the program does "
       "not write are checked against their initial bits instead (sentinel).</p>\n";
  h << "<h2>Per dtype</h2>\n<div class=\"hists\" id=\"by-dtype\">\n";
  for (const auto& [name, hist] : r.byDtype) h << htmlHistogram(name, hist);
  h << "</div>\n<h2>Per op</h2>\n<div class=\"hists\" id=\"by-op\">\n";
  for (const auto& [name, hist] : r.byOp) h << htmlHistogram(name, hist);
  h << "</div>\n<h2>Sub-cases (failing first)</h2>\n<table id=\"subcases\">\n"
    << "<tr><th>bundle</th><th>sub-case</th><th>verdict</th><th>scalars</th><th>worst r</th><th>detail</th></tr>\n";
  std::vector<const SubcaseJudgement*> order;
  for (const SubcaseJudgement& s : r.subcases) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(),
                   [](const SubcaseJudgement* a, const SubcaseJudgement* b) { return !a->pass() && b->pass(); });
  for (const SubcaseJudgement* s : order) {
    double worst = 0.0;
    for (const TensorJudgement& t : s->tensors) worst = std::max(worst, t.worstRatio);
    h << "<tr class=\"" << (s->pass() ? "pass" : "fail") << "\"><td>" << escapeXml(s->bundle) << "</td><td>"
      << escapeXml(s->subcase) << "</td><td>" << subcaseVerdictName(s->verdict) << "</td><td>" << escapeXml(s->scalars)
      << "</td><td>" << number(worst) << "</td><td>" << escapeXml(s->detail)
      << (s->pass() ? "" : "<br><code>" + escapeXml(s->replay) + "</code>") << "</td></tr>\n";
  }
  h << "</table>\n</body>\n</html>\n";
  return h.str();
}

void writeDeviceReports(const DeviceReport& r, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  auto write = [&](const char* name, const std::string& text) {
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throwError((dir / name).string(), {}, "cannot write the report");
  };
  write("device.json", deviceJson(r));
  write("device.md", deviceMarkdown(r));
  write("junit.xml", deviceJunit(r));
  write("device.html", deviceHtml(r));
}

}  // namespace ptodiff::device
