// Small AVX-512 helpers for the AVX-512 translation units only. Everything
// here has internal linkage so no copy built with these flags can leak into
// portable code; for the same reason these units avoid std:: templates.
#pragma once

// GCC 12 flags the deliberately undefined placeholders inside its own AVX-512
// intrinsics as (maybe-)uninitialized (GCC PR 105593); the pragma covers only
// the intrinsic headers. Include this header before anything that includes them.
// Clang has no -Wmaybe-uninitialized and would flag the unknown option.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <math.h>

#include <cstdint>
#include <cstring>

#include "pagoda/kernels/cpu/panel_prefetch.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

inline int32_t Load32(const void* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// Folds a 16-lane accumulator in the order of reference::LaneDot:
// l += l+8, l += l+4, l += l+2, l += l+1.
inline float Fold16(__m512 v) {
  const __m256 hi8 = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
  const __m256 s8 = _mm256_add_ps(_mm512_castps512_ps256(v), hi8);
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

// 16 bytes at `offset` of every row, arranged so that 128-bit lane L of v[a]
// holds row a + 4L.
inline void LoadRows(const uint8_t* const row[16], int64_t offset, __m512i v[4]) {
  for (int a = 0; a < 4; ++a) {
    __m512i z = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row[a] + offset)));
    z = _mm512_inserti32x4(z, _mm_loadu_si128(reinterpret_cast<const __m128i*>(row[a + 4] + offset)), 1);
    z = _mm512_inserti32x4(z, _mm_loadu_si128(reinterpret_cast<const __m128i*>(row[a + 8] + offset)), 2);
    z = _mm512_inserti32x4(z, _mm_loadu_si128(reinterpret_cast<const __m128i*>(row[a + 12] + offset)), 3);
    v[a] = z;
  }
}

// Dword t of the 16 bytes at `offset` of every row, into lane r of out[t]: a
// 4x4 dword transpose within 128-bit lanes leaves row 4L + a at dword 4L + a.
inline void GatherDwords(const uint8_t* const row[16], int64_t offset, __m512i out[4]) {
  __m512i v[4];
  LoadRows(row, offset, v);
  const __m512i t0 = _mm512_unpacklo_epi32(v[0], v[1]);
  const __m512i t1 = _mm512_unpackhi_epi32(v[0], v[1]);
  const __m512i t2 = _mm512_unpacklo_epi32(v[2], v[3]);
  const __m512i t3 = _mm512_unpackhi_epi32(v[2], v[3]);
  out[0] = _mm512_unpacklo_epi64(t0, t2);
  out[1] = _mm512_unpackhi_epi64(t0, t2);
  out[2] = _mm512_unpacklo_epi64(t1, t3);
  out[3] = _mm512_unpackhi_epi64(t1, t3);
}

// Only out[3] of GatherDwords: the dword at offset + 12 of every row.
inline __m512i GatherLastDword(const uint8_t* const row[16], int64_t offset) {
  __m512i v[4];
  LoadRows(row, offset, v);
  return _mm512_unpackhi_epi64(_mm512_unpackhi_epi32(v[0], v[1]), _mm512_unpackhi_epi32(v[2], v[3]));
}

// Mask of the first n (0..16) lanes.
// The algorithm of GGML's AVX-512 ggml_v_expf, lane for lane equal to
// reference::GgmlExpf (the same fused steps; VSCALEFPS rounds j * 2^n once):
// e^x for 16 lanes, 0 for -inf and large negative x.
inline __m512 GgmlExp16(__m512 x) {
  const __m512 r = _mm512_set1_ps(0x1.8p23f);
  const __m512 z = _mm512_fmadd_ps(x, _mm512_set1_ps(0x1.715476p+0f), r);
  const __m512 n = _mm512_sub_ps(z, r);
  const __m512 b = _mm512_fnmadd_ps(n, _mm512_set1_ps(0x1.7f7d1cp-20f),
                                    _mm512_fnmadd_ps(n, _mm512_set1_ps(0x1.62e4p-1f), x));
  const __m512 u = _mm512_mul_ps(b, b);
  const __m512 j = _mm512_fmadd_ps(
      _mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_set1_ps(0x1.0e4020p-7f), b, _mm512_set1_ps(0x1.573e2ep-5f)), u,
                      _mm512_fmadd_ps(_mm512_set1_ps(0x1.555e66p-3f), b, _mm512_set1_ps(0x1.fffdb6p-2f))),
      u, _mm512_fmadd_ps(_mm512_set1_ps(0x1.ffffecp-1f), b, _mm512_set1_ps(1.0f)));
  const __m512 res = _mm512_scalef_ps(j, n);
  const __mmask16 big = _mm512_cmp_ps_mask(_mm512_abs_ps(n), _mm512_set1_ps(192.0f), _CMP_GT_OQ);
  if (big == 0) return res;
  const __mmask16 neg = _mm512_cmp_ps_mask(n, _mm512_setzero_ps(), _CMP_LE_OQ);
  const __m512 sat = _mm512_mask_blend_ps(neg, _mm512_set1_ps(INFINITY), _mm512_setzero_ps());
  return _mm512_mask_blend_ps(big, res, sat);
}

// The transpose-and-reduce of 16 lane vectors v[0..15] into one vector
// whose lane p is op over the 16 lanes of v[p] (op: an addition or a
// maximum), in two halves. HalfLaneTotals8 reduces v[0..7] (or v[8..15])
// to one vector whose 128-bit blocks hold partial results;
// FinishLaneTotals16 combines the two halves. The tree is fixed: lanes
// (l, l + 2) in each 4-lane block, then the two pairs of the block, then
// blocks 0 + 1 and 2 + 3, then those two.
template <typename Op>
inline __m512 HalfLaneTotals8(const __m512 v[8], Op op) {
  __m512 pairs[4];
  for (int i = 0; i < 4; ++i) {
    // 128-bit block k: a[4k] op a[4k+2], b[4k] op b[4k+2], a[4k+1] op a[4k+3], b[4k+1] op b[4k+3].
    pairs[i] = op(_mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]), _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]));
  }
  __m512 quads[2];
  for (int i = 0; i < 2; ++i) {
    // Block k: the block-k results of v[4i], v[4i+1], v[4i+2], v[4i+3].
    const __m512d x = _mm512_castps_pd(pairs[2 * i]);
    const __m512d y = _mm512_castps_pd(pairs[2 * i + 1]);
    quads[i] = op(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)), _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
  }
  // Blocks 0 op 1 and 2 op 3 of quads[0], then of quads[1].
  return op(_mm512_shuffle_f32x4(quads[0], quads[1], 0x88), _mm512_shuffle_f32x4(quads[0], quads[1], 0xDD));
}

template <typename Op>
inline __m512 FinishLaneTotals16(__m512 low, __m512 high, Op op) {
  return op(_mm512_shuffle_f32x4(low, high, 0x88), _mm512_shuffle_f32x4(low, high, 0xDD));
}

inline __mmask16 FirstLanes(int64_t n) {
  return static_cast<__mmask16>(n >= 16 ? 0xffff : (1u << n) - 1);
}

}  // namespace
}  // namespace pagoda::kernels::cpu::avx512
