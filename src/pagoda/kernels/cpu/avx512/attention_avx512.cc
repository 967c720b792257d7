// The AVX-512 grouped attention kernel (grouped_attention.h). A segment runs
// in tiles of 16 positions aligned to absolute multiples of 16:
//  - a single row reads the tile's K and V rows straight from the cache; a
//    block of rows first widens the tile to f32 once, and every row of the
//    block then reads it from L1;
//  - a row's query vectors (its heads of the KV head) take each K row in one
//    load for all of them; each vector's 16 scores come from 16
//    per-position lane products folded by a 16 x 16 transpose-and-add (no
//    horizontal sum per position);
//  - the online softmax rescales each vector's running sum and weighted V by
//    exp(old maximum - new maximum) once per tile; exponentials run 16 lanes
//    at a time (GGML's expf polynomial);
//  - the weighted V sums of all the row's vectors advance together, one V
//    load per position and dimension block for all of them.
#include <math.h>

#include <type_traits>

#include "pagoda/kernels/cpu/avx512/attention_tiles_avx512.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

// The K or V rows of a tile as the cache holds them: one pointer per
// position (f16 or f32 elements).
template <bool kF16>
struct CacheRows {
  const void* const* rows;
  __m512 Load(int p, int64_t d, __mmask16 mask) const { return LoadWide<kF16>(rows[p], d, mask); }
};

// A tile widened to f32, row p at base + p * stride.
template <int64_t kStride>
struct WideRows {
  const float* base;
  int64_t stride;
  __m512 Load(int p, int64_t d, __mmask16 mask) const {
    return _mm512_maskz_loadu_ps(mask, base + p * (kStride > 0 ? kStride : stride) + d);
  }
};

// The two HalfSum8 halves of kN query vectors' scores against a tile (vector
// i at q + i * hd): each K row is loaded (and widened) once for all kN
// vectors, whose 8 x kN lane sums per half stay in registers.
template <int64_t kHeadDim, int kN, typename Rows>
inline void HalfScores(const float* q, const Rows& k, int64_t hd_arg, __m512 (*halves)[2]) {
  const int64_t hd = kHeadDim > 0 ? kHeadDim : hd_arg;
  const int64_t padded = (hd + 15) / 16 * 16;
#pragma GCC unroll 2
  for (int half = 0; half < 2; ++half) {
    __m512 lanes[kN][8];
#pragma GCC unroll 3
    for (int i = 0; i < kN; ++i) {
#pragma GCC unroll 8
      for (int p = 0; p < 8; ++p) lanes[i][p] = _mm512_setzero_ps();
    }
#pragma GCC unroll 8
    for (int64_t d = 0; d < padded; d += 16) {
      const __mmask16 mask = FirstLanes(hd - d);
      __m512 qd[kN];
#pragma GCC unroll 3
      for (int i = 0; i < kN; ++i) qd[i] = _mm512_maskz_loadu_ps(mask, q + i * hd + d);
#pragma GCC unroll 8
      for (int p = 0; p < 8; ++p) {
        const __m512 row = k.Load(8 * half + p, d, mask);
#pragma GCC unroll 3
        for (int i = 0; i < kN; ++i) lanes[i][p] = _mm512_fmadd_ps(qd[i], row, lanes[i][p]);
      }
    }
#pragma GCC unroll 3
    for (int i = 0; i < kN; ++i) halves[i][half] = HalfSum8(lanes[i]);
  }
}

// One row's scores over one tile for its kG query vectors (vector i at q +
// i * hd) and the online softmax update of each vector's (maximum, sum):
// the vectors' probabilities into probs[i] and the factors their weighted V
// sums are to be rescaled by into rescale[i].
template <int64_t kHeadDim, int kG, typename Rows>
inline void ScoresAndSoftmax(const float* q, const Rows& k, int lo, int hi, int64_t hd, float scale, float softcap,
                             float* maximum, float* sum, float (*probs)[kTile], float* rescale) {
  __m512 halves[kG][2];
  if constexpr (kG == 4) {
    HalfScores<kHeadDim, 2>(q, k, hd, halves);
    HalfScores<kHeadDim, 2>(q + 2 * hd, k, hd, halves + 2);
  } else {
    HalfScores<kHeadDim, kG>(q, k, hd, halves);
  }
  __m512 raw[kG];
#pragma GCC unroll 4
  for (int i = 0; i < kG; ++i) raw[i] = FinishSum16(halves[i][0], halves[i][1]);
  SoftmaxTile<kG>(raw, lo, hi, scale, softcap, maximum, sum, rescale, [&](int i, __m512 e) {
    _mm512_store_ps(probs[i], e);
    return _mm512_reduce_add_ps(e);
  });
}

