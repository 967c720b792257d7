// Quantized-weight MatMul panels for AMX-INT8 (see simd_matmul.h), for the
// 32-element block types.
//
// A weight panel is packed as for the AVX-512 VNNI panels (its 8 weight
// vectors per block are already a B tile: 8 rows of 16 dwords), and 16 x
// rows at a time meet it through one tile product per block, which gives
// the exact integer sums of that block for all 16 x rows and 16 weight
// rows: TDPBSUD on the unsigned packed weights, or, for the kinds stored
// plus an offset, TDPBSSD on the panel centered once (stored - offset),
// which yields the same integer the VNNI panels reach by subtracting offset
// * sum(q) (Q8_0 repacked at load skips the packing: its planes already hold
// that centered panel). Each sum then takes the float update of the VNNI panels
// (quant_panel_avx512.h's AddBlockTerm), so every output equals the VNNI
// set's bit for bit, and a row computed here in a batch of 16 or more
// equals the same row computed alone. The x rows past the last whole 16,
// and batches under 16 rows, take the VNNI code itself.
//
// The per-block scales keep the float update per block, and that update,
// not the tile unit, bounds the speed. Here the tile unit and the vector
// units did not overlap (docs/performance.md, "AMX-INT8 panels"): folding
// each block as its product came out was slower than VNNI with 2 threads,
// so a row tile runs a chunk of blocks' products first and then their
// folds.

#include "pagoda/kernels/cpu/avx512/avx512_util.h"
#include "pagoda/kernels/cpu/amx/amx_kernels.h"
#include "pagoda/kernels/cpu/amx/tile_sums_amx.h"
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/panel_planes_avx512.h"
#include "pagoda/kernels/cpu/avx512/quant_panel_avx512.h"

namespace pagoda::kernels::cpu::amx {
namespace {

using avx512::AddBlockTerm;
using avx512::kPackedBytes;
using avx512::kPackedMinimumsOffset;
using avx512::kPackedScalesOffset;

constexpr int kTileRows = 16;

// The kinds stored plus an offset (Q4_0, Q5_0, Q8_0, IQ4_NL) are centered
// once per panel, so that their sums need no -offset * sum(q) per block.
template <Kind K>
constexpr bool kCentered = avx512::kOffset<K> != 0;

// Subtracts the offset from every packed weight byte: stored values lie in
// [0, 2 * offset), so the results fit a signed byte.
template <Kind K>
void CenterPanel(uint8_t* packed, int64_t nb) {
  const __m512i offset = _mm512_set1_epi8(static_cast<char>(avx512::kOffset<K>));
  for (int64_t b = 0; b < nb; ++b) {
    auto* w = reinterpret_cast<__m512i*>(packed + b * kPackedBytes<K>);
    for (int t = 0; t < 8; ++t) _mm512_store_si512(w + t, _mm512_sub_epi8(_mm512_load_si512(w + t), offset));
  }
}

// Blocks whose sums are stored before they are folded: 12 KiB of sums,
// which stay in L1 beside the packed panel however wide the rows are. (All
// 48 blocks of the default model's 1536-column rows at once, 48 KiB, ran
// 1.4x slower; docs/performance.md.)
constexpr int64_t kChunkBlocks = 12;
constexpr int64_t kSumsInts = kTileRows * 16;

// A panel's blocks as the tiles and the folds read them: from the packed
// scratch copy (per block its 8 B-tile vectors, then the scales and
// minimums as floats)...
template <Kind K>
struct PackedBlocks {
  const uint8_t* packed;
  const void* Tile(int64_t b) const { return packed + b * kPackedBytes<K>; }
  __m512 Scales(int64_t b) const {
    return _mm512_load_ps(reinterpret_cast<const float*>(packed + b * kPackedBytes<K> + kPackedScalesOffset));
  }
  __m512 Minimums(int64_t b) const {
    if constexpr (!kHasMinimum<K>) return _mm512_setzero_ps();
    return _mm512_load_ps(reinterpret_cast<const float*>(packed + b * kPackedBytes<K> + kPackedMinimumsOffset));
  }
};

// ...or, for Q8_0 repacked at load, from its planes: the quant plane holds
// each block's signed bytes as 8 vectors of 16 rows' dwords, which is the
// B tile that packing and then centering would rebuild byte for byte, so
// the tiles read it in place and each fold widens the block's 16 f16 scales
// (the values the packed copy holds as floats). A batched step unpacked the
// 49,152-row LM head's panels twice over for nothing.
struct Q8_0Planes {
  avx512::PanelPlanes<Kind::kQ8_0> planes;
  const void* Tile(int64_t b) const { return planes.qs + b * avx512::PanelPlanes<Kind::kQ8_0>::kQsBytes; }
  __m512 Scales(int64_t b) const {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(planes.d + b * 32)));
  }
  __m512 Minimums(int64_t) const { return _mm512_setzero_ps(); }
};

