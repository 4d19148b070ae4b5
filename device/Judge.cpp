#include "device/Judge.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "compiler/target/Target.h"
#include "device/Bundle.h"
#include "device/OutputOps.h"
#include "device/Runner.h"
#include "interp/Npy.h"
#include "oracle/Differential.h"
#include "oracle/ElementDecode.h"
#include "oracle/ErrorBound.h"
#include "oracle/Oracle.h"

namespace ptodiff::device {

namespace fs = std::filesystem;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// |y - v| / (e + tiny) of one written, defined, judgeable element (0 for a matching special or
/// an equal integer, +inf for a class mismatch or an unequal integer).
double elementRatio(DType dt, uint64_t bits, double v, double e) {
  if (!isFloat(dt)) return static_cast<double>(oracle::decodeIntegerBits(dt, bits)) == v ? 0.0 : kInf;
  const double y = oracle::decodeFloatBits(dt, bits);
  if (!std::isfinite(y) || !std::isfinite(v)) {
    const bool same = (std::isnan(y) && std::isnan(v)) || (std::isinf(y) && std::isinf(v) && y == v);
    return same ? 0.0 : kInf;
  }
  return std::fabs(y - v) / (e + oracle::floatFormat(dt).smallestNormal);
}

std::string scalarsText(const Subcase& sub) {
  std::string out;
  for (const auto& [name, value] : sub.scalars) {
    std::ostringstream s;
    s << name << "=";
    switch (value.kind) {
      case CaseScalar::Kind::Bool: s << (value.b ? "true" : "false"); break;
      case CaseScalar::Kind::Float: s << value.f; break;
      case CaseScalar::Kind::Int: s << value.i; break;
    }
    out += (out.empty() ? "" : ", ") + s.str();
  }
  return out.empty() ? "(none)" : out;
}

class BundleJudge {
 public:
  BundleJudge(const fs::path& folder, const fs::path& outputs, const oracle::ToleranceProfile& profile,
              const RunnerResult* run, DeviceReport& report)
      : b_(loadBundle(folder)), outputs_(outputs), profile_(profile), run_(run), report_(report) {}

  void judge() {
    const Function& kernel = b_.kernel();
    const std::map<std::string, std::string> ops = outputOpLabels(kernel);
    const Target* target = findTarget(b_.manifest.target);
    RunConfig config;
    config.blockNum = b_.manifest.blockNum;
    config.stepBudget = b_.manifest.stepBudget;
    config.seed = b_.manifest.seed;
    if (target) config.target = target->kind;
    for (const Subcase& sub : b_.manifest.subcases) {
      SubcaseJudgement j;
      j.bundle = b_.folder.filename().string();
      j.subcase = sub.name;
      j.scalars = scalarsText(sub);
      j.covers = sub.covers;
      j.replay = sub.replay;
      j.profile = profile_.name;
      if (run_ && !run_->ok()) {
        j.verdict = SubcaseVerdict::RunnerFailure;
        j.detail = "the runner " + describeRunner(*run_) + "; outputs not judged";
        report_.subcases.push_back(std::move(j));
        continue;
      }
      const KernelArgs args = b_.argsFor(sub);
      const oracle::OracleResult ref = oracle::evaluateOracle(b_.program, kernel, args, config, profile_);
      if (ref.status != RunStatus::Ok)
        throwError((b_.folder / "manifest.json").string(), {},
                   "sub-case " + sub.name + ": the program does not run under the Tile semantics (" +
                       std::string(runStatusName(ref.status)) + "): " + ref.diagnostic.message);
      for (const Param& p : kernel.params) {
        if (!p.type.isTensor() || p.direction == ParamDirection::In) continue;
        TensorJudgement t = judgeTensor(sub, p, args.tensors.at(p.name), ref.tensors.at(p.name), ops.at(p.name));
        if (t.verdict != SubcaseVerdict::Pass && (j.verdict == SubcaseVerdict::Pass || t.verdict < j.verdict)) {
          j.verdict = t.verdict;
          j.detail = t.detail;
        }
        j.tensors.push_back(std::move(t));
      }
      report_.subcases.push_back(std::move(j));
    }
  }

 private:
  LoadedBundle b_;
  fs::path outputs_;
  const oracle::ToleranceProfile& profile_;
  const RunnerResult* run_;
  DeviceReport& report_;

