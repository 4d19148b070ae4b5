// Target numbers as semantics.md §3 gives them.
#include <gtest/gtest.h>

#include "compiler/target/Target.h"

namespace ptodiff {
namespace {

TEST(Target, A2A3Capacities) {
  const Target& t = targetA2A3();
  EXPECT_EQ(t.space(MemSpace::Vec).capacity, 192 * 1024);
  EXPECT_EQ(t.space(MemSpace::Vec).usableEnd(), 184 * 1024);
  EXPECT_EQ(t.space(MemSpace::Mat).capacity, 512 * 1024);
  EXPECT_EQ(t.space(MemSpace::Left).capacity, 64 * 1024);
  EXPECT_EQ(t.space(MemSpace::Right).capacity, 64 * 1024);
  EXPECT_EQ(t.space(MemSpace::Acc).capacity, 128 * 1024);
  EXPECT_EQ(t.space(MemSpace::Acc).usableEnd(), 128 * 1024);
}

TEST(Target, A5Capacities) {
  const Target& t = targetA5();
  EXPECT_EQ(t.space(MemSpace::Vec).capacity, 248 * 1024);
  EXPECT_EQ(*t.space(MemSpace::Vec).reserved, (ByteRange{240 * 1024, 248 * 1024}));
  EXPECT_EQ(t.space(MemSpace::Acc).capacity, 256 * 1024);
}

TEST(Target, LookupByName) {
  EXPECT_EQ(findTarget("a2a3"), &targetA2A3());
  EXPECT_EQ(findTarget("a5"), &targetA5());
  EXPECT_EQ(findTarget("a3"), nullptr);
}

TEST(ByteRange, OverlapIsHalfOpen) {
  ByteRange a{0, 32}, b{32, 64}, c{31, 33};
  EXPECT_FALSE(a.overlaps(b));
  EXPECT_TRUE(a.overlaps(c));
  EXPECT_TRUE(b.overlaps(c));
  EXPECT_TRUE((ByteRange{5, 5}).empty());
}

}  // namespace
}  // namespace ptodiff
