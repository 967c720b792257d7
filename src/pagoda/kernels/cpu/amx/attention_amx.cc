// The grouped attention's segment kernel on AMX-BF16 tiles
// (grouped_attention.h), for the amx set. Both of attention's products are
// tile products (TDPBF16PS: a 16 x 32 bf16 A times a 32 x 16 bf16 B into
// 16 x 16 f32 sums) over chunks of 32 positions, one online-softmax step
// per chunk. A block's query vectors are taken 16 at a time, in one of two
// layouts:
//  - in lanes, for blocks of many vectors (a prompt's rows): the vectors are
//    the tiles' columns. Scores come out as [position][vector] (K rows as A,
//    the queries transposed once per segment as B) and weighted V as
//    [dimension][vector] (V transposed as A, the probabilities as B), so the
//    softmax is vertical: one instruction per position covers 16 vectors,
//    with no reduction across lanes, and rescaling the weighted V sums
//    takes one FMA per dimension;
//  - in rows, for blocks of a few vectors (decode): the vectors are the
//    tiles' rows (queries as A, K transposed as B; probabilities as A, V in
//    position pairs as B), so the softmax works only on the vectors there
//    are.
// The two give the same bits: each score and each weighted V sum is the
// same sequence of bf16 products and f32 additions (a tile sum depends
// only on its own row of A and column of B, in order over the chunk), and
// the softmax does the same operations per vector and position
// (attention_tiles_amx.h).
//
// The rounding is the VDPBF16PS kernel's (attention_bf16_avx512.cc): q, K,
// V and the probabilities in bf16, a vector's sum over the same rounded
// probabilities its V sums use, everything else f32.
//
// Batch invariance: a vector's arithmetic does not depend on the other
// vectors of its tiles, nor on the layout. A position outside a vector's
// range adds a zero probability (times a zero row where no vector of the
// block sees the position), and a vector that sees none of a chunk keeps
// its state (its sums times exactly 1 plus exactly 0), so its bits are the
// same in any block, alone or among others, and on any thread.
#include "pagoda/kernels/cpu/avx512/avx512_util.h"
#include "pagoda/kernels/cpu/amx/amx_kernels.h"
#include "pagoda/kernels/cpu/amx/attention_tiles_amx.h"

