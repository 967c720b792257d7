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
// A segment (at most kAttentionSegment positions) runs in three passes per
// group of up to 16 query vectors (the tiles' rows): every score of the
// segment on tiles; then, per vector, the segment's maximum, its
// probabilities (bf16) and their sum; then weighted V, accumulated on tiles
// over the whole segment. The partial is the segment's own (maximum, sum,
// weighted V), which the fold combines across segments. An online softmax
// per chunk made every chunk wait on its tile products, then its softmax,
// then its products again; here the tile unit and the vector units each run
// a pass of independent work.
//
// A tile sum depends only on its own row of A and column of B, and each
// vector's softmax only on its own scores, so a vector's bits do not depend
// on the other vectors of its tiles: a decode row computes what the same row
// computes inside a prompt. Positions a vector does not see have
// probability 0. A half that no vector of the block sees is skipped (its
// scores stay masked either way); in the half where the block's last
// position falls, the V pairs past it are zeroed on the way, since those
// slots may hold anything (the fixture's NaNs, another sequence's
// leftovers) and a zero probability times NaN is NaN.
#include "pagoda/kernels/cpu/avx512/avx512_util.h"
#include "pagoda/kernels/cpu/amx/amx_kernels.h"
#include "pagoda/kernels/cpu/amx/attention_tiles_amx.h"
#include "pagoda/kernels/cpu/kv_pairs_layout.h"