// The weighted V rows of positions [lo, hi) of the tile, added in position
// order to the sums of kR rows' kG vectors each (row r's vector i at acc[r]
// + i * acc_stride, first rescaled by rescale[r][i]): each V load serves
// every vector of every row, and the kR x kG x 4 independent sums keep the
// FMA pipes busy where one vector's 4 chains would wait on each other.
template <int64_t kHeadDim, int kG, int kR, typename Rows>
inline void WeightedV(const Rows& v, int lo, int hi, int64_t hd, const float (*const probs[kR])[kTile],
                      const float* const rescale[kR], float* const acc[kR], int64_t acc_stride) {
  const int64_t padded = (hd + 15) / 16 * 16;
#pragma GCC unroll 8
  for (int64_t d = 0; d < padded; d += 64) {
    // 64 dimensions at a time, kept in registers over the tile; masked
    // lanes past the head neither load nor store.
    __mmask16 mask[4];
    __m512 sums[kR][kG][4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      mask[j] = d + 16 * j < hd ? FirstLanes(hd - d - 16 * j) : 0;
#pragma GCC unroll 2
      for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
        for (int i = 0; i < kG; ++i) {
          sums[r][i][j] = _mm512_mul_ps(_mm512_maskz_loadu_ps(mask[j], acc[r] + i * acc_stride + d + 16 * j),
                                        _mm512_set1_ps(rescale[r][i]));
        }
      }
    }
    auto add_position = [&](int p) {
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const __m512 row = v.Load(p, d + 16 * j, mask[j]);
#pragma GCC unroll 2
        for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
          for (int i = 0; i < kG; ++i) {
            sums[r][i][j] = _mm512_fmadd_ps(_mm512_set1_ps(probs[r][i][p]), row, sums[r][i][j]);
          }
        }
      }
    };
    if (lo == 0 && hi == kTile) {
#pragma GCC unroll 16
      for (int p = 0; p < kTile; ++p) add_position(p);
    } else {
      for (int p = lo; p < hi; ++p) add_position(p);
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
#pragma GCC unroll 2
      for (int r = 0; r < kR; ++r) {
#pragma GCC unroll 4
        for (int i = 0; i < kG; ++i) {
          _mm512_mask_storeu_ps(acc[r] + i * acc_stride + d + 16 * j, mask[j], sums[r][i][j]);
        }
      }
    }
  }
}

// One row's step over one tile, for its kG query vectors (vector i at
// q + i * hd, its weighted V sums at acc + i * acc_stride): its scores and
// softmax, then the weighted V of the positions it sees, [lo, hi) of the
// tile. kHeadDim is the head size when known at compile time (0: hd).
// Widening is exact and every vector's arithmetic is the same whatever kG,
// row source, head-size instantiation or pairing (AttendTwoRowsTile)
// computes it, so all give the same bits.
template <int64_t kHeadDim, int kG, typename Rows>
inline void AttendRowTile(const float* q, const Rows& k, const Rows& v, int lo, int hi, int64_t hd_arg, float scale,
                          float softcap, float* maximum, float* sum, float* acc, int64_t acc_stride) {
  const int64_t hd = kHeadDim > 0 ? kHeadDim : hd_arg;
  alignas(64) float probs[kG][kTile];
  float rescale[kG];
  ScoresAndSoftmax<kHeadDim, kG>(q, k, lo, hi, hd, scale, softcap, maximum, sum, probs, rescale);
  const float(*const row_probs[1])[kTile] = {probs};
  const float* const row_rescale[1] = {rescale};
  float* const row_acc[1] = {acc};
  WeightedV<kHeadDim, kG, 1>(v, lo, hi, hd, row_probs, row_rescale, row_acc, acc_stride);
}

