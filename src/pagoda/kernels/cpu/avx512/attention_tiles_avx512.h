// What the AVX-512 grouped attention kernels share (grouped_attention.h):
// the 16-position tile, the transpose-and-add that turns 16 lane vectors
// into 16 scores, and the walk over a segment's tiles through the block
// table. Internal linkage, as avx512_util.h: each kernel's unit has its own
// instruction set flags.
#pragma once

#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

constexpr int kTile = 16;
static_assert(kAttentionSegment % kTile == 0);
// How many tiles ahead a segment's walk prefetches K and V (TileRows::Prefetch).
constexpr int kPrefetchTiles = 1;

// The sums of 16 lane vectors v[0..15] as one vector (lane p: the sum of
// the 16 lanes of v[p]), by avx512_util.h's transpose-and-reduce in two
// halves: HalfSum8 reduces v[0..7] (or v[8..15]) and FinishSum16 combines
// the two halves. The halves are independent, so a kernel may compute them
// at different times.
struct AddLanes {
  __m512 operator()(__m512 a, __m512 b) const { return _mm512_add_ps(a, b); }
};
inline __m512 HalfSum8(const __m512 v[8]) { return HalfLaneTotals8(v, AddLanes{}); }
inline __m512 FinishSum16(__m512 low, __m512 high) { return FinishLaneTotals16(low, high, AddLanes{}); }

// 16 cache elements at `row` + d (masked lanes neither read nor set), as f32.
template <bool kF16>
inline __m512 LoadWide(const void* row, int64_t d, __mmask16 mask) {
  if constexpr (kF16) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, static_cast<const uint16_t*>(row) + d));
  } else {
    return _mm512_maskz_loadu_ps(mask, static_cast<const float*>(row) + d);
  }
}

// A row of zeros for the positions of a tile that no row of the block sees.
alignas(64) constexpr float kZeroRow[kMaxAttentionHeadDim] = {};

// The K and V rows of a segment's tiles, walking the block table without a
// division per position; positions outside [begin, end) read zeros. With
// `widen`, each tile is also widened into f32 buffers for a block of rows to
// share. A single row reads the cache directly: widening a tile for one
// row's few vectors costs more than it saves (a 4 KiB tile aliases every
// load address in the store-forwarding check).
template <bool kF16>
class TileRows {
 public:
  TileRows(const AttentionSegmentArgs& a, int64_t hd, int64_t begin, int64_t end, bool widen)
      : a_(a), hd_(hd), padded_((hd + 15) / 16 * 16), begin_(begin), end_(end), widen_(widen) {}

  bool widened() const { return widen_; }
  const void* const* k_rows() const { return k_rows_; }
  const void* const* v_rows() const { return v_rows_; }
  const float* k_wide() const { return k_wide_; }
  const float* v_wide() const { return v_wide_; }

  // Asks for the K and V rows of the tile at t0 (its positions in [begin,
  // end)) ahead of use, so that their misses overlap the work on the tiles
  // before it: a tile's block lies anywhere in the arena, where no hardware
  // prefetcher looks, and decode reads every tile from memory.
  [[gnu::always_inline]] void Prefetch(int64_t t0) const {
    const int64_t first = t0 < begin_ ? begin_ : t0;
    const int64_t last = t0 + kTile < end_ ? t0 + kTile : end_;
    if (first >= last) return;
    int64_t block = first / a_.block_size;
    int64_t offset = first % a_.block_size;
    const int64_t row_bytes = hd_ * static_cast<int64_t>(kElem);
    for (int64_t pos = first; pos < last; ++pos) {
      const int64_t e = (int64_t{a_.block_table[block]} * a_.block_size + offset) * a_.slot_stride + a_.head_offset;
      const auto k = reinterpret_cast<uintptr_t>(a_.k) + static_cast<uintptr_t>(e) * kElem;
      const auto v = reinterpret_cast<uintptr_t>(a_.v) + static_cast<uintptr_t>(e) * kElem;
      for (uintptr_t line = k / 64 * 64; line < k + row_bytes; line += 64) {
        _mm_prefetch(reinterpret_cast<const char*>(line), _MM_HINT_T0);
      }
      for (uintptr_t line = v / 64 * 64; line < v + row_bytes; line += 64) {
        _mm_prefetch(reinterpret_cast<const char*>(line), _MM_HINT_T0);
      }
      if (++offset == a_.block_size) {
        offset = 0;
        ++block;
      }
    }
  }

  // The rows of the tile at t0.
  void Gather(int64_t t0) {
    const int64_t first = t0 < begin_ ? begin_ : t0;
    int64_t block = first / a_.block_size;
    int64_t offset = first % a_.block_size;
    for (int p = 0; p < kTile; ++p) {
      const int64_t pos = t0 + p;
      if (pos < first || pos >= end_) {
        k_rows_[p] = v_rows_[p] = kZeroRow;
        if (widen_) Widen(p);
        continue;
      }
      const int64_t e = (int64_t{a_.block_table[block]} * a_.block_size + offset) * a_.slot_stride + a_.head_offset;
      k_rows_[p] = static_cast<const char*>(a_.k) + e * kElem;
      v_rows_[p] = static_cast<const char*>(a_.v) + e * kElem;
      if (widen_) Widen(p);
      if (++offset == a_.block_size) {
        offset = 0;
        ++block;
      }
    }
  }

 private:
  static constexpr size_t kElem = kF16 ? 2 : 4;

  void Widen(int p) {
    for (int64_t d = 0; d < padded_; d += 16) {
      const __mmask16 mask = FirstLanes(hd_ - d);
      _mm512_store_ps(k_wide_ + p * padded_ + d, LoadWide<kF16>(k_rows_[p], d, mask));
      _mm512_store_ps(v_wide_ + p * padded_ + d, LoadWide<kF16>(v_rows_[p], d, mask));
    }
  }