namespace pagoda::kernels::cpu::amx {
namespace {

using avx512::Bf16Dims;
using avx512::Fold16;
using avx512::InterleavePairs;
using avx512::ToBf16;
using avx512::Transpose16x16;
using avx512::VPairs;

// Blocks of at most this many query vectors take the row layout.
constexpr int32_t kRowLayoutMaxVectors = 8;
constexpr int kMaxLaneGroups = kMaxBlockRows * kMaxGroupVectors / kLanes;

// Walks the chunks of [begin, end) (base: the first chunk's position),
// calling attend(chunk, c0 - base) for each: prepared(c0) where that gives
// one (a chunk converted before the call, AttentionSegmentArgs::prepared),
// else a chunk converted here into one of `buffers`. Chunk i + 1 is
// converted, into the buffer chunk i does not use, before chunk i's tile
// work, so that no tile load waits for the conversion's stores to reach
// the cache; the conversion prefetches the rows of chunk i + 2 as it goes.
template <bool kF16, typename Chunk, typename Prepared, typename Attend>
void WalkChunks(const AttentionSegmentArgs& a, int64_t begin, int64_t end, int64_t base, Chunk buffers[2],
                const Prepared& prepared, const Attend& attend) {
  ChunkRows<kF16> rows(a, a.head_dim, begin, end);
  int64_t rows_at = INT64_MIN;  // the chunk whose rows `rows` holds
  auto convert = [&](int64_t c0, Chunk& into) {
    if (rows_at == c0 - kChunk) {
      rows.Advance(c0);
    } else {
      rows.Start(c0);
    }
    rows_at = c0;
    into.Convert(rows);
    return &into;
  };
  const Chunk* current = prepared(base);
  if (current == nullptr) current = convert(base, buffers[0]);
  for (int64_t c0 = base; c0 < end; c0 += kChunk) {
    const int64_t next = c0 + kChunk;
    const Chunk* following = nullptr;
    if (next < end) {
      following = prepared(next);
      if (following == nullptr) following = convert(next, current == &buffers[0] ? buffers[1] : buffers[0]);
    }
    StoresBeforeTileLoads();
    attend(*current, static_cast<int32_t>(c0 - base));
    current = following;
  }
}

// ---- Vectors in lanes -------------------------------------------------

// A chunk's bf16 elements as A operands: K rows by position (Padded32(hd)
// apart, zero past the head), then V by dimension (rows of the chunk's 32
// positions, Padded16(hd) of them).
constexpr int64_t LaneChunkElements(int64_t hd) { return kChunk * Padded32(hd) + Padded16(hd) * kChunk; }

template <bool kF16>
void ConvertLaneChunk(const ChunkRows<kF16>& rows, int64_t hd, uint16_t* out) {
  const void* const* k_rows = rows.k();
  const void* const* v_rows = rows.v();
  const int64_t k_stride = Padded32(hd);
  uint16_t* vt = out + kChunk * k_stride;
  for (int p = 0; p < kChunk; ++p) {
    rows.PrefetchAhead(p);
    for (int64_t d = 0; d < k_stride; d += 32) {
      _mm512_store_si512(out + p * k_stride + d, Bf16Dims<kF16>(k_rows[p], d, hd));
    }
  }
  // Per 16 dimensions, the 16 position pairs' rows transposed into the
  // dimensions' rows of 16 pairs.
  for (int64_t d = 0; d < hd; d += 16) {
    __m512i by_pair[16], by_dim[16];
    for (int j = 0; j < 16; ++j) by_pair[j] = VPairs<kF16>(v_rows, j, d, hd);
    Transpose16x16(by_pair, by_dim);
    for (int l = 0; l < 16; ++l) _mm512_store_si512(vt + (d + l) * kChunk, by_dim[l]);
  }
}

// A chunk's A operands (LaneChunkElements): converted here into storage of
// its own, or a view of a prepared chunk.
template <bool kF16>
class LaneChunk {
 public:
  LaneChunk() = default;
  LaneChunk(int64_t hd, uint16_t* storage) : storage_(storage) { View(hd, storage); }

  void View(int64_t hd, const uint16_t* elements) {
    hd_ = hd;
    k_stride_ = Padded32(hd);
    k_ = elements;
    vt_ = elements + kChunk * k_stride_;
  }

  const uint16_t* k(int64_t position, int64_t d) const { return k_ + position * k_stride_ + d; }
  int64_t k_stride_bytes() const { return k_stride_ * 2; }
  const uint16_t* vt(int64_t d) const { return vt_ + d * kChunk; }

  void Convert(const ChunkRows<kF16>& rows) { ConvertLaneChunk(rows, hd_, storage_); }

 private:
  uint16_t* storage_ = nullptr;
  int64_t hd_ = 0;
  int64_t k_stride_ = 0;
  const uint16_t* k_ = nullptr;
  const uint16_t* vt_ = nullptr;
};

// 16 vectors in lanes: their softmax, their queries as B (dimension pair,
// lane) and their weighted V sums by dimension (acc row d, lane v).
struct LaneGroup {
  SoftmaxLanes softmax;
  alignas(64) uint32_t qt[kMaxPadded32 / 2 * kLanes];
  alignas(64) float acc[kMaxPadded16 * kLanes];

  void Start(const AttentionSegmentArgs& a, int group, int64_t base, int64_t hd) {
    const float* q[kLanes];
    softmax.Start(a, group, base, hd, q);
    for (int64_t d = 0; d < Padded32(hd); d += 32) {
      __m512i by_lane[kLanes], by_pair[kLanes];
      for (int v = 0; v < kLanes; ++v) by_lane[v] = q[v] ? Bf16Dims<false>(q[v], d, hd) : _mm512_setzero_si512();
      Transpose16x16(by_lane, by_pair);
      for (int k = 0; k < 16; ++k) _mm512_store_si512(qt + (d / 2 + k) * kLanes, by_pair[k]);
    }
    for (int64_t d = 0; d < Padded16(hd); ++d) _mm512_store_ps(acc + d * kLanes, _mm512_setzero_ps());
  }

