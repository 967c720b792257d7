#include "pagoda/kernels/cuda/rope.cuh"

#include <cmath>
#include <limits>

#include "pagoda/kernels/cuda/cuda_status.h"
#include "pagoda/kernels/cuda/element.cuh"

namespace pagoda::kernels::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int64_t kMaxHeadDim = 1024;

struct RopeArgs {
  int64_t heads;
  int64_t head_dim;
  float theta_scale;  // freq_base^(-2/head_dim), computed on the host as the CPU reference does
  float freq_scale;
  float attn_factor;
  const float* freq_factors;
  bool neox;
};

// One thread block per token: the token's cos/sin pairs into shared memory,
// then every head's pairs rotated.
template <typename T>
__global__ void __launch_bounds__(kThreads) RopeKernel(T* x, const int32_t* positions, RopeArgs a) {
  __shared__ float cos_sin[kMaxHeadDim];
  const int64_t pairs = a.head_dim / 2;
  const float position = static_cast<float>(positions[blockIdx.x]);
  for (int64_t i = threadIdx.x; i < pairs; i += kThreads) {
    // theta_i = position * theta_scale^i by i multiplications, in the
    // reference's order (ggml_rope_cache_init's), not by a power.
    float theta = position;
    for (int64_t j = 0; j < i; ++j) theta *= a.theta_scale;
    const float extrapolated = a.freq_factors != nullptr ? theta / a.freq_factors[i] : theta;
    const float angle = a.freq_scale * extrapolated;
    cos_sin[2 * i] = cosf(angle) * a.attn_factor;
    cos_sin[2 * i + 1] = sinf(angle) * a.attn_factor;
  }
  __syncthreads();
  const int64_t second = a.neox ? pairs : 1;
  T* token = x + blockIdx.x * a.heads * a.head_dim;
  for (int64_t p = threadIdx.x; p < a.heads * pairs; p += kThreads) {
    const int64_t h = p / pairs;
    const int64_t i = p % pairs;
    const int64_t first = a.neox ? i : 2 * i;
    T* head = token + h * a.head_dim;
    const float x0 = ToFloat(head[first]);
    const float x1 = ToFloat(head[first + second]);
    const float c = cos_sin[2 * i];
    const float s = cos_sin[2 * i + 1];
    head[first] = FromFloat<T>(fmaf(x0, c, -(x1 * s)));
    head[first + second] = FromFloat<T>(fmaf(x0, s, x1 * c));
  }
}

}  // namespace

Status Rope(void* x, DType dtype, const int32_t* positions, int64_t tokens, int64_t heads, int64_t head_dim,
            const RopeParams& params, cudaStream_t stream) {
  if (tokens < 0 || tokens > std::numeric_limits<int32_t>::max() || heads <= 0 || head_dim <= 0 ||
      head_dim % 2 != 0 || head_dim > kMaxHeadDim) {
    return InvalidArgumentError("CUDA RoPE: tokens, heads or head_dim out of range (an even head_dim up to 1024)");
  }
  if (tokens == 0) return Status::Ok();
  const RopeArgs args{.heads = heads,
                      .head_dim = head_dim,
                      .theta_scale = std::pow(params.freq_base, -2.0f / static_cast<float>(head_dim)),
                      .freq_scale = params.freq_scale,
                      .attn_factor = params.attn_factor,
                      .freq_factors = params.freq_factors,
                      .neox = params.style == RopeStyle::kNeox};
  const bool launched = WithElementType(dtype, [&]<typename T>() {
    RopeKernel<T><<<static_cast<unsigned>(tokens), kThreads, 0, stream>>>(static_cast<T*>(x), positions, args);
  });
  if (!launched) return UnimplementedError("CUDA RoPE takes F32, BF16 or F16 activations");
  return CudaStatus(cudaGetLastError(), "RoPE launch");
}

}  // namespace pagoda::kernels::cuda
