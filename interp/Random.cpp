#include "interp/Random.h"

#include <Eigen/Core>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ptodiff {

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Xoshiro256::Xoshiro256(uint64_t seed) {
  SplitMix64 mix(seed);
  for (uint64_t& word : s_) word = mix.next();
}

uint64_t Xoshiro256::next() {
  const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = std::rotl(s_[3], 45);
  return result;
}

double Xoshiro256::nextUnit() {
  // 2^-53 * an integer below 2^53: both factors exact, so the product is exact.
  return static_cast<double>(next53()) * 0x1.0p-53;
}

uint64_t Xoshiro256::nextBelow(uint64_t n) {
  // floor(n * k / 2^53) with a 117-bit product: exact, and always < n because k < 2^53.
  const unsigned __int128 product = static_cast<unsigned __int128>(n) * next53();
  return static_cast<uint64_t>(product >> 53);
}

uint64_t fnv1a64(std::string_view bytes) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001B3ull;
  }
  return hash;
}

uint64_t deriveTensorSeed(uint64_t caseSeed, std::string_view tensorName) {
  // Two splitmix rounds over (case seed, name hash) so nearby case seeds and similar names still
  // give unrelated streams.
  SplitMix64 mix(caseSeed ^ SplitMix64(fnv1a64(tensorName)).next());
  return mix.next();
}

namespace {

/// Rounds `value` to float with round-to-odd: truncate toward zero, and if anything was lost set
/// the last mantissa bit. Rounding that result once more, to nearest even, into a format with at
/// least two fewer significand bits (FP16: 11, BF16: 8, versus float's 24) gives the same answer
/// as rounding `value` directly (Boldo & Melquiond, "When double rounding is odd"). Overflow
/// becomes FLT_MAX with the odd bit set, which rounds on to infinity in both narrower formats.
float roundToOddFloat(double value) {
  float nearest = static_cast<float>(value);  // the FPU's round-to-nearest-even
  if (static_cast<double>(nearest) == value) return nearest;
  if (std::fabs(static_cast<double>(nearest)) > std::fabs(value))
    nearest = std::nextafter(nearest, 0.0f);  // now the truncation toward zero
  return std::bit_cast<float>(std::bit_cast<uint32_t>(nearest) | 1u);
}

}  // namespace

uint64_t floatBitsFromDouble(double value, DType dt) {
  switch (dt) {
    case DType::FP32:
      if (std::isnan(value)) return 0x7FC00000u;
      return std::bit_cast<uint32_t>(static_cast<float>(value));
    case DType::FP16:
      if (std::isnan(value)) return 0x7E00u;
      return std::bit_cast<uint16_t>(Eigen::half(roundToOddFloat(value)));
    case DType::BF16:
      if (std::isnan(value)) return 0x7FC0u;
      return std::bit_cast<uint16_t>(Eigen::bfloat16(roundToOddFloat(value)));
    default:
      throw std::logic_error("floatBitsFromDouble: " + std::string(dtypeName(dt)) +
                             " is not a floating dtype");
  }
}

IntRange intRangeOf(DType dt) {
  switch (dt) {
    case DType::INT8: return {-128, 127};
    case DType::UINT8: return {0, 255};
    case DType::BOOL: return {0, 1};
    case DType::INT32:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case DType::INT64: case DType::INDEX:
      return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    default:
      throw std::logic_error("intRangeOf: " + std::string(dtypeName(dt)) +
                             " is not an integer dtype");
  }
}

uint64_t intBits(int64_t value, DType dt) {
  const int bits = dtypeSize(dt) * 8;
  const uint64_t raw = static_cast<uint64_t>(value);
  return bits >= 64 ? raw : raw & ((uint64_t{1} << bits) - 1);
}

}  // namespace ptodiff
