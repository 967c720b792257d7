// Quantized-weight MatMul panels for AVX-512 VNNI (see simd_matmul.h).
//
// A panel is 16 weight rows; lane l of every vector belongs to row j0 + l.
// Each 32-column block is unpacked into 8 vectors: vector t holds, in lane l, the
// 4 unsigned weight bytes that meet x bytes 4t..4t+3, so one VPDPBUSD with
// those x bytes broadcast adds 4 products to all 16 rows' exact block sums.
// Blocks come from the panel planes repacked at load where the view has them,
// else gathered from the GGUF rows (panel_planes_avx512.h), with the same bits.
// VPDPBUSD multiplies unsigned by signed bytes; quant_panel_avx512.h says how
// the signed kinds are stored, and holds the per-block float update that the
// AMX panels (matmul_quant_amx.cc) share.

#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"
#include "pagoda/kernels/cpu/avx512/panel_planes_avx512.h"
#include "pagoda/kernels/cpu/avx512/quant_panel_avx512.h"
#include "pagoda/kernels/cpu/quant_block_layout.h"
#include "pagoda/kernels/cpu/reference/iq4_values.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

static_assert(kPackedBytes<Kind::kQ4_1> <= kScratchBytesPerBlock);

// One block of a panel, unpacked for VPDPBUSD: vector t holds in lane l the
// 4 unsigned weight bytes of row l that meet x bytes 4t..4t+3.
struct Block {
  __m512i w[8];
  __m512 d;  // scales
  __m512 m = _mm512_setzero_ps();  // minimums (Q4_1, Q5_1)
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

// Block b from a RowSource or a PlaneSource (panel_planes_avx512.h).
template <Kind K, typename Source>
inline void UnpackBlock(const Source& src, int64_t b, Block* out) {
  src.Prefetch(b);
  __m512i o[4];
  src.Quants(b, 0, o);
  if constexpr (K == Kind::kQ8_0) {
    const __m512i bias = _mm512_set1_epi8(static_cast<char>(0x80));
    for (int t = 0; t < 4; ++t) out->w[t] = _mm512_xor_si512(o[t], bias);
    src.Quants(b, 1, o);
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
  const BlockHeader h = src.Header(b);
  if constexpr (PanelPlanes<K>::kHasQh) AddFifthBits(h.qh, out->w);
  out->d = _mm512_cvtph_ps(h.d);
  if constexpr (kHasMinimum<K>) out->m = _mm512_cvtph_ps(h.m);
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
template <Kind K, int R, typename Source>
void FusedTile(const Source& src, const QuantizedRows& x, int64_t nb, float* y, int64_t ldy, int rows) {
  Tile<K, R>([&](int64_t b, Block* blk) { UnpackBlock<K>(src, b, blk); }, x, 0, nb, y, ldy, rows);
}

template <Kind K, int R>
void PackedTile(const uint8_t* packed, const QuantizedRows& x, int64_t i0, int64_t nb, float* y,
                int64_t ldy, int rows) {
  Tile<K, R>([&](int64_t b, Block* blk) { LoadBlock<K>(packed + b * kPackedBytes<K>, blk); }, x, i0, nb,
             y, ldy, rows);
}

// Unpacks a panel's nb blocks into packed scratch, kPackedBytes<K> each.
template <Kind K, typename Source>
void PackPanel(const Source& src, int64_t nb, uint8_t* packed) {
  for (int64_t b = 0; b < nb; ++b) {
    Block blk;
    UnpackBlock<K>(src, b, &blk);
    StoreBlock<K>(blk, packed + b * kPackedBytes<K>);
  }
}

// Calls f with the source of weight rows [j0, j0 + rows) of w: its planes
// where they were packed at load, else its GGUF rows.
template <Kind K, typename F>
void WithSource(const MatrixView& w, int64_t j0, int rows, F f) {
  if (w.panels != nullptr) {
    f(PlaneSource<K>(w, j0));
  } else {
    f(RowSource<K>(w, j0, rows));
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
    WithSource<K>(w, j0, rows, [&](const auto& src) {
      if (x.m <= 4) {
        // Few rows: unpack each block straight into registers for one tile.
        switch (x.m) {
          case 1: FusedTile<K, 1>(src, x, nb, y + j0, w.rows, rows); return;
          case 2: FusedTile<K, 2>(src, x, nb, y + j0, w.rows, rows); return;
          case 3: FusedTile<K, 3>(src, x, nb, y + j0, w.rows, rows); return;
          default: FusedTile<K, 4>(src, x, nb, y + j0, w.rows, rows); return;
        }
      }
      // More rows: unpack the panel once into scratch and stream all x rows past it.
      PackPanel<K>(src, nb, packed);
      PackedRows<K>(packed, x, 0, x.m, nb, y + j0, w.rows, rows);
    });
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
  WithKind(kind, [&]<Kind K>() {
    WithSource<K>(w, j0, rows,
                  [&](const auto& src) { PackPanel<K>(src, w.cols / 32, static_cast<uint8_t*>(packed)); });
  });
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
