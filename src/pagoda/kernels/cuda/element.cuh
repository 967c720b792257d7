// Loads and stores of the activation element types the CUDA kernels take
// (F32, BF16, F16), always through f32, for their device code.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::cuda {

__device__ __forceinline__ float ToFloat(float x) { return x; }
__device__ __forceinline__ float ToFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float ToFloat(__half x) { return __half2float(x); }

// f32 to T, rounded to nearest even.
template <typename T>
__device__ __forceinline__ T FromFloat(float x);
template <>
__device__ __forceinline__ float FromFloat<float>(float x) { return x; }
template <>
__device__ __forceinline__ __nv_bfloat16 FromFloat<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
template <>
__device__ __forceinline__ __half FromFloat<__half>(float x) { return __float2half_rn(x); }

// Calls f.template operator()<T>() with T the element type of dtype (F32,
// BF16 or F16); returns false for any other dtype. Host code.
template <typename F>
bool WithElementType(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kF32: f.template operator()<float>(); return true;
    case DType::kBF16: f.template operator()<__nv_bfloat16>(); return true;
    case DType::kF16: f.template operator()<__half>(); return true;
    default: return false;
  }
}

}  // namespace pagoda::kernels::cuda
