// The byte arena: deterministic garbage, poison until written, event tags, lazy pages.
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "interp/ByteArena.h"

namespace ptodiff {
namespace {

TEST(ByteArena, FreshBytesArePoisonGarbageThatDependsOnSeedSpaceAndAddress) {
  ByteArena a(MemSpace::Vec, 192 * 1024, 7), b(MemSpace::Vec, 192 * 1024, 7), c(MemSpace::Vec, 192 * 1024, 8);
  ByteArena d(MemSpace::Mat, 192 * 1024, 7);
  std::vector<uint8_t> x(64), y(64), z(64), w(64);
  bool poisoned = false;
  a.read(1000, x.data(), 64, &poisoned);
  EXPECT_TRUE(poisoned);
  b.read(1000, y.data(), 64);
  c.read(1000, z.data(), 64);
  d.read(1000, w.data(), 64);
  EXPECT_EQ(x, y);  // same seed, space, address: same bits
  EXPECT_NE(x, z);
  EXPECT_NE(x, w);
  EXPECT_EQ(a.pagesTouched(), 0);  // reading does not materialize pages
}

TEST(ByteArena, WritesAreDefinedTaggedAndCrossPages) {
  ByteArena a(MemSpace::Vec, 3 * ByteArena::kPageBytes, 1);
  std::vector<uint8_t> data(100);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i);
  const int64_t addr = ByteArena::kPageBytes - 50;  // straddles pages 0 and 1
  a.write(addr, data.data(), 100, /*poison=*/false, /*event=*/42);
  EXPECT_EQ(a.pagesTouched(), 2);
  std::vector<uint8_t> back(100);
  bool poisoned = false;
  a.read(addr, back.data(), 100, &poisoned);
  EXPECT_FALSE(poisoned);
  EXPECT_EQ(back, data);
  EXPECT_EQ(a.eventAt(addr), 42u);
  EXPECT_EQ(a.eventAt(addr + 99), 42u);
  EXPECT_EQ(a.eventAt(addr + 100), ByteArena::kNoEvent);
  EXPECT_TRUE(a.isPoison(addr - 1));
  EXPECT_TRUE(a.isPoison(addr + 100));
  // Bytes around the write keep the garbage they had.
  uint8_t before = 0;
  a.read(addr - 1, &before, 1);
  EXPECT_EQ(before, ByteArena::garbageByte(1, MemSpace::Vec, addr - 1));
}

// clear() (a run's storage reset per block) makes the arena what a fresh one is: every byte poison
// garbage with no event and no tag, no page materialized; the pages it held serve later writes.
TEST(ByteArena, ClearedArenaIsFreshAgain) {
  ByteArena a(MemSpace::Vec, 3 * ByteArena::kPageBytes, 5, /*symbolic=*/true);
  ByteArena fresh(MemSpace::Vec, 3 * ByteArena::kPageBytes, 5, /*symbolic=*/true);
  std::vector<uint8_t> data(ByteArena::kPageBytes, 0x5A);  // straddles pages 0 and 1
  a.write(ByteArena::kPageBytes - 5, data.data(), static_cast<int64_t>(data.size()), false, 9);
  const std::vector<uint64_t> tags(data.size(), 0x1234);
  a.writeTags(ByteArena::kPageBytes - 5, tags.data(), static_cast<int64_t>(tags.size()));
  ASSERT_EQ(a.pagesTouched(), 2);
  a.clear();
  EXPECT_EQ(a.pagesTouched(), 0);
  const int64_t n = 3 * ByteArena::kPageBytes;
  std::vector<uint8_t> got(static_cast<size_t>(n)), want(static_cast<size_t>(n)), poison(static_cast<size_t>(n));
  a.readWithPoison(0, got.data(), poison.data(), n);
  fresh.read(0, want.data(), n);
  EXPECT_EQ(got, want);
  EXPECT_EQ(std::count(poison.begin(), poison.end(), 1), n);
  EXPECT_EQ(a.eventAt(ByteArena::kPageBytes), ByteArena::kNoEvent);
  // Written again after the reset, a page starts from garbage, not from what it held before.
  const uint8_t one = 7;
  a.write(ByteArena::kPageBytes, &one, 1, false, 10);
  std::vector<uint64_t> readTags(2);
  a.readTags(ByteArena::kPageBytes - 1, readTags.data(), 2);
  EXPECT_EQ(readTags[0], 0u);  // untouched byte of a re-materialized page: no formula
  uint8_t before = 0;
  a.read(ByteArena::kPageBytes - 1, &before, 1);
  EXPECT_EQ(before, ByteArena::garbageByte(5, MemSpace::Vec, ByteArena::kPageBytes - 1));
  EXPECT_EQ(a.eventAt(ByteArena::kPageBytes - 1), ByteArena::kNoEvent);
  EXPECT_EQ(a.eventAt(ByteArena::kPageBytes), 10u);
}

// A materialized page holds exactly the garbage an untouched page reads as (pages fill eight
// bytes per hash; garbageByte is the definition).
TEST(ByteArena, MaterializedPageKeepsEveryGarbageByte) {
  ByteArena touched(MemSpace::Mat, 2 * ByteArena::kPageBytes, 99), fresh(MemSpace::Mat, 2 * ByteArena::kPageBytes, 99);
  const uint8_t one = 0xAB;
  touched.write(ByteArena::kPageBytes + 5, &one, 1, false, 1);
  std::vector<uint8_t> got(ByteArena::kPageBytes), want(ByteArena::kPageBytes);
  touched.read(ByteArena::kPageBytes, got.data(), ByteArena::kPageBytes);
  fresh.read(ByteArena::kPageBytes, want.data(), ByteArena::kPageBytes);
  want[5] = one;
  EXPECT_EQ(got, want);
  for (int64_t i = 0; i < ByteArena::kPageBytes; ++i) {
    if (i == 5) continue;
    ASSERT_EQ(got[static_cast<size_t>(i)], ByteArena::garbageByte(99, MemSpace::Mat, ByteArena::kPageBytes + i)) << i;
  }
}

// Fresh pages' garbage is hashed once per (seed, space, page) and thread and then reused: pages
// materialized one after another under alternating seeds and spaces still hold their own garbage.
TEST(ByteArena, MaterializedPagesUnderAlternatingSeedsAndSpacesHoldTheirOwnGarbage) {
  const int64_t page = 3 * ByteArena::kPageBytes;
  for (int round = 0; round < 2; ++round)
    for (uint64_t seed : {uint64_t{5}, uint64_t{6}, uint64_t{5}})
      for (MemSpace space : {MemSpace::Vec, MemSpace::Left, MemSpace::Vec}) {
        ByteArena a(space, 4 * ByteArena::kPageBytes, seed);
        const uint8_t one = 0x11;
        a.write(page, &one, 1, false, 1);  // materializes the page
        std::vector<uint8_t> got(ByteArena::kPageBytes);
        a.read(page, got.data(), ByteArena::kPageBytes);
        for (int64_t i = 1; i < ByteArena::kPageBytes; ++i)
          ASSERT_EQ(got[static_cast<size_t>(i)], ByteArena::garbageByte(seed, space, page + i))
              << "seed " << seed << ", byte " << i;
      }
}

TEST(ByteArena, PoisonWriteMakesBytesPoisonAgain) {
  ByteArena a(MemSpace::Acc, 4096, 0);
  uint8_t v[4] = {1, 2, 3, 4};
  a.write(0, v, 4, false, 1);
  EXPECT_FALSE(a.isPoison(2));
  a.write(2, v, 1, true, 2);
  EXPECT_TRUE(a.isPoison(2));
  EXPECT_FALSE(a.isPoison(3));
  bool poisoned = false;
  uint8_t out[4];
  a.read(0, out, 2, &poisoned);
  EXPECT_FALSE(poisoned);
  a.read(0, out, 4, &poisoned);
  EXPECT_TRUE(poisoned);
}

TEST(ByteArena, BoundsPredicate) {
  ByteArena a(MemSpace::Left, 64 * 1024, 0);
  EXPECT_TRUE(a.contains(0, 64 * 1024));
  EXPECT_FALSE(a.contains(64 * 1024 - 1, 2));
  EXPECT_FALSE(a.contains(-32, 1));
}

}  // namespace
}  // namespace ptodiff
