// Element bits -> exact values, for the oracle's inputs and for judging computed tensors (own code:
// the interpreters' Arith is not used; Eigen's half and bfloat16 widen exactly).
#pragma once

#include <cstdint>

#include "compiler/ir/DType.h"

namespace ptodiff::oracle {

/// The exact value of a FP32/FP16/BF16 element (NaN stays NaN, with an unspecified payload).
double decodeFloatBits(DType dt, uint64_t bits);
/// The value of an integer element (INT8, UINT8, INT32, INT64, INDEX, BOOL).
int64_t decodeIntegerBits(DType dt, uint64_t bits);

}  // namespace ptodiff::oracle
