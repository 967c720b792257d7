// Per-sequence block tables over a BlockPool, with prefix caching and
// copy-on-write forks. The API is two-phase, as the scheduler needs it: the
// queries (FindCachedPrefix, CanAllocate) change nothing, so a scheduler may
// ask about a request it then leaves waiting; the commits (AllocateSlots,
// Free, Fork) either succeed or change nothing, except that AllocateSlots
// always returns the blocks that have left a sliding window (no step reads
// them again).
//
// Hybrid models (vLLM's hybrid KV cache manager): the layers fall into
// groups, each with its own attention span (the whole context, or a sliding
// window), and every sequence has one block table per group over the one
// shared pool. A block belongs to one group at a time, so the pool's prefix
// index is keyed by (hash, group). A windowed group's table holds
// kNullBlock for the blocks wholly behind every future query's window:
// they are returned to the pool as soon as the sequence allocates past
// them, so a long sequence holds only about a window's worth of blocks in
// such a group.
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

// A block table entry that holds no block: the block left the window.
inline constexpr int32_t kNullBlock = -1;

// One group of layers that share block tables.
struct KvCacheGroupSpec {
  // A query at position p sees positions (p - sliding_window, p]; 0: the
  // whole context.
  int64_t sliding_window = 0;
  friend bool operator==(const KvCacheGroupSpec&, const KvCacheGroupSpec&) = default;
};

struct KvCacheConfig {
  int32_t num_blocks = 0;
  int32_t block_size = 16;
  bool enable_prefix_caching = true;
  // One entry per group; empty means one group of full attention.
  std::vector<KvCacheGroupSpec> groups;
};

// Full blocks already in the cache that a sequence can start from: for each
// group, the blocks covering the first num_tokens tokens (kNullBlock where a
// windowed group needs none).
struct CachedPrefix {
  std::vector<std::vector<int32_t>> blocks;  // [group][block]; empty when there is no hit
  std::vector<BlockHash> hashes;  // one per block position, so committing does not rehash
  int64_t num_tokens = 0;         // hashes.size() * block_size
};

// Copy block `src`'s K/V into block `dst` (every layer) before the step runs.
struct BlockCopy {
  int32_t src = 0;
  int32_t dst = 0;
  friend bool operator==(const BlockCopy&, const BlockCopy&) = default;
};

// A sequence's block tables, one per group.
using BlockTables = std::span<const std::vector<int32_t>>;

// The most blocks one sequence of `num_tokens` tokens ever holds at once,
// over all groups, when no step computes more than `max_chunk` of its
// tokens: all of its blocks in a full group, the window and the chunk in a
// windowed one.
int64_t MaxBlocksPerSequence(std::span<const KvCacheGroupSpec> groups, int32_t block_size, int64_t num_tokens,
                             int64_t max_chunk);

class KvCacheManager {
 public:
  explicit KvCacheManager(const KvCacheConfig& config);

  int32_t block_size() const { return config_.block_size; }
  int32_t num_blocks() const { return pool_.num_blocks(); }
  int32_t num_groups() const { return static_cast<int32_t>(groups_.size()); }
  const KvCacheGroupSpec& group(int32_t g) const { return groups_[g]; }
  bool prefix_caching_enabled() const { return config_.enable_prefix_caching; }
  const BlockPool& pool() const { return pool_; }

  int64_t MaxBlocksPerSequence(int64_t num_tokens, int64_t max_chunk) const {
    return pagoda::MaxBlocksPerSequence(groups_, config_.block_size, num_tokens, max_chunk);
  }

  // --- Queries: they change nothing. ---

  // The longest cached prefix that every group can start from, over at most
  // num_tokens - 1 tokens (the last token must be computed to get logits):
  // a full group needs every block before the hit, a windowed group only
  // the blocks the first computed token's window reaches. Empty when prefix
  // caching is off.
  CachedPrefix FindCachedPrefix(const Sequence& seq) const;
  // Whether AllocateSlots(seq, num_new_tokens, prefix) would succeed.
  bool CanAllocate(const Sequence& seq, int64_t num_new_tokens, const CachedPrefix& prefix = {}) const;

