#include "oracle/Compare.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "oracle/ElementDecode.h"
#include "oracle/ErrorBound.h"

namespace ptodiff::oracle {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The judgement of one written, defined, judgeable float element.
struct Judgement {
  bool pass = true;
  const char* reason = "";
  double ulps = 0.0;         // 0 when the element passes
  double ratio = 0.0;       // |y - v| / e
  double slackRatio = 0.0;  // |y - v| / (e + tiny), the margin measure
};

const char* classMismatch(double y, double v) {
  if (std::isnan(v)) return std::isinf(y) ? "Inf where the reference is NaN" : "a number where the reference is NaN";
  if (std::isinf(v)) {
    if (std::isnan(y)) return "NaN where the reference is Inf";
    if (std::isinf(y)) return "Inf of the wrong sign";
    return "a finite number where the reference is Inf";
  }
  return std::isnan(y) ? "NaN where the reference is finite" : "Inf where the reference is finite";
}

Judgement judgeFloat(double y, double v, double e, const FloatFormat& f) {
  Judgement j;
  const bool ySpecial = !std::isfinite(y), vSpecial = !std::isfinite(v);
  if (ySpecial || vSpecial) {
    // Specials are equal only in class (and, for Inf, in sign); NaN is never close to a number.
    const bool same = (std::isnan(y) && std::isnan(v)) || (std::isinf(y) && std::isinf(v) && y == v);
    if (same) return j;
    j.pass = false;
    j.reason = classMismatch(y, v);
    j.ulps = kInf;
    j.ratio = kInf;
    j.slackRatio = kInf;
    return j;
  }
  const double diff = std::fabs(y - v);
  const double tiny = f.smallestNormal;  // absolute slack for underflow
  j.pass = diff <= e + tiny;
  j.reason = j.pass ? "" : "outside the bound";
  j.ulps = j.pass ? 0.0 : diff / ulpOf(v, f);  // reported for failures only
  j.ratio = diff == 0.0 ? 0.0 : (e > 0.0 ? diff / e : kInf);
  j.slackRatio = diff / (e + tiny);
  return j;
}

std::string number(double x, int digits) {
  std::ostringstream os;
  os << std::setprecision(digits) << x;
  return os.str();
}

}  // namespace

TensorVerdict compareWithOracle(const Tensor& y, const OracleTensor& ref) {
  if (y.dtype != ref.dtype || y.rows != ref.rows || y.cols != ref.cols)
    throw std::logic_error("compareWithOracle: '" + ref.name + "' is " + std::string(dtypeName(y.dtype)) + " [" +
                           std::to_string(y.rows) + ", " + std::to_string(y.cols) + "] but its reference is " +
                           std::string(dtypeName(ref.dtype)) + " [" + std::to_string(ref.rows) + ", " +
                           std::to_string(ref.cols) + "]");
  TensorVerdict verdict;
  verdict.name = ref.name;
  verdict.dtype = ref.dtype;
  const bool floats = isFloat(ref.dtype);
  const FloatFormat format = floats ? floatFormat(ref.dtype) : FloatFormat{};
  for (int64_t i = 0; i < ref.elements(); ++i) {
    const auto at = static_cast<size_t>(i);
    if (!ref.written[at]) continue;  // the sentinel check's business
    if (ref.poison[at]) {
      if (verdict.poisonWritten++ == 0) verdict.firstPoison = std::array<int64_t, 2>{i / ref.cols, i % ref.cols};
      continue;
    }
    // Most elements pass; the failure record is made only for the first one that does not.
    double yv, v, e = 0.0;
    Judgement j;
    if (floats) {
      v = ref.value[at];
      e = ref.bound[at];
      if (isUnjudgeable({v, e})) {
        ++verdict.unjudgeable;
        continue;
      }
      yv = decodeFloatBits(ref.dtype, y.bitsAt(i));
      j = judgeFloat(yv, v, e, format);
      if (std::isfinite(j.slackRatio) && j.slackRatio > verdict.worstRatio) verdict.worstRatio = j.slackRatio;
    } else {
      const int64_t yi = decodeIntegerBits(ref.dtype, y.bitsAt(i));
      const int64_t vi = ref.integer[at];
      yv = static_cast<double>(yi);
      v = static_cast<double>(vi);
      j.pass = yi == vi;
      j.ulps = std::fabs(yv - v);
      j.ratio = j.pass ? 0.0 : kInf;
      j.reason = j.pass ? "" : "integer results must be exact";
    }
    ++verdict.judged;
    if (j.pass || verdict.failing++ > 0) continue;
    verdict.firstFailure = ElementFailure{i / ref.cols, i % ref.cols, yv, v, e, j.ulps, j.ratio, ref.chain[at], j.reason};
  }
  return verdict;
}

std::vector<TensorVerdict> compareOutputs(const Function& kernel, const KernelArgs& outputs,
                                          const std::map<std::string, OracleTensor>& reference) {
  std::vector<TensorVerdict> verdicts;
  for (const Param& p : kernel.params) {
    if (!p.type.isTensor() || p.direction == ParamDirection::In) continue;
    const auto y = outputs.tensors.find(p.name);
    const auto ref = reference.find(p.name);
    if (y == outputs.tensors.end() || ref == reference.end())
      throw std::logic_error("compareOutputs: no " + std::string(y == outputs.tensors.end() ? "computed" : "reference") +
                             " contents for output '" + p.name + "'");
    verdicts.push_back(compareWithOracle(y->second, ref->second));
  }
  return verdicts;
}

std::string describeVerdict(const TensorVerdict& v) {
  std::ostringstream os;
  os << v.name << ": ";
  if (v.invalidProgram()) {
    os << "invalid-program: " << v.poisonWritten << " written element(s) are poison under the Tile semantics; first at (row "
       << (*v.firstPoison)[0] << ", col " << (*v.firstPoison)[1] << ")";
    return os.str();
  }
  if (v.pass()) {
    os << "pass (" << v.judged << " judged";
    if (v.unjudgeable) os << ", " << v.unjudgeable << " not judgeable";
    os << ", worst |y - v|/(e + tiny) = " << number(v.worstRatio, 3) << ")";
    return os.str();
  }
  const ElementFailure& f = *v.firstFailure;
  os << v.failing << " of " << v.judged << " judged element(s) fail the oracle (" << dtypeName(v.dtype) << "); first at (row "
     << f.row << ", col " << f.col << "): " << f.reason << ": y = " << number(f.y, 9) << ", v = " << number(f.v, 17)
     << ", e = " << number(f.e, 3) << ", " << number(f.ulps, 3) << " ulps, |y - v|/e = " << number(f.ratio, 3)
     << ", op chain " << f.chain;
  if (v.unjudgeable) os << " (" << v.unjudgeable << " element(s) not judgeable)";
  return os.str();
}

}  // namespace ptodiff::oracle
