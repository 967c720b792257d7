#include "pagoda/kv_blocks/block_pool.h"

#include <gtest/gtest.h>

#include <set>

namespace pagoda {
namespace {

TEST(BlockPoolTest, AllocatesEveryBlockOnceThenRunsOut) {
  BlockPool pool(4);
  std::set<int32_t> seen;
  for (int i = 0; i < 4; ++i) {
    auto b = pool.Allocate();
    ASSERT_TRUE(b.has_value());
    EXPECT_TRUE(seen.insert(*b).second);
    EXPECT_EQ(pool.ref_count(*b), 1);
  }
  EXPECT_FALSE(pool.Allocate().has_value());
  EXPECT_EQ(pool.num_free(), 0);
}

TEST(BlockPoolTest, GrowCoversTokensAndFailsAtomically) {
  BlockPool pool(3);
  std::vector<int32_t> table;
  ASSERT_TRUE(GrowBlockTable(pool, table, 17, 16).ok());
  EXPECT_EQ(table.size(), 2u);
  ASSERT_TRUE(GrowBlockTable(pool, table, 32, 16).ok());  // still covered
  EXPECT_EQ(table.size(), 2u);
  Status s = GrowBlockTable(pool, table, 80, 16);  // needs 3 more, 1 free
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(pool.num_free(), 1);
  ReleaseBlockTable(pool, table);
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(pool.num_free(), 3);
}

BlockHash H(int i) { return HashBlock(std::nullopt, std::vector<int32_t>{i}, {}); }

TEST(BlockPoolTest, FreedBlocksJoinTheTailAndAllocationTakesTheHead) {
  BlockPool pool(4);
  std::vector<int32_t> taken;
  for (int i = 0; i < 4; ++i) taken.push_back(*pool.Allocate());
  EXPECT_EQ(taken, (std::vector<int32_t>{0, 1, 2, 3}));
  pool.Release(2);
  pool.Release(0);
  pool.Release(3);
  EXPECT_EQ(pool.FreeListInOrder(), (std::vector<int32_t>{2, 0, 3}));
  EXPECT_EQ(*pool.Allocate(), 2);  // least recently freed first
  EXPECT_EQ(*pool.Allocate(), 0);
  EXPECT_TRUE(pool.CheckInvariants().ok());
}

TEST(BlockPoolTest, ReleasingATableEvictsItsTailFirst) {
  BlockPool pool(3);
  std::vector<int32_t> table;
  ASSERT_TRUE(GrowBlockTable(pool, table, 48, 16).ok());
  ReleaseBlockTable(pool, table);
  EXPECT_EQ(pool.FreeListInOrder(), (std::vector<int32_t>{2, 1, 0}));
}

TEST(BlockPoolTest, FreedBlocksStayCachedUntilEvictedInLruOrder) {
  BlockPool pool(3);
  const int32_t a = *pool.Allocate();
  const int32_t b = *pool.Allocate();
  ASSERT_TRUE(pool.SetHash(a, H(1)));
  ASSERT_TRUE(pool.SetHash(b, H(2)));
  pool.Release(a);
  pool.Release(b);
  EXPECT_EQ(pool.Lookup(H(1)), a);  // free yet findable
  EXPECT_EQ(pool.Lookup(H(2)), b);
  // Block 2 was never used: it is the head, then a, then b.
  EXPECT_EQ(*pool.Allocate(), 2);
  EXPECT_EQ(pool.Lookup(H(1)), a);
  EXPECT_EQ(*pool.Allocate(), a);
  EXPECT_FALSE(pool.Lookup(H(1)).has_value());  // evicted with its reuse
  EXPECT_FALSE(pool.hash(a).has_value());
  EXPECT_EQ(pool.Lookup(H(2)), b);
  EXPECT_EQ(pool.num_evictions(), 1);
  EXPECT_TRUE(pool.CheckInvariants().ok());
}

TEST(BlockPoolTest, TouchTakesAFreeBlockFromTheMiddleOfTheList) {
  BlockPool pool(5);
  EXPECT_EQ(pool.FreeListInOrder(), (std::vector<int32_t>{0, 1, 2, 3, 4}));
  pool.Touch(2);
  EXPECT_EQ(pool.ref_count(2), 1);
  EXPECT_EQ(pool.num_free(), 4);
  EXPECT_EQ(pool.FreeListInOrder(), (std::vector<int32_t>{0, 1, 3, 4}));
  pool.Touch(0);  // head
  pool.Touch(4);  // tail
  EXPECT_EQ(pool.FreeListInOrder(), (std::vector<int32_t>{1, 3}));
  pool.Touch(2);  // in use: just another reference
  EXPECT_EQ(pool.ref_count(2), 2);
  EXPECT_TRUE(pool.CheckInvariants().ok());
  pool.Release(2);
  EXPECT_EQ(pool.num_free(), 2);
  pool.Release(2);
  EXPECT_EQ(pool.FreeListInOrder(), (std::vector<int32_t>{1, 3, 2}));
  EXPECT_TRUE(pool.CheckInvariants().ok());
}

TEST(BlockPoolTest, AHashNamesOneBlock) {
  BlockPool pool(2);
  const int32_t a = *pool.Allocate();
  const int32_t b = *pool.Allocate();
  EXPECT_TRUE(pool.SetHash(a, H(7)));
  EXPECT_TRUE(pool.SetHash(a, H(7)));   // idempotent
  EXPECT_FALSE(pool.SetHash(b, H(7)));  // a duplicate stays unnamed
  EXPECT_FALSE(pool.hash(b).has_value());
  EXPECT_EQ(pool.Lookup(H(7)), a);
  EXPECT_TRUE(pool.CheckInvariants().ok());
}

TEST(BlockPoolDeathTest, ReleasingAFreeBlockIsAProgrammerError) {
  BlockPool pool(1);
  EXPECT_DEATH(pool.Release(0), "releasing a free block");
}

}  // namespace
}  // namespace pagoda
