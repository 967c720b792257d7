// The grouped attention kernel of the avx512bf16 set (grouped_attention.h):
// the AVX-512 kernel's tiles, online softmax and split-K, with both products
// in bf16 through VDPBF16PS, which multiplies 32 pairs of bf16 and adds them
// to 16 f32 lanes in one instruction, twice the f32 FMA's work:
//  - scores: each tile's K is rounded to bf16 and transposed into dimension
//    pairs once, for all the rows of the block; a query vector (rounded once
//    per segment) then takes one broadcast pair of its dimensions per
//    instruction against all 16 positions, so its 16 scores need no
//    transpose of their own;
//  - weighted V: the tile's probabilities, rounded to bf16, taken two
//    positions at a time against V rows interleaved by position pairs, so
//    one instruction adds two positions' rows to 16 dimensions.
// Sums, maxima, exponentials and the fold stay f32. A vector's softmax sum
// adds the same bf16-rounded probabilities its V sums use, so its output is
// a convex combination of the bf16 V rows.
//
// A tile is converted the same way whatever block reads it, and a vector's
// arithmetic depends on its own query, positions and tile alone, so the
// kernel keeps the AVX-512 kernel's batch invariance.
#include <math.h>

#include "pagoda/kernels/cpu/avx512/attention_tiles_avx512.h"
#include "pagoda/kernels/cpu/avx512/bf16_pairs_avx512.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

// A tile's rows in bf16, converted from its cache rows (zeros outside the
// segment's range): K(p, d) is dimensions [d, d + 32) of K
// row p, zero past the head; VPair(j, d) is dimensions [d, d + 16) of the V
// rows of positions 2j and 2j + 1, interleaved (d < hd).
template <bool kF16>
struct CacheRowsBf16 {
  const TileRows<kF16>& rows;
  int64_t hd;

  __m512bh K(int p, int64_t d) const { return (__m512bh)Bf16Dims<kF16>(rows.k_rows()[p], d, hd); }
  __m512bh VPair(int j, int64_t d) const { return (__m512bh)VPairs<kF16>(rows.v_rows(), j, d, hd); }
};

// A tile in bf16 as the products read it: K transposed into dimension
// pairs, kt[pair j][position] (pair j: dimensions 2j and 2j + 1, padded to
// whole VDPBF16PS inputs with zeros), so that a query's broadcast pair
// times kt[j] adds to all 16 positions' scores at once; V in position pairs,
// v[pair][dimension][2].
template <bool kF16>
class Bf16Tile {
 public:
  explicit Bf16Tile(int64_t hd) : hd_(hd), dim_pairs_(Padded32(hd) / 2), v_stride_((hd + 15) / 16 * 32) {}

  __m512bh Kt(int64_t pair) const { return (__m512bh)_mm512_load_si512(kt_ + pair * kTile); }
  __m512bh VPair(int j, int64_t d) const { return (__m512bh)_mm512_load_si512(v_ + j * v_stride_ + 2 * d); }

  void Convert(const TileRows<kF16>& rows) {
    const CacheRowsBf16<kF16> cache{rows, hd_};
    for (int64_t first = 0; first < dim_pairs_; first += 16) {
      __m512i by_position[kTile];
      __m512i by_pair[16];
      for (int p = 0; p < kTile; ++p) by_position[p] = (__m512i)cache.K(p, 2 * first);
      Transpose16x16(by_position, by_pair);
      for (int j = 0; j < 16; ++j) _mm512_store_si512(kt_ + (first + j) * kTile, by_pair[j]);
    }
    for (int j = 0; j < kTile / 2; ++j) {
      for (int64_t d = 0; d < hd_; d += 16) _mm512_store_si512(v_ + j * v_stride_ + 2 * d, (__m512i)cache.VPair(j, d));
    }
  }

 private:
  const int64_t hd_;
  const int64_t dim_pairs_;
  const int64_t v_stride_;
  alignas(64) uint32_t kt_[Padded32(kMaxAttentionHeadDim) / 2 * kTile];
  alignas(64) uint16_t v_[kTile * kMaxAttentionHeadDim];
};

