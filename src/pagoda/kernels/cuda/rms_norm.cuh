// RMSNorm on CUDA, with the residual add fused in (vLLM's fused_add_rms_norm):
// the CUDA twin of the layers' AddResidual + kernels::RmsNorm.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "pagoda/base/status.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::cuda {

// For each of `rows` rows of `dim`: where `add` is set, x[r] += add[r] first
// (x is the f32 residual stream, updated in place; add of add_dtype F32,
// BF16 or F16); then out[r] = x[r] / sqrt(mean(x[r]^2) + eps) * weight,
// stored as out_dtype (F32, BF16 or F16, rounded to nearest even). weight is
// f32 [dim]. A row's sum of squares is reduced in an order fixed by dim
// alone, so it does not depend on the other rows. All pointers are device
// memory; out may not overlap x. Queued on `stream`.
Status FusedAddRmsNorm(float* x, const void* add, DType add_dtype, const float* weight, int64_t rows, int64_t dim,
                       float eps, void* out, DType out_dtype, cudaStream_t stream);

}  // namespace pagoda::kernels::cuda
