#include "pagoda/kernels/cuda/rms_norm.cuh"

#include <limits>

#include "pagoda/kernels/cuda/cuda_status.h"
#include "pagoda/kernels/cuda/element.cuh"
#include "pagoda/kernels/cuda/warp_reduce.cuh"

namespace pagoda::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// One thread block per row. Thread i owns elements i, i + kThreads, ...,
// so a row's partial sums, and their order, depend only on dim.
template <typename Add, typename Out>
__global__ void __launch_bounds__(kThreads)
    FusedAddRmsNormKernel(float* x, const Add* add, const float* weight, int64_t dim, float eps, Out* out) {
  __shared__ float warp_sums[kWarps];
  __shared__ float scale;
  float* row = x + blockIdx.x * dim;
  const Add* add_row = add != nullptr ? add + blockIdx.x * dim : nullptr;
  float squares = 0.0f;
  for (int64_t i = threadIdx.x; i < dim; i += kThreads) {
    float v = row[i];
    if (add_row != nullptr) {
      v += ToFloat(add_row[i]);
      row[i] = v;
    }
    squares = fmaf(v, v, squares);
  }
  squares = WarpSum(squares);
  const int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) warp_sums[warp] = squares;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < kWarps; ++w) total += warp_sums[w];
    scale = rsqrtf(total / static_cast<float>(dim) + eps);
  }
  __syncthreads();
  Out* out_row = out + blockIdx.x * dim;
  for (int64_t i = threadIdx.x; i < dim; i += kThreads) out_row[i] = FromFloat<Out>(row[i] * scale * weight[i]);
}

}  // namespace

Status FusedAddRmsNorm(float* x, const void* add, DType add_dtype, const float* weight, int64_t rows, int64_t dim,
                       float eps, void* out, DType out_dtype, cudaStream_t stream) {
  if (rows < 0 || rows > std::numeric_limits<int32_t>::max() || dim <= 0) {
    return InvalidArgumentError("CUDA RMSNorm: rows or dim out of range");
  }
  if (rows == 0) return Status::Ok();
  bool launched = false;
  const bool types_ok = WithElementType(add != nullptr ? add_dtype : DType::kF32, [&]<typename Add>() {
    launched = WithElementType(out_dtype, [&]<typename Out>() {
      FusedAddRmsNormKernel<Add, Out><<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(
          x, static_cast<const Add*>(add), weight, dim, eps, static_cast<Out*>(out));
    });
  });
  if (!types_ok || !launched) return UnimplementedError("CUDA RMSNorm takes F32, BF16 or F16 activations");
  return CudaStatus(cudaGetLastError(), "RMSNorm launch");
}

}  // namespace pagoda::kernels::cuda
