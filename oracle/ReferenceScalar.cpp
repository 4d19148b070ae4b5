#include "oracle/ReferenceScalar.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ptodiff::oracle::detail {

namespace {

constexpr const char* kOverflow = "overflow";
constexpr const char* kDivisionByZero = "division by zero";
constexpr const char* kNotRepresentable = "value not representable in the target dtype";

ScalarOutcome ok(ScalarValue v) { return {v, {}}; }
ScalarOutcome fault(const char* why) { return {ScalarValue{}, why}; }

bool isExactInt(DType dt) { return dt == DType::INDEX || dt == DType::INT64; }
bool isIntScalar(DType dt) { return isExactInt(dt) || dt == DType::INT32; }

ScalarValue integer(DType dt, int64_t v) { return ScalarValue{dt, v, 0.0f}; }
ScalarValue int32(int64_t v) { return integer(DType::INT32, wrapInteger(v, DType::INT32)); }

[[noreturn]] void unsupported(std::string_view what, DType dt) {
  throw std::invalid_argument(std::string(what) + " is not defined on " + std::string(dtypeName(dt)) + " scalars");
}

/// Python's `//` and `%` on exact integers. INT64_MIN // -1 is the one overflowing quotient.
ScalarOutcome floorDivMod(DType dt, int64_t a, int64_t b, bool wantMod) {
  if (b == 0) return fault(kDivisionByZero);
  if (a == std::numeric_limits<int64_t>::min() && b == -1) return wantMod ? ok(integer(dt, 0)) : fault(kOverflow);
  int64_t q = a / b, r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) {  // C++ truncates; Python floors
    q -= 1;
    r += b;
  }
  return ok(integer(dt, wantMod ? r : q));
}

ScalarOutcome exactArith(BinOp op, DType dt, int64_t a, int64_t b) {
  int64_t out = 0;
  switch (op) {
    case BinOp::Add: return __builtin_add_overflow(a, b, &out) ? fault(kOverflow) : ok(integer(dt, out));
    case BinOp::Sub: return __builtin_sub_overflow(a, b, &out) ? fault(kOverflow) : ok(integer(dt, out));
    case BinOp::Mul: return __builtin_mul_overflow(a, b, &out) ? fault(kOverflow) : ok(integer(dt, out));
    case BinOp::FloorDiv: return floorDivMod(dt, a, b, false);
    case BinOp::Mod: return floorDivMod(dt, a, b, true);
    default: break;
  }
  unsupported(binOpSpelling(op), dt);
}

ScalarOutcome int32Arith(BinOp op, int64_t a, int64_t b) {
  switch (op) {
    // INT32 operands cannot overflow int64 arithmetic; the result wraps.
    case BinOp::Add: return ok(int32(a + b));
    case BinOp::Sub: return ok(int32(a - b));
    case BinOp::Mul: return ok(int32(a * b));
    case BinOp::FloorDiv:
    case BinOp::Mod: {
      ScalarOutcome r = floorDivMod(DType::INT64, a, b, op == BinOp::Mod);
      if (!r.ok()) return r;
      return ok(int32(r.value.i));  // INT32_MIN // -1 = 2^31 wraps to INT32_MIN
    }
    default: break;
  }
  unsupported(binOpSpelling(op), DType::INT32);
}

/// Python's float `//` and `%` (CPython's float_divmod), every step in binary32.
ScalarOutcome fp32FloorDivMod(float a, float b, bool wantMod) {
  if (b == 0.0f) return fault(kDivisionByZero);
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
  float floorDiv;
  if (div != 0.0f) {
    floorDiv = std::floor(div);
    if (div - floorDiv > 0.5f) floorDiv += 1.0f;
  } else {
    floorDiv = std::copysign(0.0f, a / b);
  }
  return ok(ScalarValue::fp32(wantMod ? mod : floorDiv));
}

ScalarOutcome fp32Arith(BinOp op, float a, float b) {
  switch (op) {
    case BinOp::Add: return ok(ScalarValue::fp32(a + b));
    case BinOp::Sub: return ok(ScalarValue::fp32(a - b));
    case BinOp::Mul: return ok(ScalarValue::fp32(a * b));
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
    default: break;
  }
  throw std::logic_error("compare: not a comparison");
}

bool isComparison(BinOp op) {
  return op == BinOp::Lt || op == BinOp::Le || op == BinOp::Gt || op == BinOp::Ge || op == BinOp::Eq || op == BinOp::Ne;
}

