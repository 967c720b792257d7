// Super-block weight MatMul (Q2_K..Q6_K, IQ4_XS) with Q8_K activations for
// AMX-INT8 (see matmul_k_avx512.cc and k_unpack_avx512.h).
//
// A super-block of a 16-row panel is unpacked as for the VNNI panels: its
// weight vectors of one sub-block (4 for 16-element sub-blocks, 8 for 32)
// are already a B tile. 16 x rows at a time meet it through TDPBSUD: one
// instruction per sub-block gives the exact int32 sums of 16 x rows and 16
// weight rows. The vector units then scale each sub-block's sums by its
// integer scale and add them, exactly as the VNNI panels do (integer sums
// are the same in any order), and finish the super-block with the VNNI
// panels' own float update (AddKTerm). So every output equals the VNNI
// set's, and the reference's, bit for bit, however the batch is cut. Rows
// past the last whole 16, and batches under 16, run the VNNI code.

#include "pagoda/kernels/cpu/avx512/avx512_util.h"
#include "pagoda/kernels/cpu/amx/amx_kernels.h"
#include "pagoda/kernels/cpu/amx/tile_sums_amx.h"
#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/k_unpack_avx512.h"

namespace pagoda::kernels::cpu::amx {
namespace {

using avx512::AddKTerm;
using avx512::PackedK;

constexpr int kTileRows = 16;
constexpr int64_t kSumsInts = kTileRows * 16;

// The int32 sums of every sub-block of super-block b for x rows [i0, i0 +
// 16), into sums[s][row][weight row].
template <typename T>
void StoreSubBlockSums(const PackedK& p, const BlockQ8_K* x, int64_t i0, int64_t nb, int64_t b, int32_t* sums) {
  constexpr int kSubBlocks = 256 / T::kSub;
  constexpr int kVecs = T::kSub / 4;
  const auto stride = static_cast<int64_t>(nb * sizeof(BlockQ8_K));
  StoreBlockSumsPipelined<false>(
      x[i0 * nb + b].qs, stride, T::kSub, [&](int64_t s) { return p.w + s * kVecs; }, kSubBlocks, sums);
}

// Super-block b's term for x rows [i0, i0 + 16), into y (the running sums).
template <typename T>
void TileOfRows(const PackedK& p, const BlockQ8_K* x, int64_t i0, int64_t nb, int64_t b, float* y, int64_t ldy,
                bool first, __mmask16 store, int32_t* sums) {
  constexpr int kSubBlocks = 256 / T::kSub;
  StoreSubBlockSums<T>(p, x, i0, nb, b, sums);
  for (int r = 0; r < kTileRows; r += 4) {
    __m512i scaled[4];
    const BlockQ8_K* xr[4];
    float* yr[4];
    for (int q = 0; q < 4; ++q) {
      scaled[q] = _mm512_setzero_si512();
      xr[q] = x + (i0 + r + q) * nb + b;
      yr[q] = y + (i0 + r + q) * ldy;
    }
    for (int s = 0; s < kSubBlocks; ++s) {
      const __m512i scale = _mm512_load_si512(p.scale + s);
      for (int q = 0; q < 4; ++q) {
        const __m512i dot = _mm512_load_si512(sums + s * kSumsInts + (r + q) * 16);
        scaled[q] = _mm512_add_epi32(scaled[q], _mm512_mullo_epi32(dot, scale));
      }
    }
    AddKTerm<T::kMins, 4>(p, xr, scaled, yr, first, store);
  }
}

template <typename T>
void Panels(const BlockQ8_K* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
            float* y) {
  const int64_t nb = w.cols / kSuperBlock;
  const int64_t whole = m / kTileRows * kTileRows;
  // Scratch: the unpacked super-block, then a row tile's sub-block sums.
  auto* packed = static_cast<PackedK*>(scratch);
  auto* sums = reinterpret_cast<int32_t*>(packed + 1);
  _tile_loadconfig(&kSumsTileConfig<T::kSub>);
  for (int64_t j0 = row_begin; j0 < row_end; j0 += avx512::kPanelRows) {
    const int rows = static_cast<int>(row_end - j0 < avx512::kPanelRows ? row_end - j0 : avx512::kPanelRows);
    const __mmask16 store = avx512::FirstLanes(rows);
    for (int64_t b = 0; b < nb; ++b) {
      avx512::PackKSuperBlock(w, j0, rows, b, packed);
      // TILELOADD's inline assembly names no memory operand: keep the
      // unpacking's stores before it.
      __asm__ volatile("" ::: "memory");
      const bool first = b == 0;
      for (int64_t i = 0; i < whole; i += kTileRows) {
        TileOfRows<T>(*packed, x, i, nb, b, y + j0, w.rows, first, store, sums);
      }
      if (whole < m) avx512::PackedKRows(w.dtype, packed, x, whole, m - whole, nb, b, y + j0, w.rows, first, rows);
    }
  }
  // Back to the initial tile state (no tile data to save at context switches).
  _tile_release();
}

}  // namespace

void PanelsK(const BlockQ8_K* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
             float* y) {
  if (m < kTileRows) {
    avx512::PanelsK(x, m, w, row_begin, row_end, scratch, y);
    return;
  }
  switch (w.dtype) {
    case DType::kQ2_K: Panels<avx512::Q2K>(x, m, w, row_begin, row_end, scratch, y); break;
    case DType::kQ3_K: Panels<avx512::Q3K>(x, m, w, row_begin, row_end, scratch, y); break;
    case DType::kQ4_K: Panels<avx512::Q4K>(x, m, w, row_begin, row_end, scratch, y); break;
    case DType::kQ5_K: Panels<avx512::Q5K>(x, m, w, row_begin, row_end, scratch, y); break;
    case DType::kQ6_K: Panels<avx512::Q6K>(x, m, w, row_begin, row_end, scratch, y); break;
    case DType::kIQ4_XS: Panels<avx512::IQ4XS>(x, m, w, row_begin, row_end, scratch, y); break;
    default: break;
  }
}

}  // namespace pagoda::kernels::cpu::amx
