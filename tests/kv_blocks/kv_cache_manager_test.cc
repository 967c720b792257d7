#include "pagoda/kv_blocks/kv_cache_manager.h"

#include <gtest/gtest.h>

#include <memory>
#include <numeric>

#include "pagoda/request/request.h"

namespace pagoda {
namespace {

constexpr int32_t kBlockSize = 4;

std::vector<int32_t> Tokens(int32_t first, int32_t count) {
  std::vector<int32_t> t(count);
  std::iota(t.begin(), t.end(), first);
  return t;
}

std::vector<int32_t> Concat(std::vector<int32_t> a, const std::vector<int32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Sequence ids, which a scheduler would assign.
SeqId NewSeqId() {
  static SeqId next = 0;
  return next++;
}

std::unique_ptr<Request> MakeRequest(std::vector<int32_t> prompt, CacheKeys keys = {}) {
  auto r = std::make_unique<Request>("r", std::move(prompt), SamplingParams{}, 0.0, 0, std::move(keys));
  r->sequence(0).assign_id(NewSeqId());
  return r;
}

class KvCacheManagerTest : public ::testing::Test {
 protected:
  explicit KvCacheManagerTest(int32_t num_blocks = 8, bool prefix_caching = true)
      : kv_({.num_blocks = num_blocks, .block_size = kBlockSize, .enable_prefix_caching = prefix_caching, .groups = {}}) {}

  // Admits the sequence from its cached prefix and computes it whole, as the
  // scheduler and runner would.
  CachedPrefix Admit(Sequence& seq) {
    CachedPrefix prefix = kv_.FindCachedPrefix(seq);
    auto copies = kv_.AllocateSlots(seq, seq.num_tokens() - prefix.num_tokens, prefix);
    EXPECT_TRUE(copies.ok()) << copies.status().ToString();
    seq.set_num_computed_tokens(seq.num_tokens());
    EXPECT_TRUE(kv_.CheckInvariants().ok());
    return prefix;
  }

  std::vector<int32_t> Table(const Sequence& seq) {
    auto t = kv_.block_table(seq.id());
    return {t.begin(), t.end()};
  }

  KvCacheManager kv_;
};

TEST_F(KvCacheManagerTest, PrefixHitReusesExactlyTheMatchingBlocks) {
  auto a = MakeRequest(Tokens(100, 10));
  Admit(a->sequence(0));
  const std::vector<int32_t> a_blocks = Table(a->sequence(0));
  ASSERT_EQ(a_blocks.size(), 3u);

  // Shares A's first two blocks, then differs.
  auto b = MakeRequest(Concat(Tokens(100, 8), Tokens(500, 5)));
  CachedPrefix hit = kv_.FindCachedPrefix(b->sequence(0));
  ASSERT_EQ(hit.blocks.size(), 1u);
  EXPECT_EQ(hit.blocks[0], (std::vector<int32_t>{a_blocks[0], a_blocks[1]}));
  EXPECT_EQ(hit.num_tokens, 8);

  // Differs inside the second block: only the first matches.
  auto c = MakeRequest(Concat(Tokens(100, 5), Tokens(900, 6)));
  EXPECT_EQ(kv_.FindCachedPrefix(c->sequence(0)).blocks.at(0), (std::vector<int32_t>{a_blocks[0]}));

  // Exactly A's first 8 tokens: the last token must be computed, so 1 block.
  auto d = MakeRequest(Tokens(100, 8));
  EXPECT_EQ(kv_.FindCachedPrefix(d->sequence(0)).num_tokens, 4);

  // The partial third block of A is never a hit.
  auto e = MakeRequest(Concat(Tokens(100, 12), Tokens(0, 3)));
  EXPECT_EQ(kv_.FindCachedPrefix(e->sequence(0)).num_tokens, 8);

  // Same tokens, another LoRA or salt: nothing shared.
  auto f = MakeRequest(Tokens(100, 10), CacheKeys{.lora_id = 3, .cache_salt = std::nullopt});
  auto g = MakeRequest(Tokens(100, 10), CacheKeys{.lora_id = std::nullopt, .cache_salt = "tenant"});
  EXPECT_TRUE(kv_.FindCachedPrefix(f->sequence(0)).blocks.empty());
  EXPECT_TRUE(kv_.FindCachedPrefix(g->sequence(0)).blocks.empty());
}

TEST_F(KvCacheManagerTest, QueriesChangeNothing) {
  auto a = MakeRequest(Tokens(0, 10));
  Admit(a->sequence(0));
  kv_.Free(a->sequence(0));
  const std::vector<int32_t> free_before = kv_.pool().FreeListInOrder();
  const int64_t queries = kv_.prefix_cache_queries();

  auto b = MakeRequest(Tokens(0, 12));
  for (int i = 0; i < 3; ++i) {
    CachedPrefix hit = kv_.FindCachedPrefix(b->sequence(0));
    EXPECT_EQ(hit.num_tokens, 8);
    EXPECT_TRUE(kv_.CanAllocate(b->sequence(0), 4, hit));
  }
  EXPECT_EQ(kv_.pool().FreeListInOrder(), free_before);
  EXPECT_EQ(kv_.prefix_cache_queries(), queries);
  EXPECT_FALSE(kv_.has_blocks(b->sequence(0).id()));
  for (int32_t blk = 0; blk < kv_.num_blocks(); ++blk) EXPECT_EQ(kv_.pool().ref_count(blk), 0);
}

TEST_F(KvCacheManagerTest, CommitTakesCachedFreeBlocksAndCountsTheHit) {
  auto a = MakeRequest(Tokens(0, 10));
  Admit(a->sequence(0));
  const std::vector<int32_t> a_blocks = Table(a->sequence(0));
  kv_.Free(a->sequence(0));
  EXPECT_EQ(kv_.pool().num_free(), 8);
  EXPECT_EQ(kv_.prefix_cache_queries(), 10);
  EXPECT_EQ(kv_.prefix_cache_hits(), 0);

  auto b = MakeRequest(Tokens(0, 14));
  const CachedPrefix hit = Admit(b->sequence(0));
  EXPECT_EQ(hit.num_tokens, 8);
  const std::vector<int32_t> b_blocks = Table(b->sequence(0));
  ASSERT_EQ(b_blocks.size(), 4u);
  EXPECT_EQ(b_blocks[0], a_blocks[0]);
  EXPECT_EQ(b_blocks[1], a_blocks[1]);
  EXPECT_EQ(kv_.pool().ref_count(a_blocks[0]), 1);
  EXPECT_EQ(kv_.pool().num_free(), 4);
  EXPECT_EQ(kv_.prefix_cache_queries(), 24);
  EXPECT_EQ(kv_.prefix_cache_hits(), 8);
  EXPECT_DOUBLE_EQ(kv_.usage(), 0.5);
}

TEST_F(KvCacheManagerTest, FreeSendsTheSequenceTailToTheFreeListFirst) {
  auto a = MakeRequest(Tokens(0, 12));
  Admit(a->sequence(0));
  const std::vector<int32_t> blocks = Table(a->sequence(0));
  kv_.Free(a->sequence(0));
  const std::vector<int32_t> free = kv_.pool().FreeListInOrder();
  const std::vector<int32_t> tail(free.end() - 3, free.end());
  EXPECT_EQ(tail, (std::vector<int32_t>{blocks[2], blocks[1], blocks[0]}));
  EXPECT_FALSE(kv_.has_blocks(a->sequence(0).id()));
}

TEST_F(KvCacheManagerTest, CopyOnFirstWriteIntoASharedPartialBlock) {
  auto r = MakeRequest(Tokens(0, 6));
  Sequence& parent = r->sequence(0);
  Admit(parent);
  const std::vector<int32_t> shared = Table(parent);
  Sequence& child = r->Fork(parent, NewSeqId());
  kv_.Fork(parent, child);
  EXPECT_EQ(Table(child), shared);
  EXPECT_EQ(kv_.pool().ref_count(shared[0]), 2);
  EXPECT_EQ(kv_.pool().ref_count(shared[1]), 2);  // the partial last block too
  ASSERT_TRUE(kv_.CheckInvariants().ok());

  parent.AppendToken(7);
  child.AppendToken(8);
  auto first = kv_.AllocateSlots(parent, 1);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].src, shared[1]);
  EXPECT_EQ(Table(parent)[1], (*first)[0].dst);
  EXPECT_EQ(Table(parent)[0], shared[0]);  // full blocks stay shared
  EXPECT_EQ(kv_.pool().ref_count(shared[1]), 1);
  // The child is now the only holder and writes in place.
  auto second = kv_.AllocateSlots(child, 1);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->empty());
  EXPECT_EQ(Table(child), shared);
  EXPECT_TRUE(kv_.CheckInvariants().ok());
}

