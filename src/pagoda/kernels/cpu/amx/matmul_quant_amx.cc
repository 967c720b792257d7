// Quantized-weight MatMul panels for AMX-INT8 (see simd_matmul.h), for the
// 32-element block types.
//
// A weight panel is packed as for the AVX-512 VNNI panels (its 8 weight
// vectors per block are already a B tile: 8 rows of 16 dwords), and 16 x
// rows at a time meet it through TDPBSUD: one instruction gives the exact
// integer sums of a block for all 16 x rows and 16 weight rows. Each sum
// then takes the float update of the VNNI panels (quant_panel_avx512.h's
// AddBlockTerm), so every output equals the VNNI set's bit for bit, and a
// row computed here in a batch of 16 or more equals the same row computed
// alone. The x rows past the last whole 16, and batches under 16 rows, take
// the VNNI code itself.
//
// The per-block scales keep the float update per block, and that update,
// not the tile unit, bounds the speed. Here the tile unit and the vector
// units did not overlap (docs/performance.md, "AMX-INT8 panels"): folding
// each block as its product came out was slower than VNNI with 2 threads,
// so a row tile runs all its products first and then all its folds.

#include "pagoda/kernels/cpu/avx512/avx512_util.h"
#include "pagoda/kernels/cpu/amx/amx_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/quant_panel_avx512.h"

