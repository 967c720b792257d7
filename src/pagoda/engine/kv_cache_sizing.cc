#include "pagoda/engine/kv_cache_sizing.h"

#include "pagoda/runner/kv_cache_arena.h"

namespace pagoda {

int64_t KvCacheBytesFor(const ModelConfig& model, DType dtype, int32_t block_size, int64_t num_tokens,
                        int64_t num_seqs) {
  const KvCacheShape shape{model.num_layers, model.num_kv_heads, model.head_dim, block_size, dtype};
  return num_seqs * ((num_tokens + block_size - 1) / block_size) * shape.BytesPerBlock();
}

}  // namespace pagoda
