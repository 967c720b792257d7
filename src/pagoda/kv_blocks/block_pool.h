// The pool of KV cache blocks: reference counts, the free list and the
// prefix-cache index. Pure bookkeeping; it never sees a tensor.
//
// The free list is intrusive and doubly linked through the block metadata, so
// a free block that a prefix-cache hit wants back leaves it in O(1) from
// anywhere. Freed blocks keep their hash and stay findable; they join the
// tail, and allocation takes the head, evicting the head's stale hash, so the
// least recently freed cached block is reused first (LRU).
//
// The index is keyed by (hash, group): in a hybrid model each group of
// layers keeps its own blocks for the same tokens (kv_cache_manager.h).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/kv_blocks/block_hash.h"

namespace pagoda {

class BlockPool {
 public:
  explicit BlockPool(int32_t num_blocks);

  int32_t num_blocks() const { return static_cast<int32_t>(blocks_.size()); }
  int32_t num_free() const { return num_free_; }
  int32_t ref_count(int32_t block) const { return blocks_.at(block).ref_cnt; }
  std::optional<BlockHash> hash(int32_t block) const;
  // Free blocks from head (next to be allocated) to tail.
  std::vector<int32_t> FreeListInOrder() const;

  // Takes the head of the free list with one reference, dropping its cached
  // hash; nullopt when no block is free.
  std::optional<int32_t> Allocate();
  // Adds a reference; a free block (a prefix-cache hit) leaves the free list.
  void Touch(int32_t block);
  // Drops one reference; at zero the block joins the tail of the free list,
  // its hash kept.
  void Release(int32_t block);

  // The block cached under `hash` for `group`, free or not.
  std::optional<int32_t> Lookup(const BlockHash& hash, int32_t group = 0) const;
  // Caches a referenced, full block under `hash` for `group`. When another
  // block already holds that key this one stays unnamed (the index maps a
  // key to one block) and false is returned.
  bool SetHash(int32_t block, const BlockHash& hash, int32_t group = 0);

  // Evictions of a cached hash by Allocate.
  int64_t num_evictions() const { return num_evictions_; }

  // Free list links, free count, ref counts and the hash index agree.
  Status CheckInvariants() const;

 private:
  static constexpr int32_t kNone = -1;
  struct CacheKey {
    BlockHash hash;
    int32_t group = 0;
    friend bool operator==(const CacheKey&, const CacheKey&) = default;
  };
  struct CacheKeyHasher {
    size_t operator()(const CacheKey& k) const { return BlockHashHasher{}(k.hash) ^ static_cast<size_t>(k.group); }
  };
  struct Block {
    int32_t ref_cnt = 0;
    int32_t prev = kNone;  // free-list links, kNone at the ends or when in use
    int32_t next = kNone;
    bool in_free_list = false;
    std::optional<CacheKey> key;
  };

  void PushTail(int32_t block);
  void Unlink(int32_t block);

  std::vector<Block> blocks_;
  int32_t head_ = kNone;
  int32_t tail_ = kNone;
  int32_t num_free_ = 0;
  std::unordered_map<CacheKey, int32_t, CacheKeyHasher> cached_;
  int64_t num_evictions_ = 0;
};

// Appends blocks to `table` until it covers num_tokens tokens. On failure the
// table is left as it was and nothing is taken from the pool.
Status GrowBlockTable(BlockPool& pool, std::vector<int32_t>& table, int64_t num_tokens, int64_t block_size);

// Releases every block of the table, last block first so the tail of the
// sequence is evicted first, and clears it.
void ReleaseBlockTable(BlockPool& pool, std::vector<int32_t>& table);

}  // namespace pagoda