// The int32 sums of blocks [b0, b1) of x rows [i0, i0 + kTileRows) against
// a panel, into sums[b - b0][row][weight row].
template <Kind K, typename Blocks>
void StoreBlockSums(const Blocks& blocks, const QuantizedRows& x, int64_t i0, int64_t b0, int64_t b1,
                    int32_t* sums) {
  StoreBlockSumsPipelined<kCentered<K>>(
      x.qs + i0 * x.k + b0 * 32, x.k, 32, [&](int64_t i) { return blocks.Tile(b0 + i); }, b1 - b0, sums);
}

// x rows [i0, i0 + kTileRows) past a panel, kChunkBlocks blocks at a
// time: first the chunk's sums through the tile unit, then its float
// updates, four x rows at a time, on accumulators that y carries between
// chunks (the same sequence of updates per output as in one pass).
template <Kind K, typename Blocks>
void TileOfRows(const Blocks& blocks, const QuantizedRows& x, int64_t i0, float* y, int64_t ldy, int rows,
                int32_t* sums) {
  const int64_t nb = x.k / 32;
  const __mmask16 lanes = avx512::FirstLanes(rows);
  for (int64_t b0 = 0; b0 < nb; b0 += kChunkBlocks) {
    const int64_t b1 = b0 + kChunkBlocks < nb ? b0 + kChunkBlocks : nb;
    StoreBlockSums<K>(blocks, x, i0, b0, b1, sums);
    for (int r = 0; r < kTileRows; r += 4) {
      float* yr = y + (i0 + r) * ldy;
      __m512 a[4];
      for (int q = 0; q < 4; ++q) a[q] = b0 == 0 ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(lanes, yr + q * ldy);
      for (int64_t b = b0; b < b1; ++b) {
        const __m512 d = blocks.Scales(b);
        const __m512 m = blocks.Minimums(b);
        for (int q = 0; q < 4; ++q) {
          const __m512i s = _mm512_load_si512(sums + (b - b0) * kSumsInts + (r + q) * 16);
          a[q] = AddBlockTerm<K, kCentered<K>>(a[q], s, d, m, x, (i0 + r + q) * nb + b);
        }
      }
      for (int q = 0; q < 4; ++q) _mm512_mask_storeu_ps(yr + q * ldy, lanes, a[q]);
    }
  }
}

// Packing a panel from the planes prefetches the next panel into L1 as it
// goes, which stalls on memory when that panel is not already in a nearer
// cache (packing took ~100 cycles a block). So while a panel's x rows run,
// the panel `distance` ahead comes into L2, a few lines after each tile of
// rows: 2 for packed panels, so that the next panel's packing finds the one
// it prefetches there; 1 where the tiles read the planes in place.
template <Kind K>
struct PanelAhead {
  const char* base = nullptr;
  int64_t bytes = 0;
  int64_t per_tile = 0;
  PanelAhead(const MatrixView& w, int64_t j0, int64_t distance, int64_t tiles) {
    if (w.panels == nullptr || tiles == 0) return;
    using P = avx512::PanelPlanes<K>;
    const int64_t panel = j0 / avx512::kPanelRows + distance;
    if (panel >= (w.rows + avx512::kPanelRows - 1) / avx512::kPanelRows) return;
    bytes = P::PanelBytes(w.cols / 32);
    base = static_cast<const char*>(w.panels) + panel * bytes;
    per_tile = (bytes + 64 * tiles - 1) / (64 * tiles) * 64;
  }
  [[gnu::always_inline]] void AfterTile(int64_t tile) const {
    const int64_t begin = tile * per_tile;
    const int64_t end = begin + per_tile < bytes ? begin + per_tile : bytes;
    for (int64_t off = begin; off < end; off += 64) _mm_prefetch(base + off, _MM_HINT_T1);
  }
};