namespace pagoda::kernels::cpu::amx {
namespace {

using avx512::Bf16Dims;
using avx512::Fold16;
using avx512::ToBf16;

constexpr int kHalf = 16;  // positions per K or V tile
constexpr int kMaxHalves = kAttentionSegment / kHalf;

// The passes' tile configurations, for n query vectors (the rows of A and
// C). Each pass keeps four C tiles accumulating and loads its B operands
// into two tiles in turn, so that a load waits only on the product two
// before it, not on the one just issued (tiles are not renamed: a tile
// cannot be reloaded until the products reading it are done).
//  - Scores: 0-3 C, four halves' scores (two chunks); 4 and 5 a
//    32-dimension slice of the queries (A); 6 and 7 a half's K slice (B, 16
//    pair rows). Head sizes that are multiples of 64 take scores by pairs
//    instead: 0 and 1 C, two halves' scores; 2 and 3 a 64-dimension slice of
//    the queries; 4-7 both halves' K slices, none of them reloaded while a
//    product reads it (ScoresByPairs).
//  - Weighted V: 0-3 C, four 16-dimension slices; 4 and 5 a half's
//    probabilities (A, 16 bf16); 6 and 7 a half's V slice (B, 8 pair rows).
struct PassConfigs {
  TileConfig scores[kLanes + 1];
  TileConfig scores_by_pairs[kLanes + 1];
  TileConfig weighted_v[kLanes + 1];
};
constexpr PassConfigs kPassConfigs = [] {
  PassConfigs configs{};
  for (int n = 0; n <= kLanes; ++n) {
    const auto rows = static_cast<uint8_t>(n);
    TileConfig& p = configs.scores_by_pairs[n];
    p.palette = 1;
    for (int t = 0; t < 8; ++t) {
      p.rows[t] = t < 4 ? rows : 16;
      p.colsb[t] = 64;
    }
    TileConfig& s = configs.scores[n];
    TileConfig& w = configs.weighted_v[n];
    s.palette = w.palette = 1;
    for (int t = 0; t < 4; ++t) {
      s.rows[t] = w.rows[t] = rows;
      s.colsb[t] = w.colsb[t] = 64;
    }
    for (int t : {4, 5}) {
      s.rows[t] = w.rows[t] = rows;
      s.colsb[t] = 64;
      w.colsb[t] = 32;
    }
    for (int t : {6, 7}) {
      s.rows[t] = 16;
      w.rows[t] = 8;
      s.colsb[t] = w.colsb[t] = 64;
    }
  }
  return configs;
}();

// One product into C tile c (0-3) from A tile a (4 or 5) and B tile b (6 or
// 7): the tile numbers are part of the instruction, so each combination is
// spelled out.
#define PAGODA_PAIRS_PRODUCT(c, a, b) \
  case (c) * 4 + ((a) - 4) * 2 + ((b) - 6): _tile_dpbf16ps(c, a, b); return;
inline void Product(int c, int a, int b) {
  switch (c * 4 + (a - 4) * 2 + (b - 6)) {
    PAGODA_PAIRS_PRODUCT(0, 4, 6) PAGODA_PAIRS_PRODUCT(0, 4, 7) PAGODA_PAIRS_PRODUCT(0, 5, 6) PAGODA_PAIRS_PRODUCT(0, 5, 7)
    PAGODA_PAIRS_PRODUCT(1, 4, 6) PAGODA_PAIRS_PRODUCT(1, 4, 7) PAGODA_PAIRS_PRODUCT(1, 5, 6) PAGODA_PAIRS_PRODUCT(1, 5, 7)
    PAGODA_PAIRS_PRODUCT(2, 4, 6) PAGODA_PAIRS_PRODUCT(2, 4, 7) PAGODA_PAIRS_PRODUCT(2, 5, 6) PAGODA_PAIRS_PRODUCT(2, 5, 7)
    PAGODA_PAIRS_PRODUCT(3, 4, 6) PAGODA_PAIRS_PRODUCT(3, 4, 7) PAGODA_PAIRS_PRODUCT(3, 5, 6) PAGODA_PAIRS_PRODUCT(3, 5, 7)
    default: return;
  }
}
#undef PAGODA_PAIRS_PRODUCT
inline void LoadA(int a, const void* p, int64_t stride) {
  if (a == 4) {
    _tile_loadd(4, p, stride);
  } else {
    _tile_loadd(5, p, stride);
  }
}
inline void LoadB(int b, const void* p, int64_t stride) {
  if (b == 6) {
    _tile_loadd(6, p, stride);
  } else {
    _tile_loadd(7, p, stride);
  }
}
inline void ZeroC() {
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
}
inline void StoreC(float* p, int64_t stride, int64_t step) {
  _tile_stored(0, p, stride);
  _tile_stored(1, p + step, stride);
  _tile_stored(2, p + 2 * step, stride);
  _tile_stored(3, p + 3 * step, stride);
}

// Where a segment's halves lie in the cache, from `base` (a multiple of
// kChunk): each half's K and V within its block's run, or null where no row
// of the block sees the half; V's pair rows in `zeroed` for the half that
// runs past the block's last position.
class SegmentHalves {
 public:
  SegmentHalves(const AttentionSegmentArgs& a, int64_t base, int64_t begin, int64_t end)
      : a_(a), count_(static_cast<int>((end - base + kHalf - 1) / kHalf)) {
    for (int h = 0; h < count_; ++h) {
      const int64_t first = base + int64_t{h} * kHalf;
      k_[h] = v_[h] = nullptr;
      if (first + kHalf <= begin) continue;
      const int64_t run = int64_t{a.block_table[first / a.block_size]} * a.block_size * a.slot_stride + a.head_offset;
      k_[h] = static_cast<const uint16_t*>(a.k) + run + first % a.block_size * 2;
      v_[h] = static_cast<const uint16_t*>(a.v) + run + first % a.block_size / 2 * a.head_dim * 2;
      if (first + kHalf > end) v_[h] = ZeroedTail(v_[h], end - first);
    }
  }

  int count() const { return count_; }
  bool present(int h) const { return h < count_ && k_[h] != nullptr; }
  // Dimensions [d, d + 32) of half h's K (16 pair rows, k_stride_bytes apart).
  const uint16_t* k(int h, int64_t d) const { return k_[h] + d / 2 * a_.block_size * 2; }
  int64_t k_stride_bytes() const { return a_.block_size * 4; }
  // Dimensions [d, d + 16) of half h's V (8 pair rows, v_stride_bytes apart).
  const uint16_t* v(int h, int64_t d) const { return v_[h] + d * 2; }
  int64_t v_stride_bytes() const { return a_.head_dim * 4; }

  // Half h's K or V lines into the cache ahead of their tile loads (a
  // decode row's context comes from L3 or DRAM, and a tile load stalls the
  // tile unit until all 16 of its rows have arrived).
  void PrefetchK(int h) const {
    if (!present(h)) return;
    for (int64_t pair = 0; pair < a_.head_dim / 2; ++pair) {
      _mm_prefetch(reinterpret_cast<const char*>(k_[h]) + pair * k_stride_bytes(), _MM_HINT_T0);
    }
  }
  void PrefetchV(int h) const {
    if (!present(h)) return;
    for (int64_t line = 0; line < kHalf / 2 * v_stride_bytes(); line += 64) {
      _mm_prefetch(reinterpret_cast<const char*>(v_[h]) + line, _MM_HINT_T0);
    }
  }

