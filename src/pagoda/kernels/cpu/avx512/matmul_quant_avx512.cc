// Quantized-weight MatMul panels for AVX-512 VNNI (see simd_matmul.h).
//
// A panel is 16 weight rows; lane l of every vector belongs to row j0 + l.
// Each 32-column block is unpacked into 8 vectors: vector t holds, in lane l, the
// 4 unsigned weight bytes that meet x bytes 4t..4t+3, so one VPDPBUSD with
// those x bytes broadcast adds 4 products to all 16 rows' exact block sums.
// VPDPBUSD multiplies unsigned by signed bytes; quant_panel_avx512.h says how
// the signed kinds are stored, and holds the per-block float update that the
// AMX panels (matmul_quant_amx.cc) share.

#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"
#include "pagoda/kernels/cpu/avx512/quant_panel_avx512.h"
#include "pagoda/kernels/cpu/quant_block_layout.h"
#include "pagoda/kernels/cpu/reference/iq4_values.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

static_assert(kPackedBytes<Kind::kQ4_1> <= kScratchBytesPerBlock);

// The first dword of the block in every row: the f16 scale in its low half
// and, for Q4_1, the f16 minimum in its high half.
inline __m512i GatherScaleDwords(const uint8_t* const row[16], int64_t offset) {
  __m512i v[4];
  LoadRows(row, offset, v);
  return _mm512_unpacklo_epi64(_mm512_unpacklo_epi32(v[0], v[1]), _mm512_unpacklo_epi32(v[2], v[3]));
}

inline __m512 LowHalves(__m512i dwords) { return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(dwords)); }

// One block of a panel, unpacked for VPDPBUSD: vector t holds in lane l the
// 4 unsigned weight bytes of row l that meet x bytes 4t..4t+3.
struct Block {
  __m512i w[8];
  __m512 d;  // scales
  __m512 m = _mm512_setzero_ps();  // minimums (Q4_1, Q5_1)
};

// The 16 rows of a panel; lanes past the last row repeat it, and their
// results are never stored. Unpacking block b prefetches slice b of the
// next panel.
struct PanelRows {
  const uint8_t* row[16];
  PanelPrefetch ahead;
  PanelRows(const MatrixView& w, int64_t j0, int rows, int64_t nb, int64_t row_bytes)
      : ahead(w.data, row_bytes, j0 + kPanelRows, kPanelRows, w.rows, nb) {
    for (int r = 0; r < 16; ++r) {
      row[r] = static_cast<const uint8_t*>(w.data) + (j0 + (r < rows ? r : rows - 1)) * row_bytes;
    }
  }
};

// Adds 0x10 to the bytes of w[t] (elements 4t..4t+3 of every lane's block)
// whose fifth bit is set: bit j of a lane's qh dword belongs to element j.
// A byte shuffle copies byte t/2 of the dword to its 4 bytes, and byte k
// tests bit 4(t%2)+k.
inline void AddFifthBits(__m512i qh, __m512i w[8]) {
  const __m512i bit4 = _mm512_set1_epi8(0x10);
#pragma GCC unroll 8
  for (int t = 0; t < 8; ++t) {
    const char c = static_cast<char>(t / 2);
    const __m512i copy = _mm512_set4_epi32(0x0c0c0c0c + c * 0x01010101, 0x08080808 + c * 0x01010101,
                                           0x04040404 + c * 0x01010101, c * 0x01010101);
    const __m512i bits = _mm512_set1_epi32(t % 2 ? static_cast<int>(0x80402010u) : 0x08040201);
    const __mmask64 set = _mm512_test_epi8_mask(_mm512_shuffle_epi8(qh, copy), bits);
    w[t] = _mm512_mask_add_epi8(w[t], set, w[t], bit4);
  }
}

