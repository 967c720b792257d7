// The AVX-512 grouped attention kernel (grouped_attention.h). A segment runs
// in tiles of 16 positions aligned to absolute multiples of 16:
//  - the tile's K and V rows are read straight from the cache (widened to
//    f32 in registers) by each query vector;
//  - each vector's 16 scores come from 16 per-position lane products folded
//    together by one 16 x 16 transpose-and-add (no horizontal sum per
//    position);
//  - the online softmax rescales the vector's running sum and weighted V by
//    exp(old maximum - new maximum) once per tile, and its 16 exponentials
//    run as one vector (GGML's expf polynomial).
#include <math.h>

#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

constexpr int kTile = 16;
static_assert(kAttentionSegment % kTile == 0);

// Lane p of the result is the sum of the 16 lanes of v[p].
inline __m512 TransposeSum16(const __m512 v[16]) {
  __m512 pairs[8];
  for (int i = 0; i < 8; ++i) {
    // 128-bit block k: a[4k]+a[4k+2], b[4k]+b[4k+2], a[4k+1]+a[4k+3], b[4k+1]+b[4k+3].
    pairs[i] = _mm512_add_ps(_mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]), _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]));
  }
  __m512 quads[4];
  for (int i = 0; i < 4; ++i) {
    // Block k: the block-k sums of v[4i], v[4i+1], v[4i+2], v[4i+3].
    const __m512d x = _mm512_castps_pd(pairs[2 * i]);
    const __m512d y = _mm512_castps_pd(pairs[2 * i + 1]);
    quads[i] = _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)), _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
  }
  // Blocks 0+1 and 2+3 of quads[0], quads[1] (then [2], [3]); then those pairs.
  const __m512 w0 = _mm512_add_ps(_mm512_shuffle_f32x4(quads[0], quads[1], 0x88),
                                  _mm512_shuffle_f32x4(quads[0], quads[1], 0xDD));
  const __m512 w1 = _mm512_add_ps(_mm512_shuffle_f32x4(quads[2], quads[3], 0x88),
                                  _mm512_shuffle_f32x4(quads[2], quads[3], 0xDD));
  return _mm512_add_ps(_mm512_shuffle_f32x4(w0, w1, 0x88), _mm512_shuffle_f32x4(w0, w1, 0xDD));
}

// 16 cache elements at `row` + d (masked lanes neither read nor set), as f32.
template <bool kF16>
inline __m512 LoadWide(const void* row, int64_t d, __mmask16 mask) {
  if constexpr (kF16) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, static_cast<const uint16_t*>(row) + d));
  } else {
    return _mm512_maskz_loadu_ps(mask, static_cast<const float*>(row) + d);
  }
}

// A row of zeros for the positions of a tile outside its segment.
alignas(64) constexpr float kZeroRow[kMaxAttentionHeadDim] = {};

