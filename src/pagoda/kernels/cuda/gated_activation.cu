#include "pagoda/kernels/cuda/gated_activation.cuh"

#include <limits>

#include "pagoda/kernels/cuda/cuda_status.h"
#include "pagoda/kernels/cuda/element.cuh"

namespace pagoda::kernels::cuda {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float Silu(float x) { return x / (1.0f + expf(-x)); }

__device__ __forceinline__ float GeluTanh(float x) {
  constexpr float kSqrt2OverPi = 0.79788456080286535588f;
  return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * x * (1.0f + 0.044715f * x * x)));
}

// A grid of (column blocks, tokens): each thread one element of a row.
template <GatedActivationKind kKind, typename In, typename Out>
__global__ void __launch_bounds__(kThreads) GatedActivationKernel(const In* gate_up, int64_t ff, Out* out) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= ff) return;
  const In* row = gate_up + static_cast<int64_t>(blockIdx.y) * 2 * ff;
  const float gate = ToFloat(row[i]);
  const float up = ToFloat(row[ff + i]);
  const float activated = kKind == GatedActivationKind::kSilu ? Silu(gate) : GeluTanh(gate);
  out[static_cast<int64_t>(blockIdx.y) * ff + i] = FromFloat<Out>(activated * up);
}

}  // namespace

Status GatedActivation(GatedActivationKind kind, const void* gate_up, DType in_dtype, int64_t tokens, int64_t ff,
                       void* out, DType out_dtype, cudaStream_t stream) {
  // gridDim.y is at most 65535.
  if (tokens < 0 || tokens > 65535 || ff <= 0 || ff > std::numeric_limits<int32_t>::max() / 2) {
    return InvalidArgumentError("CUDA gated activation: tokens (up to 65535) or ff out of range");
  }
  if (tokens == 0) return Status::Ok();
  const dim3 grid(static_cast<unsigned>((ff + kThreads - 1) / kThreads), static_cast<unsigned>(tokens));
  bool launched = false;
  const bool types_ok = WithElementType(in_dtype, [&]<typename In>() {
    launched = WithElementType(out_dtype, [&]<typename Out>() {
      const auto* in = static_cast<const In*>(gate_up);
      auto* o = static_cast<Out*>(out);
      if (kind == GatedActivationKind::kSilu) {
        GatedActivationKernel<GatedActivationKind::kSilu><<<grid, kThreads, 0, stream>>>(in, ff, o);
      } else {
        GatedActivationKernel<GatedActivationKind::kGeluTanh><<<grid, kThreads, 0, stream>>>(in, ff, o);
      }
    });
  });
  if (!types_ok || !launched) return UnimplementedError("CUDA gated activation takes F32, BF16 or F16");
  return CudaStatus(cudaGetLastError(), "gated activation launch");
}

}  // namespace pagoda::kernels::cuda
