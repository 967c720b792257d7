// KV cache memory for a known workload, for callers that size an engine to
// the requests they will send (generate, perplexity) rather than to a budget.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pagoda/base/status.h"
#include "pagoda/model/model_config.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda {

// Bytes one token's K and V take over all layers (what a full-attention
// model holds per token; a hybrid model's windowed layers hold at most their
// window).
int64_t KvCacheBytesPerToken(const ModelConfig& model, DType dtype);

// How the model's layers share the cache: its KV cache groups, in one line.
std::string DescribeKvCacheGroups(const ModelConfig& model);

// Bytes that hold `num_seqs` sequences of `num_tokens` tokens each, in whole
// blocks (windowed layers sized as if computed in one chunk: every token).
int64_t KvCacheBytesFor(const ModelConfig& model, DType dtype, int32_t block_size, int64_t num_tokens,
                        int64_t num_seqs = 1);

// A kv_cache_dtype setting: "auto" (unset: the engine chooses,
// EngineConfig::kv_cache_dtype), "bfloat16", "float16" or "float32" (also
// "bf16", "f16", "half", "f32", "float"); vLLM's fp8 types are refused by
// name. `option` names the setting in the errors ("--kv-cache-dtype").
StatusOr<std::optional<DType>> ParseKvCacheDtype(const std::string& name, std::string_view option);
// The element type to size a cache of that setting by: auto chooses BF16 or
// F16, two bytes either way.
DType KvCacheSizingDtype(const std::optional<DType>& dtype);

}  // namespace pagoda