// The 16 scores of kN query vectors (bf16 query i at q + i * q_stride)
// against a tile: each dimension pair of a query, broadcast, times the
// tile's K pair for all positions, in four accumulators (pairs j mod 4)
// added in a fixed order. No transpose per vector: the tile's was done once.
template <int64_t kDimPairs, int kN, bool kF16>
inline void ScoresBf16(const uint16_t* q, int64_t q_stride, const Bf16Tile<kF16>& tile, int64_t dim_pairs_arg,
                       __m512 scores[kN]) {
  const int64_t dim_pairs = kDimPairs > 0 ? kDimPairs : dim_pairs_arg;
  __m512 acc[kN][4];
#pragma GCC unroll 4
  for (int i = 0; i < kN; ++i) {
#pragma GCC unroll 4
    for (int a = 0; a < 4; ++a) acc[i][a] = _mm512_setzero_ps();
  }
#pragma GCC unroll 8
  for (int64_t j = 0; j < dim_pairs; j += 4) {
#pragma GCC unroll 4
    for (int a = 0; a < 4; ++a) {
      const __m512bh k = tile.Kt(j + a);
#pragma GCC unroll 4
      for (int i = 0; i < kN; ++i) {
        acc[i][a] = _mm512_dpbf16_ps(acc[i][a], k, BroadcastPair(q + i * q_stride + 2 * (j + a)));
      }
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < kN; ++i) {
    scores[i] = _mm512_add_ps(_mm512_add_ps(acc[i][0], acc[i][1]), _mm512_add_ps(acc[i][2], acc[i][3]));
  }
}

// One row's step over one tile for its kG query vectors (bf16 queries at
// q + i * q_stride, weighted V sums at acc + i * acc_stride): scores and the
// online softmax update, then the weighted V rows of the position pairs
// that overlap [lo, hi) (probabilities outside it are zero), in pair order.
template <int64_t kHeadDim, int kG, bool kF16>
inline void AttendRowTileBf16(const uint16_t* q, int64_t q_stride, const Bf16Tile<kF16>& tile, int lo, int hi,
                              int64_t hd_arg, float scale, float softcap, float* maximum, float* sum, float* acc,
                              int64_t acc_stride) {
  const int64_t hd = kHeadDim > 0 ? kHeadDim : hd_arg;
  const int64_t padded = (hd + 15) / 16 * 16;
  // Each vector's probabilities as bf16 pairs: pair j is positions 2j, 2j+1.
  alignas(64) uint32_t pairs[kG][kTile / 2];
  __m512 raw[kG];
  constexpr int64_t kDimPairs = kHeadDim > 0 ? Padded32(kHeadDim) / 2 : 0;
  ScoresBf16<kDimPairs, kG>(q, q_stride, tile, Padded32(hd) / 2, raw);
  float rescale[kG];
  SoftmaxTile<kG>(raw, lo, hi, scale, softcap, maximum, sum, rescale, [&](int i, __m512 e) {
    const __m256bh rounded = _mm512_cvtneps_pbh(e);
    _mm256_store_si256(reinterpret_cast<__m256i*>(pairs[i]), (__m256i)rounded);
    return _mm512_reduce_add_ps(_mm512_cvtpbh_ps(rounded));
  });
  const int first_pair = lo / 2;
  const int end_pair = (hi + 1) / 2;
#pragma GCC unroll 8
  for (int64_t d = 0; d < padded; d += 64) {
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
    auto add_pair = [&](int pair) {
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        if (mask[j] == 0) continue;
        const __m512bh row = tile.VPair(pair, d + 16 * j);
#pragma GCC unroll 4
        for (int i = 0; i < kG; ++i) {
          sums[i][j] = _mm512_dpbf16_ps(sums[i][j], row, BroadcastPair(&pairs[i][pair]));
        }
      }
    };
    if (first_pair == 0 && end_pair == kTile / 2) {
#pragma GCC unroll 8
      for (int pair = 0; pair < kTile / 2; ++pair) add_pair(pair);
    } else {
      for (int pair = first_pair; pair < end_pair; ++pair) add_pair(pair);
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
#pragma GCC unroll 4
      for (int i = 0; i < kG; ++i) _mm512_mask_storeu_ps(acc + i * acc_stride + d + 16 * j, mask[j], sums[i][j]);
    }
  }
}

