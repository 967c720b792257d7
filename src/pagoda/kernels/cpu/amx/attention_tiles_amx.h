// What the two layouts of the AMX-BF16 attention kernel (attention_amx.cc)
// share, so that they give the same bits: the tile configuration, the
// chunk, the exponential, the sum of a chunk's probabilities, and the
// online softmax's state and step in lanes; the BF16 cache's kernel
// (attention_pairs_amx.cc) takes the exponential, the pair sums and the
// scaled scores too. Internal linkage, for the AMX attention units only
// (include avx512_util.h first).
#pragma once

#include <math.h>

#include <cstdint>

#include "pagoda/kernels/cpu/amx/tile_config_amx.h"
#include "pagoda/kernels/cpu/avx512/attention_tiles_avx512.h"
#include "pagoda/kernels/cpu/avx512/bf16_pairs_avx512.h"
#include "pagoda/kernels/cpu/grouped_attention.h"

namespace pagoda::kernels::cpu::amx {
namespace {

using avx512::FirstLanes;
using avx512::GgmlExp16;
using avx512::kMaxAttentionHeadDim;
using avx512::kTile;
using avx512::Padded32;

// Positions per softmax step: two of the walk's 16-position tiles, one
// tile product's full depth.
constexpr int kChunk = kAttentionChunk;
static_assert(kAttentionSegment % kChunk == 0 && kChunk == 2 * kTile);
// Query vectors per tile (its 16 rows or 16 columns).
constexpr int kLanes = 16;
constexpr int64_t Padded16(int64_t hd) { return (hd + 15) / 16 * 16; }
constexpr int64_t kMaxPadded32 = Padded32(kMaxAttentionHeadDim);
constexpr int64_t kMaxPadded16 = Padded16(kMaxAttentionHeadDim);

// Every tile is 16 rows of 64 bytes; each layout gives them its own roles.
constexpr TileConfig kAttentionTileConfig = {
    .palette = 1,
    .start_row = 0,
    .reserved = {},
    .colsb = {64, 64, 64, 64, 64, 64, 64, 64},
    .rows = {16, 16, 16, 16, 16, 16, 16, 16},
};

// TILELOADD's inline assembly names no memory operand, so the compiler may
// move vector stores past it: call this between the stores that write a
// tile's operand and the tile load that reads it.
inline void StoresBeforeTileLoads() { __asm__ volatile("" ::: "memory"); }

// e^x for a probability, x <= 0: 2^n times a degree-5 polynomial of the
// fraction f (|f| <= 1/2), within 3e-6 of e^x relative to it, far inside
// the bf16 rounding (2^-9) that every probability then takes. Lanes of -inf
// give NaN: the callers mask them to zero.
inline __m512 ProbabilityExp16(__m512 x) {
  const __m512 t = _mm512_mul_ps(x, _mm512_set1_ps(1.44269504f));
  const __m512 n = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512 f = _mm512_sub_ps(t, n);
  // 2^f = e^(f ln 2): Taylor coefficients (ln 2)^k / k!.
  __m512 p = _mm512_set1_ps(1.3333558e-3f);
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(9.6181291e-3f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(5.5504109e-2f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(2.4022651e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(6.9314718e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

// Each dword of bf16 pairs (probabilities of positions 2j and 2j + 1) as
// the f32 sum of the two. A chunk's sum then adds these 16 pair sums in
// Fold16's tree (j + 8, then + 4, + 2, + 1), in either layout.
inline __m512 PairSums(__m512i pairs) {
  const __m512i high_halves = _mm512_set1_epi32(static_cast<int32_t>(0xffff0000u));
  return _mm512_add_ps(_mm512_castsi512_ps(_mm512_slli_epi32(pairs, 16)),
                       _mm512_castsi512_ps(_mm512_and_si512(pairs, high_halves)));
}

// The online softmax of up to 16 query vectors (lane v: vector 16 * group
// + v of the block, in the partials' order [row][vector]): the positions
// each sees, relative to the walk's first chunk, and its running maximum
// and sum. Lanes past the block's vectors, or of rows with nothing to
// attend, are inactive, with empty ranges.
struct SoftmaxLanes {
  alignas(64) int32_t first[kLanes];
  alignas(64) int32_t last[kLanes];
  alignas(64) float maximum[kLanes];
  alignas(64) float sum[kLanes];
  __mmask16 active;

  // Returns each lane's query (null when inactive).
  void Start(const AttentionSegmentArgs& a, int group, int64_t base, int64_t hd, const float* q[kLanes]) {
    active = 0;
    for (int v = 0; v < kLanes; ++v) {
      const int32_t n = group * kLanes + v;
      const int32_t r = n / a.num_vectors;
      first[v] = last[v] = 0;
      q[v] = nullptr;
      if (r >= a.num_rows || a.begins[r] >= a.ends[r]) continue;
      first[v] = static_cast<int32_t>(a.begins[r] - base);
      last[v] = static_cast<int32_t>(a.ends[r] - base);
      q[v] = a.q + r * a.q_row_stride + (n % a.num_vectors) * hd;
      active = static_cast<__mmask16>(active | (1u << v));
    }
    _mm512_store_ps(maximum, _mm512_set1_ps(-INFINITY));
    _mm512_store_ps(sum, _mm512_setzero_ps());
  }

  // The lanes that see any position of the chunk at c0.
  __mmask16 Seeing(int32_t c0) const {
    return _mm512_mask_cmplt_epi32_mask(active, _mm512_load_si512(first), _mm512_set1_epi32(c0 + kChunk)) &
           _mm512_cmpgt_epi32_mask(_mm512_load_si512(last), _mm512_set1_epi32(c0));
  }

  // The step's maximum from the chunk's (-inf for lanes that see none of
  // it) and the factor for each lane's sums: exp(old - new), 0 on a lane's
  // first chunk (old = -inf), exactly 1 for lanes that see none of it.
  __m512 NewMaximum(__m512 chunk_max) const { return _mm512_max_ps(_mm512_load_ps(maximum), chunk_max); }
  __m512 Rescale(__m512 new_max, __mmask16 seeing) const {
    return _mm512_mask_blend_ps(seeing, _mm512_set1_ps(1.0f),
                                GgmlExp16(_mm512_sub_ps(_mm512_load_ps(maximum), new_max)));
  }
  void Update(__m512 new_max, __m512 rescale, __m512 chunk_sum, __mmask16 seeing) {
    _mm512_store_ps(sum, _mm512_fmadd_ps(_mm512_load_ps(sum), rescale, chunk_sum));
    _mm512_store_ps(maximum, _mm512_mask_blend_ps(seeing, _mm512_load_ps(maximum), new_max));
  }

  // Each active lane's maximum and sum into its partial.
  void Finish(float* partial, int64_t stride) const {
    for (int v = 0; v < kLanes; ++v) {
      if ((active >> v) & 1) {
        partial[v * stride] = maximum[v];
        partial[v * stride + 1] = sum[v];
      }
    }
  }
};

// The positions that some row of the block sees in the segment, [begin,
// end); false when no row sees any.
inline bool SeenRange(const AttentionSegmentArgs& a, int64_t* begin, int64_t* end) {
  *begin = INT64_MAX;
  *end = INT64_MIN;
  for (int32_t r = 0; r < a.num_rows; ++r) {
    if (a.begins[r] >= a.ends[r]) continue;
    *begin = a.begins[r] < *begin ? a.begins[r] : *begin;
    *end = a.ends[r] > *end ? a.ends[r] : *end;
  }
  return *begin < *end;
}

// The first n lanes, for any n (none for n <= 0).
inline __mmask16 LanesBelow(int32_t n) { return n <= 0 ? 0 : FirstLanes(n); }

// Soft-capping of the lanes in `valid`: c tanh(x / c), one tanhf per lane.
// Out of line, so that the callers' loops hold no call that would spill
// their registers when no cap is asked for.
[[gnu::noinline]] inline __m512 SoftCapLanes(__m512 x, __mmask16 valid, float softcap) {
  alignas(64) float lanes[kLanes];
  _mm512_store_ps(lanes, x);
  for (int v = 0; v < kLanes; ++v) {
    if ((valid >> v) & 1) lanes[v] = tanhf(lanes[v] * (1.0f / softcap)) * softcap;
  }
  return _mm512_load_ps(lanes);
}

// A chunk's scaled scores (raw times scale, soft-capped when kSoftcap) with
// positions a vector does not see at -inf: 16 scores of one vector (row
// layout) or one position's 16 vectors (lane layout), `valid` the lanes
// seen. The callers choose kSoftcap once per chunk, outside their loops.
template <bool kSoftcap>
inline __m512 ScaledScores(__m512 raw, __mmask16 valid, float scale, float softcap) {
  __m512 x = _mm512_mul_ps(raw, _mm512_set1_ps(scale));
  if constexpr (kSoftcap) x = SoftCapLanes(x, valid, softcap);
  return _mm512_mask_blend_ps(valid, _mm512_set1_ps(-INFINITY), x);
}

// The K and V rows of a chunk's 32 positions (zero rows outside [begin,
// end)), and those of the chunk after it, for the conversion to prefetch a
// position at a time as it goes: spread over the work, the prefetches
// never fill the line fill buffers, where a burst of a chunk's 128 cache
// lines would stall on them.
template <bool kF16>
class ChunkRows {
 public:
  ChunkRows(const AttentionSegmentArgs& a, int64_t hd, int64_t begin, int64_t end)
      : tiles_(a, hd, begin, end, /*widen=*/false), row_bytes_(hd * (kF16 ? 2 : 4)) {}

  const void* const* k() const { return k_; }
  const void* const* v() const { return v_; }

  // The walk's first chunk, at c0: its rows, fetched at once, and the next's.
  void Start(int64_t c0) {
    Collect(c0, k_, v_);
    for (int p = 0; p < kChunk; ++p) Prefetch(k_[p], v_[p]);
    Collect(c0 + kChunk, ahead_k_, ahead_v_);
  }
  // The next chunk (at c0) becomes current.
  void Advance(int64_t c0) {
    for (int p = 0; p < kChunk; ++p) {
      k_[p] = ahead_k_[p];
      v_[p] = ahead_v_[p];
    }
    Collect(c0 + kChunk, ahead_k_, ahead_v_);
  }
  // Position p of the chunk after the current one.
  void PrefetchAhead(int p) const { Prefetch(ahead_k_[p], ahead_v_[p]); }

 private:
  void Collect(int64_t c0, const void* k[kChunk], const void* v[kChunk]) {
    for (int half = 0; half < 2; ++half) {
      tiles_.Gather(c0 + half * kTile);
      for (int p = 0; p < kTile; ++p) {
        k[half * kTile + p] = tiles_.k_rows()[p];
        v[half * kTile + p] = tiles_.v_rows()[p];
      }
    }
  }
  void Prefetch(const void* k, const void* v) const {
    for (int64_t line = 0; line < row_bytes_; line += 64) {
      _mm_prefetch(static_cast<const char*>(k) + line, _MM_HINT_T0);
      _mm_prefetch(static_cast<const char*>(v) + line, _MM_HINT_T0);
    }
  }

  avx512::TileRows<kF16> tiles_;
  const int64_t row_bytes_;
  const void* k_[kChunk];
  const void* v_[kChunk];
  const void* ahead_k_[kChunk];
  const void* ahead_v_[kChunk];
};

}  // namespace
}  // namespace pagoda::kernels::cpu::amx
