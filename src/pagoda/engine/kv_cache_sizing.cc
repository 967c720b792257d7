#include "pagoda/engine/kv_cache_sizing.h"

#include <fmt/format.h>

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

StatusOr<std::optional<DType>> ParseKvCacheDtype(const std::string& name, std::string_view option) {
  if (name == "auto") return std::optional<DType>();
  if (name == "bfloat16" || name == "bf16") return std::optional<DType>(DType::kBF16);
  if (name == "float16" || name == "f16" || name == "half") return std::optional<DType>(DType::kF16);
  if (name == "float32" || name == "f32" || name == "float") return std::optional<DType>(DType::kF32);
  if (name.starts_with("fp8")) {
    return InvalidArgumentError(fmt::format(
        "{} {} is not supported: Pagoda's CPU kernels keep the KV cache in 16 or 32 bits "
        "(auto, bfloat16, float16 or float32)",
        option, name));
  }
  return InvalidArgumentError(fmt::format("unknown {} '{}' (auto, bfloat16, float16 or float32)", option, name));
}

DType KvCacheSizingDtype(const std::optional<DType>& dtype) { return dtype.value_or(DType::kF16); }

}  // namespace pagoda
