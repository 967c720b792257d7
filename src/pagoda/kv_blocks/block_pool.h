// The pool of KV cache blocks: which block ids are free and how many
// references each used block has. Pure bookkeeping; it never sees a tensor.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda {

class BlockPool {
 public:
  explicit BlockPool(int32_t num_blocks);

  int32_t num_blocks() const { return static_cast<int32_t>(ref_counts_.size()); }
  int32_t num_free() const { return static_cast<int32_t>(free_.size()); }
  int32_t ref_count(int32_t block) const { return ref_counts_.at(block); }

  // Takes a free block with one reference; nullopt when none is left.
  std::optional<int32_t> Allocate();
  // Drops one reference; the block is free again when none remain.
  void Release(int32_t block);

 private:
  std::vector<int32_t> ref_counts_;
  std::vector<int32_t> free_;  // lowest ids are handed out first
};

// Appends blocks to `table` until it covers num_tokens tokens. On failure the
// table is left as it was and nothing is taken from the pool.
Status GrowBlockTable(BlockPool& pool, std::vector<int32_t>& table, int64_t num_tokens, int64_t block_size);

// Releases every block of the table and clears it.
void ReleaseBlockTable(BlockPool& pool, std::vector<int32_t>& table);

}  // namespace pagoda
