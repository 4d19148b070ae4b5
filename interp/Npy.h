// .npy read/write (NumPy format 1.0/2.0/3.0, C order) for the dtypes ptodiff exchanges:
// `<f4` FP32, `<f2` FP16, `<i4` INT32, `|i1` INT8, `|u1` UINT8, `|b1` bool, and `<u2` for BF16
// raw bits. Anything else (Fortran order, other dtypes, rank other than 1 or 2, truncated data)
// is rejected with a DiagnosticError naming the file and what was expected.
#pragma once

#include <string>
#include <string_view>

#include "interp/Tensor.h"

namespace ptodiff {

/// Reads a 2-D array (a 1-D array of n elements reads as [1, n]). `<u2` reads as BF16 bits. A header
/// or an array past the resource limits (compiler/ir/ResourceLimits.h) is refused before allocating.
Tensor readNpy(const std::string& path);
/// readNpy on the bytes of a whole file held in memory; `name` stands for the file in diagnostics.
Tensor readNpyBytes(std::string_view bytes, const std::string& name);
/// Writes the tensor's bits with the dtype's descr (BF16 as `<u2`); poison is not written.
void writeNpy(const std::string& path, const Tensor& t);
/// Writes the tensor's poison flags as a `|b1` array of the same shape.
void writeNpyPoison(const std::string& path, const Tensor& t);

}  // namespace ptodiff
