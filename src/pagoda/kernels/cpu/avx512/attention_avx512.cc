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

// One row's step over one tile, for its kG query vectors (vector i at
// q + i * hd, its weighted V sums at acc + i * acc_stride):
//  - each vector's 16 scores against the tile's K rows, and the online
//    softmax update of its (maximum, sum);
//  - then the weighted V rows of the positions the row sees, [lo, hi) of the
//    tile, added in position order, for all kG vectors at once: each V load
//    serves every vector, and the kG x 4 independent sums keep the FMA
//    pipes busy where one vector's 4 chains would wait on each other.
// kHeadDim is the head size when known at compile time (0: hd). Widening is
// exact and every vector's arithmetic is the same whatever kG, row source or
// head-size instantiation computes it, so all give the same bits.
template <int64_t kHeadDim, int kG, typename Rows>
inline void AttendRowTile(const float* q, const Rows& k, const Rows& v, int lo, int hi, int64_t hd_arg, float scale,
                          float softcap, float* maximum, float* sum, float* acc, int64_t acc_stride) {
  const int64_t hd = kHeadDim > 0 ? kHeadDim : hd_arg;
  const int64_t padded = (hd + 15) / 16 * 16;
  alignas(64) float probs[kG][kTile];
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
  float rescale[kG];
  SoftmaxTile<kG>(raw, lo, hi, scale, softcap, maximum, sum, rescale, [&](int i, __m512 e) {
    _mm512_store_ps(probs[i], e);
    return _mm512_reduce_add_ps(e);
  });
#pragma GCC unroll 8
  for (int64_t d = 0; d < padded; d += 64) {
    // 64 dimensions at a time, kept in registers over the tile; masked
    // lanes past the head neither load nor store.
    __mmask16 mask[4];
    __m512 sums[kG][4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      mask[j] = d + 16 * j < hd ? FirstLanes(hd - d - 16 * j) : 0;
#pragma GCC unroll 4
      for (int i = 0; i < kG; ++i) {
        sums[i][j] = _mm512_mul_ps(_mm512_maskz_loadu_ps(mask[j], acc + i * acc_stride + d + 16 * j),
                                   _mm512_set1_ps(rescale[i]));
      }
    }
    auto add_position = [&](int p) {
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const __m512 row = v.Load(p, d + 16 * j, mask[j]);
#pragma GCC unroll 4
        for (int i = 0; i < kG; ++i) sums[i][j] = _mm512_fmadd_ps(_mm512_set1_ps(probs[i][p]), row, sums[i][j]);
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
#pragma GCC unroll 4
      for (int i = 0; i < kG; ++i) _mm512_mask_storeu_ps(acc + i * acc_stride + d + 16 * j, mask[j], sums[i][j]);
    }
  }
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
  // The first tile's rows all at once, then each next tile as this one is worked on.
  tile.Prefetch(state.begin / kTile * kTile);
  for (int64_t t0 = state.begin / kTile * kTile; t0 < state.end; t0 += kTile) {
    tile.Gather(t0);
    tile.Prefetch(t0 + kPrefetchTiles * kTile);
    ForEachRowOfTile(a, t0, [&](int32_t r, int lo, int hi) {
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
    });
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
