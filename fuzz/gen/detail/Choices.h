// Every random choice of the program generator, as a RapidCheck pick (internal to fuzz/gen).
//
// Each method is `*gen` on a RapidCheck generator, so it must run inside `rc::gen::exec`; the
// recorded picks are what RapidCheck shrinks. Every pick shrinks toward its first, simplest
// option (index 0, the lower bound, `false`), so shrinking heads toward small, plain programs.
// Picks are made at RapidCheck's nominal size: how many statements a case gets is scaled by size
// separately (KernelGenerator's budget), not each choice's range.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include <rapidcheck/Gen.h>
#include <rapidcheck/gen/Arbitrary.h>
#include <rapidcheck/gen/Numeric.h>
#include <rapidcheck/gen/Transform.h>
#include <rapidcheck/shrink/Shrink.h>
#include <rapidcheck/shrinkable/Create.h>

namespace ptodiff::fuzz::detail {

class Choices {
 public:
  /// Uniform in [0, n) for n >= 1; shrinks toward 0.
  int64_t below(int64_t n) const {
    if (n <= 1) return 0;
    return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<int64_t>(0, n));
  }
  /// Uniform in [lo, hi] (inclusive, lo <= hi); shrinks toward lo.
  int64_t between(int64_t lo, int64_t hi) const { return lo + below(hi - lo + 1); }
  /// True with `percent` percent; shrinks toward false.
  bool chance(int percent) const { return below(100) >= 100 - percent; }
  /// Index i with probability weights[i] / sum (sum > 0); shrinks toward the first index with a
  /// nonzero weight.
  size_t weighted(const std::vector<int>& weights) const {
    int64_t total = 0;
    for (int w : weights) total += w;
    int64_t v = below(total);
    for (size_t i = 0; i < weights.size(); ++i) {
      if (v < weights[i]) return i;
      v -= weights[i];
    }
    return weights.size() - 1;
  }
  size_t weighted(std::initializer_list<int> weights) const { return weighted(std::vector<int>(weights)); }
  /// One element of a non-empty list; shrinks toward the first.
  template <class T>
  T pick(const std::vector<T>& options) const {
    return options[static_cast<size_t>(below(static_cast<int64_t>(options.size())))];
  }
  /// Always `value`, but shrinks toward `lo`: a quantity generation wants at its maximum (the
  /// statement budget) that shrinking should still reduce.
  int64_t shrinkingFrom(int64_t value, int64_t lo) const {
    return *rc::Gen<int64_t>([=](const rc::Random&, int) {
      return rc::shrinkable::shrinkRecur(value, [=](int64_t x) { return rc::shrink::towards<int64_t>(x, lo); });
    });
  }
  uint64_t seed() const { return *rc::gen::resize(rc::kNominalSize, rc::gen::arbitrary<uint64_t>()); }
};

}  // namespace ptodiff::fuzz::detail
