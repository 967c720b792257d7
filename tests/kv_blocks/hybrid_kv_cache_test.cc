// The hybrid KV cache: groups of layers with their own block tables over one
// pool, windowed groups returning the blocks behind their window.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>

#include "pagoda/kv_blocks/kv_cache_manager.h"
#include "pagoda/request/request.h"

namespace pagoda {
namespace {

constexpr int32_t kBlockSize = 4;
constexpr int64_t kWindow = 8;

std::unique_ptr<Request> MakeRequest(int32_t num_tokens, SeqId id, int32_t first_token = 100) {
  std::vector<int32_t> tokens(num_tokens);
  std::iota(tokens.begin(), tokens.end(), first_token);
  auto r = std::make_unique<Request>("r", std::move(tokens), SamplingParams{}, 0.0, 0, CacheKeys{});
  r->sequence(0).assign_id(id);
  return r;
}

KvCacheManager Manager(std::vector<int64_t> windows, int32_t num_blocks) {
  KvCacheConfig config{.num_blocks = num_blocks, .block_size = kBlockSize, .enable_prefix_caching = true, .groups = {}};
  for (int64_t w : windows) config.groups.push_back({.sliding_window = w});
  return KvCacheManager(config);
}

// Computes the sequence `step` tokens at a time up to `end`.
void Compute(KvCacheManager& kv, Sequence& seq, int64_t end, int64_t step) {
  while (seq.num_computed_tokens() < end) {
    const int64_t n = std::min(step, end - seq.num_computed_tokens());
    ASSERT_TRUE(kv.AllocateSlots(seq, n).ok());
    seq.set_num_computed_tokens(seq.num_computed_tokens() + n);
    ASSERT_TRUE(kv.CheckInvariants().ok());
  }
}

int64_t Held(std::span<const int32_t> table) {
  return std::count_if(table.begin(), table.end(), [](int32_t b) { return b != kNullBlock; });
}

TEST(HybridKvCacheTest, AWindowedGroupHoldsOnlyWhatTheNextQueryCanSee) {
  KvCacheManager kv = Manager({kWindow, 0}, 64);
  auto r = MakeRequest(60, 0);
  Sequence& seq = r->sequence(0);
  for (int64_t end = 1; end <= 60; ++end) {
    Compute(kv, seq, end, 1);
    // The next query, at `end`, reads (end - 8, end]: blocks from (end - 7) / 4.
    const int64_t first_needed = std::max<int64_t>(0, end - kWindow + 1) / kBlockSize;
    const std::span<const int32_t> window = kv.block_table(seq.id(), 0);
    const std::span<const int32_t> full = kv.block_table(seq.id(), 1);
    ASSERT_EQ(window.size(), full.size());
    // Released at the allocation that computed `end - 1`: one step behind.
    const int64_t first_kept = std::max<int64_t>(0, end - 1 - kWindow + 1) / kBlockSize;
    for (int64_t i = 0; i < static_cast<int64_t>(window.size()); ++i) {
      EXPECT_EQ(window[i] == kNullBlock, i < first_kept) << "block " << i << " after " << end << " tokens";
    }
    EXPECT_LE(first_kept, first_needed);
    EXPECT_EQ(Held(full), static_cast<int64_t>(full.size()));
    EXPECT_LE(Held(window), kv.MaxBlocksPerSequence(end, 1));
    EXPECT_EQ(kv.num_blocks_held(seq.id()), Held(window) + Held(full));
    EXPECT_EQ(kv.pool().num_free(), 64 - kv.num_blocks_held(seq.id()));
  }
  kv.Free(seq);
  EXPECT_EQ(kv.pool().num_free(), 64);
  EXPECT_TRUE(kv.CheckInvariants().ok());
}

TEST(HybridKvCacheTest, EachGroupCachesItsOwnBlockForTheSameTokens) {
  KvCacheManager kv = Manager({kWindow, 0}, 64);
  auto a = MakeRequest(20, 0);
  Compute(kv, a->sequence(0), 20, 20);
  const std::span<const int32_t> window = kv.block_table(0, 0);
  const std::span<const int32_t> full = kv.block_table(0, 1);
  const std::optional<BlockHash> h = kv.pool().hash(full[0]);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(kv.pool().hash(window[0]), h);
  EXPECT_NE(window[0], full[0]);
  EXPECT_EQ(kv.pool().Lookup(*h, 0), window[0]);
  EXPECT_EQ(kv.pool().Lookup(*h, 1), full[0]);
  EXPECT_FALSE(kv.pool().Lookup(*h, 2).has_value());
}

TEST(HybridKvCacheTest, AWindowedHitSurvivesTheEvictionOfBlocksBeforeTheWindow) {
  KvCacheManager kv = Manager({kWindow}, 16);
  auto a = MakeRequest(41, 0);
  Compute(kv, a->sequence(0), 40, 4);
  kv.Free(a->sequence(0));
  auto b = MakeRequest(41, 1);  // A's tokens
  const CachedPrefix before = kv.FindCachedPrefix(b->sequence(0));
  ASSERT_EQ(before.num_tokens, 40);
  // A released blocks 0-6 as it went and 7-9 last (9 first), so the free
  // list ends ..., 9, 8, 7: a 13-block sequence of other tokens evicts all
  // of A's blocks but those three.
  ASSERT_EQ(kv.pool().num_free(), 16);
  auto filler = MakeRequest(13 * kBlockSize, 2, /*first_token=*/5000);
  ASSERT_TRUE(kv.AllocateSlots(filler->sequence(0), 13 * kBlockSize).ok());
  kv.Free(filler->sequence(0));
  EXPECT_FALSE(kv.pool().Lookup(before.hashes[0]).has_value());
  EXPECT_FALSE(kv.pool().Lookup(before.hashes[6]).has_value());

  // The next query, at 40, reads from position 33 (block 8) on.
  const CachedPrefix hit = kv.FindCachedPrefix(b->sequence(0));
  EXPECT_EQ(hit.num_tokens, 40);
  ASSERT_EQ(hit.blocks.size(), 1u);
  ASSERT_EQ(hit.blocks[0].size(), 10u);
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(hit.blocks[0][i] == kNullBlock, i < 8) << "block " << i;
  ASSERT_TRUE(kv.AllocateSlots(b->sequence(0), 1, hit).ok());
  EXPECT_EQ(kv.num_blocks_held(1), 3);  // blocks 8 and 9, and a new one for position 40
  EXPECT_TRUE(kv.CheckInvariants().ok());
}

TEST(HybridKvCacheTest, ForksShareEveryGroupsTableAndFreeCleanly) {
  KvCacheManager kv = Manager({kWindow, 0}, 64);
  auto r = MakeRequest(30, 0);
  Sequence& parent = r->sequence(0);
  Compute(kv, parent, 29, 1);
  auto other = MakeRequest(30, 1);
  Sequence& child = other->sequence(0);
  kv.Fork(parent, child);
  ASSERT_TRUE(kv.CheckInvariants().ok());
  for (int32_t g = 0; g < 2; ++g) {
    const std::span<const int32_t> a = kv.block_table(0, g), b = kv.block_table(1, g);
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
  }
  child.set_num_computed_tokens(29);
  // Both write position 29 into the shared partial block: one copy per group.
  auto copies = kv.AllocateSlots(child, 1);
  ASSERT_TRUE(copies.ok());
  EXPECT_EQ(copies->size(), 2u);
  kv.Free(parent);
  kv.Free(child);
  EXPECT_EQ(kv.pool().num_free(), 64);
  EXPECT_TRUE(kv.CheckInvariants().ok());
}

}  // namespace
}  // namespace pagoda