template <Kind K>
inline void UnpackBlock(const PanelRows& p, int64_t b, Block* out) {
  using L = Layout<K>;
  const int64_t block = b * L::kBlockBytes;
  p.ahead.Slice(b);
  __m512i o[4];
  GatherDwords(p.row, block + L::kQsOffset, o);
  if constexpr (K == Kind::kQ8_0) {
    const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80));
    for (int t = 0; t < 4; ++t) out->w[t] = _mm512_xor_si512(o[t], bias);
    GatherDwords(p.row, block + L::kQsOffset + 16, o);
    for (int t = 0; t < 4; ++t) out->w[4 + t] = _mm512_xor_si512(o[t], bias);
  } else {
    // Low nibbles are elements 0-15, high nibbles 16-31.
    const __m512i low4 = _mm512_set1_epi8(0x0f);
    for (int t = 0; t < 4; ++t) {
      out->w[t] = _mm512_and_si512(o[t], low4);
      out->w[4 + t] = _mm512_and_si512(_mm512_srli_epi16(o[t], 4), low4);
    }
  }
  if constexpr (K == Kind::kIQ4_NL) {
    // The table's values plus 128, unsigned for VPDPBUSD.
    const __m512i table = _mm512_xor_si512(
        _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(reference::kIq4Values))),
        _mm512_set1_epi8(static_cast<char>(0x80)));
    for (int t = 0; t < 8; ++t) out->w[t] = _mm512_shuffle_epi8(table, out->w[t]);
  }
  if constexpr (K == Kind::kQ5_0 || K == Kind::kQ5_1) {
    // The block's first 16 bytes hold the scales and the fifth bits: Q5_0's
    // d in bytes 0-1 and qh in 2-5, Q5_1's d, m in 0-3 and qh in 4-7.
    __m512i h[4];
    GatherDwords(p.row, block, h);
    const __m512i qh = K == Kind::kQ5_0 ? _mm512_or_si512(_mm512_srli_epi32(h[0], 16), _mm512_slli_epi32(h[1], 16))
                                        : h[1];
    AddFifthBits(qh, out->w);
    out->d = LowHalves(h[0]);
    if constexpr (K == Kind::kQ5_1) out->m = LowHalves(_mm512_srli_epi32(h[0], 16));
  } else {
    const __m512i dm = GatherScaleDwords(p.row, block);
    out->d = LowHalves(dm);
    if constexpr (K == Kind::kQ4_1) out->m = LowHalves(_mm512_srli_epi32(dm, 16));
  }
}

// Packed scratch: per block the 8 vectors, the scales, then (Q4_1, Q5_1) the minimums.
template <Kind K>
inline void StoreBlock(const Block& blk, uint8_t* packed) {
  auto* vec = reinterpret_cast<__m512i*>(packed);
  for (int t = 0; t < 8; ++t) _mm512_store_si512(vec + t, blk.w[t]);
  auto* scales = reinterpret_cast<float*>(packed + kPackedScalesOffset);
  _mm512_store_ps(scales, blk.d);
  if constexpr (kHasMinimum<K>) _mm512_store_ps(scales + 16, blk.m);
}

template <Kind K>
inline void LoadBlock(const uint8_t* packed, Block* blk) {
  const auto* vec = reinterpret_cast<const __m512i*>(packed);
  for (int t = 0; t < 8; ++t) blk->w[t] = _mm512_load_si512(vec + t);
  const auto* scales = reinterpret_cast<const float*>(packed + kPackedScalesOffset);
  blk->d = _mm512_load_ps(scales);
  if constexpr (kHasMinimum<K>) blk->m = _mm512_load_ps(scales + 16);
}

// R x rows against a panel whose blocks come from next_block(b, &blk): per
// lane and block one float update on the exact integer block sum.
template <Kind K, int R, typename NextBlock>
void Tile(NextBlock next_block, const QuantizedRows& x, int64_t i0, int64_t nb, float* y,
          int64_t ldy, int rows) {
  __m512 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) {
    Block blk;
    next_block(b, &blk);
    for (int r = 0; r < R; ++r) {
      const int8_t* xq = x.qs + (i0 + r) * x.k + b * 32;
      // Two independent chains halve the VPDPBUSD latency on the critical path.
      __m512i s0 = _mm512_setzero_si512();
      __m512i s1 = _mm512_setzero_si512();
      for (int t = 0; t < 8; t += 2) {
        s0 = _mm512_dpbusd_epi32(s0, blk.w[t], _mm512_set1_epi32(Load32(xq + 4 * t)));
        s1 = _mm512_dpbusd_epi32(s1, blk.w[t + 1], _mm512_set1_epi32(Load32(xq + 4 * t + 4)));
      }
      const int64_t xb = (i0 + r) * (x.k / 32) + b;
      acc[r] = AddBlockTerm<K>(acc[r], _mm512_add_epi32(s0, s1), blk.d, blk.m, x, xb);
    }
  }
  for (int r = 0; r < R; ++r) _mm512_mask_storeu_ps(y + (i0 + r) * ldy, FirstLanes(rows), acc[r]);
}

// Up to 4 x rows: unpack each block straight into registers for one tile.
template <Kind K, int R>
void FusedTile(const PanelRows& p, const QuantizedRows& x, int64_t nb, float* y, int64_t ldy, int rows) {
  Tile<K, R>([&](int64_t b, Block* blk) { UnpackBlock<K>(p, b, blk); }, x, 0, nb, y, ldy, rows);
}

template <Kind K, int R>
void PackedTile(const uint8_t* packed, const QuantizedRows& x, int64_t i0, int64_t nb, float* y,
                int64_t ldy, int rows) {
  Tile<K, R>([&](int64_t b, Block* blk) { LoadBlock<K>(packed + b * kPackedBytes<K>, blk); }, x, i0, nb,
             y, ldy, rows);
}

