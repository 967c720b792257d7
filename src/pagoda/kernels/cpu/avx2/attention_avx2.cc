// One (query row, head) of PagedAttention with AVX2, in the arithmetic order
// of reference::AttendRow (GGML's non-flash attention on AVX-512): scores by
// GgmlDotF32 (64 lanes as eight registers), softmax by reference::GgmlExpf
// with a double sum of 16-lane folds, and the V sum with position p in lane
// p % 64 (a 64 x 64 float tile in L1), folded at the end.
#include <immintrin.h>
#include <math.h>

#include "pagoda/kernels/cpu/avx2/avx2_kernels.h"
#include "pagoda/kernels/cpu/avx2/avx2_util.h"

namespace pagoda::kernels::reference {
float GgmlExpf(float x);  // reference.h; declared here to keep this unit free of shared headers
}  // namespace pagoda::kernels::reference

namespace pagoda::kernels::cpu::avx2 {
namespace {

inline int Lanes(int64_t remaining) { return remaining < 8 ? static_cast<int>(remaining) : 8; }

// 8 floats from p; `lanes` < 8 reads only that many and zero-fills.
inline __m256 LoadF32(const float* p, int lanes) {
  if (lanes == 8) return _mm256_loadu_ps(p);
  return _mm256_maskload_ps(p, FirstLanes(lanes));
}

// 8 cache elements from e, widened; `lanes` < 8 reads only that many and zero-fills.
template <bool kF16>
inline __m256 LoadKv(const void* base, int64_t e, int lanes) {
  if constexpr (kF16) {
    const uint16_t* h = static_cast<const uint16_t*>(base) + e;
    if (lanes == 8) return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h)));
    alignas(32) float t[8] = {};
    for (int l = 0; l < lanes; ++l) t[l] = HalfToFloat(h[l]);
    return _mm256_load_ps(t);
  } else {
    return LoadF32(static_cast<const float*>(base) + e, lanes);
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
    return HalfToFloat(static_cast<const uint16_t*>(base)[e]);
  } else {
    return static_cast<const float*>(base)[e];
  }
}

// GGML's ggml_vec_dot_f32 order on AVX-512 (reference::GgmlDotF32): register j
// holds lanes 8j..8j+7 of the 64; the fold l += l+32, l+16, l+8 pairs
// registers, then the 8 lanes fold as the upper levels of Fold16.
template <bool kF16>
inline float Dot(const float* q, const void* k, int64_t row, int64_t dim) {
  const int64_t np = dim / 64 * 64;
  __m256 s[8];
  for (auto& v : s) v = _mm256_setzero_ps();
  for (int64_t d = 0; d < np; d += 64) {
    for (int j = 0; j < 8; ++j) {
      s[j] = _mm256_fmadd_ps(_mm256_loadu_ps(q + d + 8 * j), LoadKv<kF16>(k, row + d + 8 * j, 8), s[j]);
    }
  }
  for (int j = 0; j < 4; ++j) s[j] = _mm256_add_ps(s[j], s[j + 4]);
  for (int j = 0; j < 2; ++j) s[j] = _mm256_add_ps(s[j], s[j + 2]);
  float sum = Fold16(s[0], s[1]);
  for (int64_t d = np; d < dim; ++d) sum = fmaf(q[d], LoadOne<kF16>(k, row + d), sum);
  return sum;
}

// out[d0, d0 + width) for width <= 64: lane (p - first_pos) % 64 of each dimension
// accumulates prob_p * v_p[d] in position order, then the 64 lanes fold
// (l += l+32, l+16, l+8, l+4, l+2, l+1), 8 dimensions per vector.
template <bool kF16>
void WeightedValues(const AttendRowArgs& a, int64_t d0, int64_t width) {
  const int nv = static_cast<int>((width + 7) / 8);
  int lanes_of[8];
  for (int v = 0; v < 8; ++v) lanes_of[v] = width - 8 * v <= 0 ? 0 : Lanes(width - 8 * v);
  alignas(32) float lanes[64][64];
  // Only the first min(n, 64) lanes (n visible positions) are ever nonzero; the others, +0,
  // would leave every sum they join unchanged (no lane can hold -0), so they
  // are neither cleared nor folded.
  const int64_t n = a.n_ctx - a.first_pos;
  const int used = n < 64 ? static_cast<int>(n) : 64;
  for (int r = 0; r < used; ++r) {
    for (int v = 0; v < 8; ++v) _mm256_store_ps(lanes[r] + 8 * v, _mm256_setzero_ps());
  }
  PositionRows rows(a);
  for (int64_t p = 0; p < n; ++p) {
    const int64_t row = rows.Next() + d0;
    const __m256 e = _mm256_set1_ps(a.scores[p]);
    float* l = lanes[p % 64];
    for (int v = 0; v < nv; ++v) {
      _mm256_store_ps(l + 8 * v, _mm256_fmadd_ps(e, LoadKv<kF16>(a.v, row + 8 * v, lanes_of[v]), _mm256_load_ps(l + 8 * v)));
    }
  }
  for (int v = 0; v < nv; ++v) {
    for (int w = 32; w >= 1; w /= 2) {
      for (int r = 0; r < w && r + w < used; ++r) {
        _mm256_store_ps(lanes[r] + 8 * v, _mm256_add_ps(_mm256_load_ps(lanes[r] + 8 * v), _mm256_load_ps(lanes[r + w] + 8 * v)));
      }
    }
    const __m256 t0 = _mm256_load_ps(lanes[0] + 8 * v);
    if (lanes_of[v] == 8) {
      _mm256_storeu_ps(a.out + d0 + 8 * v, t0);
    } else {
      _mm256_maskstore_ps(a.out + d0 + 8 * v, FirstLanes(lanes_of[v]), t0);
    }
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
  // ggml_vec_soft_max_f32: each group of 16 exponentials folded, added to a
  // double; then one multiply by (float)(1 / sum).
  double sum = 0.0;
  for (int64_t p = 0; p < n; p += 16) {
    alignas(32) float g[16] = {};
    for (int l = 0; l < 16 && p + l < n; ++l) g[l] = a.scores[p + l] = reference::GgmlExpf(a.scores[p + l] - mx);
    sum += static_cast<double>(Fold16(_mm256_load_ps(g), _mm256_load_ps(g + 8)));
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t p = 0; p < n; ++p) a.scores[p] *= inv;
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

}  // namespace pagoda::kernels::cpu::avx2
