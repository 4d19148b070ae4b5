#include "interp/Arith.h"

#include <Eigen/Core>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "interp/KernelMemo.h"
#include "interp/Symbolic.h"

namespace ptodiff::arith {

namespace {

// ---------------------------------------------------------------------------------------------
// Correctly rounded narrowing: one RNE rounding of (-1)^negative * mag * 2^exp2
// ---------------------------------------------------------------------------------------------

/// An IEEE binary format narrower than binary64, described by what rounding needs.
struct BinaryFormat {
  int mantissaBits;        // explicit fraction bits
  int minExponent;         // unbiased exponent of the smallest normal
  uint32_t infinityBits;   // +Inf (exponent field all ones, fraction 0)
  uint32_t signBit;
};
constexpr BinaryFormat kFp16Format{10, -14, 0x7C00u, 0x8000u};
constexpr BinaryFormat kBf16Format{7, -126, 0x7F80u, 0x8000u};
constexpr BinaryFormat kFp32Format{23, -126, 0x7F800000u, 0x80000000u};

/// Rounds an exactly given value to `f` with round-to-nearest-even, overflowing to Inf. Works
/// for every finite binary64 value and every int64, so no value is ever rounded twice.
uint32_t roundToFormat(const BinaryFormat& f, bool negative, uint64_t mag, int exp2) {
  const uint32_t sign = negative ? f.signBit : 0;
  if (mag == 0) return sign;
  const int msb = 63 - std::countl_zero(mag);
  // The result's quantum (value of one unit in the last place): 2^(e - mantissaBits) for a
  // normal result of exponent e, fixed at the subnormal quantum below the normal range.
  const int exponent = std::max(msb + exp2, f.minExponent);
  const int quantumExp = exponent - f.mantissaBits;
  const int shift = quantumExp - exp2;  // mag >> shift = the value in quanta
  uint64_t quanta;
  if (shift <= 0) {
    quanta = mag << -shift;  // exact: fewer than mantissaBits + 1 significant bits
  } else if (shift > 64) {
    quanta = 0;  // below half a quantum
  } else {
    const uint64_t kept = shift == 64 ? 0 : mag >> shift;
    const uint64_t rest = shift == 64 ? mag : mag & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    const bool roundUp = rest > half || (rest == half && (kept & 1) != 0);
    quanta = kept + (roundUp ? 1 : 0);
  }
  // For a normal result `quanta` includes the implicit bit, which carries into the exponent
  // field; a subnormal result has exponent field 0 and quanta < 2^mantissaBits. A carry out of
  // the top normal binade lands exactly on the Inf encoding.
  uint64_t bits = (uint64_t(exponent - f.minExponent) << f.mantissaBits) + quanta;
  if (bits >= f.infinityBits) bits = f.infinityBits;
  return sign | static_cast<uint32_t>(bits);
}

uint32_t canonicalNaN32(const BinaryFormat& f, bool negative) {
  // Quiet NaN: exponent all ones and the top fraction bit set.
  const uint32_t quiet = f.infinityBits | (uint32_t{1} << (f.mantissaBits - 1));
  return quiet | (negative ? f.signBit : 0);
}

uint32_t roundDouble(const BinaryFormat& f, double value) {
  const uint64_t b = std::bit_cast<uint64_t>(value);
  const bool negative = (b >> 63) != 0;
  const int biased = static_cast<int>((b >> 52) & 0x7FF);
  const uint64_t fraction = b & ((uint64_t{1} << 52) - 1);
  if (biased == 0x7FF) {
    if (fraction != 0) return canonicalNaN32(f, negative);
    return f.infinityBits | (negative ? f.signBit : 0);
  }
  if (biased == 0) return roundToFormat(f, negative, fraction, -1074);
  return roundToFormat(f, negative, fraction | (uint64_t{1} << 52), biased - 1075);
}

uint32_t roundInt64(const BinaryFormat& f, int64_t value) {
  const bool negative = value < 0;
  // Magnitude through unsigned negation: well defined for INT64_MIN too.
  const uint64_t mag = negative ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  return roundToFormat(f, negative, mag, 0);
}

// ---------------------------------------------------------------------------------------------
// Element formats: bits <-> binary32 for floats; wrap-around arithmetic for integers
// ---------------------------------------------------------------------------------------------

template <class T>
inline T loadElem(const uint8_t* base, int64_t index) {
  T v;
  std::memcpy(&v, base + index * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}
template <class T>
inline void storeElem(uint8_t* base, int64_t index, T v) {
  std::memcpy(base + index * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

struct Fp32Fmt {
  using Bits = uint32_t;
  static constexpr Bits kSign = 0x80000000u, kInf = 0x7F800000u, kQuietNaN = 0x7FC00000u;
  static float decode(Bits b) { return std::bit_cast<float>(b); }
  static Bits encode(float f) { return std::bit_cast<Bits>(f); }  // exact; callers handle NaN
  static Bits encodeDouble(double d) { return roundDouble(kFp32Format, d); }
};
struct Fp16Fmt {
  using Bits = uint16_t;
  static constexpr Bits kSign = 0x8000u, kInf = 0x7C00u, kQuietNaN = 0x7E00u;
  static float decode(Bits b) { return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(b)); }
  static Bits encode(float f) { return Eigen::numext::bit_cast<Bits>(Eigen::half(f)); }
  static Bits encodeDouble(double d) { return static_cast<Bits>(roundDouble(kFp16Format, d)); }
};
struct Bf16Fmt {
  using Bits = uint16_t;
  static constexpr Bits kSign = 0x8000u, kInf = 0x7F80u, kQuietNaN = 0x7FC0u;
  static float decode(Bits b) { return static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(b)); }
  static Bits encode(float f) { return Eigen::numext::bit_cast<Bits>(Eigen::bfloat16(f)); }
  static Bits encodeDouble(double d) { return static_cast<Bits>(roundDouble(kBf16Format, d)); }
};

/// Float element ops: compute in binary32 (or binary64 for the transcendental ones), round once
/// to the format, canonicalize NaN results by the sign rule of the header.
template <class Fmt>
struct FloatOps {
  using Bits = typename Fmt::Bits;
  static constexpr Bits kSign = Fmt::kSign;

  static bool isNaN(Bits b) { return static_cast<Bits>(b & ~kSign) > Fmt::kInf; }
  static Bits nanWithSignOf(Bits b) { return static_cast<Bits>(Fmt::kQuietNaN | (b & kSign)); }
  /// The NaN result of an op on (a, b): the first NaN operand's sign, else positive.
  static Bits nanResult(Bits a, Bits b) {
    if (isNaN(a)) return nanWithSignOf(a);
    if (isNaN(b)) return nanWithSignOf(b);
    return Fmt::kQuietNaN;
  }
  static Bits finish(float r, Bits a, Bits b) { return r != r ? nanResult(a, b) : Fmt::encode(r); }
  static Bits finish64(double r, Bits a) {
    if (r != r) return isNaN(a) ? nanWithSignOf(a) : Fmt::kQuietNaN;
    return Fmt::encodeDouble(r);
  }

  static Bits add(Bits a, Bits b) { return finish(Fmt::decode(a) + Fmt::decode(b), a, b); }
  static Bits sub(Bits a, Bits b) { return finish(Fmt::decode(a) - Fmt::decode(b), a, b); }
  static Bits mul(Bits a, Bits b) { return finish(Fmt::decode(a) * Fmt::decode(b), a, b); }
  static Bits div(Bits a, Bits b) { return finish(Fmt::decode(a) / Fmt::decode(b), a, b); }
  static Bits max(Bits a, Bits b) {
    if (isNaN(a) || isNaN(b)) return nanResult(a, b);
    const float x = Fmt::decode(a), y = Fmt::decode(b);
    if (x != y) return x > y ? a : b;
    return (a & kSign) ? b : a;  // equal: prefer +0 over -0
  }
  static Bits min(Bits a, Bits b) {
    if (isNaN(a) || isNaN(b)) return nanResult(a, b);
    const float x = Fmt::decode(a), y = Fmt::decode(b);
    if (x != y) return x < y ? a : b;
    return (a & kSign) ? a : b;  // equal: prefer -0 over +0
  }
  static Bits lrelu(Bits x, Bits slope) { return Fmt::decode(x) > 0.0f ? x : mul(x, slope); }

  static Bits abs(Bits a) { return static_cast<Bits>(a & ~kSign); }
  static Bits neg(Bits a) { return static_cast<Bits>(a ^ kSign); }
  static Bits relu(Bits a) { return Fmt::decode(a) > 0.0f ? a : Bits{0}; }
  static Bits exp(Bits a) { return finish64(std::exp(static_cast<double>(Fmt::decode(a))), a); }
  static Bits log(Bits a) { return finish64(std::log(static_cast<double>(Fmt::decode(a))), a); }
  static Bits sqrt(Bits a) { return finish64(std::sqrt(static_cast<double>(Fmt::decode(a))), a); }
  static Bits recip(Bits a) { return finish64(1.0 / static_cast<double>(Fmt::decode(a)), a); }
};

/// Integer element ops on the unsigned representation: wrap-around without signed overflow.
template <class U, class S>
struct IntOps {
  using Bits = U;
  static Bits add(Bits a, Bits b) { return static_cast<Bits>(a + b); }
  static Bits sub(Bits a, Bits b) { return static_cast<Bits>(a - b); }
  static Bits mul(Bits a, Bits b) {
    // Widen first: uint8_t/uint16_t would otherwise promote to (signed) int.
    return static_cast<Bits>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  }
  static Bits div(Bits a, Bits b) {
    const S x = static_cast<S>(a), y = static_cast<S>(b);
    if (y == 0) return 0;  // only reached on poison lanes; the caller rejects defined zeros
    if (x == std::numeric_limits<S>::min() && y == -1) return a;  // wraps to INT_MIN
    return static_cast<Bits>(static_cast<S>(x / y));
  }
  static Bits max(Bits a, Bits b) { return static_cast<S>(a) >= static_cast<S>(b) ? a : b; }
  static Bits min(Bits a, Bits b) { return static_cast<S>(a) <= static_cast<S>(b) ? a : b; }
  static Bits lrelu(Bits x, Bits slope) { return static_cast<S>(x) > 0 ? x : mul(x, slope); }
  static Bits neg(Bits a) { return static_cast<Bits>(Bits{0} - a); }
  static Bits abs(Bits a) { return static_cast<S>(a) < 0 ? neg(a) : a; }
  static Bits relu(Bits a) { return static_cast<S>(a) > 0 ? a : Bits{0}; }
};
using Int32Ops = IntOps<uint32_t, int32_t>;
using Int8Ops = IntOps<uint8_t, int8_t>;

// ---------------------------------------------------------------------------------------------
// Typed loops (one instantiation per op and format)
// ---------------------------------------------------------------------------------------------

template <class Bits, class F>
void mapUnary(ConstElems src, MutElems dst, F f) {
  for (int64_t r = 0; r < dst.rows; ++r) {
    const uint8_t* in = src.data + r * src.rowStride * static_cast<int64_t>(sizeof(Bits));
    uint8_t* out = dst.data + r * dst.rowStride * static_cast<int64_t>(sizeof(Bits));
    for (int64_t c = 0; c < dst.cols; ++c) storeElem<Bits>(out, c, f(loadElem<Bits>(in, c)));
  }
}

template <class Bits, class F>
void mapBinary(ConstElems lhs, ConstElems rhs, MutElems dst, F f) {
  for (int64_t r = 0; r < dst.rows; ++r) {
    const uint8_t* a = lhs.data + r * lhs.rowStride * static_cast<int64_t>(sizeof(Bits));
    const uint8_t* b = rhs.data + r * rhs.rowStride * static_cast<int64_t>(sizeof(Bits));
    uint8_t* out = dst.data + r * dst.rowStride * static_cast<int64_t>(sizeof(Bits));
    for (int64_t c = 0; c < dst.cols; ++c)
      storeElem<Bits>(out, c, f(loadElem<Bits>(a, c), loadElem<Bits>(b, c)));
  }
}

/// Calls `body(OpsType{})` with the element-ops type of `dt`; throws for dtypes without
/// element arithmetic.
template <class Body>
void withElementOps(DType dt, std::string_view what, Body body) {
  switch (dt) {
    case DType::FP32: body(FloatOps<Fp32Fmt>{}); return;
    case DType::FP16: body(FloatOps<Fp16Fmt>{}); return;
    case DType::BF16: body(FloatOps<Bf16Fmt>{}); return;
    case DType::INT32: body(Int32Ops{}); return;
    case DType::INT8: body(Int8Ops{}); return;
    default: break;
  }
  throw std::invalid_argument(std::string(what) + " is not defined on " + std::string(dtypeName(dt)));
}

/// Instantiates the typed loop per op so the element function is inlined, not called through
/// a pointer.
template <class Ops, class Loop>
void dispatchBinary(BinaryKind k, Loop loop) {
  switch (k) {
    case BinaryKind::Add: loop([](auto a, auto b) { return Ops::add(a, b); }); return;
    case BinaryKind::Sub: loop([](auto a, auto b) { return Ops::sub(a, b); }); return;
    case BinaryKind::Mul: loop([](auto a, auto b) { return Ops::mul(a, b); }); return;
    case BinaryKind::Div: loop([](auto a, auto b) { return Ops::div(a, b); }); return;
    case BinaryKind::Max: loop([](auto a, auto b) { return Ops::max(a, b); }); return;
    case BinaryKind::Min: loop([](auto a, auto b) { return Ops::min(a, b); }); return;
    case BinaryKind::Lrelu: loop([](auto a, auto b) { return Ops::lrelu(a, b); }); return;
  }
}

template <class Ops>
constexpr bool kIsFloatOps = !std::is_same_v<Ops, Int32Ops> && !std::is_same_v<Ops, Int8Ops>;

bool isTranscendental(UnaryKind k) {
  return k == UnaryKind::Exp || k == UnaryKind::Log || k == UnaryKind::Sqrt || k == UnaryKind::Recip;
}

template <class Ops>
typename Ops::Bits reduceStep(ReduceKind k, typename Ops::Bits acc, typename Ops::Bits x) {
  switch (k) {
    case ReduceKind::Sum: return Ops::add(acc, x);
    case ReduceKind::Max: return Ops::max(acc, x);
    case ReduceKind::Min: return Ops::min(acc, x);
  }
  return acc;
}

// ---- matmul ----

/// The NaN an fma step yields when its result is NaN: the host may propagate either operand's
/// NaN, so the rule fixes it to the quiet NaN with the sign of the first NaN among l, r, acc.
float fmaNaN(float l, float r, float acc) {
  const float nanSource = l != l ? l : r != r ? r : acc != acc ? acc : 0.0f;
  const uint32_t sign = (nanSource != nanSource && std::signbit(nanSource)) ? 0x80000000u : 0u;
  return std::bit_cast<float>(0x7FC00000u | sign);
}

// The FMA instruction where the host has it: std::fma is exactly rounded either way, so both
// clones give the same bits; the default one calls libm's fmaf per step.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PTODIFF_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define PTODIFF_FMA_CLONES
#endif

/// One step k of every column of a product row: acc[j] = fma(l, r[j], acc[j]), with the NaN
/// rule. The columns are independent, so the loop vectorizes; each column still folds k in order.
PTODIFF_FMA_CLONES void fmaRowStep(float l, const float* __restrict r, const float* __restrict acc,
                                   float* __restrict next, int64_t n) {
  for (int64_t j = 0; j < n; ++j) next[j] = std::fma(l, r[j], acc[j]);
  for (int64_t j = 0; j < n; ++j)
    if (next[j] != next[j]) next[j] = fmaNaN(l, r[j], acc[j]);
}

template <class Fmt>
std::vector<float> widenToFloat(ConstElems src) {
  std::vector<float> out(static_cast<size_t>(src.rows * src.cols));
  for (int64_t r = 0; r < src.rows; ++r) {
    const uint8_t* row = src.data + r * src.rowStride * static_cast<int64_t>(sizeof(typename Fmt::Bits));
    for (int64_t c = 0; c < src.cols; ++c)
      out[static_cast<size_t>(r * src.cols + c)] = Fmt::decode(loadElem<typename Fmt::Bits>(row, c));
  }
  return out;
}

/// Each output element is the fma fold over k = 0 .. K-1 in order from +0.0; the loops run k
/// outside j so a whole row of accumulators advances one step at a time.
template <class Fmt>
void floatMatmul(ConstElems lhs, ConstElems rhs, MutElems dst) {
  const int64_t M = dst.rows, N = dst.cols, K = lhs.cols;
  const std::vector<float> a = widenToFloat<Fmt>(lhs);
  const std::vector<float> b = widenToFloat<Fmt>(rhs);
  std::vector<float> acc(static_cast<size_t>(N)), next(static_cast<size_t>(N));
  for (int64_t i = 0; i < M; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int64_t k = 0; k < K; ++k) {
      fmaRowStep(a[static_cast<size_t>(i * K + k)], b.data() + k * N, acc.data(), next.data(), N);
      acc.swap(next);
    }
    uint8_t* out = dst.data + i * dst.rowStride * 4;
    for (int64_t j = 0; j < N; ++j) storeElem<uint32_t>(out, j, std::bit_cast<uint32_t>(acc[static_cast<size_t>(j)]));
  }
}

void int8Matmul(ConstElems lhs, ConstElems rhs, MutElems dst) {
  const int64_t M = dst.rows, N = dst.cols, K = lhs.cols;
  for (int64_t i = 0; i < M; ++i) {
    const uint8_t* a = lhs.data + i * lhs.rowStride;
    uint8_t* out = dst.data + i * dst.rowStride * 4;
    for (int64_t j = 0; j < N; ++j) {
      uint32_t acc = 0;
      for (int64_t k = 0; k < K; ++k) {
        const int32_t x = static_cast<int8_t>(a[k]);
        const int32_t y = static_cast<int8_t>(rhs.data[k * rhs.rowStride + j]);
        acc += static_cast<uint32_t>(x * y);  // |x * y| <= 2^14: no overflow before the wrap
      }
      storeElem<uint32_t>(out, j, acc);
    }
  }
}

// ---- conversions between float formats ----

uint64_t floatBitsFromFloat(DType to, float v) {
  switch (to) {
    case DType::FP32: return std::bit_cast<uint32_t>(v);
    case DType::FP16: return floatToFp16(v);
    case DType::BF16: return floatToBf16(v);
    default: break;
  }
  throw std::invalid_argument("no float encoding for " + std::string(dtypeName(to)));
}

float floatFromBits(DType from, uint64_t bits) {
  switch (from) {
    case DType::FP32: return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case DType::FP16: return fp16ToFloat(static_cast<uint16_t>(bits));
    case DType::BF16: return bf16ToFloat(static_cast<uint16_t>(bits));
    default: break;
  }
  throw std::invalid_argument("not a float dtype: " + std::string(dtypeName(from)));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------------------

uint64_t canonicalNaNBits(DType dt, bool negative) {
  switch (dt) {
    case DType::FP32: return canonicalNaN32(kFp32Format, negative);
    case DType::FP16: return canonicalNaN32(kFp16Format, negative);
    case DType::BF16: return canonicalNaN32(kBf16Format, negative);
    default: break;
  }
  throw std::invalid_argument("no NaN in " + std::string(dtypeName(dt)));
}

bool isNaNBits(DType dt, uint64_t bits) {
  switch (dt) {
    case DType::FP32: return FloatOps<Fp32Fmt>::isNaN(static_cast<uint32_t>(bits));
    case DType::FP16: return FloatOps<Fp16Fmt>::isNaN(static_cast<uint16_t>(bits));
    case DType::BF16: return FloatOps<Bf16Fmt>::isNaN(static_cast<uint16_t>(bits));
    default: return false;
  }
}

float fp16ToFloat(uint16_t bits) { return Fp16Fmt::decode(bits); }
float bf16ToFloat(uint16_t bits) { return Bf16Fmt::decode(bits); }

uint16_t floatToFp16(float value) {
  if (value != value) return static_cast<uint16_t>(canonicalNaN32(kFp16Format, std::signbit(value)));
  return Fp16Fmt::encode(value);
}
uint16_t floatToBf16(float value) {
  if (value != value) return static_cast<uint16_t>(canonicalNaN32(kBf16Format, std::signbit(value)));
  return Bf16Fmt::encode(value);
}
uint16_t doubleToFp16(double value) { return static_cast<uint16_t>(roundDouble(kFp16Format, value)); }
uint16_t doubleToBf16(double value) { return static_cast<uint16_t>(roundDouble(kBf16Format, value)); }
uint32_t doubleToFp32Bits(double value) { return roundDouble(kFp32Format, value); }

uint64_t int64ToFloatBits(int64_t value, DType floatDt) {
  switch (floatDt) {
    case DType::FP32: return roundInt64(kFp32Format, value);
    case DType::FP16: return roundInt64(kFp16Format, value);
    case DType::BF16: return roundInt64(kBf16Format, value);
    default: break;
  }
  throw std::invalid_argument("int64ToFloatBits: not a float dtype: " + std::string(dtypeName(floatDt)));
}

double elementToDouble(DType dt, uint64_t bits) {
  switch (dt) {
    case DType::FP32: case DType::FP16: case DType::BF16: return floatFromBits(dt, bits);
    case DType::INT8: return static_cast<int8_t>(bits);
    case DType::UINT8: case DType::BOOL: return static_cast<uint8_t>(bits);
    case DType::INT32: return static_cast<int32_t>(bits);
    case DType::INT64: case DType::INDEX: return static_cast<double>(static_cast<int64_t>(bits));
  }
  return 0.0;
}

// ---------------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------------

std::string_view binaryKindName(BinaryKind k) {
  switch (k) {
    case BinaryKind::Add: return "add";
    case BinaryKind::Sub: return "sub";
    case BinaryKind::Mul: return "mul";
    case BinaryKind::Div: return "div";
    case BinaryKind::Max: return "maximum";
    case BinaryKind::Min: return "minimum";
    case BinaryKind::Lrelu: return "lrelu";
  }
  return "?";
}

std::string_view unaryKindName(UnaryKind k) {
  switch (k) {
    case UnaryKind::Abs: return "abs";
    case UnaryKind::Exp: return "exp";
    case UnaryKind::Sqrt: return "sqrt";
    case UnaryKind::Neg: return "neg";
    case UnaryKind::Relu: return "relu";
    case UnaryKind::Log: return "log";
    case UnaryKind::Recip: return "recip";
  }
  return "?";
}

bool supportsBinary(BinaryKind, DType dt) {
  return isFloat(dt) || dt == DType::INT32 || dt == DType::INT8;
}

bool supportsUnary(UnaryKind k, DType dt) {
  if (isFloat(dt)) return true;
  return (dt == DType::INT32 || dt == DType::INT8) && !isTranscendental(k);
}

void binaryKernel(BinaryKind k, DType dt, ConstElems lhs, ConstElems rhs, MutElems dst) {
  withElementOps(dt, binaryKindName(k), [&](auto ops) {
    using Ops = decltype(ops);
    dispatchBinary<Ops>(k, [&](auto f) { mapBinary<typename Ops::Bits>(lhs, rhs, dst, f); });
  });
  if (dst.sym) symbolic::binary(k, dt, lhs, rhs, dst);
}

void binaryScalarKernel(BinaryKind k, DType dt, ConstElems lhs, uint64_t rhsBits, MutElems dst) {
  withElementOps(dt, binaryKindName(k), [&](auto ops) {
    using Ops = decltype(ops);
    using Bits = typename Ops::Bits;
    const Bits s = static_cast<Bits>(rhsBits);
    dispatchBinary<Ops>(k, [&](auto f) { mapUnary<Bits>(lhs, dst, [&](Bits a) { return f(a, s); }); });
  });
  if (dst.sym) symbolic::binaryScalar(k, dt, lhs, rhsBits, dst);
}

void unaryKernel(UnaryKind k, DType dt, ConstElems src, MutElems dst) {
  if (!supportsUnary(k, dt))
    throw std::invalid_argument(std::string(unaryKindName(k)) + " is not defined on " +
                                std::string(dtypeName(dt)));
  withElementOps(dt, unaryKindName(k), [&](auto ops) {
    using Ops = decltype(ops);
    using Bits = typename Ops::Bits;
    switch (k) {
      case UnaryKind::Abs: mapUnary<Bits>(src, dst, [](Bits a) { return Ops::abs(a); }); return;
      case UnaryKind::Neg: mapUnary<Bits>(src, dst, [](Bits a) { return Ops::neg(a); }); return;
      case UnaryKind::Relu: mapUnary<Bits>(src, dst, [](Bits a) { return Ops::relu(a); }); return;
      default: break;
    }
    if constexpr (kIsFloatOps<Ops>) {
      switch (k) {
        case UnaryKind::Exp: mapUnary<Bits>(src, dst, [](Bits a) { return Ops::exp(a); }); return;
        case UnaryKind::Log: mapUnary<Bits>(src, dst, [](Bits a) { return Ops::log(a); }); return;
        case UnaryKind::Sqrt: mapUnary<Bits>(src, dst, [](Bits a) { return Ops::sqrt(a); }); return;
        case UnaryKind::Recip: mapUnary<Bits>(src, dst, [](Bits a) { return Ops::recip(a); }); return;
        default: break;
      }
    }
  });
  if (dst.sym) symbolic::unary(k, dt, src, dst);
}

void convertKernel(DType from, DType to, ConstElems src, MutElems dst) {
  if (dst.sym) symbolic::convert(from, to, src, dst);
  const int esizeFrom = dtypeSize(from), esizeTo = dtypeSize(to);
  if (from == to) {
    for (int64_t r = 0; r < dst.rows; ++r)
      std::memcpy(dst.data + r * dst.rowStride * esizeTo, src.data + r * src.rowStride * esizeFrom,
                  static_cast<size_t>(dst.cols * esizeTo));
    return;
  }
  if (!isFloat(from) || !isFloat(to))
    throw std::invalid_argument("no numeric conversion from " + std::string(dtypeName(from)) + " to " +
                                std::string(dtypeName(to)));
  // Widening to binary32 is exact, so binary32 is a faithful intermediate: one rounding only.
  for (int64_t r = 0; r < dst.rows; ++r) {
    const uint8_t* in = src.data + r * src.rowStride * esizeFrom;
    uint8_t* out = dst.data + r * dst.rowStride * esizeTo;
    for (int64_t c = 0; c < dst.cols; ++c)
      storeBits(to, out, c, floatBitsFromFloat(to, floatFromBits(from, loadBits(from, in, c))));
  }
}

DType accumulatorDType(DType operand) {
  switch (operand) {
    case DType::FP16: case DType::BF16: case DType::FP32: return DType::FP32;
    case DType::INT8: return DType::INT32;
    default: break;
  }
  throw std::invalid_argument("matmul is not defined on " + std::string(dtypeName(operand)));
}

void matmulKernel(DType operand, ConstElems lhs, ConstElems rhs, MutElems dst) {
  if (dst.sym) symbolic::matmul(operand, lhs, rhs, dst);
  const auto esize = static_cast<size_t>(dtypeSize(operand));
  const auto accSize = static_cast<size_t>(dtypeSize(accumulatorDType(operand)));  // rejects other dtypes
  thread_local KernelMemo memo;
  KernelMemo::Key key({static_cast<int64_t>(operand), lhs.rows, lhs.cols, rhs.cols},
                      {{lhs.data, lhs.rows, lhs.cols, lhs.rowStride, esize},
                       {rhs.data, rhs.rows, rhs.cols, rhs.rowStride, esize}});
  if (memo.recall(key, {{dst.data, dst.rows, dst.cols, dst.rowStride, accSize}})) return;
  switch (operand) {
    case DType::FP32: floatMatmul<Fp32Fmt>(lhs, rhs, dst); break;
    case DType::FP16: floatMatmul<Fp16Fmt>(lhs, rhs, dst); break;
    case DType::BF16: floatMatmul<Bf16Fmt>(lhs, rhs, dst); break;
    default: int8Matmul(lhs, rhs, dst); break;
  }
  memo.store(std::move(key), {{dst.data, dst.rows, dst.cols, dst.rowStride, accSize}});
}

void rowReduceKernel(ReduceKind k, DType dt, ConstElems src, MutElems dst) {
  if (src.cols < 1) throw std::invalid_argument("rowReduceKernel: empty rows");
  withElementOps(dt, "row reduction", [&](auto ops) {
    using Ops = decltype(ops);
    using Bits = typename Ops::Bits;
    const int64_t es = sizeof(Bits);
    for (int64_t r = 0; r < dst.rows; ++r) {
      const uint8_t* row = src.data + r * src.rowStride * es;
      Bits acc = loadElem<Bits>(row, 0);
      for (int64_t c = 1; c < src.cols; ++c) acc = reduceStep<Ops>(k, acc, loadElem<Bits>(row, c));
      storeElem<Bits>(dst.data + r * dst.rowStride * es, 0, acc);
    }
  });
  if (dst.sym) symbolic::rowReduce(k, dt, src, dst);
}

void colReduceKernel(ReduceKind k, DType dt, ConstElems src, MutElems dst) {
  if (src.rows < 1) throw std::invalid_argument("colReduceKernel: empty columns");
  withElementOps(dt, "column reduction", [&](auto ops) {
    using Ops = decltype(ops);
    using Bits = typename Ops::Bits;
    const int64_t es = sizeof(Bits);
    for (int64_t c = 0; c < dst.cols; ++c) {
      Bits acc = loadElem<Bits>(src.data, c);
      for (int64_t r = 1; r < src.rows; ++r)
        acc = reduceStep<Ops>(k, acc, loadElem<Bits>(src.data + r * src.rowStride * es, c));
      storeElem<Bits>(dst.data, c, acc);
    }
  });
  if (dst.sym) symbolic::colReduce(k, dt, src, dst);
}

int64_t firstZeroDivisor(DType dt, ConstElems divisor, const uint8_t* poison, int64_t poisonRowStride) {
  if (!isInteger(dt)) return -1;
  for (int64_t r = 0; r < divisor.rows; ++r) {
    const uint8_t* row = divisor.data + r * divisor.rowStride * dtypeSize(dt);
    for (int64_t c = 0; c < divisor.cols; ++c) {
      if (loadBits(dt, row, c) != 0) continue;
      if (poison && poison[r * poisonRowStride + c]) continue;
      return r * divisor.cols + c;
    }
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------------------

namespace {

using F32 = FloatOps<Fp32Fmt>;

ScalarValue fp32Bits(uint32_t bits) { return ScalarValue::fp32(std::bit_cast<float>(bits)); }
uint32_t bitsOf(float f) { return std::bit_cast<uint32_t>(f); }

ScalarValue int32Value(int64_t wrapped) {
  return ScalarValue{DType::INT32, static_cast<int32_t>(static_cast<uint32_t>(wrapped)), 0.0f};
}
ScalarValue intValue(DType dt, int64_t v) { return ScalarValue{dt, v, 0.0f}; }

ScalarResult fault(ScalarFault f) { return ScalarResult{ScalarValue{}, f}; }
ScalarResult ok(ScalarValue v) { return ScalarResult{v, ScalarFault::None}; }

[[noreturn]] void unsupported(std::string_view what, DType dt) {
  throw std::invalid_argument(std::string(what) + " is not defined on " + std::string(dtypeName(dt)) +
                              " scalars");
}

/// Python's floor division and modulo on exact 64-bit integers; nullopt-like fault on / 0 and
/// on INT64_MIN // -1 (the one quotient that overflows).
ScalarResult exactFloorDivMod(DType dt, int64_t a, int64_t b, bool wantMod) {
  if (b == 0) return fault(ScalarFault::DivisionByZero);
  if (a == std::numeric_limits<int64_t>::min() && b == -1)
    return wantMod ? ok(intValue(dt, 0)) : fault(ScalarFault::Overflow);
  int64_t q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) {
    q -= 1;
    r += b;
  }
  return ok(intValue(dt, wantMod ? r : q));
}

ScalarResult exactArith(BinOp op, DType dt, int64_t a, int64_t b) {
  int64_t out = 0;
  switch (op) {
    case BinOp::Add:
      if (__builtin_add_overflow(a, b, &out)) return fault(ScalarFault::Overflow);
      return ok(intValue(dt, out));
    case BinOp::Sub:
      if (__builtin_sub_overflow(a, b, &out)) return fault(ScalarFault::Overflow);
      return ok(intValue(dt, out));
    case BinOp::Mul:
      if (__builtin_mul_overflow(a, b, &out)) return fault(ScalarFault::Overflow);
      return ok(intValue(dt, out));
    case BinOp::FloorDiv: return exactFloorDivMod(dt, a, b, false);
    case BinOp::Mod: return exactFloorDivMod(dt, a, b, true);
    default: break;
  }
  unsupported(binOpSpelling(op), dt);
}

ScalarResult int32Arith(BinOp op, int64_t a, int64_t b) {
  const uint32_t x = static_cast<uint32_t>(a), y = static_cast<uint32_t>(b);
  switch (op) {
    case BinOp::Add: return ok(int32Value(x + y));
    case BinOp::Sub: return ok(int32Value(x - y));
    case BinOp::Mul: return ok(int32Value(static_cast<uint32_t>(uint64_t{x} * y)));
    case BinOp::FloorDiv:
    case BinOp::Mod: {
      // Floor in exact 64-bit arithmetic (INT32 operands cannot overflow it), then wrap:
      // INT32_MIN // -1 = 2^31 wraps to INT32_MIN.
      ScalarResult r = exactFloorDivMod(DType::INT64, static_cast<int32_t>(x), static_cast<int32_t>(y),
                                        op == BinOp::Mod);
      if (!r.ok()) return r;
      return ok(int32Value(r.value.i));
    }
    default: break;
  }
  unsupported(binOpSpelling(op), DType::INT32);
}

/// Python's float `//` and `%` (CPython's float_divmod), computed in binary32.
ScalarResult fp32FloorDivMod(float a, float b, bool wantMod) {
  if (b == 0.0f) return fault(ScalarFault::DivisionByZero);
  float mod = std::fmod(a, b);
  float div = (a - mod) / b;
  if (mod != 0.0f) {
    if ((b < 0.0f) != (mod < 0.0f)) {
      mod += b;
      div -= 1.0f;
    }
  } else {
    mod = std::copysign(0.0f, b);
  }
  float floordiv;
  if (div != 0.0f) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5f) floordiv += 1.0f;
  } else {
    floordiv = std::copysign(0.0f, a / b);
  }
  const float r = wantMod ? mod : floordiv;
  if (r != r) return ok(fp32Bits(F32::nanResult(bitsOf(a), bitsOf(b))));
  return ok(ScalarValue::fp32(r));
}

ScalarResult fp32Arith(BinOp op, float a, float b) {
  const uint32_t x = bitsOf(a), y = bitsOf(b);
  switch (op) {
    case BinOp::Add: return ok(fp32Bits(F32::add(x, y)));
    case BinOp::Sub: return ok(fp32Bits(F32::sub(x, y)));
    case BinOp::Mul: return ok(fp32Bits(F32::mul(x, y)));
    case BinOp::FloorDiv: return fp32FloorDivMod(a, b, false);
    case BinOp::Mod: return fp32FloorDivMod(a, b, true);
    default: break;
  }
  unsupported(binOpSpelling(op), DType::FP32);
}

template <class T>
bool compare(BinOp op, T a, T b) {
  switch (op) {
    case BinOp::Lt: return a < b;
    case BinOp::Le: return a <= b;
    case BinOp::Gt: return a > b;
    case BinOp::Ge: return a >= b;
    case BinOp::Eq: return a == b;
    case BinOp::Ne: return a != b;
    default: return false;
  }
}

bool isComparison(BinOp op) {
  return op == BinOp::Lt || op == BinOp::Le || op == BinOp::Gt || op == BinOp::Ge || op == BinOp::Eq ||
         op == BinOp::Ne;
}

bool isExactInt(DType dt) { return dt == DType::INDEX || dt == DType::INT64; }
bool isIntScalar(DType dt) { return isExactInt(dt) || dt == DType::INT32; }

/// Truncation toward zero of a float into [lo, hi]; NotRepresentable for NaN, Inf or out of range.
ElementResult truncateFloat(float f, int64_t lo, int64_t hi) {
  if (!(f == f) || std::isinf(f)) return {0, ScalarFault::NotRepresentable};
  const double t = std::trunc(static_cast<double>(f));
  // hi + 1 as an exclusive bound: double(INT64_MAX) rounds up to 2^63, which `t > double(hi)`
  // would let through into an undefined cast; 2^63 (and 2^31, 2^7) are exact doubles.
  const double upperExclusive = static_cast<double>(hi) + 1.0;
  if (t < static_cast<double>(lo) || t >= upperExclusive) return {0, ScalarFault::NotRepresentable};
  return {static_cast<uint64_t>(static_cast<int64_t>(t)), ScalarFault::None};
}

}  // namespace

std::string_view scalarFaultName(ScalarFault f) {
  switch (f) {
    case ScalarFault::None: return "";
    case ScalarFault::Overflow: return "overflow";
    case ScalarFault::DivisionByZero: return "division by zero";
    case ScalarFault::NotRepresentable: return "value not representable in the target dtype";
  }
  return "?";
}

ScalarValue floatLiteral(double value) { return fp32Bits(doubleToFp32Bits(value)); }

ScalarResult scalarBinary(BinOp op, const ScalarValue& a, const ScalarValue& b) {
  if (a.dtype != b.dtype)
    throw std::invalid_argument("scalar " + std::string(binOpSpelling(op)) + " on mixed dtypes " +
                                std::string(dtypeName(a.dtype)) + " and " + std::string(dtypeName(b.dtype)));
  const DType dt = a.dtype;
  if (op == BinOp::And || op == BinOp::Or) {
    if (dt != DType::BOOL) unsupported(binOpSpelling(op), dt);
    return ok(ScalarValue::boolean(op == BinOp::And ? (a.i && b.i) : (a.i || b.i)));
  }
  if (isComparison(op)) {
    if (dt == DType::FP32) return ok(ScalarValue::boolean(compare(op, a.f, b.f)));
    return ok(ScalarValue::boolean(compare(op, a.i, b.i)));
  }
  if (isExactInt(dt)) return exactArith(op, dt, a.i, b.i);
  if (dt == DType::INT32) return int32Arith(op, a.i, b.i);
  if (dt == DType::FP32) return fp32Arith(op, a.f, b.f);
  unsupported(binOpSpelling(op), dt);
}

ScalarResult scalarUnary(UnOp op, const ScalarValue& a) {
  if (op == UnOp::Not) {
    if (a.dtype != DType::BOOL) unsupported("not", a.dtype);
    return ok(ScalarValue::boolean(a.i == 0));
  }
  switch (a.dtype) {
    case DType::INDEX:
    case DType::INT64: return exactArith(BinOp::Sub, a.dtype, 0, a.i);
    case DType::INT32: return ok(int32Value(uint32_t{0} - static_cast<uint32_t>(a.i)));
    case DType::FP32: return ok(fp32Bits(F32::neg(bitsOf(a.f))));  // a sign flip, like tile.neg
    default: break;
  }
  unsupported("unary -", a.dtype);
}

ScalarResult convertScalar(const ScalarValue& v, DType to) {
  if (v.dtype == to) return ok(v);
  switch (to) {
    case DType::BOOL:
      return ok(ScalarValue::boolean(v.dtype == DType::FP32 ? v.f != 0.0f : v.i != 0));
    case DType::INDEX:
    case DType::INT64: {
      if (v.dtype != DType::FP32) return ok(intValue(to, v.i));
      const ElementResult t =
          truncateFloat(v.f, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
      if (!t.ok()) return fault(t.fault);
      return ok(intValue(to, static_cast<int64_t>(t.bits)));
    }
    case DType::INT32: {
      if (v.dtype != DType::FP32) return ok(int32Value(v.i));
      const ElementResult t =
          truncateFloat(v.f, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
      if (!t.ok()) return fault(t.fault);
      return ok(int32Value(static_cast<int64_t>(t.bits)));
    }
    case DType::FP32:
      return ok(fp32Bits(static_cast<uint32_t>(int64ToFloatBits(v.i, DType::FP32))));
    default: break;
  }
  throw std::invalid_argument("no scalar conversion to " + std::string(dtypeName(to)));
}

ElementResult scalarToElement(const ScalarValue& v, DType elem) {
  const bool fromFloat = v.dtype == DType::FP32;
  if (!fromFloat && !isIntScalar(v.dtype) && v.dtype != DType::BOOL)
    throw std::invalid_argument("scalar of dtype " + std::string(dtypeName(v.dtype)) + " has no element value");
  switch (elem) {
    case DType::FP32:
    case DType::FP16:
    case DType::BF16:
      if (fromFloat) return {floatBitsFromFloat(elem, v.f), ScalarFault::None};
      return {int64ToFloatBits(v.i, elem), ScalarFault::None};
    case DType::INT32:
      if (fromFloat) {
        ElementResult t = truncateFloat(v.f, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
        t.bits &= 0xFFFFFFFFu;
        return t;
      }
      return {static_cast<uint32_t>(v.i), ScalarFault::None};
    case DType::INT8:
      if (fromFloat) {
        ElementResult t = truncateFloat(v.f, std::numeric_limits<int8_t>::min(), std::numeric_limits<int8_t>::max());
        t.bits &= 0xFFu;
        return t;
      }
      return {static_cast<uint8_t>(v.i), ScalarFault::None};
    case DType::UINT8:
      if (fromFloat) return truncateFloat(v.f, 0, 255);
      return {static_cast<uint8_t>(v.i), ScalarFault::None};
    default: break;
  }
  throw std::invalid_argument("no element conversion to " + std::string(dtypeName(elem)));
}

}  // namespace ptodiff::arith
