#include "pagoda/kernels/cuda/reshape_and_cache.cuh"

#include <cuda_bf16.h>

#include <limits>

#include "pagoda/kernels/cuda/cuda_status.h"
#include "pagoda/kernels/cuda/element.cuh"

namespace pagoda::kernels::cuda {
namespace {

constexpr int kThreads = 128;

// One thread block per token: its K and V rows are `width` contiguous
// elements, and so is each slot of the arena.
template <typename Src, typename Dst>
__global__ void __launch_bounds__(kThreads)
    ReshapeAndCacheKernel(const Src* k, const Src* v, const int64_t* slot_mapping, int64_t width, int64_t slots,
                          Dst* k_cache, Dst* v_cache) {
  const int64_t token = blockIdx.x;
  const int64_t slot = slot_mapping[token];
  if (slot < 0) return;
  // Past the arena: a programmer error, which must not become a stray write.
  if (slot >= slots) __trap();
  const Src* k_row = k + token * width;
  const Src* v_row = v + token * width;
  Dst* k_dst = k_cache + slot * width;
  Dst* v_dst = v_cache + slot * width;
  for (int64_t i = threadIdx.x; i < width; i += kThreads) {
    k_dst[i] = FromFloat<Dst>(ToFloat(k_row[i]));
    v_dst[i] = FromFloat<Dst>(ToFloat(v_row[i]));
  }
}

template <typename Src, typename Dst>
void Launch(const void* k, const void* v, const int64_t* slot_mapping, int64_t tokens, const KvCacheLayer& cache,
            cudaStream_t stream) {
  ReshapeAndCacheKernel<Src, Dst><<<static_cast<unsigned>(tokens), kThreads, 0, stream>>>(
      static_cast<const Src*>(k), static_cast<const Src*>(v), slot_mapping, cache.num_kv_heads * cache.head_dim,
      cache.num_blocks * cache.block_size, static_cast<Dst*>(cache.k), static_cast<Dst*>(cache.v));
}

template <typename Src>
void LaunchForCache(const void* k, const void* v, const int64_t* slot_mapping, int64_t tokens,
                    const KvCacheLayer& cache, cudaStream_t stream) {
  if (cache.dtype == DType::kF32) {
    Launch<Src, float>(k, v, slot_mapping, tokens, cache, stream);
  } else {
    Launch<Src, __nv_bfloat16>(k, v, slot_mapping, tokens, cache, stream);
  }
}

bool Supported(DType dtype) { return dtype == DType::kF32 || dtype == DType::kBF16; }

}  // namespace

Status ReshapeAndCache(const void* k, const void* v, DType src_dtype, const int64_t* slot_mapping, int64_t tokens,
                       const KvCacheLayer& cache, cudaStream_t stream) {
  if (!Supported(src_dtype) || !Supported(cache.dtype)) {
    return UnimplementedError("CUDA reshape_and_cache converts between F32 and BF16 only");
  }
  if (tokens < 0 || tokens > std::numeric_limits<int32_t>::max()) {
    return InvalidArgumentError("reshape_and_cache: token count out of range");
  }
  if (tokens == 0) return Status::Ok();
  if (src_dtype == DType::kF32) {
    LaunchForCache<float>(k, v, slot_mapping, tokens, cache, stream);
  } else {
    LaunchForCache<__nv_bfloat16>(k, v, slot_mapping, tokens, cache, stream);
  }
  return CudaStatus(cudaGetLastError(), "reshape_and_cache launch");
}

}  // namespace pagoda::kernels::cuda
