// GM tensors and scalar values as the interpreters see them.
//
// A tensor is a dense row-major array of element *bits* (never converted: transfers copy bits, so
// sentinel and NaN payloads survive), with a per-element poison flag and a per-element "written"
// flag (set by stores; used for the sentinel verdict and saved outputs).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/DType.h"

namespace ptodiff {

/// The error of withElementWord for any other width; out of line, so the hot callers stay small.
[[noreturn]] void throwElementWidth(int esize);

/// Calls f with a zero word as wide as an element of `esize` bytes (1, 2, 4 or 8), so a loop or
/// access inside copies one fixed-size word per element (one load or store; a copy of variable size
/// compiles to a call) instead of switching on the width each time.
template <class F>
decltype(auto) withElementWord(int esize, F&& f) {
  switch (esize) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    default: throwElementWidth(esize);
  }
}

/// The element bits at element `index` of a little-endian array of `dt` elements; every
/// per-element reader and writer goes through these.
inline uint64_t loadBits(DType dt, const uint8_t* base, int64_t index) {
  return withElementWord(dtypeSize(dt), [p = base + index * dtypeSize(dt)](auto word) {
    std::memcpy(&word, p, sizeof word);
    return static_cast<uint64_t>(word);
  });
}
inline void storeBits(DType dt, uint8_t* base, int64_t index, uint64_t bits) {
  withElementWord(dtypeSize(dt), [p = base + index * dtypeSize(dt), bits](auto word) {
    word = static_cast<decltype(word)>(bits);
    std::memcpy(p, &word, sizeof word);
  });
}

struct Tensor {
  DType dtype = DType::FP32;
  int64_t rows = 0, cols = 0;
  std::vector<uint8_t> bytes;    // rows * cols * dtypeSize(dtype), little-endian element bits
  std::vector<uint8_t> poison;   // rows * cols, 1 = poison
  std::vector<uint8_t> written;  // rows * cols, 1 = some store wrote this element
  /// rows * cols formulas (ExprPool ids, interp/Symbolic.h) after a symbolic run, else empty.
  std::vector<uint32_t> sym;

  Tensor() = default;
  Tensor(DType dt, int64_t r, int64_t c)
      : dtype(dt), rows(r), cols(c), bytes(static_cast<size_t>(r * c * dtypeSize(dt))),
        poison(static_cast<size_t>(r * c)), written(static_cast<size_t>(r * c)) {}
  int64_t elements() const { return rows * cols; }
  int esize() const { return dtypeSize(dtype); }
  bool anyPoison() const;
  /// Fills every element with `bits` (the low esize() bytes are used).
  void fillBits(uint64_t bits);
  uint64_t bitsAt(int64_t index) const { return loadBits(dtype, bytes.data(), index); }
  void setBitsAt(int64_t index, uint64_t bits) { storeBits(dtype, bytes.data(), index, bits); }
};

/// The dtype's sentinel pattern (semantics.md §7): FP32 0x7FC0DEAD, FP16 0x7E5A, BF16 0x7FDA,
/// INT32 0x5EA1DEAD, INT8 0x5A.
uint64_t sentinelBits(DType dt);

/// A runtime scalar: INDEX/INT64/INT32/BOOL in `i` (INT32 already wrapped, BOOL 0/1), FP32 in `f`.
struct ScalarValue {
  DType dtype = DType::INDEX;
  int64_t i = 0;
  float f = 0.0f;
  static ScalarValue index(int64_t v) { return {DType::INDEX, v, 0.0f}; }
  static ScalarValue boolean(bool v) { return {DType::BOOL, v ? 1 : 0, 0.0f}; }
  static ScalarValue fp32(float v) { return {DType::FP32, 0, v}; }
  bool operator==(const ScalarValue&) const = default;
};

/// What a kernel runs on: every tensor parameter's initial contents and every scalar parameter.
struct KernelArgs {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, ScalarValue> scalars;
};

}  // namespace ptodiff
