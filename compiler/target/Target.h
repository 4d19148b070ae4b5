// Target descriptions: per-space capacities, reserved ranges, alignment and implicit layouts of the
// a2a3 and a5 targets (semantics.md §3; numbers from pto-isa). Every module that needs one of these
// facts reads it here, so each exists in one place. The implicit layouts are the same on both
// targets and live in ImplicitLayouts.h (included here), where the IR's types can read them too.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "compiler/ir/DType.h"
#include "compiler/target/ImplicitLayouts.h"

namespace ptodiff {

/// A half-open byte range [begin, end) of one space.
struct ByteRange {
  int64_t begin = 0, end = 0;
  bool empty() const { return end <= begin; }
  bool overlaps(const ByteRange& o) const { return begin < o.end && o.begin < end; }
  bool operator==(const ByteRange&) const = default;
};

struct SpaceDesc {
  int64_t capacity = 0;  // bytes
  /// Hardware scratch inside the space that no allocation may touch (a2a3 UB [184 KiB, 192 KiB)).
  std::optional<ByteRange> reserved;
  /// Bytes usable by allocations: [0, usableEnd). Equals capacity where nothing is reserved at the top.
  int64_t usableEnd() const { return reserved ? reserved->begin : capacity; }
};

enum class TargetKind : uint8_t { A2A3, A5 };

struct Target {
  TargetKind kind;
  std::string_view name;  // "a2a3" or "a5"
  SpaceDesc vec, mat, left, right, acc;
  int64_t baseAlignment = 32;  // every handle and MemRef base is 32-byte aligned

  const SpaceDesc& space(MemSpace s) const;
};

const Target& targetA2A3();
const Target& targetA5();
/// "a2a3" or "a5"; nullptr for anything else.
const Target* findTarget(std::string_view name);

}  // namespace ptodiff
