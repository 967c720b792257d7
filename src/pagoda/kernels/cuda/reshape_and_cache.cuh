// reshape_and_cache: the CUDA twin of kernels::WriteKv, writing the new K
// and V rows of a step into the paged KV arena.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "pagoda/base/status.h"
#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::cuda {

// Writes row t of k and v (each [tokens][num_kv_heads][head_dim], contiguous,
// of src_dtype F32 or BF16) to slot slot_mapping[t] of the cache
// (slot = block_id * block_size + offset; cache.dtype F32 or BF16, F32 rounded
// to BF16 to nearest even). A negative slot marks a padding token, which is
// skipped, as in vLLM; a slot past the arena is a programmer error that
// stops the kernel. k, v, slot_mapping and the cache are device memory; the
// kernel is queued on `stream`, and errors of the launch itself are returned.
Status ReshapeAndCache(const void* k, const void* v, DType src_dtype, const int64_t* slot_mapping, int64_t tokens,
                       const KvCacheLayer& cache, cudaStream_t stream);

}  // namespace pagoda::kernels::cuda