  static std::string describeRunner(const RunnerResult& r) {
    std::string s = r.status == "timeout" ? "timed out"
                    : r.status == "signal" ? "was killed by signal " + std::to_string(r.signal)
                    : r.status == "error"  ? "could not start"
                                           : "exited with status " + std::to_string(r.exitCode);
    if (!r.message.empty()) {
      std::string last = r.message.substr(r.message.rfind('\n') == std::string::npos ? 0 : r.message.rfind('\n') + 1);
      s += " (" + last + ")";
    }
    return s;
  }

  /// The bundle's written/ mask must be the program's: a runner and a person read it.
  void checkWrittenMask(const Subcase& sub, const oracle::OracleTensor& ref) const {
    const std::string path = (b_.folder / subcasePath("written", sub.name, ref.name)).string();
    const Tensor mask = readNpy(path);
    bool same = mask.dtype == DType::BOOL && mask.rows == ref.rows && mask.cols == ref.cols;
    for (int64_t i = 0; same && i < ref.elements(); ++i)
      same = (mask.bitsAt(i) != 0) == (ref.written[static_cast<size_t>(i)] != 0);
    if (!same)
      throwError(path, {}, "the bundle's written mask differs from what program.py writes in sub-case " + sub.name +
                               " (a stale or edited bundle: export it again)");
  }

  TensorJudgement judgeTensor(const Subcase& sub, const Param& p, const Tensor& initial, const oracle::OracleTensor& ref,
                              const std::string& op) {
    checkWrittenMask(sub, ref);
    TensorJudgement t;
    t.name = p.name;
    t.dtype = std::string(dtypeName(p.type.dtype));
    t.op = op;
    t.elements = ref.elements();
    for (uint8_t w : ref.written) t.written += w;
    const fs::path file = outputs_ / b_.folder.filename() / sub.name / (p.name + ".npy");
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      t.verdict = SubcaseVerdict::MissingOutput;
      t.detail = p.name + ": the runner wrote no " + file.string();
      return t;
    }
    Tensor y;
    try {
      y = readNpy(file.string());
    } catch (const DiagnosticError& e) {
      t.verdict = SubcaseVerdict::BadOutput;
      t.detail = p.name + ": " + formatDiagnostic(e.diagnostic());
      while (!t.detail.empty() && t.detail.back() == '\n') t.detail.pop_back();
      return t;
    }
    if (y.dtype != p.type.dtype || y.rows != p.type.rows() || y.cols != p.type.cols()) {
      t.verdict = SubcaseVerdict::BadOutput;
      t.detail = p.name + ": " + file.string() + " holds " + std::string(dtypeName(y.dtype)) + " [" +
                 std::to_string(y.rows) + ", " + std::to_string(y.cols) + "]; the tensor is " + t.dtype + " [" +
                 std::to_string(p.type.rows()) + ", " + std::to_string(p.type.cols()) + "]";
      return t;
    }

    // Sentinel check: an element the program does not write keeps its initial bits.
    std::optional<int64_t> firstChanged;
    for (int64_t i = 0; i < t.elements; ++i) {
      if (ref.written[static_cast<size_t>(i)] || y.bitsAt(i) == initial.bitsAt(i)) continue;
      if (!firstChanged) firstChanged = i;
      ++t.sentinelChanged;
    }
    // Oracle comparison of the written elements.
    const oracle::TensorVerdict v = oracle::compareWithOracle(y, ref);
    t.judged = v.judged;
    t.failing = v.failing;
    t.unjudgeable = v.unjudgeable;
    // A NaN or Inf against a finite reference has no finite ratio but is the worst there is.
    t.worstRatio = v.failing > 0 && v.worstRatio <= 1.0 ? kInf : v.worstRatio;
    Histogram& byOp = report_.byOp[op];
    Histogram& byDtype = report_.byDtype[t.dtype];
    for (int64_t i = 0; i < t.elements; ++i) {
      const size_t k = static_cast<size_t>(i);
      if (!ref.written[k] || ref.poison[k]) continue;
      if (std::isinf(ref.bound[k])) {
        ++byOp.unjudgeable;
        ++byDtype.unjudgeable;
        continue;
      }
      const double r = elementRatio(p.type.dtype, y.bitsAt(i), ref.value[k], ref.bound[k]);
      for (Histogram* h : {&byOp, &byDtype}) {
        ++h->counts[static_cast<size_t>(ratioBucket(r))];
        if (std::isfinite(r)) h->worst = std::max(h->worst, r);
      }
    }
    if (firstChanged) {
      const int64_t i = *firstChanged;
      t.verdict = SubcaseVerdict::Sentinel;
      t.detail = p.name + ": " + std::to_string(t.sentinelChanged) +
                 " element(s) the program does not write changed; first at (row " + std::to_string(i / y.cols) +
                 ", col " + std::to_string(i % y.cols) + "): initial " +
                 oracle::describeElement(p.type.dtype, initial.bitsAt(i)) + ", got " +
                 oracle::describeElement(p.type.dtype, y.bitsAt(i));
    } else if (!v.pass()) {
      t.verdict = SubcaseVerdict::Oracle;
      t.detail = oracle::describeVerdict(v);
    }
    return t;
  }
};

}  // namespace

