// ptodiff's own deterministic random numbers and their mapping to element bits.
//
// A case must give the same bits on every machine and standard library, so nothing here uses
// <random>'s distributions (their algorithms are unspecified). The generator is xoshiro256**
// seeded through splitmix64 (both fully specified integer algorithms); every mapping to a value is
// written out below in binary64 arithmetic, followed by exactly one correctly rounded conversion
// to the element dtype.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "compiler/ir/DType.h"

namespace ptodiff {

/// splitmix64: turns one 64-bit seed into a well-mixed stream (used to seed xoshiro).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();

 private:
  uint64_t state_;
};

/// xoshiro256** 1.0 (Blackman & Vigna), state filled from splitmix64(seed).
class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed);
  uint64_t next();
  /// The top 53 bits of next(): an integer uniform in [0, 2^53).
  uint64_t next53() { return next() >> 11; }
  /// next53() / 2^53: uniform in [0, 1), exact in binary64.
  double nextUnit();
  /// floor(n * next53() / 2^53) computed exactly: uniform in [0, n) for 0 < n <= 2^64 - 1.
  uint64_t nextBelow(uint64_t n);

 private:
  std::array<uint64_t, 4> s_;
};

/// 64-bit FNV-1a of `bytes`.
uint64_t fnv1a64(std::string_view bytes);

/// The seed of a generated tensor whose case gives none: a mix of the case seed and the tensor's
/// name, so that renaming or reordering other tensors does not change this one's values.
uint64_t deriveTensorSeed(uint64_t caseSeed, std::string_view tensorName);

/// `value` rounded once, to nearest even, to a floating dtype (FP32, FP16, BF16); returns the
/// element bits. NaN maps to the dtype's default quiet NaN, infinities and overflow to infinity.
uint64_t floatBitsFromDouble(double value, DType dt);

/// Range of an integer element dtype (INT8, UINT8, INT32, INT64, INDEX; BOOL as [0, 1]).
struct IntRange {
  int64_t min, max;
};
IntRange intRangeOf(DType dt);

/// The element bits of integer `value` in dtype `dt` (two's complement, truncated to the width).
uint64_t intBits(int64_t value, DType dt);

}  // namespace ptodiff
