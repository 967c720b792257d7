// KV cache memory for a known workload, for callers that size an engine to
// the requests they will send (generate, perplexity) rather than to a budget.
#pragma once

#include <cstdint>

#include "pagoda/model/model_config.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda {

// Bytes that hold `num_seqs` sequences of `num_tokens` tokens each, in whole blocks.
int64_t KvCacheBytesFor(const ModelConfig& model, DType dtype, int32_t block_size, int64_t num_tokens,
                        int64_t num_seqs = 1);

}  // namespace pagoda