// Two rows that both see the whole tile: their scores and softmax one
// after the other, which gives the core two independent chains of
// reductions and exponentials to overlap, then their weighted V together,
// one V load for both. Each row's arithmetic is AttendRowTile's. Row r's
// query at q[r], running state at maximum[r], sum[r] and sums at acc[r].
template <int64_t kHeadDim, int kG, typename Rows>
inline void AttendTwoRowsTile(const float* const q[2], const Rows& k, const Rows& v, int64_t hd_arg, float scale,
                              float softcap, float* const maximum[2], float* const sum[2], float* const acc[2],
                              int64_t acc_stride) {
  const int64_t hd = kHeadDim > 0 ? kHeadDim : hd_arg;
  alignas(64) float probs[2][kG][kTile];
  float rescale[2][kG];
  for (int r = 0; r < 2; ++r) {
    ScoresAndSoftmax<kHeadDim, kG>(q[r], k, 0, kTile, hd, scale, softcap, maximum[r], sum[r], probs[r], rescale[r]);
  }
  const float(*const row_probs[2])[kTile] = {probs[0], probs[1]};
  const float* const row_rescale[2] = {rescale[0], rescale[1]};
  WeightedV<kHeadDim, kG, 2>(v, 0, kTile, hd, row_probs, row_rescale, acc, acc_stride);
}

// A block of rows shares each tile: with more than one row, the tile's K and
// V rows are widened to f32 once (the rows then reuse them from L1) instead
// of once per query vector.
constexpr int kMinRowsToWiden = 2;

template <bool kF16, int64_t kHeadDim>
void AttendSegmentT(const AttentionSegmentArgs& a) {
  const int64_t hd = kHeadDim > 0 ? kHeadDim : a.head_dim;
  const int64_t padded = (hd + 15) / 16 * 16;
  const int64_t stride = PartialStride(hd);
  const int64_t row_floats = a.num_vectors * stride;
  SegmentState state;
  state.Start(a, hd);
  if (state.begin >= state.end) return;
  TileRows<kF16> tile(a, hd, state.begin, state.end, /*widen=*/kF16 && a.num_rows >= kMinRowsToWiden);
  // One instantiation per group size keeps each row's sums in registers.
  auto attend_row = [&](const float* q, const auto& k, const auto& v, int lo, int hi, float* row_max, float* row_sum,
                        float* acc) {
    using Rows = std::decay_t<decltype(k)>;
    switch (a.num_vectors) {
      case 1:
        return AttendRowTile<kHeadDim, 1, Rows>(q, k, v, lo, hi, hd, a.scale, a.softcap, row_max, row_sum, acc, stride);
      case 2:
        return AttendRowTile<kHeadDim, 2, Rows>(q, k, v, lo, hi, hd, a.scale, a.softcap, row_max, row_sum, acc, stride);
      case 3:
        return AttendRowTile<kHeadDim, 3, Rows>(q, k, v, lo, hi, hd, a.scale, a.softcap, row_max, row_sum, acc, stride);
      default:
        return AttendRowTile<kHeadDim, 4, Rows>(q, k, v, lo, hi, hd, a.scale, a.softcap, row_max, row_sum, acc, stride);
    }
  };
  // Two widened rows that both see a whole tile go together (kG <= 3: four
  // vectors a row would need more registers than there are).
  auto attend_two_rows = [&](int32_t r0, int32_t r1) {
    using Rows = WideRows<kHeadDim>;
    const Rows k{tile.k_wide(), padded}, v{tile.v_wide(), padded};
    const float* const q[2] = {a.q + r0 * a.q_row_stride, a.q + r1 * a.q_row_stride};
    float* const row_max[2] = {state.maximum + r0 * kMaxGroupVectors, state.maximum + r1 * kMaxGroupVectors};
    float* const row_sum[2] = {state.sum + r0 * kMaxGroupVectors, state.sum + r1 * kMaxGroupVectors};
    float* const acc[2] = {a.partial + r0 * row_floats + 2, a.partial + r1 * row_floats + 2};
    switch (a.num_vectors) {
      case 1:
        return AttendTwoRowsTile<kHeadDim, 1, Rows>(q, k, v, hd, a.scale, a.softcap, row_max, row_sum, acc, stride);
      case 2:
        return AttendTwoRowsTile<kHeadDim, 2, Rows>(q, k, v, hd, a.scale, a.softcap, row_max, row_sum, acc, stride);
      default:
        return AttendTwoRowsTile<kHeadDim, 3, Rows>(q, k, v, hd, a.scale, a.softcap, row_max, row_sum, acc, stride);
    }
  };
  auto attend_one_row = [&](int32_t r, int lo, int hi) {
    const float* q = a.q + r * a.q_row_stride;
    float* acc = a.partial + r * row_floats + 2;
    float* row_max = state.maximum + r * kMaxGroupVectors;
    float* row_sum = state.sum + r * kMaxGroupVectors;
    if (tile.widened()) {
      attend_row(q, WideRows<kHeadDim>{tile.k_wide(), padded}, WideRows<kHeadDim>{tile.v_wide(), padded}, lo, hi,
                 row_max, row_sum, acc);
    } else {
      attend_row(q, CacheRows<kF16>{tile.k_rows()}, CacheRows<kF16>{tile.v_rows()}, lo, hi, row_max, row_sum, acc);
    }
  };
  const bool pair_rows = tile.widened() && a.num_vectors <= 3;
  // The first tile's rows all at once, then each next tile as this one is worked on.
  tile.Prefetch(state.begin / kTile * kTile);
  for (int64_t t0 = state.begin / kTile * kTile; t0 < state.end; t0 += kTile) {
    tile.Gather(t0);
    tile.Prefetch(t0 + kPrefetchTiles * kTile);
    int32_t waiting = -1;  // a row that sees the whole tile, not yet paired
    ForEachRowOfTile(a, t0, [&](int32_t r, int lo, int hi) {
      if (!pair_rows || lo != 0 || hi != kTile) return attend_one_row(r, lo, hi);
      if (waiting < 0) {
        waiting = r;
        return;
      }
      attend_two_rows(waiting, r);
      waiting = -1;
    });
    if (waiting >= 0) attend_one_row(waiting, 0, kTile);
  }
  state.Finish(a, hd);
}

}  // namespace

