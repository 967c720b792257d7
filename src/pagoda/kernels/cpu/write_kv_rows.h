// The KV cache write's walk over a step's tokens, shared by the reference
// and the AVX-512 sets (which differ only in how a row is rounded): each
// token's K and V rows into its slot, copied into an F32 cache or rounded by
// to_f16(x, y, n) into an F16 one; or, for a BF16 cache, into its block's
// runs (kv_pairs_layout.h).
#pragma once

#include <cstdint>
#include <cstring>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/kv_pairs_layout.h"
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

// BF16: write_pairs(k_row, v_row, k_run, v_run, i, cache) rounds one KV
// head's rows (head_dim floats each) into position i of its block's runs.
template <typename WritePairs>
void WriteKvPairs(const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens,
                  const KvCacheLayer& cache, WritePairs write_pairs) {
  PAGODA_CHECK(cache.dtype == DType::kBF16 && KvPairsShapeOk(cache.head_dim, cache.block_size));
  const int64_t width = cache.num_kv_heads * cache.head_dim;
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t slot = slot_mapping[t];
    PAGODA_CHECK_MSG(slot >= 0 && slot < cache.num_blocks * cache.block_size, "KV slot out of range");
    for (int64_t h = 0; h < cache.num_kv_heads; ++h) {
      const int64_t run = KvPairsRun(cache, slot / cache.block_size, h);
      write_pairs(k + t * width + h * cache.head_dim, v + t * width + h * cache.head_dim,
                  static_cast<uint16_t*>(cache.k) + run, static_cast<uint16_t*>(cache.v) + run,
                  slot % cache.block_size, cache);
    }
  }
}

}  // namespace pagoda::kernels::cpu