template <bool kF16, int64_t kHeadDim>
void AttendSegmentBf16T(const AttentionSegmentArgs& a) {
  const int64_t hd = kHeadDim > 0 ? kHeadDim : a.head_dim;
  const int64_t q_stride = Padded32(hd);
  const int64_t stride = PartialStride(hd);
  const int64_t row_floats = a.num_vectors * stride;
  SegmentState state;
  state.Start(a, hd);
  if (state.begin >= state.end) return;
  // The block's queries in bf16, [row][vector][Padded32(hd)], zero-padded.
  alignas(64) uint16_t queries[kMaxBlockRows * kMaxGroupVectors * Padded32(kMaxAttentionHeadDim)];
  for (int32_t r = 0; r < a.num_rows; ++r) {
    if (a.begins[r] >= a.ends[r]) continue;
    for (int32_t i = 0; i < a.num_vectors; ++i) {
      const float* q = a.q + r * a.q_row_stride + i * hd;
      uint16_t* qb = queries + (r * kMaxGroupVectors + i) * q_stride;
      for (int64_t d = 0; d < q_stride; d += 32) {
        const __m512 lo = d < hd ? _mm512_maskz_loadu_ps(FirstLanes(hd - d), q + d) : _mm512_setzero_ps();
        const __m512 hi = d + 16 < hd ? _mm512_maskz_loadu_ps(FirstLanes(hd - d - 16), q + d + 16) : _mm512_setzero_ps();
        _mm512_store_si512(qb + d, ToBf16(lo, hi));
      }
    }
  }
  TileRows<kF16> rows(a, hd, state.begin, state.end, /*widen=*/false);
  // Each tile is converted (K transposed) once, for every row of the block.
  Bf16Tile<kF16> tile(hd);
  auto attend_row = [&](const uint16_t* q, int lo, int hi, float* row_max, float* row_sum, float* acc) {
    switch (a.num_vectors) {
      case 1:
        return AttendRowTileBf16<kHeadDim, 1>(q, q_stride, tile, lo, hi, hd, a.scale, a.softcap, row_max, row_sum,
                                              acc, stride);
      case 2:
        return AttendRowTileBf16<kHeadDim, 2>(q, q_stride, tile, lo, hi, hd, a.scale, a.softcap, row_max, row_sum,
                                              acc, stride);
      case 3:
        return AttendRowTileBf16<kHeadDim, 3>(q, q_stride, tile, lo, hi, hd, a.scale, a.softcap, row_max, row_sum,
                                              acc, stride);
      default:
        return AttendRowTileBf16<kHeadDim, 4>(q, q_stride, tile, lo, hi, hd, a.scale, a.softcap, row_max, row_sum,
                                              acc, stride);
    }
  };
  // The first tile's rows all at once, then each next tile as this one is worked on.
  rows.Prefetch(state.begin / kTile * kTile);
  for (int64_t t0 = state.begin / kTile * kTile; t0 < state.end; t0 += kTile) {
    rows.Gather(t0);
    rows.Prefetch(t0 + kPrefetchTiles * kTile);
    tile.Convert(rows);
    ForEachRowOfTile(a, t0, [&](int32_t r, int lo, int hi) {
      attend_row(queries + r * kMaxGroupVectors * q_stride, lo, hi, state.maximum + r * kMaxGroupVectors,
                 state.sum + r * kMaxGroupVectors, a.partial + r * row_floats + 2);
    });
  }
  state.Finish(a, hd);
}

template <bool kF16>
void AttendSegmentBf16ByHeadDim(const AttentionSegmentArgs& args) {
  switch (args.head_dim) {
    case 64:
      return AttendSegmentBf16T<kF16, 64>(args);
    case 128:
      return AttendSegmentBf16T<kF16, 128>(args);
    default:
      return AttendSegmentBf16T<kF16, 0>(args);
  }
}

}  // namespace

void AttendSegmentBf16(const AttentionSegmentArgs& args) {
  if (args.f16) {
    AttendSegmentBf16ByHeadDim<true>(args);
  } else {
    AttendSegmentBf16ByHeadDim<false>(args);
  }
}

}  // namespace pagoda::kernels::cpu::avx512
