// Judging a computed tensor against the oracle (spec/oracle.md "Verdict detail").
//
// Only elements the Tile semantics *wrote* and left *defined* are judged (unwritten elements are
// the sentinel check's business, not the oracle's). An element passes when
//   - integer dtypes: y == v exactly;
//   - v is NaN (certain): y is NaN;   v is +-Inf (certain): y is the same Inf;
//   - v finite, e finite: y is finite and |y - v| <= e + tiny (tiny = the dtype's smallest normal);
//     a NaN or Inf y against a finite v always fails;
//   - e = +Inf (not judgeable): always (counted separately).
// A written element that is poison in the reference makes the case invalid-program, not a failure.
// The computed tensor's own poison flags are ignored here (an interpreter-side poison where the
// reference is defined is `hazard: uninit`, decided by the differ; devices have no poison).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/IR.h"
#include "interp/Tensor.h"
#include "oracle/OracleTensor.h"

namespace ptodiff::oracle {

/// The detail of one failing element.
struct ElementFailure {
  int64_t row = 0, col = 0;
  double y = 0.0;      // the computed value
  double v = 0.0;      // the reference value
  double e = 0.0;      // the reference bound
  double ulps = 0.0;   // |y - v| in ulps of the dtype at v (|y - v| for integers; +Inf on a class mismatch)
  double ratio = 0.0;  // |y - v| / e (+Inf when e = 0 or on a class mismatch)
  int32_t chain = 0;   // the op chain length behind the element
  std::string reason;  // "outside the bound", "NaN where the reference is finite", ...
};

struct TensorVerdict {
  std::string name;
  DType dtype = DType::FP32;
  int64_t judged = 0;         // written, defined, judgeable elements compared
  int64_t failing = 0;        // of those, outside the bound
  int64_t unjudgeable = 0;    // written and defined, but e = +Inf
  int64_t poisonWritten = 0;  // written elements the reference marks poison
  std::optional<ElementFailure> firstFailure;       // row-major first
  std::optional<std::array<int64_t, 2>> firstPoison;  // row-major first (row, col)
  double worstRatio = 0.0;  // max |y - v| / (e + tiny) over judged finite elements (<= 1 passes)

  bool invalidProgram() const { return poisonWritten > 0; }
  bool pass() const { return failing == 0 && poisonWritten == 0; }
};

/// Judges `y` against `ref`. Throws std::logic_error when their dtype or shape differ (a harness
/// bug: both come from the same kernel parameter).
TensorVerdict compareWithOracle(const Tensor& y, const OracleTensor& ref);

/// Judges every Out/InOut tensor parameter of `kernel` found in `outputs` (e.g. RunResult::final),
/// in parameter order. A parameter missing from `outputs` or `reference` is a std::logic_error.
std::vector<TensorVerdict> compareOutputs(const Function& kernel, const KernelArgs& outputs,
                                          const std::map<std::string, OracleTensor>& reference);

/// One line: "out: pass (512 judged)" or "out: 3 of 512 elements outside the oracle bound; first
/// at (row 2, col 5): y = ..., v = ..., e = ..., 4.0 ulps, |y - v|/e = 8.1, op chain 12".
std::string describeVerdict(const TensorVerdict& verdict);

}  // namespace ptodiff::oracle
