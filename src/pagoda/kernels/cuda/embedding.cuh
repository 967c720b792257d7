// The embedding gather on CUDA: the twin of kernels::EmbeddingLookup for
// float tables.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "pagoda/base/status.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::cuda {

// out[t] = row ids[t] of table ([vocab][dim] of F32, BF16 or F16), as f32
// (the residual stream) scaled by `scale` (Gemma's sqrt(hidden); 1 for
// none). Ids are checked on the host before the call; one outside [0,
// vocab) stops the kernel rather than read out of bounds. Device memory;
// queued on `stream`.
Status EmbeddingGather(const void* table, DType table_dtype, int64_t vocab, int64_t dim, const int32_t* ids,
                       int64_t tokens, float scale, float* out, cudaStream_t stream);

}  // namespace pagoda::kernels::cuda