namespace pagoda::kernels::cpu::amx {
namespace {

using avx512::AddBlockTerm;
using avx512::kPackedBytes;
using avx512::kPackedMinimumsOffset;
using avx512::kPackedScalesOffset;

constexpr int kTileRows = 16;

// LDTILECFG's 64-byte operand (palette 1). Tiles 0 and 1 hold 16 x rows'
// 32 bytes of one block (A), 2 and 3 a packed block's 8 rows of 16 dwords
// (B), and 4 to 7 the 16 x 16 block sums (C) of four blocks in flight. A
// constant object, because LDTILECFG's inline assembly tells the compiler
// it reads only 8 of its bytes.
struct alignas(64) TileConfig {
  uint8_t palette;
  uint8_t start_row;
  uint8_t reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
};
constexpr TileConfig kTileConfig = {
    .palette = 1,
    .start_row = 0,
    .reserved = {},
    .colsb = {32, 32, 64, 64, 64, 64, 64, 64},
    .rows = {16, 16, 8, 8, 16, 16, 16, 16},
};

// Tile numbers are part of the instruction, so each of the four sums tiles
// in flight has its own function; the A and B tiles alternate between two.
#define PAGODA_AMX_BLOCK_SUMS(name, a, bt, c)                                              \
  inline void name(const int8_t* xq, int64_t x_stride, const uint8_t* block) {            \
    _tile_loadd(a, xq, x_stride);                                                         \
    _tile_loadd(bt, block, 64);                                                           \
    _tile_zero(c);                                                                        \
    _tile_dpbsud(c, a, bt);                                                               \
  }
PAGODA_AMX_BLOCK_SUMS(BlockSumsInTile4, 0, 2, 4)
PAGODA_AMX_BLOCK_SUMS(BlockSumsInTile5, 1, 3, 5)
PAGODA_AMX_BLOCK_SUMS(BlockSumsInTile6, 0, 2, 6)
PAGODA_AMX_BLOCK_SUMS(BlockSumsInTile7, 1, 3, 7)
#undef PAGODA_AMX_BLOCK_SUMS

// The int32 sums of every block of x rows [i0, i0 + kTileRows) against a
// packed panel, into sums[b][row][weight row]. Four blocks' products are
// issued before their sums are stored, so that no store waits on the
// product just issued.
template <Kind K>
void StoreBlockSums(const uint8_t* packed, const QuantizedRows& x, int64_t i0, int32_t* sums) {
  const int64_t nb = x.k / 32;
  const int8_t* xq = x.qs + i0 * x.k;
  constexpr int64_t kSumsInts = kTileRows * 16;
  int64_t b = 0;
  for (; b + 4 <= nb; b += 4) {
    BlockSumsInTile4(xq + b * 32, x.k, packed + b * kPackedBytes<K>);
    BlockSumsInTile5(xq + (b + 1) * 32, x.k, packed + (b + 1) * kPackedBytes<K>);
    BlockSumsInTile6(xq + (b + 2) * 32, x.k, packed + (b + 2) * kPackedBytes<K>);
    BlockSumsInTile7(xq + (b + 3) * 32, x.k, packed + (b + 3) * kPackedBytes<K>);
    _tile_stored(4, sums + b * kSumsInts, 64);
    _tile_stored(5, sums + (b + 1) * kSumsInts, 64);
    _tile_stored(6, sums + (b + 2) * kSumsInts, 64);
    _tile_stored(7, sums + (b + 3) * kSumsInts, 64);
  }
  for (; b < nb; ++b) {
    BlockSumsInTile4(xq + b * 32, x.k, packed + b * kPackedBytes<K>);
    _tile_stored(4, sums + b * kSumsInts, 64);
  }
}

// x rows [i0, i0 + kTileRows) past a packed panel: first every block's
// sums through the tile unit, then the float updates, four x rows at a
// time with one accumulator each.
template <Kind K>
void TileOfRows(const uint8_t* packed, const QuantizedRows& x, int64_t i0, float* y, int64_t ldy, int rows,
                int32_t* sums) {
  const int64_t nb = x.k / 32;
  StoreBlockSums<K>(packed, x, i0, sums);
  const __mmask16 lanes = avx512::FirstLanes(rows);
  for (int r = 0; r < kTileRows; r += 4) {
    __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
    for (int64_t b = 0; b < nb; ++b) {
      const uint8_t* block = packed + b * kPackedBytes<K>;
      const __m512 d = _mm512_load_ps(reinterpret_cast<const float*>(block + kPackedScalesOffset));
      const __m512 m = kHasMinimum<K> ? _mm512_load_ps(reinterpret_cast<const float*>(block + kPackedMinimumsOffset))
                                      : _mm512_setzero_ps();
      for (int q = 0; q < 4; ++q) {
        const __m512i s = _mm512_load_si512(sums + (b * kTileRows + r + q) * 16);
        acc[q] = AddBlockTerm<K>(acc[q], s, d, m, x, (i0 + r + q) * nb + b);
      }
    }
    for (int q = 0; q < 4; ++q) _mm512_mask_storeu_ps(y + (i0 + r + q) * ldy, lanes, acc[q]);
  }
}

template <Kind K>
void Panels(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
            float* y) {
  const int64_t whole = x.m / kTileRows * kTileRows;
  _tile_loadconfig(&kTileConfig);
  // Scratch (kScratchBytesPerBlock per block): the packed panel, then a
  // row tile's block sums.
  int32_t* sums = static_cast<int32_t*>(
      static_cast<void*>(static_cast<uint8_t*>(scratch) + x.k / 32 * kPackedBytes<K>));
  for (int64_t j0 = row_begin; j0 < row_end; j0 += avx512::kPanelRows) {
    const int rows = static_cast<int>(row_end - j0 < avx512::kPanelRows ? row_end - j0 : avx512::kPanelRows);
    avx512::PackQuantPanel(K, w, j0, rows, scratch);
    // TILELOADD's inline assembly names no memory operand: keep the
    // packing's stores before it.
    __asm__ volatile("" ::: "memory");
    const auto* packed = static_cast<const uint8_t*>(scratch);
    for (int64_t i = 0; i < whole; i += kTileRows) TileOfRows<K>(packed, x, i, y + j0, w.rows, rows, sums);
    if (whole < x.m) avx512::PackedQuantPanelRows(K, packed, x, whole, x.m - whole, y + j0, w.rows, rows);
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
