#include "fuzz/campaign/Report.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>
#include <stdexcept>

#include "fuzz/campaign/AtomicFiles.h"
#include "fuzz/campaign/Digest.h"
#include "fuzz/campaign/Reproducer.h"

namespace ptodiff::fuzz {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

ordered_json verdictJson(const Verdict& v) {
  return {{"kind", v.kind}, {"hazard", v.hazard}, {"stage", v.stage}, {"op", v.op},
          {"planner", v.planner}, {"detail", v.detail}, {"scalar_set", v.scalarSet}};
}

/// Reads field `key` of `j` as T, or throws naming the file and the field.
template <class T>
T field(const ordered_json& j, const char* key, const std::string& fileName) {
  if (!j.is_object() || !j.contains(key)) throw std::runtime_error(fileName + ": missing field '" + key + "'");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(fileName + ": field '" + std::string(key) + "' has the wrong type");
  }
}

Verdict verdictFromJson(const ordered_json& j, const std::string& fileName) {
  Verdict v;
  v.kind = field<std::string>(j, "kind", fileName);
  v.hazard = field<std::string>(j, "hazard", fileName);
  v.stage = field<std::string>(j, "stage", fileName);
  v.op = field<std::string>(j, "op", fileName);
  v.planner = field<std::string>(j, "planner", fileName);
  v.detail = field<std::string>(j, "detail", fileName);
  v.scalarSet = field<size_t>(j, "scalar_set", fileName);
  return v;
}

ordered_json readJsonFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path.string() + "'");
  ordered_json j = ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw std::runtime_error("'" + path.string() + "' is not valid JSON");
  return j;
}

ordered_json configJson(const CampaignConfig& c) {
  ordered_json j;
  j["seed"] = c.seed;
  j["cases"] = c.cases ? ordered_json(*c.cases) : ordered_json(nullptr);
  j["time_seconds"] = c.timeSeconds ? ordered_json(*c.timeSeconds) : ordered_json(nullptr);
  j["jobs"] = c.jobs;
  j["planners"] = c.planners;
  j["target"] = c.target;
  j["features"] = c.gen.features ? c.gen.features->toString() : std::string("swarm");
  j["shard"] = std::to_string(c.shardIndex) + "/" + std::to_string(c.shardCount);
  j["step_budget"] = c.stepBudget;
  j["shrink_seconds"] = c.shrinkSeconds;
  j["stop_on_failure"] = c.stopOnFailure;
  j["inject_fault"] = c.injectFault.empty() ? ordered_json(nullptr) : ordered_json(c.injectFault);
  j["symbolic_every"] = c.symbolicEvery;
  j["fingerprint"] = configFingerprint(c);
  return j;
}

std::string xmlEscape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += ch;
    }
  }
  return out;
}

ordered_json reportFrom(ordered_json config, const CampaignState& state, int jobs) {
  ordered_json j;
  j["config"] = std::move(config);
  j["jobs"] = jobs;
  j["cases_per_second"] = casesPerSecond(state);
  ordered_json body = stateToJson(state);
  for (auto it = body.begin(); it != body.end(); ++it) j[it.key()] = it.value();
  // Signatures in first-case order for people; stateToJson keeps the same entries.
  ordered_json sigs = ordered_json::array();
  for (const SignatureRecord* r : signaturesInCaseOrder(state))
    for (const ordered_json& s : body["signatures"])
      if (s["signature"] == r->signature) sigs.push_back(s);
  j["signatures"] = sigs;
  return j;
}

