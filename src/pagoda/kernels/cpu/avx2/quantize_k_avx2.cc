// Activation quantization to Q8_K, bit-identical to
// reference::QuantizeRowQ8_K: the same scale (the first value of largest
// magnitude, iscale = -127 / max, d = 1 / iscale), the same lane-wise
// products rounded half to even, and exact integer bsums.
#include <immintrin.h>

#include <cstring>

#include "pagoda/kernels/cpu/avx2/avx2_kernels.h"
#include "pagoda/kernels/cpu/avx2/avx2_util.h"

namespace pagoda::kernels::cpu::avx2 {
namespace {

constexpr int kVecs = kSuperBlock / 8;

inline float HorizontalMax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

void QuantizeBlock(const float* src, BlockQ8_K& out) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 amax8 = _mm256_setzero_ps();
  // max_ps returns its second operand when the first is NaN, so NaNs are
  // skipped as the reference's `>` skips them.
  for (int c = 0; c < kVecs; ++c) amax8 = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(src + 8 * c)), amax8);
  const float amax = HorizontalMax(amax8);
  if (amax == 0.0f) {
    std::memset(&out, 0, sizeof(out));
    return;
  }
  // The reference keeps the first element that reaches the largest magnitude.
  float max = 0.0f;
  for (int c = 0; c < kVecs; ++c) {
    const __m256 abs = _mm256_andnot_ps(sign, _mm256_loadu_ps(src + 8 * c));
    const int hit = _mm256_movemask_ps(_mm256_cmp_ps(abs, _mm256_set1_ps(amax), _CMP_EQ_OQ));
    if (hit != 0) {
      max = src[8 * c + __builtin_ctz(static_cast<unsigned>(hit))];
      break;
    }
  }
  const float iscale = -127.0f / max;
  const __m256 scale = _mm256_set1_ps(iscale);
  const __m256i top = _mm256_set1_epi32(127);
  __m256i q[kVecs];
  for (int c = 0; c < kVecs; ++c) {
    const __m256 p = _mm256_round_ps(_mm256_mul_ps(scale, _mm256_loadu_ps(src + 8 * c)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    q[c] = _mm256_min_epi32(_mm256_cvtps_epi32(p), top);
  }
  // packs interleave 128-bit lanes; this puts the 32 bytes back in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int c = 0; c < kVecs; c += 4) {
    const __m256i q16a = _mm256_packs_epi32(q[c], q[c + 1]);
    const __m256i q16b = _mm256_packs_epi32(q[c + 2], q[c + 3]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.qs + 8 * c),
                        _mm256_permutevar8x32_epi32(_mm256_packs_epi16(q16a, q16b), order));
  }
  // Group g of 16 is q[2g] and q[2g + 1]; its sum fits 16 bits.
  for (int half = 0; half < 2; ++half) {
    __m256i pairs[8];
    for (int g = 0; g < 8; ++g) pairs[g] = _mm256_add_epi32(q[16 * half + 2 * g], q[16 * half + 2 * g + 1]);
    const __m256i sums = SumEach(pairs);
    const __m128i sums16 = _mm_packs_epi32(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out.bsums + 8 * half), sums16);
  }
  out.d = 1.0f / iscale;
}

}  // namespace

void QuantizeRowsQ8_K(const float* x, int64_t k, int64_t row_begin, int64_t row_end, BlockQ8_K* out) {
  const int64_t nb = k / kSuperBlock;
  for (int64_t i = row_begin; i < row_end; ++i) {
    for (int64_t b = 0; b < nb; ++b) QuantizeBlock(x + i * k + b * kSuperBlock, out[i * nb + b]);
  }
}

}  // namespace pagoda::kernels::cpu::avx2
