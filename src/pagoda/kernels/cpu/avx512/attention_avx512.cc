// One (query row, head) of PagedAttention with AVX-512, in the arithmetic
// order of reference::AttendRow (GGML's non-flash attention on AVX-512):
// scores by GgmlDotF32 (64 lanes as four registers), softmax by GgmlExpf 16
// positions at a time with a double sum of 16-lane folds, and the V sum with
// position p in lane (p - first_pos) % 64 (a 64 x 64 float tile in L1), folded at the end.
#include <math.h>

#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {
// 16 cache elements from e (masked lanes read as zero), widened to f32.
template <bool kF16>
inline __m512 LoadKv(const void* base, int64_t e, __mmask16 mask) {
  if constexpr (kF16) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, static_cast<const uint16_t*>(base) + e));
  } else {
    return _mm512_maskz_loadu_ps(mask, static_cast<const float*>(base) + e);
  }
}

// Walks the positions of the sequence in order, yielding each one's element
// offset in the arena without a division per position.
class PositionRows {
 public:
  explicit PositionRows(const AttendRowArgs& a)
      : a_(a), block_(a.first_pos / a.block_size), offset_(a.first_pos % a.block_size) {}
  int64_t Next() {
    const int64_t row = (int64_t{a_.block_table[block_]} * a_.block_size + offset_) * a_.slot_stride + a_.head_offset;
    if (++offset_ == a_.block_size) {
      offset_ = 0;
      ++block_;
    }
    return row;
  }

 private:
  const AttendRowArgs& a_;
  int64_t block_;
  int64_t offset_;
};

template <bool kF16>
inline float LoadOne(const void* base, int64_t e) {
  if constexpr (kF16) {
    return _cvtsh_ss(static_cast<const uint16_t*>(base)[e]);
  } else {
    return static_cast<const float*>(base)[e];
  }
}

// The algorithm of GGML's AVX-512 ggml_v_expf, lane for lane equal to
// reference::GgmlExpf (Pagoda's implementation, for parity with llama.cpp).
inline __m512 GgmlExpf(__m512 x) {
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

// GGML's ggml_vec_dot_f32 order (reference::GgmlDotF32).
template <bool kF16>
inline float Dot(const float* q, const void* k, int64_t row, int64_t dim) {
  const int64_t np = dim / 64 * 64;
  __m512 s[4];
  for (auto& v : s) v = _mm512_setzero_ps();
  for (int64_t d = 0; d < np; d += 64) {
    for (int j = 0; j < 4; ++j) {
      s[j] = _mm512_fmadd_ps(_mm512_loadu_ps(q + d + 16 * j), LoadKv<kF16>(k, row + d + 16 * j, 0xffff), s[j]);
    }
  }
  float sum = Fold16(_mm512_add_ps(_mm512_add_ps(s[0], s[2]), _mm512_add_ps(s[1], s[3])));
  for (int64_t d = np; d < dim; ++d) sum = fmaf(q[d], LoadOne<kF16>(k, row + d), sum);
  return sum;
}

// out[d0, d0 + width) for width <= 64: lane (p - first_pos) % 64 of each dimension
// accumulates prob_p * v_p[d] in position order, then the 64 lanes fold
// (l += l+32, l+16, l+8, l+4, l+2, l+1), 16 dimensions per vector.
template <bool kF16>
void WeightedValues(const AttendRowArgs& a, int64_t d0, int64_t width) {
  const int nv = static_cast<int>((width + 15) / 16);
  __mmask16 mask[4];
  for (int v = 0; v < 4; ++v) mask[v] = v < nv ? FirstLanes(width - 16 * v) : 0;
  alignas(64) float lanes[64][64];
  // Only the first min(n, 64) lanes (n visible positions) are ever nonzero; the others, +0,
  // would leave every sum they join unchanged (no lane can hold -0), so they
  // are neither cleared nor folded.
  const int64_t n = a.n_ctx - a.first_pos;
  const int used = n < 64 ? static_cast<int>(n) : 64;
  for (int r = 0; r < used; ++r) {
    for (int v = 0; v < 4; ++v) _mm512_store_ps(lanes[r] + 16 * v, _mm512_setzero_ps());
  }
  PositionRows rows(a);
  for (int64_t p = 0; p < n; ++p) {
    const int64_t row = rows.Next() + d0;
    const __m512 e = _mm512_set1_ps(a.scores[p]);
    float* l = lanes[p % 64];
    for (int v = 0; v < nv; ++v) {
      _mm512_store_ps(l + 16 * v, _mm512_fmadd_ps(e, LoadKv<kF16>(a.v, row + 16 * v, mask[v]), _mm512_load_ps(l + 16 * v)));
    }
  }
  for (int v = 0; v < nv; ++v) {
    for (int w = 32; w >= 1; w /= 2) {
      for (int r = 0; r < w && r + w < used; ++r) {
        _mm512_store_ps(lanes[r] + 16 * v, _mm512_add_ps(_mm512_load_ps(lanes[r] + 16 * v), _mm512_load_ps(lanes[r + w] + 16 * v)));
      }
    }
    _mm512_mask_storeu_ps(a.out + d0 + 16 * v, mask[v], _mm512_load_ps(lanes[0] + 16 * v));
  }
}

template <bool kF16>
void Attend(const AttendRowArgs& a) {
  const int64_t n = a.n_ctx - a.first_pos;
  PositionRows rows(a);
  float mx = -INFINITY;
  for (int64_t p = 0; p < n; ++p) {
    a.scores[p] = Dot<kF16>(a.q, a.k, rows.Next(), a.head_dim) * a.scale;
    if (a.softcap > 0.0f) a.scores[p] = tanhf(a.scores[p] * (1.0f / a.softcap)) * a.softcap;
    mx = a.scores[p] > mx ? a.scores[p] : mx;
  }
  // ggml_vec_soft_max_f32: 16 exponentials at a time, each group's fold
  // added to a double; then one multiply by (float)(1 / sum).
  const __m512 vmx = _mm512_set1_ps(mx);
  double sum = 0.0;
  for (int64_t p = 0; p < n; p += 16) {
    const __mmask16 mask = FirstLanes(n - p);
    const __m512 e = _mm512_maskz_mov_ps(mask, GgmlExpf(_mm512_sub_ps(_mm512_maskz_loadu_ps(mask, a.scores + p), vmx)));
    _mm512_mask_storeu_ps(a.scores + p, mask, e);
    sum += static_cast<double>(Fold16(e));
  }
  const __m512 inv = _mm512_set1_ps(static_cast<float>(1.0 / sum));
  for (int64_t p = 0; p < n; p += 16) {
    const __mmask16 mask = FirstLanes(n - p);
    _mm512_mask_storeu_ps(a.scores + p, mask, _mm512_mul_ps(_mm512_maskz_loadu_ps(mask, a.scores + p), inv));
  }
  for (int64_t d0 = 0; d0 < a.head_dim; d0 += 64) {
    WeightedValues<kF16>(a, d0, a.head_dim - d0 < 64 ? a.head_dim - d0 : 64);
  }
}

}  // namespace

void AttendRow(const AttendRowArgs& args) {
  if (args.f16) {
    Attend<true>(args);
  } else {
    Attend<false>(args);
  }
}

}  // namespace pagoda::kernels::cpu::avx512