  void Finish(const AttentionSegmentArgs& a, int group, int64_t hd) const {
    const int64_t stride = PartialStride(hd);
    float* partial = a.partial + int64_t{group} * kLanes * stride;
    softmax.Finish(partial, stride);
    for (int64_t d = 0; d < hd; d += 16) {
      __m512i by_dim[16], by_lane[16];
      for (int l = 0; l < 16; ++l) by_dim[l] = _mm512_load_si512(acc + (d + l) * kLanes);
      Transpose16x16(by_dim, by_lane);
      for (int v = 0; v < kLanes; ++v) {
        if ((softmax.active >> v) & 1) {
          _mm512_mask_storeu_ps(partial + v * stride + 2 + d, FirstLanes(hd - d), _mm512_castsi512_ps(by_lane[v]));
        }
      }
    }
  }
};

// Tiles: 0 and 1 the scores of the chunk's halves (C), 2 and 4 K rows or V
// columns (A), 3 the queries (B), 5 the probabilities (B), 6 and 7 weighted
// V sums (C).
//
// The chunk's scores for group g ([position][lane], raw products) into s.
// Every group's scores are stored before any is read back, so that the
// vector loads do not wait on the tile stores just issued.
template <bool kF16>
void ScoresInLanes(const LaneGroup& g, const LaneChunk<kF16>& chunk, int64_t hd, float* s) {
  _tile_zero(0);
  _tile_zero(1);
  for (int64_t d = 0; d < Padded32(hd); d += 32) {
    _tile_loadd(3, g.qt + d / 2 * kLanes, 64);
    _tile_loadd(2, chunk.k(0, d), chunk.k_stride_bytes());
    _tile_loadd(4, chunk.k(kTile, d), chunk.k_stride_bytes());
    _tile_dpbf16ps(0, 2, 3);
    _tile_dpbf16ps(1, 4, 3);
  }
  _tile_stored(0, s, 64);
  _tile_stored(1, s + kTile * kLanes, 64);
}

// The online softmax's step over a chunk for group g, from its scores s
// (overwritten with the scaled ones): the probabilities as B (pt[pair][lane])
// and each lane's rescale of its weighted V sums.
// The maxima run in four independent chains (a maximum is exact in any
// order), so that the loop does not wait on one chain's latency.
template <bool kSoftcap>
inline __m512 SoftmaxInLanes(LaneGroup& g, __mmask16 seeing, int32_t c0, float scale, float softcap, float* s,
                             uint32_t* pt) {
  // Which lanes see each position.
  const __m512i first = _mm512_load_si512(g.softmax.first), last = _mm512_load_si512(g.softmax.last);
  __mmask16 valid[kChunk];
  __m512 chunk_max[4];
  for (int i = 0; i < 4; ++i) chunk_max[i] = _mm512_set1_ps(-INFINITY);
  for (int p = 0; p < kChunk; ++p) {
    const __m512i position = _mm512_set1_epi32(c0 + p);
    valid[p] = _mm512_mask_cmple_epi32_mask(seeing, first, position) & _mm512_cmpgt_epi32_mask(last, position);
    const __m512 x = ScaledScores<kSoftcap>(_mm512_load_ps(s + p * kLanes), valid[p], scale, softcap);
    _mm512_store_ps(s + p * kLanes, x);
    chunk_max[p % 4] = _mm512_max_ps(chunk_max[p % 4], x);
  }
  const __m512 new_max = g.softmax.NewMaximum(
      _mm512_max_ps(_mm512_max_ps(chunk_max[0], chunk_max[1]), _mm512_max_ps(chunk_max[2], chunk_max[3])));
  __m512 pair_sums[kChunk / 2];
  for (int j = 0; j < kChunk / 2; ++j) {
    const __m512 even = _mm512_maskz_mov_ps(
        valid[2 * j], ProbabilityExp16(_mm512_sub_ps(_mm512_load_ps(s + 2 * j * kLanes), new_max)));
    const __m512 odd = _mm512_maskz_mov_ps(
        valid[2 * j + 1], ProbabilityExp16(_mm512_sub_ps(_mm512_load_ps(s + (2 * j + 1) * kLanes), new_max)));
    const __m512i pair = InterleavePairs(ToBf16(even, odd));
    _mm512_store_si512(pt + j * kLanes, pair);
    pair_sums[j] = PairSums(pair);
  }
  for (int step = 8; step >= 1; step /= 2) {
    for (int j = 0; j < step; ++j) pair_sums[j] = _mm512_add_ps(pair_sums[j], pair_sums[j + step]);
  }
  const __m512 rescale = g.softmax.Rescale(new_max, seeing);
  g.softmax.Update(new_max, rescale, pair_sums[0], seeing);
  return rescale;
}

// The chunk's weighted V for group g on tiles, every dimension's stored
// before any is added to the rescaled sums (as the scores, so that no load
// waits on a tile store).
template <bool kF16>
void WeightedVInLanes(LaneGroup& g, const LaneChunk<kF16>& chunk, int64_t hd, const uint32_t* pt, __m512 rescale) {
  alignas(64) float o[kMaxPadded16 * kLanes];
  StoresBeforeTileLoads();
  _tile_loadd(5, pt, 64);
  for (int64_t d = 0; d < Padded16(hd); d += 32) {
    _tile_zero(6);
    _tile_loadd(2, chunk.vt(d), kChunk * 2);
    _tile_dpbf16ps(6, 2, 5);
    _tile_stored(6, o + d * kLanes, 64);
    if (d + 16 < Padded16(hd)) {
      _tile_zero(7);
      _tile_loadd(4, chunk.vt(d + 16), kChunk * 2);
      _tile_dpbf16ps(7, 4, 5);
      _tile_stored(7, o + (d + 16) * kLanes, 64);
    }
  }
  for (int64_t d = 0; d < Padded16(hd); ++d) {
    float* acc = g.acc + d * kLanes;
    _mm512_store_ps(acc, _mm512_fmadd_ps(_mm512_load_ps(acc), rescale, _mm512_load_ps(o + d * kLanes)));
  }
}

// One chunk for every lane group: all groups' scores, then each group's
// softmax and weighted V.
template <bool kF16>
void AttendChunkInLanes(LaneGroup* groups, int num_groups, const LaneChunk<kF16>& chunk, int32_t c0, int64_t hd,
                        float scale, float softcap) {
  alignas(64) float s[kMaxLaneGroups][kChunk * kLanes];
  __mmask16 seeing[kMaxLaneGroups];
  for (int g = 0; g < num_groups; ++g) {
    seeing[g] = groups[g].softmax.Seeing(c0);
    if (seeing[g] != 0) ScoresInLanes(groups[g], chunk, hd, s[g]);
  }
  for (int g = 0; g < num_groups; ++g) {
    if (seeing[g] == 0) continue;
    alignas(64) uint32_t pt[kChunk / 2 * kLanes];
    const __m512 rescale = softcap > 0.0f ? SoftmaxInLanes<true>(groups[g], seeing[g], c0, scale, softcap, s[g], pt)
                                          : SoftmaxInLanes<false>(groups[g], seeing[g], c0, scale, softcap, s[g], pt);
    WeightedVInLanes(groups[g], chunk, hd, pt, rescale);
  }
}

template <bool kF16>
void AttendInLanes(const AttentionSegmentArgs& a, int64_t begin, int64_t end) {
  const int64_t hd = a.head_dim;
  const int64_t base = begin / kChunk * kChunk;
  const int groups = (a.num_rows * a.num_vectors + kLanes - 1) / kLanes;
  LaneGroup lane_groups[kMaxLaneGroups];
  for (int g = 0; g < groups; ++g) lane_groups[g].Start(a, g, base, hd);
  alignas(64) uint16_t storage[2][LaneChunkElements(kMaxAttentionHeadDim)];
  LaneChunk<kF16> buffers[2] = {LaneChunk<kF16>(hd, storage[0]), LaneChunk<kF16>(hd, storage[1])};
  // The chunks that lie whole inside [begin, end) among the prepared ones,
  // as views (two, for the chunk being attended and the next).
  LaneChunk<kF16> views[2];
  int view = 0;
  auto prepared = [&](int64_t c0) -> const LaneChunk<kF16>* {
    const int64_t j = (c0 - a.prepared_first) / kChunk;
    if (a.prepared == nullptr || c0 < begin || c0 + kChunk > end || c0 < a.prepared_first || j >= a.prepared_count) {
      return nullptr;
    }
    view ^= 1;
    views[view].View(hd, static_cast<const uint16_t*>(a.prepared) + j * LaneChunkElements(hd));
    return &views[view];
  };
  _tile_loadconfig(&kAttentionTileConfig);
  WalkChunks<kF16>(a, begin, end, base, buffers, prepared, [&](const LaneChunk<kF16>& chunk, int32_t c0) {
    AttendChunkInLanes(lane_groups, groups, chunk, c0, hd, a.scale, a.softcap);
  });
  _tile_release();
  for (int g = 0; g < groups; ++g) lane_groups[g].Finish(a, g, hd);
}

// ---- Vectors in rows --------------------------------------------------

// The tile configuration for n query vectors: A and C tiles of n rows.
struct RowConfigs {
  TileConfig by_rows[kRowLayoutMaxVectors + 1];
};
constexpr RowConfigs kRowConfigs = [] {
  RowConfigs configs{};
  for (int n = 0; n <= kRowLayoutMaxVectors; ++n) {
    configs.by_rows[n] = kAttentionTileConfig;
    for (int tile : {0, 1, 2, 5, 6, 7}) configs.by_rows[n].rows[tile] = static_cast<uint8_t>(n);
  }
  return configs;
}();

// A chunk as B operands: K transposed into dimension pairs, per half
// (kt[half][pair][position]), and V in position pairs (vp[pair][dimension],
// rows of Padded16(hd) pairs).
template <bool kF16>
class RowChunk {
 public:
  explicit RowChunk(int64_t hd) : hd_(hd), vp_stride_(Padded16(hd)) {}

