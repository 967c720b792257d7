// The PagedAttention KV cache: one preallocated arena per layer for K and one
// for V, each [num_blocks][block_size][num_kv_heads][head_dim]. Sequences
// reach their tokens only through block tables; nothing here is per-sequence.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda {

struct KvCacheShape {
  int64_t num_layers = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t block_size = 16;
  DType dtype = DType::kF16;

  // Bytes one block takes across all layers, K and V together.
  int64_t BytesPerBlock() const;
};

class KvCacheArena {
 public:
  // Allocates as many blocks as fit in memory_bytes; fails when not even one fits.
  static StatusOr<std::unique_ptr<KvCacheArena>> Create(const KvCacheShape& shape, int64_t memory_bytes);

  const KvCacheShape& shape() const { return shape_; }
  int64_t num_blocks() const { return num_blocks_; }
  std::span<const kernels::KvCacheLayer> layers() const { return layers_; }

 private:
  KvCacheArena(const KvCacheShape& shape, int64_t num_blocks);

  struct FreeDeleter {
    void operator()(void* p) const;
  };
  KvCacheShape shape_;
  int64_t num_blocks_;
  std::unique_ptr<void, FreeDeleter> memory_;
  std::vector<kernels::KvCacheLayer> layers_;
};

}  // namespace pagoda