TEST_F(KvCacheManagerTest, ForkAtABlockBoundaryCopiesNothing) {
  auto r = MakeRequest(Tokens(0, 8));
  Sequence& parent = r->sequence(0);
  Admit(parent);
  Sequence& child = r->Fork(parent, NewSeqId());
  kv_.Fork(parent, child);
  parent.AppendToken(1);
  child.AppendToken(2);
  auto a = kv_.AllocateSlots(parent, 1);
  auto b = kv_.AllocateSlots(child, 1);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(a->empty() && b->empty());
  EXPECT_NE(Table(parent)[2], Table(child)[2]);
  EXPECT_TRUE(kv_.CheckInvariants().ok());
  kv_.Free(parent);
  kv_.Free(child);
  EXPECT_EQ(kv_.pool().num_free(), kv_.num_blocks());
}

class SmallKvCacheManagerTest : public KvCacheManagerTest {
 protected:
  SmallKvCacheManagerTest() : KvCacheManagerTest(3) {}
};

TEST_F(SmallKvCacheManagerTest, CachedFreeBlocksCountAgainstTheFreeBlocks) {
  auto a = MakeRequest(Tokens(0, 9));
  Admit(a->sequence(0));
  kv_.Free(a->sequence(0));

  // 2 cached blocks leave the free list, 1 is new: fits in 3.
  auto b = MakeRequest(Tokens(0, 12));
  CachedPrefix hit = kv_.FindCachedPrefix(b->sequence(0));
  EXPECT_EQ(hit.num_tokens, 8);
  EXPECT_TRUE(kv_.CanAllocate(b->sequence(0), 4, hit));

  // 2 cached + 2 new do not, and the failed commit changes nothing.
  auto c = MakeRequest(Tokens(0, 16));
  hit = kv_.FindCachedPrefix(c->sequence(0));
  EXPECT_FALSE(kv_.CanAllocate(c->sequence(0), 8, hit));
  const std::vector<int32_t> free_before = kv_.pool().FreeListInOrder();
  auto failed = kv_.AllocateSlots(c->sequence(0), 8, hit);
  EXPECT_EQ(failed.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(kv_.pool().FreeListInOrder(), free_before);
  EXPECT_FALSE(kv_.has_blocks(c->sequence(0).id()));
  EXPECT_EQ(kv_.prefix_cache_hits(), 0);
  EXPECT_TRUE(kv_.CheckInvariants().ok());
}

class FourBlockKvCacheManagerTest : public KvCacheManagerTest {
 protected:
  FourBlockKvCacheManagerTest() : KvCacheManagerTest(4) {}
};

TEST_F(FourBlockKvCacheManagerTest, AllocationEvictsTheLeastRecentlyFreedCachedBlock) {
  auto a = MakeRequest(Tokens(0, 5));  // a cached full block and a partial one
  auto b = MakeRequest(Tokens(50, 5));
  Admit(a->sequence(0));
  Admit(b->sequence(0));
  kv_.Free(a->sequence(0));  // free list: A's partial, A's full, B's partial, B's full
  kv_.Free(b->sequence(0));
  auto a_again = MakeRequest(Tokens(0, 5));
  auto b_again = MakeRequest(Tokens(50, 5));
  auto hit = [&](const std::unique_ptr<Request>& r) { return kv_.FindCachedPrefix(r->sequence(0)).num_tokens; };
  EXPECT_EQ(hit(a_again), 4);
  EXPECT_EQ(hit(b_again), 4);

  std::vector<std::unique_ptr<Request>> fillers;
  auto allocate_one = [&] {
    fillers.push_back(MakeRequest(Tokens(1000 + 10 * static_cast<int32_t>(fillers.size()), 3)));
    Admit(fillers.back()->sequence(0));
  };
  allocate_one();  // A's partial block: nothing cached is lost
  EXPECT_EQ(hit(a_again), 4);
  allocate_one();  // A's full block: A is evicted, B is not
  EXPECT_EQ(hit(a_again), 0);
  EXPECT_EQ(hit(b_again), 4);
  allocate_one();
  EXPECT_EQ(hit(b_again), 4);
  allocate_one();
  EXPECT_EQ(hit(b_again), 0);
  EXPECT_EQ(kv_.pool().num_evictions(), 2);
}

class NoPrefixCachingTest : public KvCacheManagerTest {
 protected:
  NoPrefixCachingTest() : KvCacheManagerTest(8, false) {}
};

TEST_F(NoPrefixCachingTest, NothingIsCachedOrCounted) {
  auto a = MakeRequest(Tokens(0, 10));
  Admit(a->sequence(0));
  for (int32_t blk : Table(a->sequence(0))) EXPECT_FALSE(kv_.pool().hash(blk).has_value());
  kv_.Free(a->sequence(0));
  auto b = MakeRequest(Tokens(0, 10));
  EXPECT_TRUE(Admit(b->sequence(0)).blocks.empty());
  EXPECT_EQ(kv_.prefix_cache_queries(), 0);
  EXPECT_EQ(kv_.prefix_cache_hits(), 0);
}

}  // namespace
}  // namespace pagoda
