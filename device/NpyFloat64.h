// float64 .npy arrays (`<f8`, C order, rank 2) for a bundle's oracle values and bounds.
//
// interp/Npy.h exchanges tensors in their element dtype; the oracle's reference value `v` and bound
// `e` are float64 and lose meaning when rounded into the dtype (a bound of half an ulp would round
// to 0 or 1 ulp), so they travel as `<f8`. Reading is strict: version 1.0 headers as NumPy writes
// them for `<f8`, lengths checked against the file size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ptodiff::device {

struct Float64Array {
  int64_t rows = 0, cols = 0;
  std::vector<double> values;  // row-major
};

/// Writes `a` as a `<f8` array of shape (rows, cols). Throws DiagnosticError naming the file.
void writeNpyFloat64(const std::string& path, const Float64Array& a);
/// Reads a `<f8` array of rank 1 (as [1, n]) or 2. Throws DiagnosticError naming the file.
Float64Array readNpyFloat64(const std::string& path);

}  // namespace ptodiff::device
