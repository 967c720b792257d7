// Rotary position embedding on CUDA: the twin of kernels::Rope (the CPU
// reference's RopeAngles then RotatePairs).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "pagoda/base/status.h"
#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::cuda {

// Rotates every head of x ([tokens][heads][head_dim] of dtype F32, BF16 or
// F16, in place) by the angles of positions[t], with params as
// kernels::Rope takes them (both pairings, the frequency base and linear
// scale, attn_factor; params.freq_factors, where set, must be device
// memory). Angles are built as the CPU reference builds them (repeated f32
// multiplication by base^(-2/head_dim), then the factor, the scale, cosf and
// sinf), so they agree with it to the last bits of cos and sin, and the
// rotation is the reference's fused multiply-adds in f32. positions is
// device memory. Queued on `stream`.
Status Rope(void* x, DType dtype, const int32_t* positions, int64_t tokens, int64_t heads, int64_t head_dim,
            const RopeParams& params, cudaStream_t stream);

}  // namespace pagoda::kernels::cuda