template <Kind K>
void Panels(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
            float* y) {
  const int64_t whole = x.m / kTileRows * kTileRows;
  _tile_loadconfig(&kSumsTileConfig<32>);
  // Scratch: the packed panel, then a chunk's block sums.
  int32_t* sums = static_cast<int32_t*>(
      static_cast<void*>(static_cast<uint8_t*>(scratch) + x.k / 32 * kPackedBytes<K>));
  for (int64_t j0 = row_begin; j0 < row_end; j0 += avx512::kPanelRows) {
    const int rows = static_cast<int>(row_end - j0 < avx512::kPanelRows ? row_end - j0 : avx512::kPanelRows);
    const bool from_planes = K == Kind::kQ8_0 && w.panels != nullptr;
    auto* packed = static_cast<uint8_t*>(scratch);
    // The rows past the last whole tile take the VNNI code, on the panel as
    // packed for it (before it is centered).
    if (!from_planes || whole < x.m) avx512::PackQuantPanel(K, w, j0, rows, scratch);
    if (whole < x.m) avx512::PackedQuantPanelRows(K, packed, x, whole, x.m - whole, y + j0, w.rows, rows);
    if (from_planes) {
      const Q8_0Planes blocks{avx512::PanelPlanes<Kind::kQ8_0>(static_cast<const uint8_t*>(w.panels), x.k / 32,
                                                               j0 / avx512::kPanelRows)};
      const PanelAhead<K> ahead(w, j0, 1, whole / kTileRows);
      for (int64_t i = 0; i < whole; i += kTileRows) {
        TileOfRows<K>(blocks, x, i, y + j0, w.rows, rows, sums);
        ahead.AfterTile(i / kTileRows);
      }
      continue;
    }
    if constexpr (kCentered<K>) CenterPanel<K>(packed, x.k / 32);
    // TILELOADD's inline assembly names no memory operand: keep the
    // packing's stores before it.
    __asm__ volatile("" ::: "memory");
    const PackedBlocks<K> blocks{packed};
    const PanelAhead<K> ahead(w, j0, 2, whole / kTileRows);
    for (int64_t i = 0; i < whole; i += kTileRows) {
      TileOfRows<K>(blocks, x, i, y + j0, w.rows, rows, sums);
      ahead.AfterTile(i / kTileRows);
    }
  }
  // Back to the initial tile state, so that the kernel need not save this
  // thread's 8 KiB of tile data at every context switch.
  _tile_release();
}

// Batches under one tile of x rows gain nothing from packing for AMX.
template <Kind K>
void PanelsOrVnni(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                  float* y, QuantPanelFn vnni) {
  if (x.m < kTileRows) {
    vnni(x, w, row_begin, row_end, scratch, y);
    return;
  }
  Panels<K>(x, w, row_begin, row_end, scratch, y);
}

}  // namespace

void PanelsQ4_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y) {
  PanelsOrVnni<Kind::kQ4_0>(x, w, row_begin, row_end, scratch, y, avx512::PanelsQ4_0);
}
void PanelsQ4_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y) {
  PanelsOrVnni<Kind::kQ4_1>(x, w, row_begin, row_end, scratch, y, avx512::PanelsQ4_1);
}
void PanelsQ8_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y) {
  PanelsOrVnni<Kind::kQ8_0>(x, w, row_begin, row_end, scratch, y, avx512::PanelsQ8_0);
}
void PanelsQ5_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y) {
  PanelsOrVnni<Kind::kQ5_0>(x, w, row_begin, row_end, scratch, y, avx512::PanelsQ5_0);
}
void PanelsQ5_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y) {
  PanelsOrVnni<Kind::kQ5_1>(x, w, row_begin, row_end, scratch, y, avx512::PanelsQ5_1);
}
void PanelsIQ4_NL(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                  float* y) {
  PanelsOrVnni<Kind::kIQ4_NL>(x, w, row_begin, row_end, scratch, y, avx512::PanelsIQ4_NL);
}

}  // namespace pagoda::kernels::cpu::amx
