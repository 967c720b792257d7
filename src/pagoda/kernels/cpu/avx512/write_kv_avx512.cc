// The KV cache write of the AVX-512 sets: each new token's K and V rows
// into their slots. An F16 cache rounds them with VCVTPS2PH (to nearest
// even, as tensor/half.h's F32ToF16, 16 lanes per instruction); only a NaN's
// payload may differ, which F32ToF16 drops. The reference's scalar
// conversion ran on the calling thread alone while the pool waited: 2–3% of
// a prompt's time.
#include <cstring>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

void RoundRowToF16(const float* x, uint16_t* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 mask = FirstLanes(n - i);
    const __m256i halves =
        _mm512_cvtps_ph(_mm512_maskz_loadu_ps(mask, x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm256_mask_storeu_epi16(y + i, mask, halves);
  }
}

}  // namespace

void WriteKv(const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens, const KvCacheLayer& cache) {
  PAGODA_CHECK(cache.dtype == DType::kF32 || cache.dtype == DType::kF16);
  const int64_t width = cache.num_kv_heads * cache.head_dim;
  for (int64_t t = 0; t < tokens; ++t) {
    const int64_t slot = slot_mapping[t];
    PAGODA_CHECK_MSG(slot >= 0 && slot < cache.num_blocks * cache.block_size, "KV slot out of range");
    if (cache.dtype == DType::kF16) {
      RoundRowToF16(k + t * width, static_cast<uint16_t*>(cache.k) + slot * width, width);
      RoundRowToF16(v + t * width, static_cast<uint16_t*>(cache.v) + slot * width, width);
    } else {
      std::memcpy(static_cast<float*>(cache.k) + slot * width, k + t * width, static_cast<size_t>(width) * 4);
      std::memcpy(static_cast<float*>(cache.v) + slot * width, v + t * width, static_cast<size_t>(width) * 4);
    }
  }
}

}  // namespace pagoda::kernels::cpu::avx512