 private:
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
  const int count_;
  const uint16_t* k_[kMaxHalves];
  const uint16_t* v_[kMaxHalves];
  alignas(64) uint16_t zeroed_[kHalf * kMaxAttentionHeadDim];
};

// Up to 16 query vectors of a block (vectors [16 group, + n)) over one
// segment: their queries in bf16 (rows of hd), the positions each sees
// relative to the segment's base, their scores and probabilities by
// position (rows of kAttentionSegment).
struct SegmentGroup {
  int n;
  __mmask16 active;
  int32_t first[kLanes], last[kLanes];
  float* partial[kLanes];
  alignas(64) uint16_t q[kLanes * kMaxAttentionHeadDim];
  alignas(64) float s[kLanes * kAttentionSegment];
  alignas(64) uint16_t p[kLanes * kAttentionSegment];

  void Start(const AttentionSegmentArgs& a, int group, int64_t base) {
    const int64_t hd = a.head_dim;
    const int32_t vectors = a.num_rows * a.num_vectors;
    n = vectors - group * kLanes < kLanes ? vectors - group * kLanes : kLanes;
    active = 0;
    for (int v = 0; v < n; ++v) {
      const int32_t index = group * kLanes + v;
      const int32_t r = index / a.num_vectors;
      const float* query = a.q + r * a.q_row_stride + (index % a.num_vectors) * hd;
      for (int64_t d = 0; d < hd; d += 32) _mm512_store_si512(q + v * hd + d, Bf16Dims<false>(query, d, hd));
      first[v] = last[v] = 0;
      partial[v] = a.partial + int64_t{index} * PartialStride(hd);
      if (a.begins[r] >= a.ends[r]) continue;
      first[v] = static_cast<int32_t>(a.begins[r] - base);
      last[v] = static_cast<int32_t>(a.ends[r] - base);
      active = static_cast<__mmask16>(active | (1u << v));
    }
  }
};

// Four present halves' scores for one 32-dimension slice of the queries in
// A tile kA, straight-line (a switch per product cost a mispredicted
// indirect branch each).
#define PAGODA_PAIRS_FOUR_SCORES(kA)                          \
  _tile_loadd(kA, g.q + d, hd * 2);                           \
  _tile_loadd(6, halves.k(h0, d), halves.k_stride_bytes());     \
  _tile_dpbf16ps(0, kA, 6);                                   \
  _tile_loadd(7, halves.k(h0 + 1, d), halves.k_stride_bytes()); \
  _tile_dpbf16ps(1, kA, 7);                                   \
  _tile_loadd(6, halves.k(h0 + 2, d), halves.k_stride_bytes()); \
  _tile_dpbf16ps(2, kA, 6);                                   \
  _tile_loadd(7, halves.k(h0 + 3, d), halves.k_stride_bytes()); \
  _tile_dpbf16ps(3, kA, 7);

// Pass 1 for head sizes that are multiples of 64, two halves at a time:
// C tiles 0 and 1, the queries' 64-dimension slice in A tiles 2 and 3 (once
// per group where that is the whole head), and the two halves' K slices in
// B tiles 4 to 7, so that no K load waits on a product still reading its
// tile.
void ScoresByPairs(SegmentGroup& g, const SegmentHalves& halves, int64_t hd) {
  _tile_loadconfig(&kPassConfigs.scores_by_pairs[g.n]);
  if (hd == 64) {
    _tile_loadd(2, g.q, hd * 2);
    _tile_loadd(3, g.q + 32, hd * 2);
  }
  for (int h = 0; h < halves.count(); h += 2) {
    // K four halves ahead; V of these halves, for pass 3.
    halves.PrefetchK(h + 4);
    halves.PrefetchK(h + 5);
    halves.PrefetchV(h);
    halves.PrefetchV(h + 1);
    _tile_zero(0);
    _tile_zero(1);
    for (int64_t d = 0; d < hd; d += 64) {
      if (hd != 64) {
        _tile_loadd(2, g.q + d, hd * 2);
        _tile_loadd(3, g.q + d + 32, hd * 2);
      }
      if (halves.present(h)) {
        _tile_loadd(4, halves.k(h, d), halves.k_stride_bytes());
        _tile_loadd(5, halves.k(h, d + 32), halves.k_stride_bytes());
        _tile_dpbf16ps(0, 2, 4);
        _tile_dpbf16ps(0, 3, 5);
      }
      if (halves.present(h + 1)) {
        _tile_loadd(6, halves.k(h + 1, d), halves.k_stride_bytes());
        _tile_loadd(7, halves.k(h + 1, d + 32), halves.k_stride_bytes());
        _tile_dpbf16ps(1, 2, 6);
        _tile_dpbf16ps(1, 3, 7);
      }
    }
    _tile_stored(0, g.s + h * kHalf, kAttentionSegment * 4);
    _tile_stored(1, g.s + (h + 1) * kHalf, kAttentionSegment * 4);
  }
}

// Pass 1: the group's scores of every present half, four halves (two
// chunks) at a time.
void Scores(SegmentGroup& g, const SegmentHalves& halves, int64_t hd) {
  if (hd % 64 == 0) {
    ScoresByPairs(g, halves, hd);
    return;
  }
  _tile_loadconfig(&kPassConfigs.scores[g.n]);
  for (int h0 = 0; h0 < halves.count(); h0 += 4) {
    ZeroC();
    for (int h = h0 + 4; h < h0 + 8; ++h) halves.PrefetchK(h);
    if (halves.present(h0) && halves.present(h0 + 1) && halves.present(h0 + 2) && halves.present(h0 + 3)) {
      for (int64_t d = 0; d < hd; d += 64) {
        PAGODA_PAIRS_FOUR_SCORES(4)
        if (d + 32 < hd) {
          d += 32;
          PAGODA_PAIRS_FOUR_SCORES(5)
          d -= 32;
        }
      }
    } else {
      int a = 4, b = 6;
      for (int64_t d = 0; d < hd; d += 32, a ^= 1) {
        LoadA(a, g.q + d, hd * 2);
        for (int i = 0; i < 4; ++i) {
          if (!halves.present(h0 + i)) continue;
          LoadB(b, halves.k(h0 + i, d), halves.k_stride_bytes());
          Product(i, a, b);
          b ^= 1;
        }
      }
    }
    StoreC(g.s + h0 * kHalf, kAttentionSegment * 4, kHalf);
  }
}
#undef PAGODA_PAIRS_FOUR_SCORES

// Pass 2: each active vector's maximum over the positions it sees, its
// probabilities (bf16, 0 where it does not see) and their sum, added pair
// by pair chunk after chunk and folded once; the other rows of p are zeroed.
template <bool kSoftcap>
void Probabilities(SegmentGroup& g, int halves, float scale, float softcap, float* maximum, float* sum) {
  const int positions = (halves + 1) / 2 * kChunk;
  for (int v = 0; v < g.n; ++v) {
    float* s = g.s + v * kAttentionSegment;
    uint16_t* p = g.p + v * kAttentionSegment;
    if (((g.active >> v) & 1) == 0) {
      for (int j = 0; j < positions; j += kChunk) _mm512_store_si512(p + j, _mm512_setzero_si512());
      continue;
    }
    auto valid = [&](int j) {
      return static_cast<__mmask16>(LanesBelow(g.last[v] - j) & ~LanesBelow(g.first[v] - j));
    };
    __m512 top = _mm512_set1_ps(-INFINITY);
    for (int j = 0; j < positions; j += kHalf) {
      const __m512 x = ScaledScores<kSoftcap>(_mm512_load_ps(s + j), valid(j), scale, softcap);
      _mm512_store_ps(s + j, x);
      top = _mm512_max_ps(top, x);
    }
    maximum[v] = _mm512_reduce_max_ps(top);
    const __m512 m = _mm512_set1_ps(maximum[v]);
    __m512 pair_sums = _mm512_setzero_ps();
    for (int j = 0; j < positions; j += kChunk) {
      const __m512 e0 = _mm512_maskz_mov_ps(valid(j), ProbabilityExp16(_mm512_sub_ps(_mm512_load_ps(s + j), m)));
      const __m512 e1 =
          _mm512_maskz_mov_ps(valid(j + kHalf), ProbabilityExp16(_mm512_sub_ps(_mm512_load_ps(s + j + kHalf), m)));
      const __m512i pairs = ToBf16(e0, e1);
      _mm512_store_si512(p + j, pairs);
      pair_sums = _mm512_add_ps(pair_sums, PairSums(pairs));
    }
    sum[v] = Fold16(pair_sums);
  }
}

// One present half's weighted V for dimensions [d0, d0 + 64), its
// probabilities in A tile kA, straight-line.
#define PAGODA_PAIRS_HALF_WEIGHTED_V(kA, h)                            \
  _tile_loadd(kA, g.p + (h) * kHalf, kAttentionSegment * 2);           \
  _tile_loadd(6, halves.v(h, d0), halves.v_stride_bytes());            \
  _tile_dpbf16ps(0, kA, 6);                                            \
  _tile_loadd(7, halves.v(h, d0 + 16), halves.v_stride_bytes());       \
  _tile_dpbf16ps(1, kA, 7);                                            \
  _tile_loadd(6, halves.v(h, d0 + 32), halves.v_stride_bytes());       \
  _tile_dpbf16ps(2, kA, 6);                                            \
  _tile_loadd(7, halves.v(h, d0 + 48), halves.v_stride_bytes());       \
  _tile_dpbf16ps(3, kA, 7);

// Pass 3: weighted V, 64 dimensions at a time, summed on tiles over every
// present half, into the active vectors' partials.
void WeightedV(const SegmentGroup& g, const SegmentHalves& halves, int64_t hd) {
  StoresBeforeTileLoads();
  _tile_loadconfig(&kPassConfigs.weighted_v[g.n]);
  alignas(64) float o[4 * kLanes * 16];
  for (int64_t d0 = 0; d0 < hd; d0 += 64) {
    const int slices = hd - d0 < 64 ? static_cast<int>((hd - d0) / 16) : 4;
    ZeroC();
    int a = 4, b = 6;
    for (int h = 0; h < halves.count(); ++h) {
      // V again, two halves ahead: pass 1 brought it into L2, but a
      // segment's K and V (64 KiB at 64 dimensions) outgrow L1 before here.
      if (d0 == 0) halves.PrefetchV(h + 2);
      if (slices == 4 && h + 1 < halves.count() && halves.present(h) && halves.present(h + 1)) {
        if (d0 == 0) halves.PrefetchV(h + 3);
        PAGODA_PAIRS_HALF_WEIGHTED_V(4, h)
        PAGODA_PAIRS_HALF_WEIGHTED_V(5, h + 1)
        ++h;
        continue;
      }
      if (!halves.present(h)) continue;
      LoadA(a, g.p + h * kHalf, kAttentionSegment * 2);
      for (int t = 0; t < slices; ++t) {
        LoadB(b, halves.v(h, d0 + t * 16), halves.v_stride_bytes());
        Product(t, a, b);
        b ^= 1;
      }
      a ^= 1;
    }
    StoreC(o, 64, kLanes * 16);
    for (int v = 0; v < g.n; ++v) {
      if (((g.active >> v) & 1) == 0) continue;
      for (int t = 0; t < slices; ++t) {
        _mm512_storeu_ps(g.partial[v] + 2 + d0 + t * 16, _mm512_load_ps(o + t * kLanes * 16 + v * 16));
      }
    }
  }
}
#undef PAGODA_PAIRS_HALF_WEIGHTED_V

}  // namespace

void AttendSegmentPairs(const AttentionSegmentArgs& a) {
  const int64_t hd = a.head_dim;
  int64_t begin = 0, end = 0;
  if (!SeenRange(a, &begin, &end)) return;
  const int64_t base = begin / kChunk * kChunk;
  const SegmentHalves halves(a, base, begin, end);
  for (int h = 0; h < 4; ++h) halves.PrefetchK(h);
  SegmentGroup g;
  for (int group = 0; group * kLanes < a.num_rows * a.num_vectors; ++group) {
    g.Start(a, group, base);
    Scores(g, halves, hd);
    alignas(64) float maximum[kLanes], sum[kLanes];
    if (a.softcap > 0.0f) {
      Probabilities<true>(g, halves.count(), a.scale, a.softcap, maximum, sum);
    } else {
      Probabilities<false>(g, halves.count(), a.scale, a.softcap, maximum, sum);
    }
    WeightedV(g, halves, hd);
    _tile_release();
    for (int v = 0; v < g.n; ++v) {
      if (((g.active >> v) & 1) == 0) continue;
      g.partial[v][0] = maximum[v];
      g.partial[v][1] = sum[v];
    }
  }
}

}  // namespace pagoda::kernels::cpu::amx
