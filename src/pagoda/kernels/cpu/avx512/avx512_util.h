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

#include <cstdint>
#include <cstring>

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

// Mask of the first n (0..16) lanes.
inline __mmask16 FirstLanes(int64_t n) {
  return static_cast<__mmask16>(n >= 16 ? 0xffff : (1u << n) - 1);
}

}  // namespace
}  // namespace pagoda::kernels::cpu::avx512