std::string markdownFrom(const ordered_json& report) {
  std::ostringstream md;
  const ordered_json& c = report["config"];
  md << "# ptodiff fuzz campaign\n\n"
     << "| | |\n|---|---|\n"
     << "| seed | " << c["seed"].dump() << " |\n"
     << "| shard | " << c["shard"].get<std::string>() << " |\n"
     << "| planners | " << c["planners"].dump() << " |\n"
     << "| target | " << c["target"].get<std::string>() << " |\n"
     << "| features | " << c["features"].get<std::string>() << " |\n"
     << "| cases | " << report["cases"].dump() << " |\n"
     << "| failing cases | " << report["failures"].dump() << " |\n"
     << "| distinct signatures | " << report["signatures"].size() << " |\n"
     << "| cases per second | " << std::fixed << std::setprecision(1) << report["cases_per_second"].get<double>()
     << " (" << report["jobs"].dump() << " jobs) |\n"
     << "| interpreter runs | " << report["interpreter_runs"].dump() << " |\n"
     << "| elapsed | " << report["elapsed_seconds"].get<double>() << " s |\n";
  if (report.contains("first_failing_case") && !report["first_failing_case"].is_null())
    md << "| first failing case | " << report["first_failing_case"].dump() << " (after "
       << report["first_failure_seconds"].get<double>() << " s) |\n";
  md
     << "| verdict digest | `" << report["verdict_digest"].get<std::string>() << "` |\n\n";
  md << "## Signatures\n\n";
  if (report["signatures"].empty()) md << "None: every case passed.\n\n";
  else {
    md << "| signature | count | first case | statements (generated → shrunk) | replay |\n|---|---|---|---|---|\n";
    for (const ordered_json& s : report["signatures"])
      md << "| `" << s["signature"].get<std::string>() << "` | " << s["count"].dump() << " | "
         << s["first_case"].dump() << " | " << s["statements_before"].dump() << " → "
         << s["statements_after"].dump() << " | `" << s["replay"].get<std::string>() << "` |\n";
    md << "\n";
  }
  md << "## Feature coverage (cases whose swarm subset held the feature)\n\n| feature | cases |\n|---|---|\n";
  for (auto it = report["feature_coverage"].begin(); it != report["feature_coverage"].end(); ++it)
    md << "| " << it.key() << " | " << it.value().dump() << " |\n";
  // Steady-clock phase times: "compile" is the lowering with verify-each, "tile"/"planned"/"buffer"
  // the interpreters, "oracle" the reference evaluation, "shrinking" the minimizer.
  md << "\n## Where the time goes (seconds summed over workers)\n\n| phase | seconds | share |\n|---|---|---|\n";
  double total = 0.0;
  for (auto it = report["phase_seconds"].begin(); it != report["phase_seconds"].end(); ++it)
    total += it.value().get<double>();
  for (auto it = report["phase_seconds"].begin(); it != report["phase_seconds"].end(); ++it) {
    const double seconds = it.value().get<double>();
    md << "| " << it.key() << " | " << std::fixed << std::setprecision(2) << seconds << " | " << std::setprecision(1)
       << (total > 0.0 ? 100.0 * seconds / total : 0.0) << "% |\n";
    md.unsetf(std::ios::floatfield);
  }
  return md.str();
}

std::string junitFrom(const CampaignState& state) {
  std::ostringstream x;
  const auto sigs = signaturesInCaseOrder(state);
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<testsuites>\n<testsuite name=\"ptodiff-fuzz\" tests=\"" << std::max<size_t>(sigs.size(), 1)
    << "\" failures=\"" << sigs.size() << "\" errors=\"0\" time=\"" << std::fixed << std::setprecision(3)
    << state.elapsedSeconds << "\">\n";
  if (sigs.empty())
    x << "  <testcase classname=\"ptodiff.fuzz\" name=\"campaign (" << state.cases << " cases)\"/>\n";
  for (const SignatureRecord* r : sigs) {
    x << "  <testcase classname=\"ptodiff.fuzz." << xmlEscape(r->first.kind) << "\" name=\""
      << xmlEscape(r->signature) << "\">\n"
      << "    <failure message=\"" << xmlEscape(r->first.detail) << "\" type=\"" << xmlEscape(r->first.kind)
      << "\">first case " << r->firstCase << " (case seed " << r->firstCaseSeed << "), seen " << r->count
      << " times\n" << xmlEscape(r->replayCommand) << "</failure>\n  </testcase>\n";
  }
  x << "</testsuite>\n</testsuites>\n";
  return x.str();
}

