// The PagedAttention KV cache: one preallocated arena per slot for K and one
// for V, each [num_blocks][block_size][num_kv_heads][head_dim]. A slot is a
// layer's, or in a hybrid model one layer of every group's
// (kv_cache_layout.h). Sequences reach their tokens only through block
// tables; nothing here is per-sequence.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/runner/kv_cache_layout.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda {

struct KvCacheShape {
  int64_t num_slots = 0;  // the layout's num_slots: every layer, for a uniform model
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t block_size = 16;
  DType dtype = DType::kF16;

  // Bytes one block takes across all slots, K and V together.
  int64_t BytesPerBlock() const;
};

class KvCacheArena {
 public:
  // Allocates as many blocks as fit in memory_bytes; fails when not even one
  // fits. The layout's slot count must be the shape's.
  static StatusOr<std::unique_ptr<KvCacheArena>> Create(const KvCacheShape& shape, KvCacheLayout layout,
                                                        int64_t memory_bytes);
  // A uniform model: one group, a slot per layer.
  static StatusOr<std::unique_ptr<KvCacheArena>> Create(const KvCacheShape& shape, int64_t memory_bytes);

  const KvCacheShape& shape() const { return shape_; }
  const KvCacheLayout& layout() const { return layout_; }
  int64_t num_blocks() const { return num_blocks_; }
  // One view per model layer: its slot's tensors.
  std::span<const kernels::KvCacheLayer> layers() const { return layers_; }
  // One view per slot, so that each block's memory appears once.
  std::span<const kernels::KvCacheLayer> slots() const { return slots_; }

 private:
  KvCacheArena(const KvCacheShape& shape, KvCacheLayout layout, int64_t num_blocks);

  struct Unmap {
    int64_t bytes;  // the mapping's length
    void operator()(void* p) const;
  };
  KvCacheShape shape_;
  KvCacheLayout layout_;
  int64_t num_blocks_;
  std::unique_ptr<void, Unmap> memory_;
  std::vector<kernels::KvCacheLayer> slots_;
  std::vector<kernels::KvCacheLayer> layers_;
};

}  // namespace pagoda
