// 64-bit FNV-1a: the campaign's program hashes and verdict digest. Chosen because it is tiny,
// byte-order independent and stable across compilers and machines (std::hash is neither).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace ptodiff::fuzz {

inline constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;

/// Continues the FNV-1a hash `state` over `bytes`.
inline uint64_t fnv1a(std::string_view bytes, uint64_t state = kFnvOffset) {
  for (unsigned char c : bytes) {
    state ^= c;
    state *= 0x100000001b3ull;
  }
  return state;
}

/// 16 lowercase hex digits.
inline std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace ptodiff::fuzz
