#include "pagoda/kv_blocks/block_pool.h"

#include <fmt/format.h>

#include "pagoda/base/check.h"

namespace pagoda {

BlockPool::BlockPool(int32_t num_blocks) : ref_counts_(num_blocks, 0) {
  PAGODA_CHECK(num_blocks >= 0);
  free_.reserve(num_blocks);
  for (int32_t b = num_blocks - 1; b >= 0; --b) free_.push_back(b);
}

std::optional<int32_t> BlockPool::Allocate() {
  if (free_.empty()) return std::nullopt;
  const int32_t b = free_.back();
  free_.pop_back();
  ref_counts_[b] = 1;
  return b;
}

void BlockPool::Release(int32_t block) {
  PAGODA_CHECK(block >= 0 && block < num_blocks());
  PAGODA_CHECK_MSG(ref_counts_[block] > 0, "releasing a free block");
  if (--ref_counts_[block] == 0) free_.push_back(block);
}

Status GrowBlockTable(BlockPool& pool, std::vector<int32_t>& table, int64_t num_tokens, int64_t block_size) {
  const int64_t needed = (num_tokens + block_size - 1) / block_size - static_cast<int64_t>(table.size());
  if (needed <= 0) return Status::Ok();
  if (needed > pool.num_free()) {
    return ResourceExhaustedError(fmt::format("KV cache full: {} tokens need {} more blocks, {} free", num_tokens,
                                              needed, pool.num_free()));
  }
  for (int64_t i = 0; i < needed; ++i) table.push_back(*pool.Allocate());
  return Status::Ok();
}

void ReleaseBlockTable(BlockPool& pool, std::vector<int32_t>& table) {
  for (int32_t b : table) pool.Release(b);
  table.clear();
}

}  // namespace pagoda
