// The oracle's reference for one GM tensor after a launch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/DType.h"

namespace ptodiff::oracle {

/// Per element, row-major: the reference value v, the bound e on |computed - v| (see ErrorBound.h:
/// 0 = exact, +Inf = not judgeable; a non-finite v with e = 0 is a certain NaN/Inf), the Tile
/// semantics' poison and written flags, and the length of the op chain behind the element.
struct OracleTensor {
  std::string name;
  DType dtype = DType::FP32;
  int64_t rows = 0, cols = 0;
  std::vector<double> value;     // float dtypes: v; integer dtypes: the integer as a double
  std::vector<int64_t> integer;  // integer dtypes: the exact value, wrapped to the dtype; empty for floats
  std::vector<double> bound;     // e (always 0 for integer dtypes)
  std::vector<uint8_t> poison;   // 1 = undefined under the Tile semantics
  std::vector<uint8_t> written;  // 1 = a store of the Tile semantics wrote the element
  std::vector<int32_t> chain;    // ops on the longest dependency path (inputs: 0; a K-step matmul: K)

  int64_t elements() const { return rows * cols; }
  size_t index(int64_t r, int64_t c) const { return static_cast<size_t>(r * cols + c); }
};

}  // namespace ptodiff::oracle
