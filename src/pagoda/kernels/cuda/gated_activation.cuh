// The gated MLP's activation on CUDA (vLLM's silu_and_mul and
// gelu_tanh_and_mul): the twin of kernels::SiluMul and kernels::GeluMul, on
// the output of one merged gate-and-up MatMul.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "pagoda/base/status.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::cuda {

enum class GatedActivationKind { kSilu, kGeluTanh };

// out[t][i] = act(gate_up[t][i]) * gate_up[t][ff + i] for each of `tokens`
// rows, gate_up [tokens][2 * ff] (the gate's outputs, then the up
// projection's) and out [tokens][ff], each of F32, BF16 or F16. act is
// SiLU, x / (1 + e^-x), or GELU's tanh form, as the CPU reference's. Device
// memory; queued on `stream`.
Status GatedActivation(GatedActivationKind kind, const void* gate_up, DType in_dtype, int64_t tokens, int64_t ff,
                       void* out, DType out_dtype, cudaStream_t stream);

}  // namespace pagoda::kernels::cuda