void writeReportFiles(const fs::path& out, const ordered_json& report, const CampaignState& state) {
  checkWritableFolder(out);
  writeFileAtomically(out / "report.json", report.dump(2) + "\n");
  writeFileAtomically(out / "report.md", markdownFrom(report));
  writeFileAtomically(out / "junit.xml", junitFrom(state));
}

}  // namespace

ordered_json stateToJson(const CampaignState& s) {
  ordered_json j;
  j["fingerprint"] = s.fingerprint;
  j["next_local"] = s.nextLocal;
  j["cases"] = s.cases;
  j["failures"] = s.failingCases;
  j["out_of_contract_cases"] = s.outOfContractCases;
  j["interpreter_runs"] = s.interpreterRuns;
  j["verdict_digest"] = hex64(s.verdictDigest);
  j["verdict_counts"] = s.verdictCounts;
  ordered_json coverage = ordered_json::object();
  for (Feature f : allFeatures()) coverage[std::string(featureName(f))] = s.featureCases[static_cast<size_t>(f)];
  j["feature_coverage"] = coverage;
  ordered_json sigs = ordered_json::array();
  for (const auto& [sig, r] : s.signatures)
    sigs.push_back({{"signature", sig},
                    {"kind", r.first.kind},
                    {"hazard", r.first.hazard},
                    {"stage", r.first.stage},
                    {"op", r.first.op},
                    {"planner", r.first.planner},
                    {"first_case", r.firstCase},
                    {"first_case_seed", r.firstCaseSeed},
                    {"count", r.count},
                    {"reproducer", r.reproducer},
                    {"statements_before", r.statementsBefore},
                    {"statements_after", r.statementsAfter},
                    {"replay", r.replayCommand},
                    {"verdict", verdictJson(r.first)}});
  j["signatures"] = sigs;
  j["phase_seconds"] = s.phaseSeconds;
  j["elapsed_seconds"] = s.elapsedSeconds;
  j["first_failing_case"] = s.firstFailingCase ? ordered_json(*s.firstFailingCase) : ordered_json(nullptr);
  j["first_failure_seconds"] = s.firstFailureSeconds ? ordered_json(*s.firstFailureSeconds) : ordered_json(nullptr);
  j["runs"] = s.runs;
  return j;
}

CampaignState stateFromJson(const ordered_json& j, const std::string& fileName) {
  CampaignState s;
  s.fingerprint = field<std::string>(j, "fingerprint", fileName);
  s.nextLocal = field<uint64_t>(j, "next_local", fileName);
  s.cases = field<uint64_t>(j, "cases", fileName);
  s.failingCases = field<uint64_t>(j, "failures", fileName);
  s.outOfContractCases = field<uint64_t>(j, "out_of_contract_cases", fileName);
  s.interpreterRuns = field<uint64_t>(j, "interpreter_runs", fileName);
  s.verdictDigest = std::stoull(field<std::string>(j, "verdict_digest", fileName), nullptr, 16);
  s.verdictCounts = field<std::map<std::string, uint64_t>>(j, "verdict_counts", fileName);
  const auto coverage = field<std::map<std::string, uint64_t>>(j, "feature_coverage", fileName);
  for (const auto& [name, n] : coverage)
    if (auto f = parseFeature(name)) s.featureCases[static_cast<size_t>(*f)] = n;
  for (const ordered_json& e : field<ordered_json>(j, "signatures", fileName)) {
    SignatureRecord r;
    r.signature = field<std::string>(e, "signature", fileName);
    r.first = verdictFromJson(field<ordered_json>(e, "verdict", fileName), fileName);
    r.firstCase = field<uint64_t>(e, "first_case", fileName);
    r.firstCaseSeed = field<uint64_t>(e, "first_case_seed", fileName);
    r.count = field<uint64_t>(e, "count", fileName);
    r.reproducer = field<std::string>(e, "reproducer", fileName);
    r.statementsBefore = field<int64_t>(e, "statements_before", fileName);
    r.statementsAfter = field<int64_t>(e, "statements_after", fileName);
    r.replayCommand = field<std::string>(e, "replay", fileName);
    s.signatures[r.signature] = r;
  }
  s.phaseSeconds = field<std::map<std::string, double>>(j, "phase_seconds", fileName);
  s.elapsedSeconds = field<double>(j, "elapsed_seconds", fileName);
  // Absent from the outputs of older versions; null until a case fails.
  if (j.contains("first_failing_case") && !j.at("first_failing_case").is_null())
    s.firstFailingCase = field<uint64_t>(j, "first_failing_case", fileName);
  if (j.contains("first_failure_seconds") && !j.at("first_failure_seconds").is_null())
    s.firstFailureSeconds = field<double>(j, "first_failure_seconds", fileName);
  s.runs = field<uint64_t>(j, "runs", fileName);
  return s;
}