template <bool kF16>
void AttendSegmentT(const AttentionSegmentArgs& a) {
  const int64_t hd = a.head_dim;
  const int64_t padded = (hd + 15) / 16 * 16;
  const int64_t stride = PartialStride(hd);
  alignas(64) float probs[kTile];
  float maximum[kMaxGroupVectors];
  float sum[kMaxGroupVectors];
  for (int32_t i = 0; i < a.num_vectors; ++i) {
    maximum[i] = -INFINITY;
    sum[i] = 0.0f;
    for (int64_t d = 0; d < hd; ++d) a.partial[i * stride + 2 + d] = 0.0f;
  }
  // The K and V rows of the tile at t0, walking the block table without a
  // division per position; positions outside [begin, end) read zeros. The
  // kernel reads the cache directly: widening a tile into a buffer first
  // made every cache load wait on the buffer's stores (a 4 KiB tile aliases
  // every load address in the store-forwarding check).
  const size_t elem = kF16 ? 2 : 4;
  const void* k_rows[kTile];
  const void* v_rows[kTile];
  auto tile_rows = [&](int64_t t0) {
    const int64_t first = t0 < a.begin ? a.begin : t0;
    int64_t block = first / a.block_size;
    int64_t offset = first % a.block_size;
    for (int p = 0; p < kTile; ++p) {
      const int64_t pos = t0 + p;
      if (pos < first || pos >= a.end) {
        k_rows[p] = v_rows[p] = kZeroRow;
        continue;
      }
      const int64_t e = (int64_t{a.block_table[block]} * a.block_size + offset) * a.slot_stride + a.head_offset;
      k_rows[p] = static_cast<const char*>(a.k) + e * elem;
      v_rows[p] = static_cast<const char*>(a.v) + e * elem;
      if (++offset == a.block_size) {
        offset = 0;
        ++block;
      }
    }
  };
  for (int64_t t0 = a.begin / kTile * kTile; t0 < a.end; t0 += kTile) {
    const int lo = static_cast<int>((t0 < a.begin ? a.begin : t0) - t0);
    const int hi = static_cast<int>((t0 + kTile > a.end ? a.end : t0 + kTile) - t0);
    const __mmask16 valid = static_cast<__mmask16>(FirstLanes(hi) & ~FirstLanes(lo));
    tile_rows(t0);
    for (int32_t i = 0; i < a.num_vectors; ++i) {
      const float* q = a.q + i * hd;
      __m512 lanes[kTile];
#pragma GCC unroll 16
      for (int p = 0; p < kTile; ++p) lanes[p] = _mm512_setzero_ps();
      for (int64_t d = 0; d < padded; d += 16) {
        const __mmask16 mask = FirstLanes(hd - d);
        const __m512 qd = _mm512_maskz_loadu_ps(mask, q + d);
#pragma GCC unroll 16
        for (int p = 0; p < kTile; ++p) lanes[p] = _mm512_fmadd_ps(qd, LoadWide<kF16>(k_rows[p], d, mask), lanes[p]);
      }
      __m512 scores = _mm512_mul_ps(TransposeSum16(lanes), _mm512_set1_ps(a.scale));
      if (a.softcap > 0.0f) {
        alignas(64) float s[kTile];
        _mm512_store_ps(s, scores);
        for (int p = lo; p < hi; ++p) s[p] = tanhf(s[p] * (1.0f / a.softcap)) * a.softcap;
        scores = _mm512_load_ps(s);
      }
      scores = _mm512_mask_blend_ps(valid, _mm512_set1_ps(-INFINITY), scores);
      const float tile_max = _mm512_reduce_max_ps(scores);
      const float new_max = tile_max > maximum[i] ? tile_max : maximum[i];
      const __m512 e = _mm512_maskz_mov_ps(valid, GgmlExp16(_mm512_sub_ps(scores, _mm512_set1_ps(new_max))));
      const float rescale = expf(maximum[i] - new_max);
      sum[i] = sum[i] * rescale + _mm512_reduce_add_ps(e);
      maximum[i] = new_max;
      _mm512_store_ps(probs, e);
      float* acc = a.partial + i * stride + 2;
      const __m512 vrescale = _mm512_set1_ps(rescale);
      for (int64_t d = 0; d < padded; d += 64) {
        // 64 dimensions at a time, kept in registers over the tile; masked
        // lanes past the head neither load nor store.
        __mmask16 mask[4];
        __m512 sums[4];
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
          mask[j] = d + 16 * j < hd ? FirstLanes(hd - d - 16 * j) : 0;
          sums[j] = _mm512_mul_ps(_mm512_maskz_loadu_ps(mask[j], acc + d + 16 * j), vrescale);
        }
#pragma GCC unroll 16
        for (int p = 0; p < kTile; ++p) {
          const __m512 w = _mm512_set1_ps(probs[p]);
#pragma GCC unroll 4
          for (int j = 0; j < 4; ++j) sums[j] = _mm512_fmadd_ps(w, LoadWide<kF16>(v_rows[p], d + 16 * j, mask[j]), sums[j]);
        }
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) _mm512_mask_storeu_ps(acc + d + 16 * j, mask[j], sums[j]);
      }
    }
  }
  for (int32_t i = 0; i < a.num_vectors; ++i) {
    a.partial[i * stride] = maximum[i];
    a.partial[i * stride + 1] = sum[i];
  }
}

}  // namespace

void AttendSegment(const AttentionSegmentArgs& args) {
  if (args.f16) {
    AttendSegmentT<true>(args);
  } else {
    AttendSegmentT<false>(args);
  }
}

void FoldSegments(const float* partials, int64_t num_segments, int32_t num_vectors, int64_t head_dim, float* out) {
  const int64_t stride = PartialStride(head_dim);
  for (int32_t i = 0; i < num_vectors; ++i) {
    const float* first = partials + i * stride;
    float* o = out + i * head_dim;
    float maximum = first[0];
    float sum = first[1];
    for (int64_t d = 0; d < head_dim; ++d) o[d] = first[2 + d];
    for (int64_t k = 1; k < num_segments; ++k) {
      const float* part = partials + (k * num_vectors + i) * stride;
      const float new_max = part[0] > maximum ? part[0] : maximum;
      const float old_scale = expf(maximum - new_max);
      const float part_scale = expf(part[0] - new_max);
      sum = sum * old_scale + part[1] * part_scale;
      for (int64_t d = 0; d < head_dim; ++d) o[d] = o[d] * old_scale + part[2 + d] * part_scale;
      maximum = new_max;
    }
    const float inv = 1.0f / sum;
    for (int64_t d = 0; d < head_dim; ++d) o[d] *= inv;
  }
}

}  // namespace pagoda::kernels::cpu::avx512