// Unpacks weight rows [j0, j0 + rows) into packed scratch, nb blocks of kPackedBytes<K>.
template <Kind K>
void PackPanel(const MatrixView& w, int64_t j0, int rows, uint8_t* packed) {
  const int64_t nb = w.cols / 32;
  const PanelRows p(w, j0, rows, nb, nb * Layout<K>::kBlockBytes);
  for (int64_t b = 0; b < nb; ++b) {
    Block blk;
    UnpackBlock<K>(p, b, &blk);
    StoreBlock<K>(blk, packed + b * kPackedBytes<K>);
  }
}

// x rows [i0, i0 + count) past a packed panel, four at a time.
template <Kind K>
void PackedRows(const uint8_t* packed, const QuantizedRows& x, int64_t i0, int64_t count, int64_t nb, float* y,
                int64_t ldy, int rows) {
  const int64_t end = i0 + count;
  int64_t i = i0;
  for (; i + 4 <= end; i += 4) PackedTile<K, 4>(packed, x, i, nb, y, ldy, rows);
  switch (end - i) {
    case 3: PackedTile<K, 3>(packed, x, i, nb, y, ldy, rows); break;
    case 2: PackedTile<K, 2>(packed, x, i, nb, y, ldy, rows); break;
    case 1: PackedTile<K, 1>(packed, x, i, nb, y, ldy, rows); break;
    default: break;
  }
}

template <Kind K>
void Panels(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
            void* scratch, float* y) {
  const int64_t nb = w.cols / 32;
  auto* packed = static_cast<uint8_t*>(scratch);
  for (int64_t j0 = row_begin; j0 < row_end; j0 += kPanelRows) {
    const int rows = static_cast<int>(row_end - j0 < kPanelRows ? row_end - j0 : kPanelRows);
    if (x.m <= 4) {
      // Few rows: unpack each block straight into registers for one tile.
      const PanelRows p(w, j0, rows, nb, nb * Layout<K>::kBlockBytes);
      switch (x.m) {
        case 1: FusedTile<K, 1>(p, x, nb, y + j0, w.rows, rows); continue;
        case 2: FusedTile<K, 2>(p, x, nb, y + j0, w.rows, rows); continue;
        case 3: FusedTile<K, 3>(p, x, nb, y + j0, w.rows, rows); continue;
        default: FusedTile<K, 4>(p, x, nb, y + j0, w.rows, rows); continue;
      }
    }
    // More rows: unpack the panel once into scratch and stream all x rows past it.
    PackPanel<K>(w, j0, rows, packed);
    PackedRows<K>(packed, x, 0, x.m, nb, y + j0, w.rows, rows);
  }
}

// Calls f with the Kind of kind as a template argument.
template <typename F>
void WithKind(Kind kind, F f) {
  switch (kind) {
    case Kind::kQ4_0: f.template operator()<Kind::kQ4_0>(); return;
    case Kind::kQ4_1: f.template operator()<Kind::kQ4_1>(); return;
    case Kind::kQ8_0: f.template operator()<Kind::kQ8_0>(); return;
    case Kind::kQ5_0: f.template operator()<Kind::kQ5_0>(); return;
    case Kind::kQ5_1: f.template operator()<Kind::kQ5_1>(); return;
    case Kind::kIQ4_NL: f.template operator()<Kind::kIQ4_NL>(); return;
  }
}

}  // namespace

void PackQuantPanel(Kind kind, const MatrixView& w, int64_t j0, int rows, void* packed) {
  WithKind(kind, [&]<Kind K>() { PackPanel<K>(w, j0, rows, static_cast<uint8_t*>(packed)); });
}

void PackedQuantPanelRows(Kind kind, const void* packed, const QuantizedRows& x, int64_t i0, int64_t count,
                          float* y, int64_t ldy, int rows) {
  WithKind(kind, [&]<Kind K>() {
    PackedRows<K>(static_cast<const uint8_t*>(packed), x, i0, count, x.k / 32, y, ldy, rows);
  });
}

void PanelsQ4_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y) {
  Panels<Kind::kQ4_0>(x, w, row_begin, row_end, scratch, y);
}
void PanelsQ4_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y) {
  Panels<Kind::kQ4_1>(x, w, row_begin, row_end, scratch, y);
}
void PanelsQ8_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y) {
  Panels<Kind::kQ8_0>(x, w, row_begin, row_end, scratch, y);
}
void PanelsQ5_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y) {
  Panels<Kind::kQ5_0>(x, w, row_begin, row_end, scratch, y);
}
void PanelsQ5_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y) {
  Panels<Kind::kQ5_1>(x, w, row_begin, row_end, scratch, y);
}
void PanelsIQ4_NL(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                  void* scratch, float* y) {
  Panels<Kind::kIQ4_NL>(x, w, row_begin, row_end, scratch, y);
}

}  // namespace pagoda::kernels::cpu::avx512