void writeCheckpoint(const fs::path& outDir, const CampaignConfig& config, const CampaignState& state) {
  ordered_json j;
  j["shard_index"] = config.shardIndex;
  j["shard_count"] = config.shardCount;
  j["state"] = stateToJson(state);
  writeFileAtomically(outDir / "checkpoint.json", j.dump(1) + "\n");
}

CampaignState readCheckpoint(const fs::path& outDir, const CampaignConfig& config) {
  const fs::path path = outDir / "checkpoint.json";
  if (!fs::exists(path)) throw std::runtime_error("--resume: no checkpoint at '" + path.string() + "'");
  const ordered_json j = readJsonFile(path);
  const std::string name = path.string();
  if (field<uint64_t>(j, "shard_index", name) != config.shardIndex ||
      field<uint64_t>(j, "shard_count", name) != config.shardCount)
    throw std::runtime_error("--resume: '" + name + "' belongs to shard " +
                             std::to_string(field<uint64_t>(j, "shard_index", name)) + "/" +
                             std::to_string(field<uint64_t>(j, "shard_count", name)));
  CampaignState s = stateFromJson(field<ordered_json>(j, "state", name), name);
  if (s.fingerprint != configFingerprint(config))
    throw std::runtime_error("--resume: '" + name + "' was written by another configuration: " + s.fingerprint);
  return s;
}

double casesPerSecond(const CampaignState& s) {
  return s.elapsedSeconds > 0.0 ? static_cast<double>(s.cases) / s.elapsedSeconds : 0.0;
}

std::vector<const SignatureRecord*> signaturesInCaseOrder(const CampaignState& s) {
  std::vector<const SignatureRecord*> out;
  for (const auto& [sig, r] : s.signatures) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const SignatureRecord* a, const SignatureRecord* b) {
    return a->firstCase < b->firstCase;
  });
  return out;
}

ordered_json reportJson(const CampaignConfig& config, const CampaignState& state) {
  return reportFrom(configJson(config), state, config.jobs);
}

std::string reportMarkdown(const CampaignConfig& config, const CampaignState& state) {
  return markdownFrom(reportJson(config, state));
}

std::string junitXml(const CampaignState& state) { return junitFrom(state); }

void writeReports(const CampaignConfig& config, const CampaignState& state) {
  writeReportFiles(config.outDir, reportJson(config, state), state);
}

