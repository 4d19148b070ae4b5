// Scalar semantics of the oracle's reference evaluator (semantics.md §1), written independently of
// interp/Arith: INDEX and INT64 exact (overflow and division by zero fault), `//` and `%` floor as
// in Python, INT32 wraps, FP32 is IEEE binary32 (scalars are the program's control values: every
// target computes them in binary32, so the oracle evaluates them exactly as the program states,
// with no error bound), BOOL.
#pragma once

#include <cstdint>
#include <string>

#include "compiler/ir/IR.h"
#include "interp/Tensor.h"

namespace ptodiff::oracle::detail {

/// A scalar result, or why the program is invalid ("overflow", "division by zero", ...).
struct ScalarOutcome {
  ScalarValue value;
  std::string fault;  // empty: ok
  bool ok() const { return fault.empty(); }
};

/// A float literal is FP32: one round-to-nearest-even rounding of the binary64 literal.
ScalarValue fp32Literal(double value);
/// Both operands have the verifier's dtype (no implicit casts); `and`/`or` take BOOL (the caller
/// short-circuits). Throws std::invalid_argument for an op the dtype does not have.
ScalarOutcome scalarBinary(BinOp op, const ScalarValue& a, const ScalarValue& b);
ScalarOutcome scalarUnary(UnOp op, const ScalarValue& a);
/// `pl.const(V, DTYPE)`: to INT32 wraps, to INDEX/INT64 exact, to FP32 one rounding; FP32 to an
/// integer truncates toward zero (NaN, Inf, out of range: fault); BOOL is "nonzero".
ScalarOutcome scalarConvert(const ScalarValue& v, DType to);

/// A scalar operand of a tile op (tile-scalar ops, full) in the tile's element dtype:
/// float dtypes get the scalar's exact value (the caller accounts for the rounding into the dtype);
/// integer dtypes get it wrapped (integers) or truncated toward zero (FP32; NaN, Inf or out of
/// range faults).
struct ScalarElement {
  double real = 0.0;     // float element dtypes
  int64_t integer = 0;   // integer element dtypes
  std::string fault;     // empty: ok
};
ScalarElement scalarAsElement(const ScalarValue& v, DType elem);

/// Wraps an exact integer into an integer dtype's range (INT32, INT8, UINT8); INT64/INDEX/BOOL
/// are returned unchanged.
int64_t wrapInteger(int64_t v, DType dt);

/// "3", "1.5", "True" for messages.
std::string scalarText(const ScalarValue& v);

}  // namespace ptodiff::oracle::detail
