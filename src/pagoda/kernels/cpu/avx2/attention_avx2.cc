// One (query row, head) of PagedAttention with AVX2, in the arithmetic order
// fixed by attention_plan.h: scores are LaneDot products and the softmax
// denominator a LaneSum (16 lanes held as two ymm registers), and the V sum
// runs position by position with each output dimension in its own lane.
#include <immintrin.h>
#include <math.h>

#include "pagoda/kernels/cpu/avx2/avx2_kernels.h"
#include "pagoda/kernels/cpu/avx2/avx2_util.h"

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

// out[d0, d0 + width) = inv * sum over positions of e_p * V_p, V registers of 8 dimensions.
template <bool kF16, int V>
void WeightedValues(const AttendRowArgs& a, int64_t d0, int64_t width, __m256 inv) {
  int lanes[V];
  __m256 acc[V];
  for (int v = 0; v < V; ++v) {
    lanes[v] = Lanes(width - 8 * v);
    acc[v] = _mm256_setzero_ps();
  }
  PositionRows rows(a);
  for (int64_t p = 0; p < a.n_ctx; ++p) {
    const int64_t row = rows.Next() + d0;
    const __m256 e = _mm256_set1_ps(a.scores[p]);
    for (int v = 0; v < V; ++v) acc[v] = _mm256_fmadd_ps(e, LoadKv<kF16>(a.v, row + 8 * v, lanes[v]), acc[v]);
  }
  for (int v = 0; v < V; ++v) {
    const __m256 o = _mm256_mul_ps(acc[v], inv);
    if (lanes[v] == 8) {
      _mm256_storeu_ps(a.out + d0 + 8 * v, o);
    } else {
      _mm256_maskstore_ps(a.out + d0 + 8 * v, FirstLanes(lanes[v]), o);
    }
  }
}

template <bool kF16>
void Attend(const AttendRowArgs& a) {
  const int64_t dim = a.head_dim;
  const int64_t n = a.n_ctx;
  PositionRows rows(a);
  float mx = -INFINITY;
  for (int64_t p = 0; p < n; ++p) {
    const int64_t row = rows.Next();
    __m256 lo = _mm256_setzero_ps();
    __m256 hi = _mm256_setzero_ps();
    // Lanes 0-7 and 8-15 of each 16-element group; a missing upper half
    // still adds fma(0, 0, acc), as LaneDot's zero padding does.
    for (int64_t d = 0; d < dim; d += 16) {
      const int n0 = Lanes(dim - d);
      const int n1 = dim - d > 8 ? Lanes(dim - d - 8) : 0;
      lo = _mm256_fmadd_ps(LoadF32(a.q + d, n0), LoadKv<kF16>(a.k, row + d, n0), lo);
      hi = _mm256_fmadd_ps(LoadF32(a.q + d + 8, n1), LoadKv<kF16>(a.k, row + d + 8, n1), hi);
    }
    a.scores[p] = Fold16(lo, hi) * a.scale;
    mx = a.scores[p] > mx ? a.scores[p] : mx;
  }

  for (int64_t p = 0; p < n; ++p) a.scores[p] = expf(a.scores[p] - mx);
  __m256 lo = _mm256_setzero_ps();
  __m256 hi = _mm256_setzero_ps();
  for (int64_t p = 0; p < n; p += 16) {
    lo = _mm256_add_ps(lo, LoadF32(a.scores + p, Lanes(n - p)));
    hi = _mm256_add_ps(hi, LoadF32(a.scores + p + 8, n - p > 8 ? Lanes(n - p - 8) : 0));
  }
  const __m256 inv = _mm256_set1_ps(1.0f / Fold16(lo, hi));

  // Up to 64 output dimensions (8 registers) per pass over the positions.
  for (int64_t d0 = 0; d0 < dim; d0 += 64) {
    const int64_t width = dim - d0 < 64 ? dim - d0 : 64;
    switch ((width + 7) / 8) {
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

}  // namespace pagoda::kernels::cpu::avx2
