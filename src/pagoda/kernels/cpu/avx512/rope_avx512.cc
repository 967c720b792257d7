// RoPE's rotation (reference::RotatePairs) 16 pairs at a time, bit for bit
// the same: per pair x0' = fma(x0, c, -(x1 s)) and x1' = fma(x0, s, x1 c),
// the products rounded first as in the reference. The scalar loop ran
// head by head at a stride and was 3% of a prompt's time. NeoX pairs are
// half a head apart, so plain loads; normal pairs are adjacent, so each 32
// floats are split into their even and odd lanes and merged back.
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

struct Rotated {
  __m512 x0, x1;
};

inline Rotated Rotate(__m512 x0, __m512 x1, __m512 c, __m512 s) {
  return {_mm512_fmsub_ps(x0, c, _mm512_mul_ps(x1, s)), _mm512_fmadd_ps(x0, s, _mm512_mul_ps(x1, c))};
}

// Lanes 0, 2, .., 30 (even) and 1, 3, .., 31 (odd) of the 32 floats at p,
// and the inverse. (The index vectors are locals: a namespace-scope vector
// would be built by a static initializer, with AVX-512, on every CPU.)
inline void Split(const float* p, __m512* even, __m512* odd) {
  const __m512i even_lanes = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i odd_lanes = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
  const __m512 a = _mm512_loadu_ps(p), b = _mm512_loadu_ps(p + 16);
  *even = _mm512_permutex2var_ps(a, even_lanes, b);
  *odd = _mm512_permutex2var_ps(a, odd_lanes, b);
}

inline void Merge(__m512 even, __m512 odd, float* p) {
  const __m512i low = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i high = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  _mm512_storeu_ps(p, _mm512_permutex2var_ps(even, low, odd));
  _mm512_storeu_ps(p + 16, _mm512_permutex2var_ps(even, high, odd));
}

// The scalar rotation of pair i, as the reference.
inline void RotateOne(float* x0, float* x1, float c, float s) {
  const float a = *x0, b = *x1;
  *x0 = fmaf(a, c, -(b * s));
  *x1 = fmaf(a, s, b * c);
}

}  // namespace

void RotatePairs(float* x, const float* cos_sin, int64_t tokens, int64_t heads, int64_t head_dim, RopeStyle style) {
  const int64_t pairs = head_dim / 2;
  const int64_t whole = pairs / 16 * 16;  // pairs in whole vectors; the rest run one by one
  const bool neox = style == RopeStyle::kNeox;
  for (int64_t t = 0; t < tokens; ++t, cos_sin += head_dim) {
    float* token = x + t * heads * head_dim;
    for (int64_t i = 0; i < whole; i += 16) {
      __m512 c, s;
      Split(cos_sin + 2 * i, &c, &s);
      for (int64_t h = 0; h < heads; ++h) {
        float* head = token + h * head_dim;
        if (neox) {
          const Rotated r = Rotate(_mm512_loadu_ps(head + i), _mm512_loadu_ps(head + pairs + i), c, s);
          _mm512_storeu_ps(head + i, r.x0);
          _mm512_storeu_ps(head + pairs + i, r.x1);
        } else {
          __m512 x0, x1;
          Split(head + 2 * i, &x0, &x1);
          const Rotated r = Rotate(x0, x1, c, s);
          Merge(r.x0, r.x1, head + 2 * i);
        }
      }
    }
    for (int64_t i = whole; i < pairs; ++i) {
      for (int64_t h = 0; h < heads; ++h) {
        float* head = token + h * head_dim;
        const int64_t first = neox ? i : 2 * i;
        RotateOne(head + first, head + first + (neox ? pairs : 1), cos_sin[2 * i], cos_sin[2 * i + 1]);
      }
    }
  }
}

}  // namespace pagoda::kernels::cpu::avx512