  // --- Commits. ---

  // Makes the sequence's tables cover `num_new_tokens` more tokens. For a
  // sequence with no blocks yet (and so nothing computed) the new tokens
  // start after `prefix`, whose blocks it takes a reference on (they leave
  // the free list if free); otherwise they start at
  // seq.num_computed_tokens() and `prefix` must be empty. First, blocks that
  // no future query's window reaches are released (kNullBlock in the table).
  // A shared (ref_cnt > 1) block about to be written is replaced by a
  // private copy, and the copy is returned for the runner to perform. Blocks
  // that become full are hashed and cached. ResourceExhausted, with nothing
  // else changed, when the pool has too few free blocks.
  StatusOr<std::vector<BlockCopy>> AllocateSlots(const Sequence& seq, int64_t num_new_tokens,
                                                 const CachedPrefix& prefix = {});
  // Releases the sequence's blocks, last first (so its tail is evicted
  // first); a no-op for a sequence holding none.
  void Free(const Sequence& seq);
  // Gives `child` the parent's tables, partial last blocks included, raising
  // every block's ref_cnt; the first write into a shared block copies it.
  void Fork(const Sequence& parent, const Sequence& child);

  // The sequence's tables, one per group; empty when it holds none.
  BlockTables block_tables(SeqId seq) const;
  // One group's table; empty when the sequence holds none.
  std::span<const int32_t> block_table(SeqId seq, int32_t group = 0) const;
  bool has_blocks(SeqId seq) const { return tables_.contains(seq); }
  // Blocks (not kNullBlock entries) the sequence holds, over all groups.
  int64_t num_blocks_held(SeqId seq) const;

  // --- Counters, as vLLM counts them: per admission (a sequence's first
  // AllocateSlots), queries += its tokens, hits += its cached prefix tokens.
  int64_t prefix_cache_queries() const { return prefix_cache_queries_; }
  int64_t prefix_cache_hits() const { return prefix_cache_hits_; }
  // Fraction of blocks not on the free list (cached-but-free count as free).
  double usage() const;

  // The pool's invariants, plus: every table's blocks are referenced, no
  // block is named twice, each block's ref_cnt equals the number of tables
  // naming it, and all of a sequence's tables cover the same tokens.
  Status CheckInvariants() const;

 private:
  struct SeqBlocks {
    std::vector<std::vector<int32_t>> tables;  // [group][block]
    std::vector<BlockHash> hashes;             // of the leading full blocks, in chain order
  };

  // Whether prefix caching may start a windowed group at `num_blocks`
  // blocks, given for each block how many blocks up to it are cached
  // without a gap.
  bool IsWindowedHit(int32_t group, std::span<const int64_t> cached_run, int64_t num_blocks) const;
  // The first block that a query at position `first_query` or later reads
  // in the group (0 for a full group).
  int64_t FirstReachableBlock(int32_t group, int64_t first_query) const;
  // Blocks (fresh and copy-on-write) a commit needs beyond `prefix`.
  int64_t NumBlocksNeeded(const Sequence& seq, int64_t num_new_tokens, const CachedPrefix& prefix) const;
  void ReleaseSkippedBlocks(const Sequence& seq, SeqBlocks& blocks);
  void HashNewFullBlocks(const Sequence& seq, SeqBlocks& blocks, int64_t num_tokens);

  KvCacheConfig config_;
  std::vector<KvCacheGroupSpec> groups_;
  BlockPool pool_;
  std::unordered_map<SeqId, SeqBlocks> tables_;
  int64_t prefix_cache_queries_ = 0;
  int64_t prefix_cache_hits_ = 0;
};

}  // namespace pagoda
