#include "fuzz/gen/Features.h"

#include <array>

namespace ptodiff::fuzz {

namespace {

struct FeatureEntry {
  Feature feature;
  std::string_view name;
  std::string_view doc;
};

// Declaration order of the enum; checked by the unit tests (every feature has one entry).
constexpr std::array<FeatureEntry, kNumFeatures> kFeatures = {{
    {Feature::ElementwiseFP32, "elementwise-fp32",
     "FP32 add, sub, mul, div, maximum, minimum, abs, exp, sqrt, neg, relu, log, recip"},
    {Feature::OtherDTypes, "other-dtypes", "FP16 and INT32 tiles with add and mul; BF16 tiles through transfers only"},
    {Feature::TileScalar, "tile-scalar",
     "adds, subs, muls, divs, maximums, minimums, lrelu with literals, scalar parameters and FP32 scalar expressions"},
    {Feature::Full, "full", "tile.full with literal or runtime values"},
    {Feature::Slices, "slices", "tile.slice windows at static and runtime (32-byte aligned) offsets, nested slices"},
    {Feature::Assemble, "assemble",
     "tile.assemble into full and partial targets, overlapping and self-sourced windows, tile.create"},
    {Feature::Reshape, "reshape", "tile.reshape of dense tiles, full and partially valid (flat-prefix rule)"},
    {Feature::StaticPartialValid, "static-valid",
     "static valid_shape on load and slice, static set_validshape shrinking and growing back"},
    {Feature::RuntimeValid, "runtime-valid",
     "valid extents from scalar parameters on load and set_validshape (0 included), straight-line only"},
    {Feature::If, "if", "if/else with tile, scalar and tensor results; both arms taken across scalar sets"},
    {Feature::For, "for", "pl.range loops with 0..3 runtime trips, tile/scalar/tensor carries, swaps and fanout"},
    {Feature::While, "while", "pl.while_ loops with a counter carry and 0..3 runtime trips"},
    {Feature::NestedControl, "nested-control", "control flow nested inside loops and branches"},
    {Feature::Cube, "cube",
     "Mat loads, move/extract to Left/Right, matmul, matmul_acc (literal and runtime init_cond), K loops, Acc stores"},
    {Feature::TransposeView, "transpose-view", "tile.transpose_view of Mat operands (and of Vec tiles, out of contract)"},
    {Feature::MultiBlock, "multi-block", "block_num 2..4, block queries, each block writing its own GM rows"},
    {Feature::OutOfContract, "out-of-contract",
     "reductions, dynamic loop steps, non-FP32 ops beyond add/mul, Vec transpose/move/extract: the kernel stays Tile"},
}};

}  // namespace

std::string_view featureName(Feature f) { return kFeatures.at(static_cast<size_t>(f)).name; }

std::string_view featureDoc(Feature f) { return kFeatures.at(static_cast<size_t>(f)).doc; }

std::optional<Feature> parseFeature(std::string_view name) {
  for (const FeatureEntry& e : kFeatures)
    if (e.name == name) return e.feature;
  return std::nullopt;
}

const std::vector<Feature>& allFeatures() {
  static const std::vector<Feature> list = [] {
    std::vector<Feature> out;
    for (const FeatureEntry& e : kFeatures) out.push_back(e.feature);
    return out;
  }();
  return list;
}

FeatureSet FeatureSet::all() {
  FeatureSet s;
  s.bits_.set();
  return s;
}

FeatureSet FeatureSet::of(std::initializer_list<Feature> features) {
  FeatureSet s;
  for (Feature f : features) s.insert(f);
  return s;
}

std::vector<Feature> FeatureSet::list() const {
  std::vector<Feature> out;
  for (Feature f : allFeatures())
    if (has(f)) out.push_back(f);
  return out;
}

std::string FeatureSet::toString() const {
  std::string out;
  for (Feature f : list()) {
    if (!out.empty()) out += ',';
    out += featureName(f);
  }
  return out.empty() ? "none" : out;
}

std::optional<FeatureSet> FeatureSet::parse(std::string_view text, std::string* error) {
  FeatureSet s;
  if (text == "none") return s;
  if (text == "all") return all();
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    std::optional<Feature> f = parseFeature(item);
    if (!f) {
      if (error) *error = std::string(item);
      return std::nullopt;
    }
    s.insert(*f);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return s;
}

}  // namespace ptodiff::fuzz
