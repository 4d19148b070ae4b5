// Judging device outputs (docs/device.md, "Judging"): per bundle and sub-case, the runner's status,
// then per Out/InOut tensor the output file (present, readable, the parameter's dtype and shape),
// the sentinel check (every element the program does not write keeps its initial bits) and the
// oracle comparison under the tolerance profile (integers exact; oracle/Compare.h).
//
// The judge recomputes the oracle from program.py, inputs/, initial/ and the sub-case's scalars
// (so `--tolerance-profile` can judge under another profile than the bundle was exported with) and
// checks that the program's written mask equals the bundle's written/ file (a stale bundle is bad
// input). Every judged element's |y - v| / (e + tiny) lands in a histogram per op and per dtype.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptodiff::device {

/// A sub-case's verdict: the first failing of these, in this order.
enum class SubcaseVerdict : uint8_t { Pass, RunnerFailure, MissingOutput, BadOutput, Sentinel, Oracle };
/// "pass", "runner-failure", "missing-output", "bad-output", "sentinel", "oracle".
std::string_view subcaseVerdictName(SubcaseVerdict v);

/// Buckets of r = |y - v| / (e + tiny): 0, (0, 1/64], (1/64, 1/16], (1/16, 1/4], (1/4, 1/2], (1/2, 1]
/// pass; (1, 2], (2, 16], > 16 (a NaN or Inf against a finite reference included) fail.
inline constexpr int kRatioBuckets = 9;
inline constexpr int kFirstFailingBucket = 6;
std::string_view ratioBucketLabel(int bucket);
int ratioBucket(double ratio);

struct Histogram {
  std::array<int64_t, kRatioBuckets> counts{};
  int64_t unjudgeable = 0;  // written elements with e = +inf
  double worst = 0.0;       // the largest finite ratio seen (class mismatches count in > 16 only)
  int64_t total() const;
  int64_t failing() const;
};

struct TensorJudgement {
  std::string name;
  std::string dtype;
  std::string op;  // OutputOps.h label
  int64_t elements = 0, written = 0, judged = 0, failing = 0, unjudgeable = 0;
  int64_t sentinelChanged = 0;
  double worstRatio = 0.0;  // max |y - v| / (e + tiny); +inf when a NaN/Inf meets a finite reference
  SubcaseVerdict verdict = SubcaseVerdict::Pass;
  std::string detail;  // the failure, one line; empty when the tensor passes
};

struct SubcaseJudgement {
  std::string bundle, subcase;
  SubcaseVerdict verdict = SubcaseVerdict::Pass;
  std::string detail;  // the first failure (runner message, file problem, sentinel, oracle)
  std::string scalars;  // "n=2, f=true"
  std::vector<std::string> covers;
  std::string replay;
  std::string profile;
  std::vector<TensorJudgement> tensors;
  bool pass() const { return verdict == SubcaseVerdict::Pass; }
};

struct DeviceReport {
  std::string outputs;  // the folder judged
  std::string runner;   // from run.json, when there is one
  std::vector<SubcaseJudgement> subcases;  // bundles in order, sub-cases in manifest order
  std::map<std::string, Histogram> byOp, byDtype;
  size_t bundles = 0;
  size_t count(SubcaseVerdict v) const;
  size_t failing() const { return subcases.size() - count(SubcaseVerdict::Pass); }
  bool pass() const { return failing() == 0; }
};

struct JudgeOptions {
  std::string toleranceProfile;  // empty: each bundle's own profile (a built-in name)
};

/// Judges every bundle against OUTPUTS/<bundle>/<sub>/NAME.npy. A bundle that cannot be read, a
/// profile that cannot be resolved or a stale bundle throws DiagnosticError (bad input); everything
/// a runner or device did wrong is a verdict.
DeviceReport judgeBundles(const std::vector<std::filesystem::path>& bundles, const std::filesystem::path& outputs,
                          const JudgeOptions& options);

}  // namespace ptodiff::device
