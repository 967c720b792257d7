#include "pagoda/kv_blocks/block_pool.h"

#include <fmt/format.h>

#include "pagoda/base/check.h"

namespace pagoda {

BlockPool::BlockPool(int32_t num_blocks) {
  PAGODA_CHECK(num_blocks >= 0);
  blocks_.resize(num_blocks);
  // Lowest ids are handed out first.
  for (int32_t b = 0; b < num_blocks; ++b) PushTail(b);
}

void BlockPool::PushTail(int32_t block) {
  Block& m = blocks_[block];
  m.prev = tail_;
  m.next = kNone;
  m.in_free_list = true;
  if (tail_ == kNone) {
    head_ = block;
  } else {
    blocks_[tail_].next = block;
  }
  tail_ = block;
  ++num_free_;
}

void BlockPool::Unlink(int32_t block) {
  Block& m = blocks_[block];
  PAGODA_CHECK(m.in_free_list);
  if (m.prev == kNone) {
    head_ = m.next;
  } else {
    blocks_[m.prev].next = m.next;
  }
  if (m.next == kNone) {
    tail_ = m.prev;
  } else {
    blocks_[m.next].prev = m.prev;
  }
  m.prev = m.next = kNone;
  m.in_free_list = false;
  --num_free_;
}

std::vector<int32_t> BlockPool::FreeListInOrder() const {
  std::vector<int32_t> out;
  for (int32_t b = head_; b != kNone; b = blocks_[b].next) out.push_back(b);
  return out;
}

std::optional<int32_t> BlockPool::Allocate() {
  if (head_ == kNone) return std::nullopt;
  const int32_t b = head_;
  Unlink(b);
  Block& m = blocks_[b];
  if (m.key) {
    cached_.erase(*m.key);
    m.key.reset();
    ++num_evictions_;
  }
  m.ref_cnt = 1;
  return b;
}

void BlockPool::Touch(int32_t block) {
  PAGODA_CHECK(block >= 0 && block < num_blocks());
  Block& m = blocks_[block];
  if (m.ref_cnt == 0) Unlink(block);
  ++m.ref_cnt;
}

void BlockPool::Release(int32_t block) {
  PAGODA_CHECK(block >= 0 && block < num_blocks());
  Block& m = blocks_[block];
  PAGODA_CHECK_MSG(m.ref_cnt > 0, "releasing a free block");
  if (--m.ref_cnt == 0) PushTail(block);
}

std::optional<BlockHash> BlockPool::hash(int32_t block) const {
  const std::optional<CacheKey>& key = blocks_.at(block).key;
  if (!key) return std::nullopt;
  return key->hash;
}

std::optional<int32_t> BlockPool::Lookup(const BlockHash& hash, int32_t group) const {
  auto it = cached_.find(CacheKey{hash, group});
  if (it == cached_.end()) return std::nullopt;
  return it->second;
}

bool BlockPool::SetHash(int32_t block, const BlockHash& hash, int32_t group) {
  Block& m = blocks_.at(block);
  PAGODA_CHECK_MSG(m.ref_cnt > 0, "naming a free block");
  const CacheKey key{hash, group};
  if (m.key) {
    PAGODA_CHECK_MSG(*m.key == key, "renaming a cached block");
    return true;
  }
  if (!cached_.emplace(key, block).second) return false;
  m.key = key;
  return true;
}

Status BlockPool::CheckInvariants() const {
  int32_t count = 0;
  int32_t prev = kNone;
  for (int32_t b = head_; b != kNone; b = blocks_[b].next) {
    const Block& m = blocks_[b];
    if (!m.in_free_list || m.prev != prev) return InternalError(fmt::format("free list broken at block {}", b));
    if (m.ref_cnt != 0) return InternalError(fmt::format("block {} is free with ref_cnt {}", b, m.ref_cnt));
    if (++count > num_blocks()) return InternalError("free list has a cycle");
    prev = b;
  }
  if (prev != tail_) return InternalError("free list tail is not its last block");
  if (count != num_free_)
    return InternalError(fmt::format("free list holds {} blocks, count says {}", count, num_free_));
  size_t hashed = 0;
  for (int32_t b = 0; b < num_blocks(); ++b) {
    const Block& m = blocks_[b];
    if ((m.ref_cnt == 0) != m.in_free_list) {
      return InternalError(fmt::format("block {}: ref_cnt {} but in_free_list {}", b, m.ref_cnt, m.in_free_list));
    }
    if (m.key) {
      ++hashed;
      auto it = cached_.find(*m.key);
      if (it == cached_.end() || it->second != b) return InternalError(fmt::format("block {}'s hash not indexed", b));
    }
  }
  if (hashed != cached_.size()) return InternalError("hash index names blocks that lost their hash");
  return Status::Ok();
}

Status GrowBlockTable(BlockPool& pool, std::vector<int32_t>& table, int64_t num_tokens, int64_t block_size) {
  const int64_t needed = (num_tokens + block_size - 1) / block_size - static_cast<int64_t>(table.size());
  if (needed <= 0) return Status::Ok();
  if (needed > pool.num_free()) {
    return ResourceExhaustedError(
        fmt::format("KV cache full: {} tokens need {} more blocks, {} free", num_tokens, needed, pool.num_free()));
  }
  for (int64_t i = 0; i < needed; ++i) table.push_back(*pool.Allocate());
  return Status::Ok();
}

void ReleaseBlockTable(BlockPool& pool, std::vector<int32_t>& table) {
  for (auto it = table.rbegin(); it != table.rend(); ++it) pool.Release(*it);
  table.clear();
}

}  // namespace pagoda
