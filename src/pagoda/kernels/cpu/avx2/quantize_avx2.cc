// Activation quantization to Q8_0/Q8_1 values, bit-identical to
// reference::QuantizeRowQ8_1 and to GGML's x86 quantize_row_q8_1: every step
// (amax, d = amax / 127, id = 127 / amax, x * id, round half to even) is an
// exactly rounded IEEE operation done lane-wise.
#include <immintrin.h>

#include "pagoda/kernels/cpu/avx2/avx2_kernels.h"
#include "pagoda/kernels/cpu/avx2/avx2_util.h"

namespace pagoda::kernels::cpu::avx2 {
namespace {

inline float HorizontalMax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

inline int32_t HorizontalSum(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s);
}

inline float RoundTripHalf(float f) { return _cvtsh_ss(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT)); }

}  // namespace

void QuantizeRows(const float* x, int64_t row_begin, int64_t row_end, const QuantizedRows& out) {
  const int64_t k = out.k;
  const int64_t nb = k / 32;
  const __m256 sign = _mm256_set1_ps(-0.0f);
  // packs interleave 128-bit lanes; this puts the 32 bytes back in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int64_t i = row_begin; i < row_end; ++i) {
    for (int64_t b = 0; b < nb; ++b) {
      const float* src = x + i * k + b * 32;
      __m256 v[4];
      __m256 amax = _mm256_setzero_ps();
      for (int c = 0; c < 4; ++c) {
        v[c] = _mm256_loadu_ps(src + 8 * c);
        amax = _mm256_max_ps(amax, _mm256_andnot_ps(sign, v[c]));
      }
      const float max_abs = HorizontalMax(amax);
      const float d = max_abs / 127.0f;
      const float id = max_abs != 0.0f ? 127.0f / max_abs : 0.0f;
      const __m256 idv = _mm256_set1_ps(id);
      __m256i q[4];
      __m256i sum = _mm256_setzero_si256();
      for (int c = 0; c < 4; ++c) {
        q[c] = _mm256_cvtps_epi32(_mm256_round_ps(_mm256_mul_ps(v[c], idv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        sum = _mm256_add_epi32(sum, q[c]);
      }
      const __m256i q16a = _mm256_packs_epi32(q[0], q[1]);
      const __m256i q16b = _mm256_packs_epi32(q[2], q[3]);
      const __m256i q8 = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(q16a, q16b), order);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.qs + i * k + b * 32), q8);
      const int32_t s = HorizontalSum(sum);
      out.d[i * nb + b] = RoundTripHalf(d);
      out.s[i * nb + b] = RoundTripHalf(static_cast<float>(s) * d);
      out.sum[i * nb + b] = s;
    }
  }
}

}  // namespace pagoda::kernels::cpu::avx2
