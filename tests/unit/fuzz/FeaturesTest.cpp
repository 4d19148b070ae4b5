// The swarm feature list: names, docs, parsing, and the feature-set draw.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "fuzz/gen/ProgramGen.h"

namespace ptodiff::fuzz {
namespace {

TEST(Features, EveryFeatureHasAUniqueNameAndADocLine) {
  std::set<std::string_view> names;
  ASSERT_EQ(allFeatures().size(), static_cast<size_t>(kNumFeatures));
  for (Feature f : allFeatures()) {
    EXPECT_FALSE(featureDoc(f).empty());
    EXPECT_TRUE(names.insert(featureName(f)).second) << featureName(f);
    EXPECT_EQ(parseFeature(featureName(f)), f);
  }
  EXPECT_EQ(parseFeature("cubes"), std::nullopt);
}

TEST(Features, SetsPrintAndParse) {
  FeatureSet s = FeatureSet::of({Feature::While, Feature::Cube, Feature::ElementwiseFP32});
  EXPECT_EQ(s.toString(), "elementwise-fp32,while,cube");
  EXPECT_EQ(FeatureSet::parse(s.toString()), s);
  EXPECT_EQ(FeatureSet{}.toString(), "none");
  EXPECT_EQ(FeatureSet::parse("none"), FeatureSet{});
  EXPECT_EQ(FeatureSet::parse("all"), FeatureSet::all());
  EXPECT_EQ(FeatureSet::all().size(), static_cast<size_t>(kNumFeatures));
  std::string bad;
  EXPECT_EQ(FeatureSet::parse("cube,loops", &bad), std::nullopt);
  EXPECT_EQ(bad, "loops");
}

RC_GTEST_PROP(Features, FixedConfigurationIsReturnedAsIs, ()) {
  GenConfig config;
  config.features = FeatureSet::of({Feature::If, Feature::Reshape});
  RC_ASSERT(*genFeatureSet(config) == *config.features);
}

TEST(Features, SwarmDrawsFollowTheConfiguredPercentage) {
  for (int percent : {0, 100}) {
    GenConfig config;
    config.featurePercent = percent;
    const FeatureSet s = genFeatureSet(config)(rc::Random(3), 100).value();
    EXPECT_EQ(s, percent == 0 ? FeatureSet{} : FeatureSet::all());
  }
}

TEST(Features, SwarmSubsetsShrinkTowardFewerFeatures) {
  const rc::Shrinkable<FeatureSet> drawn = genFeatureSet(GenConfig{})(rc::Random(11), 100);
  const size_t size = drawn.value().size();
  ASSERT_GT(size, 0u);
  rc::Seq<rc::Shrinkable<FeatureSet>> shrinks = drawn.shrinks();
  int smaller = 0;
  while (auto next = shrinks.next())
    if (next->value().size() < size) ++smaller;
  EXPECT_GT(smaller, 0);
}

}  // namespace
}  // namespace ptodiff::fuzz
