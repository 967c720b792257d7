// The KV cache write's walk over a step's tokens, shared by the reference
// and the AVX-512 sets (which differ only in how a row becomes f16): each
// token's K and V rows into its slot, copied into an F32 cache or rounded by
// to_f16(x, y, n) into an F16 one.
#pragma once

#include <cstdint>
#include <cstring>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::kernels::cpu {

template <typename ToF16>
void WriteKvRows(const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens,
                 const KvCacheLayer& cache, ToF16 to_f16) {
  PAGODA_CHECK(cache.dtype == DType::kF32 || cache.dtype == DType::kF16);
  const int64_t width = cache.num_kv_heads * cache.head_dim;
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t slot = slot_mapping[t];
    PAGODA_CHECK_MSG(slot >= 0 && slot < cache.num_blocks * cache.block_size, "KV slot out of range");
    if (cache.dtype == DType::kF16) {
      to_f16(k + t * width, static_cast<uint16_t*>(cache.k) + slot * width, width);
      to_f16(v + t * width, static_cast<uint16_t*>(cache.v) + slot * width, width);
    } else {
      std::memcpy(static_cast<float*>(cache.k) + slot * width, k + t * width, static_cast<size_t>(width) * 4);
      std::memcpy(static_cast<float*>(cache.v) + slot * width, v + t * width, static_cast<size_t>(width) * 4);
    }
  }
}

}  // namespace pagoda::kernels::cpu
