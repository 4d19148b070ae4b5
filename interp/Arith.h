// The one arithmetic module of ptodiff's interpreters (semantics.md §2 "Numerics"). The Tile,
// planned-Tile and Buffer interpreters all compute through this file, so they agree bit for bit.
//
// The rules, in one place:
// - FP32 ops are IEEE binary32 with round-to-nearest-even (RNE). FP16 and BF16 ops compute in
//   binary32 and round once to the dtype (exact for + - * / by the double-rounding theorem).
// - exp, log, sqrt and recip compute in binary64 and round once, directly, to the dtype (never
//   binary64 -> binary32 -> binary16: that would round twice).
// - Any arithmetic result that is NaN is the dtype's canonical quiet NaN (FP32 0x7FC00000, FP16
//   0x7E00, BF16 0x7FC0). Its sign is the sign of the first NaN operand in operand order; a NaN
//   created from non-NaN operands (0/0, inf-inf, sqrt(-1), log(-1), 0*inf) is positive. This makes
//   results independent of the host's NaN propagation (x86 and ARM differ) and of the compiler
//   swapping the operands of commutative ops.
// - maximum/minimum return NaN if either input is NaN; maximum(-0, +0) = +0 and
//   minimum(-0, +0) = -0 (IEEE 754-2019 maximum/minimum).
// - relu(x) = x > 0 ? x : +0 (so relu(-0) = relu(NaN) = +0); lrelu(x, s) = x > 0 ? x : x * s.
// - neg and abs of floats flip / clear the sign bit: bit operations, NaN payload kept.
// - Integers (INT32, INT8) wrap modulo 2^N in add, sub, mul, neg, abs. Integer division truncates
//   toward zero; INT_MIN / -1 wraps to INT_MIN. A zero divisor is not part of the default
//   contract: the kernels produce 0 for it (so poison lanes holding garbage stay harmless) and the
//   caller reports a *defined* zero divisor as invalid-program (see firstZeroDivisor).
// - Transfers copy bits and never come here; convertKernel is the one numeric conversion (Acc
//   FP32 -> FP16/BF16 GM stores).
// - Scalars (pl.Scalar, INDEX expressions): INDEX/INT64 exact (overflow, division by zero are
//   faults), `//` and `%` floor as in Python; INT32 wraps; FP32 as above.
//
// Element kernels work on whole 2-D arrays of element bits: the op and the dtype are dispatched
// once per call, the inner loops are typed and branch-light so the compiler can vectorize them.
#pragma once

#include <cstdint>
#include <string_view>

#include "compiler/ir/DType.h"
#include "compiler/ir/IR.h"
#include "interp/Tensor.h"

namespace ptodiff {
class ExprPool;
/// An element's formula in a symbolic run (interp/Symbolic.h): an id in an ExprPool.
using ExprId = uint32_t;
}  // namespace ptodiff