  const uint32_t* kt(int half, int64_t d) const { return kt_ + KtOffset(half, d); }
  const uint32_t* vp(int64_t d) const { return vp_ + d; }
  int64_t vp_stride_bytes() const { return vp_stride_ * 4; }

  void Convert(const ChunkRows<kF16>& rows) {
    const void* const* k_rows = rows.k();
    const void* const* v_rows = rows.v();
    for (int half = 0; half < 2; ++half) {
      for (int64_t d = 0; d < Padded32(hd_); d += 32) {
        __m512i by_position[kTile], by_pair[kTile];
        for (int p = 0; p < kTile; ++p) {
          if (d == 0) rows.PrefetchAhead(half * kTile + p);
          by_position[p] = Bf16Dims<kF16>(k_rows[half * kTile + p], d, hd_);
        }
        Transpose16x16(by_position, by_pair);
        uint32_t* out = kt_ + KtOffset(half, d);
        for (int k = 0; k < 16; ++k) _mm512_store_si512(out + k * kTile, by_pair[k]);
      }
    }
    for (int j = 0; j < kChunk / 2; ++j) {
      for (int64_t d = 0; d < hd_; d += 16) {
        _mm512_store_si512(vp_ + j * vp_stride_ + d, VPairs<kF16>(v_rows, j, d, hd_));
      }
    }
  }

