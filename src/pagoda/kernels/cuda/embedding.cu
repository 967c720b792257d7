#include "pagoda/kernels/cuda/embedding.cuh"

#include <limits>

#include "pagoda/kernels/cuda/cuda_status.h"
#include "pagoda/kernels/cuda/element.cuh"

namespace pagoda::kernels::cuda {
namespace {

constexpr int kThreads = 256;

// One thread block per token.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    EmbeddingGatherKernel(const T* table, int64_t vocab, int64_t dim, const int32_t* ids, float scale, float* out) {
  const int32_t id = ids[blockIdx.x];
  if (id < 0 || id >= vocab) __trap();
  const T* row = table + static_cast<int64_t>(id) * dim;
  float* out_row = out + static_cast<int64_t>(blockIdx.x) * dim;
  for (int64_t i = threadIdx.x; i < dim; i += kThreads) out_row[i] = ToFloat(row[i]) * scale;
}

}  // namespace

Status EmbeddingGather(const void* table, DType table_dtype, int64_t vocab, int64_t dim, const int32_t* ids,
                       int64_t tokens, float scale, float* out, cudaStream_t stream) {
  if (tokens < 0 || tokens > std::numeric_limits<int32_t>::max() || vocab <= 0 || dim <= 0) {
    return InvalidArgumentError("CUDA embedding gather: tokens, vocab or dim out of range");
  }
  if (tokens == 0) return Status::Ok();
  const bool launched = WithElementType(table_dtype, [&]<typename T>() {
    EmbeddingGatherKernel<T><<<static_cast<unsigned>(tokens), kThreads, 0, stream>>>(static_cast<const T*>(table),
                                                                                      vocab, dim, ids, scale, out);
  });
  if (!launched) return UnimplementedError("CUDA embedding gather takes F32, BF16 or F16 tables");
  return CudaStatus(cudaGetLastError(), "embedding gather launch");
}

}  // namespace pagoda::kernels::cuda
