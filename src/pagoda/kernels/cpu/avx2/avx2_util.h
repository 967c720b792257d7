// Small AVX2 helpers for the AVX2 translation units only. Everything here has
// internal linkage so no copy built with these flags can leak into portable
// code; for the same reason these units avoid std:: templates such as std::min.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "pagoda/kernels/cpu/panel_prefetch.h"

namespace pagoda::kernels::cpu::avx2 {
namespace {

inline int32_t Load32(const void* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

inline __m256i Broadcast32(const void* p) { return _mm256_set1_epi32(Load32(p)); }

inline float HalfToFloat(uint16_t h) { return _cvtsh_ss(h); }
inline float BFloatToFloat(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// Folds a 16-lane accumulator held as lanes 0-7 and 8-15 in the order of
// reference::LaneDot: l += l+8, l += l+4, l += l+2, l += l+1.
inline float Fold16(__m256 lo, __m256 hi) {
  const __m256 s8 = _mm256_add_ps(lo, hi);
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

// Lane r of the result is the sum of the 8 lanes of v[r]. Integer sums are
// exact in any order.
inline __m256i SumEach(const __m256i v[8]) {
  const __m256i a = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
  const __m256i b = _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
  // a holds rows 0-3 of the low halves, then rows 0-3 of the high halves; b rows 4-7.
  return _mm256_add_epi32(_mm256_permute2x128_si256(a, b, 0x20), _mm256_permute2x128_si256(a, b, 0x31));
}

// Mask selecting the first n (0..8) lanes, for maskload / maskstore.
inline __m256i FirstLanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

}  // namespace
}  // namespace pagoda::kernels::cpu::avx2
