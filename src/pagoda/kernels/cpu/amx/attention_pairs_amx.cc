// The grouped attention's segment kernel for a BF16 KV cache
// (kv_pairs_layout.h) on AMX-BF16 tiles, for the amx set, at every
// position. The cache's runs already are the second operands of both tile
// products, so the tiles load K and V straight from it: scores are the
// queries (A, a row per query vector) times 16 positions of K (B, 16 rows of
// dimension pairs), and weighted V is the probabilities (A) times 16
// positions of V (B, 8 rows of position pairs). Nothing is converted per
// step, which is what kept the f16 cache's first 256 positions on f32 FMAs
// (attention_amx.cc converts each chunk of an f16 cache as it reads it).
//
// The query vectors of a block are taken 16 at a time as the tiles' rows
// (the row layout of attention_amx.cc, with its online softmax,
// attention_tiles_amx.h), over chunks of 32 positions in two halves of 16.
// A tile sum depends only on its own row of A and column of B, so a
// vector's bits do not depend on the other vectors of its tiles: a decode
// row computes what the same row computes inside a prompt. A half that no
// vector of the group sees is skipped (its scores stay masked and its
// probabilities zero either way); in a half that the group sees only in
// part, the V pairs past the last position any vector sees are zeroed on
// the way, since those slots may hold anything (the fixture's NaNs, another
// sequence's leftovers) and a zero probability times NaN is NaN.
#include "pagoda/kernels/cpu/avx512/avx512_util.h"
#include "pagoda/kernels/cpu/amx/amx_kernels.h"
#include "pagoda/kernels/cpu/amx/attention_tiles_amx.h"
#include "pagoda/kernels/cpu/kv_pairs_layout.h"

namespace pagoda::kernels::cpu::amx {
namespace {

constexpr int kHalf = 16;  // positions per half chunk: one K or V tile

// Tiles, for n query vectors: 0 and 1 the scores of the chunk's halves, then
// the weighted V sums of two 16-dimension slices (C, n rows); 2 a 32-dimension
// slice of the queries (A); 3 a half's K slice (B, 16 pair rows); 4 and 5
// the halves' probabilities (A, n rows of 16 bf16); 6 and 7 a half's V for
// two 16-dimension slices (B, 8 pair rows).
struct PairsConfigs {
  TileConfig by_rows[kLanes + 1];
};
constexpr PairsConfigs kPairsConfigs = [] {
  PairsConfigs configs{};
  for (int n = 0; n <= kLanes; ++n) {
    TileConfig& c = configs.by_rows[n];
    c.palette = 1;
    const auto rows = static_cast<uint8_t>(n);
    for (int t : {0, 1, 2}) {
      c.rows[t] = rows;
      c.colsb[t] = 64;
    }
    c.rows[3] = 16;
    c.colsb[3] = 64;
    for (int t : {4, 5}) {
      c.rows[t] = rows;
      c.colsb[t] = 32;
    }
    for (int t : {6, 7}) {
      c.rows[t] = 8;
      c.colsb[t] = 64;
    }
  }
  return configs;
}();

// Where a chunk's halves lie in the cache: each half's K and V within its
// block's run (null: no vector of the group sees the half), and V's pair
// rows in `zeroed` where the half runs past the last position seen.
class ChunkHalves {
 public:
  ChunkHalves(const AttentionSegmentArgs& a, int64_t begin, int64_t end) : a_(a), begin_(begin), end_(end) {}

  void Locate(int64_t c0) {
    for (int h = 0; h < 2; ++h) {
      const int64_t first = c0 + h * kHalf;
      k_[h] = v_[h] = nullptr;
      if (first >= end_ || first + kHalf <= begin_) continue;
      k_[h] = static_cast<const uint16_t*>(a_.k) + Run(first) + first % a_.block_size * 2;
      v_[h] = static_cast<const uint16_t*>(a_.v) + Run(first) + first % a_.block_size / 2 * a_.head_dim * 2;
      if (first + kHalf > end_) v_[h] = ZeroedTail(v_[h], end_ - first);
    }
    // The next chunk's K and V, so that its tile loads do not wait on
    // memory: a decode row's context comes from L3 or DRAM, and each tile
    // load of 16 rows stalls the tile unit until all of them have arrived.
    for (int h = 0; h < 2; ++h) {
      const int64_t first = c0 + kChunk + h * kHalf;
      if (first >= end_) break;
      const int64_t i0 = first % a_.block_size;
      const auto* k = reinterpret_cast<const char*>(static_cast<const uint16_t*>(a_.k) + Run(first));
      const auto* v = reinterpret_cast<const char*>(static_cast<const uint16_t*>(a_.v) + Run(first) +
                                                    i0 / 2 * a_.head_dim * 2);
      for (int64_t pair = 0; pair < a_.head_dim / 2; ++pair) _mm_prefetch(k + pair * a_.block_size * 4 + i0 * 4, _MM_HINT_T0);
      for (int64_t line = 0; line < kHalf / 2 * a_.head_dim * 4; line += 64) _mm_prefetch(v + line, _MM_HINT_T0);
    }
  }

  bool present(int h) const { return k_[h] != nullptr; }
  // Dimensions [d, d + 32) of half h's K (16 pair rows, k_stride_bytes apart).
  const uint16_t* k(int h, int64_t d) const { return k_[h] + d / 2 * a_.block_size * 2; }
  int64_t k_stride_bytes() const { return a_.block_size * 4; }
  // Dimensions [d, d + 16) of half h's V (8 pair rows, v_stride_bytes apart).
  const uint16_t* v(int h, int64_t d) const { return v_[h] + d * 2; }
  int64_t v_stride_bytes() const { return a_.head_dim * 4; }

