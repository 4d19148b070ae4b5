// The swarm feature list of the program generator (spec/fuzz.md, "Generators").
//
// Swarm testing (Groce et al., ISSTA'12): instead of one tuned mix of every construct, each case
// first draws a random subset of features and the generator then uses only those. Programs from
// small subsets exercise interactions a full mix rarely reaches (a kernel that is all loops and
// assembles), and the subsets act as a free classification of failures.
//
// Loads and stores of FP32 Vec tiles are not a feature: every program has them.
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptodiff::fuzz {

enum class Feature : uint8_t {
  ElementwiseFP32,     // FP32 add sub mul div maximum minimum, abs exp sqrt neg relu log recip
  OtherDTypes,         // FP16/INT32 tiles with add and mul, BF16 tiles moved through transfers
  TileScalar,          // adds subs muls divs maximums minimums lrelu; FP32 scalar expressions
  Full,                // tile.full
  Slices,              // tile.slice at static and runtime offsets, nested slices
  Assemble,            // tile.assemble (overlapping sources, growing valid regions), tile.create
  Reshape,             // tile.reshape of dense tiles (flat-prefix valid rule)
  StaticPartialValid,  // static valid_shape on load/slice, static set_validshape (shrink, grow back)
  RuntimeValid,        // valid extents from scalars (load, set_validshape), incl. 0
  If,                  // if/else with tile, scalar and tensor results; conditions from runtime flags
  For,                 // pl.range loops with tile/scalar/tensor carries, swaps and fanout
  While,               // pl.while_ loops with a counter carry
  NestedControl,       // control flow inside control flow (else regions stay one level deep)
  Cube,                // GM -> Mat -> Left/Right -> matmul/matmul_acc -> Acc -> GM, K loops
  TransposeView,       // tile.transpose_view (Mat operands of the cube path; Vec out of contract)
  MultiBlock,          // block_num > 1, block queries, per-block GM rows
  OutOfContract,       // constructs that keep the kernel on Tile: reductions, dynamic loop steps, ...
};

inline constexpr int kNumFeatures = static_cast<int>(Feature::OutOfContract) + 1;

/// "elementwise-fp32", "runtime-valid", ...: the spelling used by reports and `--features`.
std::string_view featureName(Feature f);
/// One line saying what the feature adds to generated programs.
std::string_view featureDoc(Feature f);
std::optional<Feature> parseFeature(std::string_view name);
/// Every feature, in declaration order.
const std::vector<Feature>& allFeatures();

/// A subset of the features.
class FeatureSet {
 public:
  FeatureSet() = default;
  static FeatureSet all();
  static FeatureSet of(std::initializer_list<Feature> features);

  bool has(Feature f) const { return bits_.test(index(f)); }
  FeatureSet& insert(Feature f) {
    bits_.set(index(f));
    return *this;
  }
  FeatureSet& erase(Feature f) {
    bits_.reset(index(f));
    return *this;
  }
  size_t size() const { return bits_.count(); }
  bool empty() const { return bits_.none(); }
  std::vector<Feature> list() const;
  /// "cube,for,multi-block" (declaration order), or "none".
  std::string toString() const;
  /// Parses a comma-separated list of feature names; nullopt names the first unknown entry in `error`.
  static std::optional<FeatureSet> parse(std::string_view text, std::string* error = nullptr);

  bool operator==(const FeatureSet&) const = default;

 private:
  static size_t index(Feature f) { return static_cast<size_t>(f); }
  std::bitset<kNumFeatures> bits_;
};

}  // namespace ptodiff::fuzz
