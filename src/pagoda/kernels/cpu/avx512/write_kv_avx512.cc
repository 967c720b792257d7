// The KV cache write of the AVX-512 sets: each new token's K and V rows
// into their slots. An F16 cache rounds them with VCVTPS2PH (to nearest
// even, as tensor/half.h's F32ToF16, 16 lanes per instruction); only a NaN's
// payload may differ, which F32ToF16 drops. The reference's scalar
// conversion ran on the calling thread alone while the pool waited: 2–3% of
// a prompt's time.
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"
#include "pagoda/kernels/cpu/write_kv_rows.h"

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
  WriteKvRows(k, v, slot_mapping, tokens, cache, RoundRowToF16);
}

}  // namespace pagoda::kernels::cpu::avx512