 private:
  // Where dimension pair d / 2 of half `half` starts in kt_.
  static int64_t KtOffset(int half, int64_t d) { return half * kMaxPadded32 / 2 * kTile + d / 2 * kTile; }

  const int64_t hd_;
  const int64_t vp_stride_;
  alignas(64) uint32_t kt_[2 * kMaxPadded32 / 2 * kTile];
  alignas(64) uint32_t vp_[kChunk / 2 * kMaxPadded16];
};

// Up to 16 vectors in rows: their softmax, queries as A (rows of
// Padded32(hd) bf16), the chunk's probabilities as A (rows of 32) and the
// weighted V sums by vector (rows of Padded16(hd)).
struct RowGroup {
  SoftmaxLanes softmax;
  alignas(64) uint16_t q[kRowLayoutMaxVectors * kMaxPadded32];
  alignas(64) uint16_t p[kRowLayoutMaxVectors * kChunk];
  alignas(64) float acc[kRowLayoutMaxVectors * kMaxPadded16];

  void Start(const AttentionSegmentArgs& a, int64_t base, int64_t hd, int32_t vectors) {
    const float* queries[kLanes];
    softmax.Start(a, 0, base, hd, queries);
    for (int v = 0; v < vectors; ++v) {
      for (int64_t d = 0; d < Padded32(hd); d += 32) {
        _mm512_store_si512(q + v * Padded32(hd) + d,
                           queries[v] ? Bf16Dims<false>(queries[v], d, hd) : _mm512_setzero_si512());
      }
      _mm512_store_si512(p + v * kChunk, _mm512_setzero_si512());
      for (int64_t d = 0; d < Padded16(hd); d += 16) _mm512_store_ps(acc + v * Padded16(hd) + d, _mm512_setzero_ps());
    }
  }

