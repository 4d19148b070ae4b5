// Matrix mode (seed 000's system tests): one compiled program, several runtime-scalar sets, each
// its own sub-case of a bundle. For a program that comes without prepared sets (a program file, a
// campaign reproducer), the sets are derived from how the kernel uses each scalar parameter:
//
//   - the stop of a `pl.range` loop (or anything in a `while` condition): trip counts 0, 1, 2, 3
//     (start + k * step when start and step are literals);
//   - an `if` condition: a BOOL takes both values; an integer takes every literal it is compared
//     with, one below and one above, and 0 and 1 (so parity tests see both arms);
//   - a valid extent (tile.load/tile.slice `valid_shape`, tile.set_validshape): 0, half and the
//     full physical extent of that dimension (empty, partial, full valid region).
//
// The case's own set comes first; then the candidate lists are zipped (set i takes candidate
// i mod n of every scalar), which covers every candidate of every scalar in max(n) sets rather than
// their product. A set may make the program invalid (an extent past a window); the exporter runs
// each set under the Tile semantics and drops those, so a derived set never needs to be valid here.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/IR.h"
#include "compiler/text/CaseFile.h"
#include "interp/Tensor.h"

namespace ptodiff::device {

struct ScalarSet {
  std::map<std::string, CaseScalar> scalars;
  std::vector<std::string> covers;  // "n=0 (loop count)", "f=true (branch)", ...
};

/// The sets for `kernel` (verified: valid extents read the tile types the verifier filled). `base`
/// is the case's set; a scalar it lacks takes its first candidate. At most `maxSets` sets, the
/// base first, without duplicates.
std::vector<ScalarSet> deriveScalarSets(const Function& kernel, const std::map<std::string, CaseScalar>& base,
                                        size_t maxSets = 8);

/// The generator's prepared sets, as case scalars (INDEX/INT as integers, BOOL, FP32 as a float).
ScalarSet scalarSetOf(const std::map<std::string, ScalarValue>& values);

/// "n=2" / "f=true" / "s=0.5".
std::string describeScalar(const std::string& name, const CaseScalar& value);

}  // namespace ptodiff::device
