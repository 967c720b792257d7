#include "pagoda/kv_blocks/kv_cache_manager.h"

#include <fmt/format.h>

#include <algorithm>

#include "pagoda/base/check.h"
#include "pagoda/request/request.h"

namespace pagoda {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

KvCacheManager::KvCacheManager(const KvCacheConfig& config)
    : config_(config),
      groups_(config.groups.empty() ? std::vector<KvCacheGroupSpec>{{}} : config.groups),
      pool_(config.num_blocks) {
  PAGODA_CHECK(config.block_size > 0);
  for (const KvCacheGroupSpec& g : groups_) PAGODA_CHECK(g.sliding_window >= 0);
}

int64_t KvCacheManager::FirstReachableBlock(int32_t group, int64_t first_query) const {
  const int64_t window = groups_[group].sliding_window;
  if (window == 0) return 0;
  // A query at p sees (p - window, p].
  return std::max<int64_t>(0, first_query - window + 1) / config_.block_size;
}

int64_t MaxBlocksPerSequence(std::span<const KvCacheGroupSpec> groups, int32_t bs, int64_t num_tokens,
                             int64_t max_chunk) {
  int64_t total = 0;
  for (const KvCacheGroupSpec& g : groups) {
    const int64_t all = CeilDiv(num_tokens, bs);
    // The blocks a chunk's first query reaches back to, the chunk's, and one
    // more where both ends fall inside blocks.
    total += g.sliding_window == 0 ? all : std::min(all, CeilDiv(g.sliding_window - 1 + max_chunk, bs) + 1);
  }
  return total;
}

bool KvCacheManager::IsWindowedHit(int32_t group, std::span<const int64_t> cached_run, int64_t num_blocks) const {
  if (num_blocks == 0) return true;
  // The first computed token, at num_blocks * block_size, reads back to
  // FirstReachableBlock: those blocks, and only those, must be cached.
  const int64_t first = FirstReachableBlock(group, num_blocks * config_.block_size);
  return cached_run[num_blocks - 1] >= num_blocks - first;
}

CachedPrefix KvCacheManager::FindCachedPrefix(const Sequence& seq) const {
  CachedPrefix prefix;
  if (!config_.enable_prefix_caching || seq.num_tokens() == 0) return prefix;
  const int32_t bs = config_.block_size;
  const int32_t num_groups = this->num_groups();
  // The hit can reach no further than the shortest full group's run of
  // cached blocks; windowed groups may have holes before their window.
  int64_t limit = (seq.num_tokens() - 1) / bs;
  std::vector<BlockHash> hashes;
  std::vector<std::vector<int32_t>> found(num_groups);
  std::optional<BlockHash> parent;
  for (int64_t i = 0; i < limit; ++i) {
    const BlockHash h = HashBlock(parent, seq.token_ids().subspan(i * bs, bs), seq.request().cache_keys());
    hashes.push_back(h);
    for (int32_t g = 0; g < num_groups; ++g) {
      const std::optional<int32_t> block = pool_.Lookup(h, g);
      found[g].push_back(block.value_or(kNullBlock));
      if (!block && groups_[g].sliding_window == 0) limit = i;
    }
    parent = h;
  }
  // Each windowed group may shorten the hit to where its window is cached;
  // shortening never spoils a full group's hit, so repeat until all agree.
  int64_t n = limit;
  std::vector<std::vector<int64_t>> cached_runs(num_groups);
  for (int32_t g = 0; g < num_groups; ++g) {
    // cached_runs[g][i]: how many blocks up to i are cached without a gap.
    for (int64_t i = 0; i < n; ++i) {
      const int64_t before = i == 0 ? 0 : cached_runs[g][i - 1];
      cached_runs[g].push_back(found[g][i] == kNullBlock ? 0 : before + 1);
    }
  }
  for (bool changed = true; changed && n > 0;) {
    changed = false;
    for (int32_t g = 0; g < num_groups; ++g) {
      if (groups_[g].sliding_window == 0) continue;
      int64_t m = n;
      while (!IsWindowedHit(g, cached_runs[g], m)) --m;
      if (m < n) {
        n = m;
        changed = true;
      }
    }
  }
  if (n == 0) return prefix;
  prefix.hashes.assign(hashes.begin(), hashes.begin() + n);
  prefix.num_tokens = n * bs;
  prefix.blocks.resize(num_groups);
  for (int32_t g = 0; g < num_groups; ++g) {
    const int64_t first = FirstReachableBlock(g, prefix.num_tokens);
    prefix.blocks[g].assign(found[g].begin(), found[g].begin() + n);
    std::fill(prefix.blocks[g].begin(), prefix.blocks[g].begin() + first, kNullBlock);
  }
  return prefix;
}

int64_t KvCacheManager::NumBlocksNeeded(const Sequence& seq, int64_t num_new_tokens,
                                        const CachedPrefix& prefix) const {
  PAGODA_CHECK(num_new_tokens >= 0);
  const int32_t bs = config_.block_size;
  auto it = tables_.find(seq.id());
  int64_t start = 0;
  int64_t needed = 0;
  const bool fresh = it == tables_.end();
  if (fresh) {
    PAGODA_CHECK_MSG(seq.num_computed_tokens() == 0, "a sequence without blocks has computed tokens");
    PAGODA_CHECK_MSG(prefix.blocks.empty() || static_cast<int32_t>(prefix.blocks.size()) == num_groups(),
                     "a cached prefix for another group layout");
    start = prefix.num_tokens;
    // Cached blocks that are free leave the free list when taken.
    for (const std::vector<int32_t>& blocks : prefix.blocks) {
      needed += std::count_if(blocks.begin(), blocks.end(),
                              [&](int32_t b) { return b != kNullBlock && pool_.ref_count(b) == 0; });
    }
  } else {
    PAGODA_CHECK_MSG(prefix.blocks.empty(), "a cached prefix for a sequence that already has blocks");
    start = seq.num_computed_tokens();
  }
  PAGODA_CHECK_MSG(start + num_new_tokens <= seq.num_tokens(), "slots for tokens the sequence does not have");
  const int64_t end_blocks = CeilDiv(start + num_new_tokens, bs);
  for (int32_t g = 0; g < num_groups(); ++g) {
    std::span<const int32_t> have;
    if (!fresh) {
      have = it->second.tables[g];
    } else if (!prefix.blocks.empty()) {
      have = prefix.blocks[g];
    }
    const int64_t num_have = static_cast<int64_t>(have.size());
    needed += std::max<int64_t>(0, end_blocks - num_have);
    // Shared blocks that this step writes into get a private copy.
    for (int64_t i = start / bs; i < std::min(end_blocks, num_have); ++i) {
      PAGODA_CHECK_MSG(have[i] != kNullBlock, "writing into a block that left the window");
      needed += pool_.ref_count(have[i]) > 1;
    }
  }
  return needed;
}

bool KvCacheManager::CanAllocate(const Sequence& seq, int64_t num_new_tokens, const CachedPrefix& prefix) const {
  // Blocks AllocateSlots would release first count as free.
  int64_t released = 0;
  if (auto it = tables_.find(seq.id()); it != tables_.end()) {
    for (int32_t g = 0; g < num_groups(); ++g) {
      const std::vector<int32_t>& table = it->second.tables[g];
      const int64_t first = std::min<int64_t>(FirstReachableBlock(g, seq.num_computed_tokens()), table.size());
      for (int64_t i = first - 1; i >= 0 && table[i] != kNullBlock; --i) released += pool_.ref_count(table[i]) == 1;
    }
  }
  return NumBlocksNeeded(seq, num_new_tokens, prefix) <= pool_.num_free() + released;
}

void KvCacheManager::ReleaseSkippedBlocks(const Sequence& seq, SeqBlocks& blocks) {
  for (int32_t g = 0; g < num_groups(); ++g) {
    std::vector<int32_t>& table = blocks.tables[g];
    const int64_t first = std::min<int64_t>(FirstReachableBlock(g, seq.num_computed_tokens()), table.size());
    // Released blocks form a prefix of the table: walk back to its end, then
    // release oldest first, so the oldest is the first evicted.
    int64_t lo = first;
    while (lo > 0 && table[lo - 1] != kNullBlock) --lo;
    for (int64_t i = lo; i < first; ++i) {
      pool_.Release(table[i]);
      table[i] = kNullBlock;
    }
  }
}

StatusOr<std::vector<BlockCopy>> KvCacheManager::AllocateSlots(const Sequence& seq, int64_t num_new_tokens,
                                                               const CachedPrefix& prefix) {
  if (auto it = tables_.find(seq.id()); it != tables_.end()) ReleaseSkippedBlocks(seq, it->second);
  const int64_t needed = NumBlocksNeeded(seq, num_new_tokens, prefix);
  if (needed > pool_.num_free()) {
    return ResourceExhaustedError(fmt::format("KV cache full: sequence {} needs {} blocks for {} tokens, {} free",
                                              seq.id(), needed, num_new_tokens, pool_.num_free()));
  }
  const int32_t bs = config_.block_size;
  auto [it, fresh] = tables_.try_emplace(seq.id());
  SeqBlocks& blocks = it->second;
  int64_t start = seq.num_computed_tokens();
  if (fresh) {
    // Take the cached blocks before allocating, so allocation cannot evict them.
    blocks.tables = prefix.blocks.empty() ? std::vector<std::vector<int32_t>>(num_groups()) : prefix.blocks;
    for (const std::vector<int32_t>& table : blocks.tables) {
      for (int32_t b : table) {
        if (b != kNullBlock) pool_.Touch(b);
      }
    }
    blocks.hashes = prefix.hashes;
    start = prefix.num_tokens;
    if (config_.enable_prefix_caching) {
      prefix_cache_queries_ += seq.num_tokens();
      prefix_cache_hits_ += prefix.num_tokens;
    }
  }
  const int64_t end_blocks = CeilDiv(start + num_new_tokens, bs);
  std::vector<BlockCopy> copies;
  for (std::vector<int32_t>& table : blocks.tables) {
    const int64_t num_have = static_cast<int64_t>(table.size());
    for (int64_t i = start / bs; i < std::min(end_blocks, num_have); ++i) {
      const int32_t shared = table[i];
      if (pool_.ref_count(shared) == 1) continue;
      const int32_t copy = *pool_.Allocate();
      copies.push_back({shared, copy});
      pool_.Release(shared);  // still referenced by the other tables
      table[i] = copy;
    }
    while (static_cast<int64_t>(table.size()) < end_blocks) table.push_back(*pool_.Allocate());
  }
  if (config_.enable_prefix_caching) HashNewFullBlocks(seq, blocks, start + num_new_tokens);
  return copies;
}

void KvCacheManager::HashNewFullBlocks(const Sequence& seq, SeqBlocks& blocks, int64_t num_tokens) {
  // A block is named as soon as the step that fills it is scheduled: the
  // runner writes every new K/V of a step before any attention reads, so a
  // sequence admitted later in the same step may already share it.
  const int32_t bs = config_.block_size;
  for (int64_t i = static_cast<int64_t>(blocks.hashes.size()); (i + 1) * bs <= num_tokens; ++i) {
    const std::optional<BlockHash> parent = i == 0 ? std::nullopt : std::optional(blocks.hashes[i - 1]);
    const BlockHash h = HashBlock(parent, seq.token_ids().subspan(i * bs, bs), seq.request().cache_keys());
    blocks.hashes.push_back(h);
    for (int32_t g = 0; g < num_groups(); ++g) {
      const int32_t b = blocks.tables[g][i];
      if (b != kNullBlock) pool_.SetHash(b, h, g);
    }
  }
}

void KvCacheManager::Free(const Sequence& seq) {
  auto it = tables_.find(seq.id());
  if (it == tables_.end()) return;
  for (std::vector<int32_t>& table : it->second.tables) {
    std::erase(table, kNullBlock);
    ReleaseBlockTable(pool_, table);
  }
  tables_.erase(it);
}

void KvCacheManager::Fork(const Sequence& parent, const Sequence& child) {
  auto it = tables_.find(parent.id());
  PAGODA_CHECK_MSG(it != tables_.end(), "forking a sequence without blocks");
  PAGODA_CHECK_MSG(!tables_.contains(child.id()), "fork target already has blocks");
  SeqBlocks copy = it->second;  // before emplace: it may rehash
  for (const std::vector<int32_t>& table : copy.tables) {
    for (int32_t b : table) {
      if (b != kNullBlock) pool_.Touch(b);
    }
  }
  tables_.emplace(child.id(), std::move(copy));
}

BlockTables KvCacheManager::block_tables(SeqId seq) const {
  auto it = tables_.find(seq);
  if (it == tables_.end()) return {};
  return it->second.tables;
}

std::span<const int32_t> KvCacheManager::block_table(SeqId seq, int32_t group) const {
  auto it = tables_.find(seq);
  if (it == tables_.end()) return {};
  return it->second.tables.at(group);
}

int64_t KvCacheManager::num_blocks_held(SeqId seq) const {
  int64_t n = 0;
  for (const std::vector<int32_t>& table : block_tables(seq)) {
    n += std::count_if(table.begin(), table.end(), [](int32_t b) { return b != kNullBlock; });
  }
  return n;
}

double KvCacheManager::usage() const {
  if (pool_.num_blocks() == 0) return 0.0;
  return 1.0 - static_cast<double>(pool_.num_free()) / pool_.num_blocks();
}

Status KvCacheManager::CheckInvariants() const {
  PAGODA_RETURN_IF_ERROR(pool_.CheckInvariants());
  std::vector<int32_t> refs(pool_.num_blocks(), 0);
  for (const auto& [seq, blocks] : tables_) {
    if (static_cast<int32_t>(blocks.tables.size()) != num_groups()) {
      return InternalError(fmt::format("sequence {} has {} tables for {} groups", seq, blocks.tables.size(),
                                       num_groups()));
    }
    std::vector<int32_t> held;
    for (const std::vector<int32_t>& table : blocks.tables) {
      if (table.size() != blocks.tables[0].size()) {
        return InternalError(fmt::format("sequence {}'s tables cover different lengths", seq));
      }
      if (blocks.hashes.size() > table.size()) {
        return InternalError(fmt::format("sequence {} has more hashes than blocks", seq));
      }
      for (int32_t b : table) {
        if (b != kNullBlock) held.push_back(b);
      }
    }
    std::sort(held.begin(), held.end());
    if (std::adjacent_find(held.begin(), held.end()) != held.end()) {
      return InternalError(fmt::format("sequence {} names a block twice", seq));
    }
    for (int32_t b : held) ++refs[b];
  }
  for (int32_t b = 0; b < pool_.num_blocks(); ++b) {
    if (refs[b] != pool_.ref_count(b)) {
      return InternalError(fmt::format("block {}: ref_cnt {} but {} tables name it", b, pool_.ref_count(b), refs[b]));
    }
  }
  return Status::Ok();
}

}  // namespace pagoda