std::string_view subcaseVerdictName(SubcaseVerdict v) {
  switch (v) {
    case SubcaseVerdict::Pass: return "pass";
    case SubcaseVerdict::RunnerFailure: return "runner-failure";
    case SubcaseVerdict::MissingOutput: return "missing-output";
    case SubcaseVerdict::BadOutput: return "bad-output";
    case SubcaseVerdict::Sentinel: return "sentinel";
    case SubcaseVerdict::Oracle: return "oracle";
  }
  return "pass";
}

std::string_view ratioBucketLabel(int bucket) {
  static constexpr std::string_view kLabels[kRatioBuckets] = {"0",          "(0, 1/64]", "(1/64, 1/16]",
                                                              "(1/16, 1/4]", "(1/4, 1/2]", "(1/2, 1]",
                                                              "(1, 2]",     "(2, 16]",   "> 16"};
  return kLabels[bucket];
}

int ratioBucket(double r) {
  if (r == 0.0) return 0;
  static constexpr double kEdges[] = {1.0 / 64, 1.0 / 16, 1.0 / 4, 1.0 / 2, 1.0, 2.0, 16.0};
  for (int b = 0; b < 7; ++b)
    if (r <= kEdges[b]) return b + 1;
  return 8;  // > 16, NaN or Inf against a finite reference
}

int64_t Histogram::total() const {
  int64_t n = 0;
  for (int64_t c : counts) n += c;
  return n;
}

int64_t Histogram::failing() const {
  int64_t n = 0;
  for (int b = kFirstFailingBucket; b < kRatioBuckets; ++b) n += counts[static_cast<size_t>(b)];
  return n;
}

size_t DeviceReport::count(SubcaseVerdict v) const {
  size_t n = 0;
  for (const SubcaseJudgement& s : subcases) n += s.verdict == v;
  return n;
}

DeviceReport judgeBundles(const std::vector<fs::path>& bundles, const fs::path& outputs, const JudgeOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(outputs, ec)) throwError(outputs.string(), {}, "the outputs folder does not exist");
  DeviceReport report;
  report.outputs = outputs.string();
  report.bundles = bundles.size();
  const std::map<std::string, RunnerResult> runs = readRunResults(outputs);
  {
    std::ifstream in(outputs / "run.json");
    if (in) {
      const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
      if (j.is_object() && j.contains("runner") && j["runner"].is_string()) report.runner = j["runner"];
    }
  }
  std::map<std::string, oracle::ToleranceProfile> profiles;
  for (const fs::path& folder : bundles) {
    const Manifest m = readManifest(folder);
    const std::string profileName = options.toleranceProfile.empty() ? m.profile : options.toleranceProfile;
    if (!profiles.count(profileName)) {
      if (options.toleranceProfile.empty() && !oracle::builtinProfile(profileName))
        throwError((folder / "manifest.json").string(), {},
                   "the bundle was exported with tolerance profile \"" + profileName +
                       "\", which is not built in: judge it with --tolerance-profile FILE");
      profiles.emplace(profileName, oracle::resolveToleranceProfile(profileName));
    }
    auto run = runs.find(folder.filename().string());
    BundleJudge(folder, outputs, profiles.at(profileName), run == runs.end() ? nullptr : &run->second, report).judge();
  }
  return report;
}

}  // namespace ptodiff::device