/// Truncation toward zero into [lo, hi]; nullopt-like fault for NaN, Inf or out of range.
bool truncateInto(float f, double lo, double hiExclusive, int64_t& out) {
  if (!std::isfinite(f)) return false;
  const double t = std::trunc(static_cast<double>(f));
  if (t < lo || t >= hiExclusive) return false;
  out = static_cast<int64_t>(t);
  return true;
}

}  // namespace

int64_t wrapInteger(int64_t v, DType dt) {
  // Conversions to narrower integers are modular since C++20.
  switch (dt) {
    case DType::INT32: return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
    case DType::INT8: return static_cast<int8_t>(static_cast<uint8_t>(static_cast<uint64_t>(v)));
    case DType::UINT8: return static_cast<uint8_t>(static_cast<uint64_t>(v));
    default: return v;
  }
}

std::string scalarText(const ScalarValue& v) {
  switch (v.dtype) {
    case DType::FP32: return std::to_string(v.f);
    case DType::BOOL: return v.i ? "True" : "False";
    default: return std::to_string(v.i);
  }
}

ScalarValue fp32Literal(double value) { return ScalarValue::fp32(static_cast<float>(value)); }

ScalarOutcome scalarBinary(BinOp op, const ScalarValue& a, const ScalarValue& b) {
  if (a.dtype != b.dtype)
    throw std::invalid_argument("scalar " + std::string(binOpSpelling(op)) + " on mixed dtypes " +
                                std::string(dtypeName(a.dtype)) + " and " + std::string(dtypeName(b.dtype)));
  const DType dt = a.dtype;
  if (op == BinOp::And || op == BinOp::Or) {
    if (dt != DType::BOOL) unsupported(binOpSpelling(op), dt);
    return ok(ScalarValue::boolean(op == BinOp::And ? (a.i != 0 && b.i != 0) : (a.i != 0 || b.i != 0)));
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

ScalarOutcome scalarUnary(UnOp op, const ScalarValue& a) {
  if (op == UnOp::Not) {
    if (a.dtype != DType::BOOL) unsupported("not", a.dtype);
    return ok(ScalarValue::boolean(a.i == 0));
  }
  if (isExactInt(a.dtype)) return exactArith(BinOp::Sub, a.dtype, 0, a.i);
  if (a.dtype == DType::INT32) return ok(int32(-a.i));
  if (a.dtype == DType::FP32) return ok(ScalarValue::fp32(-a.f));  // a sign flip, NaN included
  unsupported("unary -", a.dtype);
}

ScalarOutcome scalarConvert(const ScalarValue& v, DType to) {
  if (v.dtype == to) return ok(v);
  const bool fromFloat = v.dtype == DType::FP32;
  switch (to) {
    case DType::BOOL: return ok(ScalarValue::boolean(fromFloat ? v.f != 0.0f : v.i != 0));
    case DType::INDEX:
    case DType::INT64: {
      if (!fromFloat) return ok(integer(to, v.i));
      int64_t t = 0;
      if (!truncateInto(v.f, -0x1p63, 0x1p63, t)) return fault(kNotRepresentable);
      return ok(integer(to, t));
    }
    case DType::INT32: {
      if (!fromFloat) return ok(int32(v.i));
      int64_t t = 0;
      if (!truncateInto(v.f, -0x1p31, 0x1p31, t)) return fault(kNotRepresentable);
      return ok(int32(t));
    }
    case DType::FP32: return ok(ScalarValue::fp32(static_cast<float>(v.i)));  // one RNE rounding
    default: break;
  }
  throw std::invalid_argument("no scalar conversion to " + std::string(dtypeName(to)));
}

ScalarElement scalarAsElement(const ScalarValue& v, DType elem) {
  const bool fromFloat = v.dtype == DType::FP32;
  if (!fromFloat && !isIntScalar(v.dtype) && v.dtype != DType::BOOL)
    throw std::invalid_argument("a " + std::string(dtypeName(v.dtype)) + " scalar has no element value");
  ScalarElement out;
  if (isFloat(elem)) {
    out.real = fromFloat ? static_cast<double>(v.f) : static_cast<double>(v.i);
    return out;
  }
  if (!fromFloat) {
    out.integer = wrapInteger(v.i, elem);
    return out;
  }
  double lo = 0, hi = 0;
  switch (elem) {
    case DType::INT32: lo = -0x1p31; hi = 0x1p31; break;
    case DType::INT8: lo = -128.0; hi = 128.0; break;
    case DType::UINT8: lo = 0.0; hi = 256.0; break;
    default: throw std::invalid_argument("no element conversion to " + std::string(dtypeName(elem)));
  }
  if (!truncateInto(v.f, lo, hi, out.integer)) out.fault = kNotRepresentable;
  return out;
}

}  // namespace ptodiff::oracle::detail