// The common head sizes get their loops unrolled at compile time.
template <bool kF16>
void AttendSegmentByHeadDim(const AttentionSegmentArgs& args) {
  switch (args.head_dim) {
    case 64:
      return AttendSegmentT<kF16, 64>(args);
    case 128:
      return AttendSegmentT<kF16, 128>(args);
    default:
      return AttendSegmentT<kF16, 0>(args);
  }
}

void AttendSegment(const AttentionSegmentArgs& args) {
  if (args.f16) {
    AttendSegmentByHeadDim<true>(args);
  } else {
    AttendSegmentByHeadDim<false>(args);
  }
}

void FoldStep(const float* partial, bool first, int32_t num_vectors, int64_t head_dim, float* state) {
  const int64_t stride = PartialStride(head_dim);
  for (int32_t i = 0; i < num_vectors; ++i) {
    const float* part = partial + i * stride;
    float* st = state + i * stride;
    if (first) {
      for (int64_t d = 0; d < stride; ++d) st[d] = part[d];
      continue;
    }
    const float maximum = st[0];
    const float new_max = part[0] > maximum ? part[0] : maximum;
    const float old_scale = expf(maximum - new_max);
    const float part_scale = expf(part[0] - new_max);
    st[1] = st[1] * old_scale + part[1] * part_scale;
    for (int64_t d = 0; d < head_dim; ++d) st[2 + d] = st[2 + d] * old_scale + part[2 + d] * part_scale;
    st[0] = new_max;
  }
}

void FoldFinish(const float* state, int32_t num_vectors, int64_t head_dim, float* out) {
  const int64_t stride = PartialStride(head_dim);
  for (int32_t i = 0; i < num_vectors; ++i) {
    const float* st = state + i * stride;
    const float inv = 1.0f / st[1];
    for (int64_t d = 0; d < head_dim; ++d) out[i * head_dim + d] = st[2 + d] * inv;
  }
}

}  // namespace pagoda::kernels::cpu::avx512
