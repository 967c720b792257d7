// One (query row, head) of PagedAttention with AVX-512, in the arithmetic
// order fixed by attention_plan.h: scores are LaneDot products (one 16-lane
// accumulator per position), the softmax denominator a LaneSum, and the V sum
// runs position by position with each output dimension in its own lane.
// Masked loads zero-fill partial groups.
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
  explicit PositionRows(const AttendRowArgs& a) : a_(a) {}
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
  int64_t block_ = 0;
  int64_t offset_ = 0;
};

// Folds 16 accumulators at once: lane p of the result is Fold16(acc[p]). Each
// level adds exactly the pairs Fold16 adds (l with l+8, l+4, l+2, l+1); the
// shuffles only move lanes so that one vector add serves several positions.
inline __m512 Fold16x16(const __m512 acc[16]) {
  __m512 z[8];  // lane 8h + i: position 2j + h, s[i] = a[i] + a[i+8]
  for (int j = 0; j < 8; ++j) {
    const __m512 x = acc[2 * j];
    const __m512 y = acc[2 * j + 1];
    z[j] = _mm512_add_ps(_mm512_shuffle_f32x4(x, y, _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm512_shuffle_f32x4(x, y, _MM_SHUFFLE(3, 2, 3, 2)));
  }
  __m512 w[4];  // 128-bit lane q: position 4k + q, t[i] = s[i] + s[i+4]
  for (int k = 0; k < 4; ++k) {
    w[k] = _mm512_add_ps(_mm512_shuffle_f32x4(z[2 * k], z[2 * k + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(z[2 * k], z[2 * k + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  }
  __m512 v[2];  // lane q holds u[0], u[1] of positions 8c + q and 8c + 4 + q; u[i] = t[i] + t[i+2]
  for (int c = 0; c < 2; ++c) {
    v[c] = _mm512_add_ps(_mm512_shuffle_ps(w[2 * c], w[2 * c + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm512_shuffle_ps(w[2 * c], w[2 * c + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  }
  // Element 4q + k: position q + 4k, r = u[0] + u[1]; then put positions in order.
  const __m512 r = _mm512_add_ps(_mm512_shuffle_ps(v[0], v[1], _MM_SHUFFLE(2, 0, 2, 0)),
                                 _mm512_shuffle_ps(v[0], v[1], _MM_SHUFFLE(3, 1, 3, 1)));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_ps(order, r);
}

// out[d0, d0 + width) = inv * sum over positions of e_p * V_p, with V vectors
// of 16 dimensions each in registers for the whole pass.
template <bool kF16, int V>
void WeightedValues(const AttendRowArgs& a, int64_t d0, int64_t width, __m512 inv) {
  __mmask16 mask[V];
  __m512 acc[V];
  for (int v = 0; v < V; ++v) {
    mask[v] = FirstLanes(width - 16 * v);
    acc[v] = _mm512_setzero_ps();
  }
  PositionRows rows(a);
  for (int64_t p = 0; p < a.n_ctx; ++p) {
    const int64_t row = rows.Next() + d0;
    const __m512 e = _mm512_set1_ps(a.scores[p]);
    for (int v = 0; v < V; ++v) acc[v] = _mm512_fmadd_ps(e, LoadKv<kF16>(a.v, row + 16 * v, mask[v]), acc[v]);
  }
  for (int v = 0; v < V; ++v) _mm512_mask_storeu_ps(a.out + d0 + 16 * v, mask[v], _mm512_mul_ps(acc[v], inv));
}

template <bool kF16>
void Attend(const AttendRowArgs& a) {
  const int64_t dim = a.head_dim;
  const int64_t n = a.n_ctx;
  const __m512 scale = _mm512_set1_ps(a.scale);

  // Scores, 16 positions at a time, then one at a time.
  PositionRows rows(a);
  __m512 vmax = _mm512_set1_ps(-INFINITY);
  int64_t p = 0;
  for (; p + 16 <= n; p += 16) {
    int64_t row[16];
    for (int l = 0; l < 16; ++l) row[l] = rows.Next();
    __m512 acc[16];
    for (auto& v : acc) v = _mm512_setzero_ps();
    for (int64_t d = 0; d < dim; d += 16) {
      const __mmask16 mask = FirstLanes(dim - d);
      const __m512 q = _mm512_maskz_loadu_ps(mask, a.q + d);
      for (int l = 0; l < 16; ++l) acc[l] = _mm512_fmadd_ps(q, LoadKv<kF16>(a.k, row[l] + d, mask), acc[l]);
    }
    const __m512 s = _mm512_mul_ps(Fold16x16(acc), scale);
    _mm512_storeu_ps(a.scores + p, s);
    vmax = _mm512_max_ps(vmax, s);
  }
  float mx = _mm512_reduce_max_ps(vmax);
  for (; p < n; ++p) {
    const int64_t row = rows.Next();
    __m512 acc = _mm512_setzero_ps();
    for (int64_t d = 0; d < dim; d += 16) {
      const __mmask16 mask = FirstLanes(dim - d);
      acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, a.q + d), LoadKv<kF16>(a.k, row + d, mask), acc);
    }
    a.scores[p] = Fold16(acc) * a.scale;
    mx = a.scores[p] > mx ? a.scores[p] : mx;
  }

  for (int64_t i = 0; i < n; ++i) a.scores[i] = expf(a.scores[i] - mx);
  __m512 lanes = _mm512_setzero_ps();
  for (int64_t i = 0; i < n; i += 16) lanes = _mm512_add_ps(lanes, _mm512_maskz_loadu_ps(FirstLanes(n - i), a.scores + i));
  const __m512 inv = _mm512_set1_ps(1.0f / Fold16(lanes));

  // Up to 128 output dimensions (8 registers) per pass over the positions.
  for (int64_t d0 = 0; d0 < dim; d0 += 128) {
    const int64_t width = dim - d0 < 128 ? dim - d0 : 128;
    switch ((width + 15) / 16) {
      case 1: WeightedValues<kF16, 1>(a, d0, width, inv); break;
      case 2: WeightedValues<kF16, 2>(a, d0, width, inv); break;
      case 3: WeightedValues<kF16, 3>(a, d0, width, inv); break;
      case 4: WeightedValues<kF16, 4>(a, d0, width, inv); break;
      case 5: WeightedValues<kF16, 5>(a, d0, width, inv); break;
      case 6: WeightedValues<kF16, 6>(a, d0, width, inv); break;
      case 7: WeightedValues<kF16, 7>(a, d0, width, inv); break;
      default: WeightedValues<kF16, 8>(a, d0, width, inv); break;
    }
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
