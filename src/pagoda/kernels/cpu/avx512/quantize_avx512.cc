// Activation quantization to Q8_1 (and so Q8_0) values with AVX-512, bit
// for bit avx2::QuantizeRows and reference::QuantizeRowQ8_1 for finite
// inputs. Every step is an exactly rounded IEEE operation done lane-wise
// (amax, d = amax / 127, id = 127 / amax, x * id rounded half to even, the
// f16 round trips), and the block maxima and integer sums are exact in any
// order.
//
// Sixteen blocks go at a time: their maxima and sums come out as one vector
// each (a transpose-and-reduce instead of a horizontal reduction per
// block), so the scales and sums of 16 blocks take one division, one f16
// round trip and one store each. The AVX2 version, a block at a time, was
// 4-5% of a prompt's time.
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

constexpr int kGroup = 16;

// Lane b of the result: op over the 16 lanes of v[b] (op exact and
// commutative, so the tree's order does not matter).
template <typename Op>
inline __m512 LaneTotals16(const __m512 v[16], Op op) {
  return FinishLaneTotals16(HalfLaneTotals8(v, op), HalfLaneTotals8(v + 8, op), op);
}

inline __m512 RoundTripHalf(__m512 x) {
  return _mm512_cvtph_ps(_mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

// Blocks [b0, b0 + n) of one row (n <= 16), src at the row's first float.
void QuantizeBlocks(const float* src, int64_t b0, int n, int8_t* qs, float* d_out, float* s_out, int32_t* sum_out) {
  __m512 amax[kGroup];
  for (int b = 0; b < kGroup; ++b) {
    if (b >= n) {
      amax[b] = _mm512_setzero_ps();
      continue;
    }
    const float* x = src + (b0 + b) * 32;
    amax[b] = _mm512_max_ps(_mm512_abs_ps(_mm512_loadu_ps(x)), _mm512_abs_ps(_mm512_loadu_ps(x + 16)));
  }
  const __m512 max_abs = LaneTotals16(amax, [](__m512 a, __m512 b) { return _mm512_max_ps(a, b); });
  const __m512 d = _mm512_div_ps(max_abs, _mm512_set1_ps(127.0f));
  const __mmask16 nonzero = _mm512_cmp_ps_mask(max_abs, _mm512_setzero_ps(), _CMP_NEQ_OQ);
  alignas(64) float id[kGroup];
  _mm512_store_ps(id, _mm512_maskz_div_ps(nonzero, _mm512_set1_ps(127.0f), max_abs));
  __m512 sums[kGroup];
  for (int b = 0; b < kGroup; ++b) {
    if (b >= n) {
      sums[b] = _mm512_setzero_ps();
      continue;
    }
    const float* x = src + (b0 + b) * 32;
    const __m512 scale = _mm512_set1_ps(id[b]);
    // VCVTPS2DQ rounds half to even under the default MXCSR, as the
    // reference's nearbyint; the values lie in [-127, 127].
    const __m512i q0 = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x), scale));
    const __m512i q1 = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x + 16), scale));
    int8_t* out = qs + (b0 + b) * 32;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtsepi32_epi8(q0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm512_cvtsepi32_epi8(q1));
    sums[b] = _mm512_castsi512_ps(_mm512_add_epi32(q0, q1));
  }
  const __m512i sum = _mm512_castps_si512(LaneTotals16(sums, [](__m512 a, __m512 b) {
    return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(a), _mm512_castps_si512(b)));
  }));
  const __mmask16 lanes = FirstLanes(n);
  _mm512_mask_storeu_ps(d_out + b0, lanes, RoundTripHalf(d));
  _mm512_mask_storeu_ps(s_out + b0, lanes, RoundTripHalf(_mm512_mul_ps(_mm512_cvtepi32_ps(sum), d)));
  _mm512_mask_storeu_epi32(sum_out + b0, lanes, sum);
}

}  // namespace

void QuantizeRows(const float* x, int64_t row_begin, int64_t row_end, const QuantizedRows& out) {
  const int64_t k = out.k;
  const int64_t nb = k / 32;
  for (int64_t i = row_begin; i < row_end; ++i) {
    for (int64_t b0 = 0; b0 < nb; b0 += kGroup) {
      const int n = static_cast<int>(nb - b0 < kGroup ? nb - b0 : kGroup);
      QuantizeBlocks(x + i * k, b0, n, out.qs + i * k, out.d + i * nb, out.s + i * nb, out.sum + i * nb);
    }
  }
}

}  // namespace pagoda::kernels::cpu::avx512
