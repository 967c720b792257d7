// Per-sequence block tables over a BlockPool, with prefix caching and
// copy-on-write forks. The API is two-phase, as the scheduler needs it: the
// queries (FindCachedPrefix, CanAllocate) change nothing, so a scheduler may
// ask about a request it then leaves waiting; the commits (AllocateSlots,
// Free, Fork) either succeed or change nothing.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/kv_blocks/block_hash.h"
#include "pagoda/kv_blocks/block_pool.h"
#include "pagoda/request/sequence.h"

namespace pagoda {

struct KvCacheConfig {
  int32_t num_blocks = 0;
  int32_t block_size = 16;
  bool enable_prefix_caching = true;
};

// Full blocks already in the cache that a sequence can start from.
struct CachedPrefix {
  std::vector<int32_t> blocks;
  std::vector<BlockHash> hashes;  // one per block, so committing does not rehash
  int64_t num_tokens = 0;         // blocks.size() * block_size
};

// Copy block `src`'s K/V into block `dst` (every layer) before the step runs.
struct BlockCopy {
  int32_t src = 0;
  int32_t dst = 0;
  friend bool operator==(const BlockCopy&, const BlockCopy&) = default;
};

class KvCacheManager {
 public:
  explicit KvCacheManager(const KvCacheConfig& config);

  int32_t block_size() const { return config_.block_size; }
  int32_t num_blocks() const { return pool_.num_blocks(); }
  bool prefix_caching_enabled() const { return config_.enable_prefix_caching; }
  const BlockPool& pool() const { return pool_; }

  // --- Queries: they change nothing. ---

  // The longest chain of cached full blocks starting the sequence, over at
  // most num_tokens - 1 tokens (the last token must be computed to get
  // logits). Empty when prefix caching is off.
  CachedPrefix FindCachedPrefix(const Sequence& seq) const;
  // Whether AllocateSlots(seq, num_new_tokens, prefix) would succeed.
  bool CanAllocate(const Sequence& seq, int64_t num_new_tokens, const CachedPrefix& prefix = {}) const;

  // --- Commits. ---

  // Makes the sequence's table cover `num_new_tokens` more tokens. For a
  // sequence with no blocks yet (and so nothing computed) the new tokens
  // start after `prefix`, whose blocks it takes a reference on (they leave
  // the free list if free); otherwise they start at
  // seq.num_computed_tokens() and `prefix` must be empty. A shared (ref_cnt > 1) block about to be written is replaced by a
  // private copy, and the copy is returned for the runner to perform. Blocks
  // that become full are hashed and cached. ResourceExhausted, with nothing
  // changed, when the pool has too few free blocks.
  StatusOr<std::vector<BlockCopy>> AllocateSlots(const Sequence& seq, int64_t num_new_tokens,
                                                 const CachedPrefix& prefix = {});
  // Releases the sequence's blocks, last first (so its tail is evicted
  // first); a no-op for a sequence holding none.
  void Free(const Sequence& seq);
  // Gives `child` the parent's table, partial last block included, raising
  // every block's ref_cnt; the first write into a shared block copies it.
  void Fork(const Sequence& parent, const Sequence& child);

  std::span<const int32_t> block_table(SeqId seq) const;
  bool has_blocks(SeqId seq) const { return tables_.contains(seq); }

  // --- Counters, as vLLM counts them: per admission (a sequence's first
  // AllocateSlots), queries += its tokens, hits += its cached prefix tokens.
  int64_t prefix_cache_queries() const { return prefix_cache_queries_; }
  int64_t prefix_cache_hits() const { return prefix_cache_hits_; }
  // Fraction of blocks not on the free list (cached-but-free count as free).
  double usage() const;

  // The pool's invariants, plus: every table's blocks are referenced, no
  // table names a block twice, and each block's ref_cnt equals the number of
  // tables naming it.
  Status CheckInvariants() const;

 private:
  struct SeqBlocks {
    std::vector<int32_t> blocks;
    std::vector<BlockHash> hashes;  // of the leading full blocks, in chain order
  };

  // Blocks (fresh and copy-on-write) a commit needs beyond `prefix`.
  int64_t NumBlocksNeeded(const Sequence& seq, int64_t num_new_tokens, const CachedPrefix& prefix) const;
  void HashNewFullBlocks(const Sequence& seq, SeqBlocks& table, int64_t num_tokens);

  KvCacheConfig config_;
  BlockPool pool_;
  std::unordered_map<SeqId, SeqBlocks> tables_;
  int64_t prefix_cache_queries_ = 0;
  int64_t prefix_cache_hits_ = 0;
};

}  // namespace pagoda
