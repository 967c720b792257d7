#include "pagoda/kv_blocks/kv_cache_manager.h"

#include <fmt/format.h>

#include <algorithm>

#include "pagoda/base/check.h"
#include "pagoda/request/request.h"

namespace pagoda {

KvCacheManager::KvCacheManager(const KvCacheConfig& config) : config_(config), pool_(config.num_blocks) {
  PAGODA_CHECK(config.block_size > 0);
}

CachedPrefix KvCacheManager::FindCachedPrefix(const Sequence& seq) const {
  CachedPrefix prefix;
  if (!config_.enable_prefix_caching || seq.num_tokens() == 0) return prefix;
  const int32_t bs = config_.block_size;
  const int64_t max_blocks = (seq.num_tokens() - 1) / bs;
  std::optional<BlockHash> parent;
  for (int64_t i = 0; i < max_blocks; ++i) {
    const BlockHash h = HashBlock(parent, seq.token_ids().subspan(i * bs, bs), seq.request().cache_keys());
    const std::optional<int32_t> block = pool_.Lookup(h);
    if (!block) break;
    prefix.blocks.push_back(*block);
    prefix.hashes.push_back(h);
    parent = h;
  }
  prefix.num_tokens = static_cast<int64_t>(prefix.blocks.size()) * bs;
  return prefix;
}

int64_t KvCacheManager::NumBlocksNeeded(const Sequence& seq, int64_t num_new_tokens, const CachedPrefix& prefix) const {
  PAGODA_CHECK(num_new_tokens >= 0);
  const int32_t bs = config_.block_size;
  auto it = tables_.find(seq.id());
  int64_t start = 0;
  int64_t needed = 0;
  std::span<const int32_t> have;
  if (it == tables_.end()) {
    PAGODA_CHECK_MSG(seq.num_computed_tokens() == 0, "a sequence without blocks has computed tokens");
    start = prefix.num_tokens;
    have = prefix.blocks;
    // Cached blocks that are free leave the free list when taken.
    needed +=
        std::count_if(prefix.blocks.begin(), prefix.blocks.end(), [&](int32_t b) { return pool_.ref_count(b) == 0; });
  } else {
    PAGODA_CHECK_MSG(prefix.blocks.empty(), "a cached prefix for a sequence that already has blocks");
    start = seq.num_computed_tokens();
    have = it->second.blocks;
  }
  PAGODA_CHECK_MSG(start + num_new_tokens <= seq.num_tokens(), "slots for tokens the sequence does not have");
  const int64_t end_blocks = (start + num_new_tokens + bs - 1) / bs;
  const int64_t num_have = static_cast<int64_t>(have.size());
  needed += std::max<int64_t>(0, end_blocks - num_have);
  // Shared blocks that this step writes into get a private copy.
  for (int64_t i = start / bs; i < std::min(end_blocks, num_have); ++i) needed += pool_.ref_count(have[i]) > 1;
  return needed;
}

bool KvCacheManager::CanAllocate(const Sequence& seq, int64_t num_new_tokens, const CachedPrefix& prefix) const {
  return NumBlocksNeeded(seq, num_new_tokens, prefix) <= pool_.num_free();
}

StatusOr<std::vector<BlockCopy>> KvCacheManager::AllocateSlots(const Sequence& seq, int64_t num_new_tokens,
                                                               const CachedPrefix& prefix) {
  const int64_t needed = NumBlocksNeeded(seq, num_new_tokens, prefix);
  if (needed > pool_.num_free()) {
    return ResourceExhaustedError(fmt::format("KV cache full: sequence {} needs {} blocks for {} tokens, {} free",
                                              seq.id(), needed, num_new_tokens, pool_.num_free()));
  }
  const int32_t bs = config_.block_size;
  auto [it, fresh] = tables_.try_emplace(seq.id());
  SeqBlocks& table = it->second;
  int64_t start = seq.num_computed_tokens();
  if (fresh) {
    // Take the cached blocks before allocating, so allocation cannot evict them.
    for (int32_t b : prefix.blocks) pool_.Touch(b);
    table.blocks = prefix.blocks;
    table.hashes = prefix.hashes;
    start = prefix.num_tokens;
    if (config_.enable_prefix_caching) {
      prefix_cache_queries_ += seq.num_tokens();
      prefix_cache_hits_ += prefix.num_tokens;
    }
  }
  const int64_t end_blocks = (start + num_new_tokens + bs - 1) / bs;
  std::vector<BlockCopy> copies;
  const int64_t num_have = static_cast<int64_t>(table.blocks.size());
  for (int64_t i = start / bs; i < std::min(end_blocks, num_have); ++i) {
    const int32_t shared = table.blocks[i];
    if (pool_.ref_count(shared) == 1) continue;
    const int32_t copy = *pool_.Allocate();
    copies.push_back({shared, copy});
    pool_.Release(shared);  // still referenced by the other tables
    table.blocks[i] = copy;
  }
  while (static_cast<int64_t>(table.blocks.size()) < end_blocks) table.blocks.push_back(*pool_.Allocate());
  if (config_.enable_prefix_caching) HashNewFullBlocks(seq, table, start + num_new_tokens);
  return copies;
}

void KvCacheManager::HashNewFullBlocks(const Sequence& seq, SeqBlocks& table, int64_t num_tokens) {
  // A block is named as soon as the step that fills it is scheduled: the
  // runner writes every new K/V of a step before any attention reads, so a
  // sequence admitted later in the same step may already share it.
  const int32_t bs = config_.block_size;
  for (int64_t i = static_cast<int64_t>(table.hashes.size()); (i + 1) * bs <= num_tokens; ++i) {
    const std::optional<BlockHash> parent = i == 0 ? std::nullopt : std::optional(table.hashes[i - 1]);
    const BlockHash h = HashBlock(parent, seq.token_ids().subspan(i * bs, bs), seq.request().cache_keys());
    table.hashes.push_back(h);
    pool_.SetHash(table.blocks[i], h);
  }
}

void KvCacheManager::Free(const Sequence& seq) {
  auto it = tables_.find(seq.id());
  if (it == tables_.end()) return;
  ReleaseBlockTable(pool_, it->second.blocks);
  tables_.erase(it);
}

void KvCacheManager::Fork(const Sequence& parent, const Sequence& child) {
  auto it = tables_.find(parent.id());
  PAGODA_CHECK_MSG(it != tables_.end(), "forking a sequence without blocks");
  PAGODA_CHECK_MSG(!tables_.contains(child.id()), "fork target already has blocks");
  SeqBlocks copy = it->second;  // before emplace: it may rehash
  for (int32_t b : copy.blocks) pool_.Touch(b);
  tables_.emplace(child.id(), std::move(copy));
}

std::span<const int32_t> KvCacheManager::block_table(SeqId seq) const {
  auto it = tables_.find(seq);
  if (it == tables_.end()) return {};
  return it->second.blocks;
}

double KvCacheManager::usage() const {
  if (pool_.num_blocks() == 0) return 0.0;
  return 1.0 - static_cast<double>(pool_.num_free()) / pool_.num_blocks();
}

Status KvCacheManager::CheckInvariants() const {
  PAGODA_RETURN_IF_ERROR(pool_.CheckInvariants());
  std::vector<int32_t> refs(pool_.num_blocks(), 0);
  for (const auto& [seq, table] : tables_) {
    std::vector<int32_t> sorted = table.blocks;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      return InternalError(fmt::format("sequence {} names a block twice", seq));
    }
    if (table.hashes.size() > table.blocks.size()) {
      return InternalError(fmt::format("sequence {} has more hashes than blocks", seq));
    }
    for (int32_t b : table.blocks) ++refs[b];
  }
  for (int32_t b = 0; b < pool_.num_blocks(); ++b) {
    if (refs[b] != pool_.ref_count(b)) {
      return InternalError(fmt::format("block {}: ref_cnt {} but {} tables name it", b, pool_.ref_count(b), refs[b]));
    }
  }
  return Status::Ok();
}

}  // namespace pagoda