CampaignState mergeShards(const std::vector<fs::path>& shardDirs, const fs::path& outDir) {
  if (shardDirs.empty()) throw std::runtime_error("merge: no shard folders");
  struct Shard {
    fs::path dir;
    ordered_json report;
    CampaignState state;
    uint64_t index = 0, count = 0;
  };
  std::vector<Shard> shards;
  for (const fs::path& dir : shardDirs) {
    Shard s;
    s.dir = dir;
    s.report = readJsonFile(dir / "report.json");
    const std::string name = (dir / "report.json").string();
    s.state = stateFromJson(s.report, name);
    const std::string shard = field<std::string>(field<ordered_json>(s.report, "config", name), "shard", name);
    const size_t slash = shard.find('/');
    if (slash == std::string::npos) throw std::runtime_error(name + ": config.shard is not K/N");
    s.index = std::stoull(shard.substr(0, slash));
    s.count = std::stoull(shard.substr(slash + 1));
    shards.push_back(std::move(s));
  }
  std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) { return a.index < b.index; });
  CampaignState merged;
  merged.fingerprint = shards.front().state.fingerprint;
  merged.verdictDigest = kFnvOffset;
  merged.runs = 0;
  std::set<uint64_t> seen;
  int jobs = 0;
  double throughput = 0.0;
  checkWritableFolder(outDir);
  checkWritableFolder(outDir / "repro");
  for (const Shard& s : shards) {
    if (s.state.fingerprint != merged.fingerprint)
      throw std::runtime_error("merge: '" + s.dir.string() + "' ran another configuration");
    if (s.count != shards.front().count)
      throw std::runtime_error("merge: '" + s.dir.string() + "' has another shard count");
    if (!seen.insert(s.index).second)
      throw std::runtime_error("merge: shard " + std::to_string(s.index) + " appears twice ('" + s.dir.string() + "')");
    const CampaignState& st = s.state;
    merged.cases += st.cases;
    merged.failingCases += st.failingCases;
    merged.outOfContractCases += st.outOfContractCases;
    merged.interpreterRuns += st.interpreterRuns;
    merged.runs += st.runs;
    merged.elapsedSeconds = std::max(merged.elapsedSeconds, st.elapsedSeconds);
    // Shards run side by side: the campaign's first failure is the earliest case of any shard, and
    // it knew of a failure as soon as the quickest shard did.
    if (st.firstFailingCase && (!merged.firstFailingCase || *st.firstFailingCase < *merged.firstFailingCase))
      merged.firstFailingCase = st.firstFailingCase;
    if (st.firstFailureSeconds && (!merged.firstFailureSeconds || *st.firstFailureSeconds < *merged.firstFailureSeconds))
      merged.firstFailureSeconds = st.firstFailureSeconds;
    merged.verdictDigest =
        fnv1a(std::to_string(s.index) + " " + hex64(st.verdictDigest) + "\n", merged.verdictDigest);
    for (const auto& [k, n] : st.verdictCounts) merged.verdictCounts[k] += n;
    for (size_t f = 0; f < merged.featureCases.size(); ++f) merged.featureCases[f] += st.featureCases[f];
    for (const auto& [p, t] : st.phaseSeconds) merged.phaseSeconds[p] += t;
    jobs += s.report.value("jobs", 0);
    throughput += casesPerSecond(st);
    for (const auto& [sig, r] : st.signatures) {
      auto [it, isNew] = merged.signatures.try_emplace(sig, r);
      if (!isNew) {
        it->second.count += r.count;
        if (r.firstCase >= it->second.firstCase) continue;
        const uint64_t count = it->second.count;
        it->second = r;
        it->second.count = count;
      }
      if (!r.reproducer.empty()) {
        // The merged folder is self-contained: the earliest shard's reproducer is copied in.
        const fs::path target = outDir / r.reproducer;
        const fs::path source = s.dir / r.reproducer;
        writeFolderAtomically(target, [&](const fs::path& temp) { fs::copy(source, temp, fs::copy_options::recursive); });
        const size_t options = r.replayCommand.find(" --");
        it->second.replayCommand =
            replayCommand(target) + (options == std::string::npos ? "" : r.replayCommand.substr(options));
      }
    }
  }
  ordered_json config = shards.front().report["config"];
  std::string indices;
  for (const Shard& s : shards) indices += (indices.empty() ? "" : ",") + std::to_string(s.index);
  config["shard"] = "merged " + indices + " of " + std::to_string(shards.front().count);
  config["jobs"] = jobs;
  ordered_json report = reportFrom(config, merged, jobs);
  // Shards run side by side, so the campaign's throughput is the sum of theirs.
  report["cases_per_second"] = throughput;
  report["merged_shards"] = shards.size();
  writeReportFiles(outDir, report, merged);
  return merged;
}

}  // namespace ptodiff::fuzz