  void Finish(const AttentionSegmentArgs& a, int64_t hd) const {
    const int64_t stride = PartialStride(hd);
    softmax.Finish(a.partial, stride);
    for (int v = 0; v < kRowLayoutMaxVectors; ++v) {
      if (((softmax.active >> v) & 1) == 0) continue;
      for (int64_t d = 0; d < hd; d += 16) {
        _mm512_mask_storeu_ps(a.partial + v * stride + 2 + d, FirstLanes(hd - d),
                              _mm512_load_ps(acc + v * Padded16(hd) + d));
      }
    }
  }
};

// Tiles: 0 and 1 the scores of the chunk's halves (C), 2 the queries (A), 3
// and 4 K pairs or V pairs (B), 5 the probabilities (A), 6 and 7 weighted V
// sums (C). The A and C tiles have a row per query vector (kRowConfigs), so
// the products do no work for rows that are not there.
template <bool kF16, bool kSoftcap>
void AttendChunkInRows(RowGroup& g, const RowChunk<kF16>& chunk, int32_t c0, int64_t hd, float scale,
                       float softcap) {
  const __mmask16 seeing = g.softmax.Seeing(c0);
  if (seeing == 0) return;
  _tile_zero(0);
  _tile_zero(1);
  for (int64_t d = 0; d < Padded32(hd); d += 32) {
    _tile_loadd(2, g.q + d, Padded32(hd) * 2);
    _tile_loadd(3, chunk.kt(0, d), 64);
    _tile_loadd(4, chunk.kt(1, d), 64);
    _tile_dpbf16ps(0, 2, 3);
    _tile_dpbf16ps(1, 2, 4);
  }
  alignas(64) float s[kLanes * kChunk];
  _tile_stored(0, s, kChunk * 4);
  _tile_stored(1, s + kTile, kChunk * 4);

  // Each seeing vector's scaled scores and maximum.
  __mmask16 valid[kLanes][2];
  alignas(64) float chunk_max[kLanes];
  _mm512_store_ps(chunk_max, _mm512_set1_ps(-INFINITY));
  for (int v = 0; v < kLanes; ++v) {
    if (((seeing >> v) & 1) == 0) continue;
    const int32_t lo = g.softmax.first[v] - c0, hi = g.softmax.last[v] - c0;
    __m512 x[2];
    for (int half = 0; half < 2; ++half) {
      valid[v][half] = static_cast<__mmask16>(LanesBelow(hi - half * kTile) & ~LanesBelow(lo - half * kTile));
      x[half] = ScaledScores<kSoftcap>(_mm512_load_ps(s + v * kChunk + half * kTile), valid[v][half], scale, softcap);
      _mm512_store_ps(s + v * kChunk + half * kTile, x[half]);
    }
    chunk_max[v] = _mm512_reduce_max_ps(_mm512_max_ps(x[0], x[1]));
  }
  const __m512 new_max = g.softmax.NewMaximum(_mm512_load_ps(chunk_max));
  alignas(64) float new_maxima[kLanes], chunk_sum[kLanes], rescales[kLanes];
  _mm512_store_ps(new_maxima, new_max);
  _mm512_store_ps(chunk_sum, _mm512_setzero_ps());
  for (int v = 0; v < kLanes; ++v) {
    if (((seeing >> v) & 1) == 0) continue;
    const __m512 m = _mm512_set1_ps(new_maxima[v]);
    const __m512 e0 =
        _mm512_maskz_mov_ps(valid[v][0], ProbabilityExp16(_mm512_sub_ps(_mm512_load_ps(s + v * kChunk), m)));
    const __m512 e1 =
        _mm512_maskz_mov_ps(valid[v][1], ProbabilityExp16(_mm512_sub_ps(_mm512_load_ps(s + v * kChunk + kTile), m)));
    const __m512i pairs = ToBf16(e0, e1);
    _mm512_store_si512(g.p + v * kChunk, pairs);
    chunk_sum[v] = Fold16(PairSums(pairs));
  }
  const __m512 rescale = g.softmax.Rescale(new_max, seeing);
  _mm512_store_ps(rescales, rescale);
  g.softmax.Update(new_max, rescale, _mm512_load_ps(chunk_sum), seeing);

  StoresBeforeTileLoads();
  _tile_loadd(5, g.p, 64);
  alignas(64) float o[2 * kLanes * 16];
  for (int64_t d = 0; d < Padded16(hd); d += 32) {
    const bool second = d + 16 < Padded16(hd);
    _tile_zero(6);
    _tile_loadd(3, chunk.vp(d), chunk.vp_stride_bytes());
    _tile_dpbf16ps(6, 5, 3);
    if (second) {
      _tile_zero(7);
      _tile_loadd(4, chunk.vp(d + 16), chunk.vp_stride_bytes());
      _tile_dpbf16ps(7, 5, 4);
    }
    _tile_stored(6, o, 64);
    if (second) _tile_stored(7, o + kLanes * 16, 64);
    for (int v = 0; v < kLanes; ++v) {
      if (((seeing >> v) & 1) == 0) continue;
      const __m512 r = _mm512_set1_ps(rescales[v]);
      for (int half = 0; half < (second ? 2 : 1); ++half) {
        float* acc = g.acc + v * Padded16(hd) + d + half * 16;
        _mm512_store_ps(acc, _mm512_fmadd_ps(_mm512_load_ps(acc), r, _mm512_load_ps(o + half * kLanes * 16 + v * 16)));
      }
    }
  }
}

template <bool kF16>
void AttendInRows(const AttentionSegmentArgs& a, int64_t begin, int64_t end) {
  const int64_t hd = a.head_dim;
  const int64_t base = begin / kChunk * kChunk;
  const int32_t vectors = a.num_rows * a.num_vectors;
  RowGroup group;
  group.Start(a, base, hd, vectors);
  RowChunk<kF16> chunks[2] = {RowChunk<kF16>(hd), RowChunk<kF16>(hd)};
  _tile_loadconfig(&kRowConfigs.by_rows[vectors]);
  auto none = [](int64_t) -> const RowChunk<kF16>* { return nullptr; };
  WalkChunks<kF16>(a, begin, end, base, chunks, none, [&](const RowChunk<kF16>& chunk, int32_t c0) {
    if (a.softcap > 0.0f) {
      AttendChunkInRows<kF16, true>(group, chunk, c0, hd, a.scale, a.softcap);
    } else {
      AttendChunkInRows<kF16, false>(group, chunk, c0, hd, a.scale, a.softcap);
    }
  });
  _tile_release();
  group.Finish(a, hd);
}

template <bool kF16>
void AttendSegmentTilesT(const AttentionSegmentArgs& a) {
  int64_t begin = 0, end = 0;
  if (!SeenRange(a, &begin, &end)) return;
  if (a.num_rows * a.num_vectors <= kRowLayoutMaxVectors) {
    AttendInRows<kF16>(a, begin, end);
  } else {
    AttendInLanes<kF16>(a, begin, end);
  }
}

}  // namespace

int64_t PreparedChunkBytes(int64_t head_dim) { return LaneChunkElements(head_dim) * 2; }

void PrepareChunk(const AttentionSegmentArgs& args, int64_t first, void* out) {
  auto convert = [&]<bool kF16>() {
    ChunkRows<kF16> rows(args, args.head_dim, first, first + kChunk);
    rows.Start(first);
    ConvertLaneChunk(rows, args.head_dim, static_cast<uint16_t*>(out));
  };
  if (args.f16) {
    convert.template operator()<true>();
  } else {
    convert.template operator()<false>();
  }
}

void AttendSegmentTiles(const AttentionSegmentArgs& args) {
  if (args.f16) {
    AttendSegmentTilesT<true>(args);
  } else {
    AttendSegmentTilesT<false>(args);
  }
}

}  // namespace pagoda::kernels::cpu::amx