 private:
  // The first element of the run of the block that holds `position`.
  int64_t Run(int64_t position) const {
    return int64_t{a_.block_table[position / a_.block_size]} * a_.block_size * a_.slot_stride + a_.head_offset;
  }

  // The half's 8 V pair rows with the positions from `seen` on zeroed.
  const uint16_t* ZeroedTail(const uint16_t* rows, int64_t seen) {
    const int64_t hd = a_.head_dim;
    for (int r = 0; r < kHalf / 2; ++r) {
      // Both positions of the pair, only the first (its low halves), or none.
      const __m512i keep = 2 * r + 1 < seen ? _mm512_set1_epi32(-1)
                           : 2 * r < seen   ? _mm512_set1_epi32(0xffff)
                                            : _mm512_setzero_si512();
      for (int64_t d = 0; d < hd; d += 16) {
        const __m512i pairs = _mm512_loadu_si512(rows + (r * hd + d) * 2);
        _mm512_store_si512(zeroed_ + (r * hd + d) * 2, _mm512_and_si512(pairs, keep));
      }
    }
    StoresBeforeTileLoads();
    return zeroed_;
  }

  const AttentionSegmentArgs& a_;
  const int64_t begin_, end_;
  const uint16_t* k_[2];
  const uint16_t* v_[2];
  alignas(64) uint16_t zeroed_[kHalf * kMaxAttentionHeadDim];
};

// One chunk for a group of n vectors: the scores of its present halves,
// the softmax step, then weighted V two 16-dimension slices at a time.
template <bool kSoftcap>
void AttendChunk(RowGroup<kLanes>& g, int n, const ChunkHalves& halves, int32_t c0, int64_t hd, float scale,
                 float softcap) {
  const __mmask16 seeing = g.softmax.Seeing(c0);
  if (seeing == 0) return;
  _tile_zero(0);
  _tile_zero(1);
  for (int64_t d = 0; d < hd; d += 32) {
    _tile_loadd(2, g.q + d, hd * 2);
    if (halves.present(0)) {
      _tile_loadd(3, halves.k(0, d), halves.k_stride_bytes());
      _tile_dpbf16ps(0, 2, 3);
    }
    if (halves.present(1)) {
      _tile_loadd(3, halves.k(1, d), halves.k_stride_bytes());
      _tile_dpbf16ps(1, 2, 3);
    }
  }
  alignas(64) float s[kLanes * kChunk];
  _tile_stored(0, s, kChunk * 4);
  _tile_stored(1, s + kTile, kChunk * 4);
  alignas(64) float rescales[kLanes];
  SoftmaxInRows<kSoftcap>(g.softmax, seeing, c0, scale, softcap, s, g.p, rescales);

  StoresBeforeTileLoads();
  _tile_loadd(4, g.p, kChunk * 2);
  _tile_loadd(5, g.p + kHalf, kChunk * 2);
  alignas(64) float o[2 * kLanes * 16];
  for (int64_t d = 0; d < hd; d += 32) {
    _tile_zero(0);
    _tile_zero(1);
    if (halves.present(0)) {
      _tile_loadd(6, halves.v(0, d), halves.v_stride_bytes());
      _tile_loadd(7, halves.v(0, d + 16), halves.v_stride_bytes());
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
    }
    if (halves.present(1)) {
      _tile_loadd(6, halves.v(1, d), halves.v_stride_bytes());
      _tile_loadd(7, halves.v(1, d + 16), halves.v_stride_bytes());
      _tile_dpbf16ps(0, 5, 6);
      _tile_dpbf16ps(1, 5, 7);
    }
    _tile_stored(0, o, 64);
    _tile_stored(1, o + kLanes * 16, 64);
    for (int v = 0; v < n; ++v) {
      if (((seeing >> v) & 1) == 0) continue;
      const __m512 r = _mm512_set1_ps(rescales[v]);
      for (int half = 0; half < 2; ++half) {
        float* acc = g.acc + v * hd + d + half * 16;
        _mm512_store_ps(acc, _mm512_fmadd_ps(_mm512_load_ps(acc), r, _mm512_load_ps(o + half * kLanes * 16 + v * 16)));
      }
    }
  }
}

}  // namespace

void AttendSegmentPairs(const AttentionSegmentArgs& a) {
  const int64_t hd = a.head_dim;
  int64_t begin = INT64_MAX, end = INT64_MIN;
  for (int32_t r = 0; r < a.num_rows; ++r) {
    if (a.begins[r] >= a.ends[r]) continue;
    begin = a.begins[r] < begin ? a.begins[r] : begin;
    end = a.ends[r] > end ? a.ends[r] : end;
  }
  if (begin >= end) return;
  const int64_t base = begin / kChunk * kChunk;
  const int32_t vectors = a.num_rows * a.num_vectors;
  ChunkHalves halves(a, begin, end);
  for (int group = 0; group * kLanes < vectors; ++group) {
    const int n = vectors - group * kLanes < kLanes ? vectors - group * kLanes : kLanes;
    RowGroup<kLanes> g;
    g.Start(a, group, base, hd, n);
    _tile_loadconfig(&kPairsConfigs.by_rows[n]);
    for (int64_t c0 = base; c0 < end; c0 += kChunk) {
      halves.Locate(c0);
      const auto rel = static_cast<int32_t>(c0 - base);
      if (a.softcap > 0.0f) {
        AttendChunk<true>(g, n, halves, rel, hd, a.scale, a.softcap);
      } else {
        AttendChunk<false>(g, n, halves, rel, hd, a.scale, a.softcap);
      }
    }
    _tile_release();
    g.Finish(a, group, hd);
  }
}

}  // namespace pagoda::kernels::cpu::amx
