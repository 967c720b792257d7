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

TEST(BlockPoolDeathTest, ReleasingAFreeBlockIsAProgrammerError) {
  BlockPool pool(1);
  EXPECT_DEATH(pool.Release(0), "releasing a free block");
}

}  // namespace
}  // namespace pagoda