namespace ptodiff::arith {

// ---------------------------------------------------------------------------------------------
// Element formats and conversions
// ---------------------------------------------------------------------------------------------

/// The dtype's canonical quiet NaN with the given sign (floats only).
uint64_t canonicalNaNBits(DType dt, bool negative);
/// True for a float dtype's NaN encodings (quiet or signalling); false for integer dtypes.
bool isNaNBits(DType dt, uint64_t bits);

/// Exact widenings (NaN keeps its sign and payload).
float fp16ToFloat(uint16_t bits);
float bf16ToFloat(uint16_t bits);
/// RNE narrowings from binary32 (through Eigen); NaN becomes canonical with its sign kept.
uint16_t floatToFp16(float value);
uint16_t floatToBf16(float value);
/// RNE narrowings from binary64, rounding once; NaN becomes canonical with its sign kept.
uint16_t doubleToFp16(double value);
uint16_t doubleToBf16(double value);
uint32_t doubleToFp32Bits(double value);
/// One RNE rounding of an integer to a float dtype (FP16, BF16, FP32); returns the bits.
uint64_t int64ToFloatBits(int64_t value, DType floatDt);
/// The exact value of an element (floats and integers; for diagnostics and oracles).
double elementToDouble(DType dt, uint64_t bits);

// ---------------------------------------------------------------------------------------------
// Element kernels
// ---------------------------------------------------------------------------------------------

/// A read-only 2-D array of elements: `rows` runs of `cols` contiguous elements, `rowStride`
/// elements apart. The element size is the dtype's. In a symbolic run `sym` holds each element's
/// formula with the same layout (null in a numeric run).
struct ConstElems {
  const uint8_t* data = nullptr;
  int64_t rows = 0, cols = 0, rowStride = 0;
  const ExprId* sym = nullptr;
};
/// A writable 2-D array; in a symbolic run the kernels also write `sym`, interning in `pool`.
struct MutElems {
  uint8_t* data = nullptr;
  int64_t rows = 0, cols = 0, rowStride = 0;
  ExprId* sym = nullptr;
  ExprPool* pool = nullptr;
  operator ConstElems() const { return {data, rows, cols, rowStride, sym}; }
};

/// Binary element ops; `Lrelu` is x > 0 ? x : x * rhs (the tile-scalar lrelu).
enum class BinaryKind : uint8_t { Add, Sub, Mul, Div, Max, Min, Lrelu };
enum class UnaryKind : uint8_t { Abs, Exp, Sqrt, Neg, Relu, Log, Recip };
enum class ReduceKind : uint8_t { Sum, Max, Min };
std::string_view binaryKindName(BinaryKind k);
std::string_view unaryKindName(UnaryKind k);

/// Whether the op is defined on the dtype (floats: all; INT32/INT8: all but exp, sqrt, log,
/// recip). The kernels throw std::invalid_argument for an unsupported pair.
bool supportsBinary(BinaryKind k, DType dt);
bool supportsUnary(UnaryKind k, DType dt);

/// dst(r, c) = lhs(r, c) OP rhs(r, c) over dst's extent (lhs and rhs at least as large).
void binaryKernel(BinaryKind k, DType dt, ConstElems lhs, ConstElems rhs, MutElems dst);
/// dst(r, c) = lhs(r, c) OP s, where `rhsBits` is the scalar already in the dtype.
void binaryScalarKernel(BinaryKind k, DType dt, ConstElems lhs, uint64_t rhsBits, MutElems dst);
/// dst(r, c) = OP src(r, c).
void unaryKernel(UnaryKind k, DType dt, ConstElems src, MutElems dst);
/// One numeric conversion per element (RNE; NaN canonical, sign kept). Same dtype copies bits.
/// Supported: between FP16, BF16 and FP32. Throws std::invalid_argument otherwise.
void convertKernel(DType from, DType to, ConstElems src, MutElems dst);

/// The accumulator dtype of a matmul on `operand` elements: FP32 for FP16/BF16/FP32, INT32 for
/// INT8. Throws std::invalid_argument for other dtypes.
DType accumulatorDType(DType operand);
/// C[i][j] = fold over k < K of acc = fma(L[i][k], R[k][j], acc) from +0 in increasing k, in the
/// accumulator dtype (operands converted exactly; INT8 -> INT32 wraps). L is M x K, R is K x N,
/// C is M x N (its extent gives M and N; L.cols gives K). A NaN step result is canonical with
/// the sign of the first NaN among (L[i][k], R[k][j], acc), else positive.
void matmulKernel(DType operand, ConstElems lhs, ConstElems rhs, MutElems dst);
/// dst(r, 0) = fold of src(r, 0..cols) in increasing c, starting from src(r, 0) (no identity
/// element, so a single -0 stays -0); each step rounds to the dtype. src.cols must be >= 1.
void rowReduceKernel(ReduceKind k, DType dt, ConstElems src, MutElems dst);
/// dst(0, c) = fold of src(0..rows, c) in increasing r; src.rows must be >= 1.
void colReduceKernel(ReduceKind k, DType dt, ConstElems src, MutElems dst);

/// For integer dtypes: the row-major index (r * cols + c) of the first element of `divisor`
/// that is zero and not poison (`poison` is a 1-byte-per-element mask laid out like `divisor`
/// with its own row stride, or null for "all defined"); -1 if none. Float dtypes: always -1.
int64_t firstZeroDivisor(DType dt, ConstElems divisor, const uint8_t* poison,
                         int64_t poisonRowStride);

// ---------------------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------------------

enum class ScalarFault : uint8_t { None, Overflow, DivisionByZero, NotRepresentable };
std::string_view scalarFaultName(ScalarFault f);  // "", "overflow", "division by zero", ...

struct ScalarResult {
  ScalarValue value;
  ScalarFault fault = ScalarFault::None;
  bool ok() const { return fault == ScalarFault::None; }
};
struct ElementResult {
  uint64_t bits = 0;
  ScalarFault fault = ScalarFault::None;
  bool ok() const { return fault == ScalarFault::None; }
};

/// A float literal of the text format is FP32: one RNE rounding of the binary64 literal.
ScalarValue floatLiteral(double value);
/// Both operands have the same dtype (the verifier inserts no implicit casts). Comparisons give
/// BOOL; `and`/`or` take BOOL (no short circuit here: the evaluator decides whether to evaluate
/// the right operand). Throws std::invalid_argument for an op the dtype does not have.
ScalarResult scalarBinary(BinOp op, const ScalarValue& a, const ScalarValue& b);
ScalarResult scalarUnary(UnOp op, const ScalarValue& a);
/// `pl.const(V, DTYPE)`: integers to INT32 wrap, to INDEX/INT64 exact; to FP32 one RNE
/// rounding; FP32 to an integer truncates toward zero (NaN, Inf or out of range:
/// NotRepresentable); BOOL from BOOL, or "nonzero" from a number.
ScalarResult convertScalar(const ScalarValue& v, DType to);
/// A scalar converted to a tile element dtype (tile-scalar ops, full): one RNE rounding to a
/// float dtype (NaN canonical), integers wrap into INT32/INT8, FP32 to an integer dtype truncates
/// toward zero (NaN, Inf or out of range: NotRepresentable).
ElementResult scalarToElement(const ScalarValue& v, DType elem);

}  // namespace ptodiff::arith
