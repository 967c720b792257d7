#include "pagoda/engine/kv_cache_sizing.h"

#include "pagoda/runner/kv_cache_arena.h"

namespace pagoda {

int64_t KvCacheBytesPerToken(const ModelConfig& model, DType dtype) {
  return 2 * model.num_layers * model.kv_dim() * DTypeBlockBytes(dtype);
}

std::string DescribeKvCacheGroups(const ModelConfig& model) {
  return DescribeKvCacheLayout(PlanKvCacheLayout(model.layer_sliding_window));
}

int64_t KvCacheBytesFor(const ModelConfig& model, DType dtype, int32_t block_size, int64_t num_tokens,
                        int64_t num_seqs) {
  // A step may compute all of a sequence's tokens at once, so windowed
  // groups are sized as if they held every token.
  const KvCacheLayout layout = PlanKvCacheLayout(model.layer_sliding_window);
  const KvCacheShape shape{layout.num_slots, model.num_kv_heads, model.head_dim, block_size, dtype};
  return num_seqs * MaxBlocksPerSequence(layout.groups, block_size, num_tokens, num_tokens) * shape.BytesPerBlock();
}

}  // namespace pagoda
