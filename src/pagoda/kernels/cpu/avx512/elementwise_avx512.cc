// The elementwise and row kernels of the AVX-512 sets:
//  - SwiGLU's out = silu(gate) * up: the steps of reference::SiluMul (x /
//    (1 + GgmlExpf(0 - x)) * up) 16 lanes at a time, bit for bit the same.
//    The scalar loop calls libm's fmaf eight times per element and took a
//    quarter of a prompt's time.
//  - the residual add, bit for bit the reference's (one rounding per
//    element);
//  - RMSNorm, whose reference sums the f32 squares in one double chain, a
//    dependent add per element (3% of a prompt's time).
#include <math.h>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"

namespace pagoda::kernels::cpu::avx512 {

void SiluMul(const float* gate, const float* up, int64_t n, float* out) {
  const __m512 one = _mm512_set1_ps(1.0f);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 mask = FirstLanes(n - i);
    const __m512 x = _mm512_maskz_loadu_ps(mask, gate + i);
    const __m512 e = GgmlExp16(_mm512_sub_ps(_mm512_setzero_ps(), x));
    const __m512 silu = _mm512_div_ps(x, _mm512_add_ps(one, e));
    _mm512_mask_storeu_ps(out + i, mask, _mm512_mul_ps(silu, _mm512_maskz_loadu_ps(mask, up + i)));
  }
}

void AddInPlace(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 mask = FirstLanes(n - i);
    _mm512_mask_storeu_ps(y + i, mask,
                          _mm512_add_ps(_mm512_maskz_loadu_ps(mask, y + i), _mm512_maskz_loadu_ps(mask, x + i)));
  }
}

// The squares are rounded to f32 and summed in double, as the reference
// does, but in 16 double lanes (two chains of 8) added at the end rather
// than in one chain: the double sums can differ in their last bits, which
// reach the f32 mean only when they straddle a rounding boundary of it.
// The scaling is the reference's, (x * scale) * weight.
void RmsNorm(const float* x, const float* weight, int64_t rows, int64_t dim, float eps, float* y) {
  PAGODA_CHECK(dim > 0);
  for (int64_t r = 0; r < rows; ++r, x += dim, y += dim) {
    __m512d low = _mm512_setzero_pd(), high = _mm512_setzero_pd();
    for (int64_t i = 0; i < dim; i += 16) {
      const __m512 v = _mm512_maskz_loadu_ps(FirstLanes(dim - i), x + i);
      const __m512 squares = _mm512_mul_ps(v, v);
      low = _mm512_add_pd(low, _mm512_cvtps_pd(_mm512_castps512_ps256(squares)));
      high =
          _mm512_add_pd(high, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(squares), 1))));
    }
    const double sum = _mm512_reduce_add_pd(_mm512_add_pd(low, high));
    const float mean = static_cast<float>(sum / static_cast<double>(dim));
    const __m512 scale = _mm512_set1_ps(1.0f / sqrtf(mean + eps));
    for (int64_t i = 0; i < dim; i += 16) {
      const __mmask16 mask = FirstLanes(dim - i);
      const __m512 scaled = _mm512_mul_ps(_mm512_maskz_loadu_ps(mask, x + i), scale);
      _mm512_mask_storeu_ps(y + i, mask, _mm512_mul_ps(scaled, _mm512_maskz_loadu_ps(mask, weight + i)));
    }
  }
}

}  // namespace pagoda::kernels::cpu::avx512