  const AttentionSegmentArgs& a_;
  const int64_t hd_;
  const int64_t padded_;
  const int64_t begin_;
  const int64_t end_;
  const bool widen_;
  const void* k_rows_[kTile];
  const void* v_rows_[kTile];
  alignas(64) float k_wide_[kF16 ? kTile * kMaxAttentionHeadDim : 1];
  alignas(64) float v_wide_[kF16 ? kTile * kMaxAttentionHeadDim : 1];
};

// A segment's running state for each row r and vector i of its block (at
// r * kMaxGroupVectors + i): the online softmax's maximum and sum. Start
// resets them and each row's weighted V sums in the partials, and returns
// the union [begin, end) of the rows' position ranges (empty: nothing to
// attend); Finish writes each row's maximum and sum into its partials.
struct SegmentState {
  float maximum[kMaxBlockRows * kMaxGroupVectors];
  float sum[kMaxBlockRows * kMaxGroupVectors];
  int64_t begin = INT64_MAX;
  int64_t end = INT64_MIN;

  void Start(const AttentionSegmentArgs& a, int64_t hd) {
    const int64_t stride = PartialStride(hd);
    for (int32_t r = 0; r < a.num_rows; ++r) {
      if (a.begins[r] >= a.ends[r]) continue;
      begin = a.begins[r] < begin ? a.begins[r] : begin;
      end = a.ends[r] > end ? a.ends[r] : end;
      for (int32_t i = 0; i < a.num_vectors; ++i) {
        maximum[r * kMaxGroupVectors + i] = -INFINITY;
        sum[r * kMaxGroupVectors + i] = 0.0f;
        float* acc = a.partial + (r * a.num_vectors + i) * stride + 2;
        for (int64_t d = 0; d < hd; ++d) acc[d] = 0.0f;
      }
    }
  }

  void Finish(const AttentionSegmentArgs& a, int64_t hd) const {
    const int64_t stride = PartialStride(hd);
    for (int32_t r = 0; r < a.num_rows; ++r) {
      if (a.begins[r] >= a.ends[r]) continue;
      for (int32_t i = 0; i < a.num_vectors; ++i) {
        a.partial[(r * a.num_vectors + i) * stride] = maximum[r * kMaxGroupVectors + i];
        a.partial[(r * a.num_vectors + i) * stride + 1] = sum[r * kMaxGroupVectors + i];
      }
    }
  }
};

// Calls fn(r, lo, hi) for each row r of the block that sees positions of
// the tile at t0, [t0 + lo, t0 + hi).
template <typename Fn>
inline void ForEachRowOfTile(const AttentionSegmentArgs& a, int64_t t0, const Fn& fn) {
  for (int32_t r = 0; r < a.num_rows; ++r) {
    const int64_t row_begin = a.begins[r] > t0 ? a.begins[r] : t0;
    const int64_t row_end = a.ends[r] < t0 + kTile ? a.ends[r] : t0 + kTile;
    if (row_begin < row_end) fn(r, static_cast<int>(row_begin - t0), static_cast<int>(row_end - t0));
  }
}

// The online softmax's step over one tile for a row's kG query vectors,
// raw[i] holding vector i's 16 unscaled scores: positions outside [lo, hi)
// are masked out, maximum[i] and sum[i] are updated, and rescale[i]
// receives exp(old maximum - new maximum), by which the vector's weighted V
// sums are to be multiplied. Each vector's exponentials (zero outside
// [lo, hi)) go to keep(i, e), which stores them for the V products and
// returns the sum of what it stored, the tile's addition to sum[i].
template <int kG, typename Keep>
inline void SoftmaxTile(const __m512 raw[kG], int lo, int hi, float scale, float softcap, float* maximum, float* sum,
                        float* rescale, const Keep& keep) {
  const __mmask16 valid = static_cast<__mmask16>(FirstLanes(hi) & ~FirstLanes(lo));
  alignas(64) float old_max[16] = {};
  alignas(64) float new_max[16] = {};
  float tile_sum[kG];
#pragma GCC unroll 4
  for (int i = 0; i < kG; ++i) {
    __m512 scores = _mm512_mul_ps(raw[i], _mm512_set1_ps(scale));
    if (softcap > 0.0f) {
      alignas(64) float s[kTile];
      _mm512_store_ps(s, scores);
      for (int p = lo; p < hi; ++p) s[p] = tanhf(s[p] * (1.0f / softcap)) * softcap;
      scores = _mm512_load_ps(s);
    }
    // Lane p depends on position p alone, so the lanes of positions this
    // row does not see are simply replaced.
    scores = _mm512_mask_blend_ps(valid, _mm512_set1_ps(-INFINITY), scores);
    const float tile_max = _mm512_reduce_max_ps(scores);
    old_max[i] = maximum[i];
    new_max[i] = tile_max > maximum[i] ? tile_max : maximum[i];
    tile_sum[i] = keep(i, _mm512_maskz_mov_ps(valid, GgmlExp16(_mm512_sub_ps(scores, _mm512_set1_ps(new_max[i])))));
    maximum[i] = new_max[i];
  }
  // exp(old maximum - new maximum) of every vector in one call (0 on a
  // vector's first tile, where the old maximum is -inf).
  alignas(64) float all[16];
  _mm512_store_ps(all, GgmlExp16(_mm512_sub_ps(_mm512_load_ps(old_max), _mm512_load_ps(new_max))));
#pragma GCC unroll 4
  for (int i = 0; i < kG; ++i) {
    rescale[i] = all[i];
    sum[i] = sum[i] * rescale[i] + tile_sum[i];
  }
}

}  // namespace
}  // namespace pagoda::kernels::cpu::avx512
