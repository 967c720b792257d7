// Super-block weight MatMul (Q2_K..Q6_K, IQ4_XS) with Q8_K activations for AVX2.
//
// The reference (reference/vec_dot_k.cc) reduces each super-block to two
// exact integers, scaled and mins, and then does one float update per block:
//   sumf += d_x * (d * (float)scaled - dmin * (float)mins).
// Because the integers are exact, they may be summed in any order; here the
// 32 bytes of a vector are multiplied with maddubs and weighted by their
// sub-block's scale with madd, then reduced horizontally. The float update is
// the reference's, in the same order, so the result equals it bit for bit and
// cannot depend on the batch.
//
// Each super-block of a panel of 8 weight rows is unpacked once
// (k_decode_avx2.h) and every x row streams past it: each x vector serves
// the 8 rows, and the 8 rows' integer sums are reduced together so that the
// float update runs with one row per lane. A single x row of Q4_K, Q5_K or
// Q6_K (decode) takes matmul_k_decode_avx2.cc's fused lane-per-row panels.
#include <immintrin.h>

#include "pagoda/kernels/cpu/avx2/avx2_kernels.h"
#include "pagoda/kernels/cpu/avx2/avx2_util.h"
#include "pagoda/kernels/cpu/avx2/k_decode_avx2.h"
#include "pagoda/kernels/cpu/avx2/matmul_k_decode_avx2.h"

namespace pagoda::kernels::cpu::avx2 {
namespace {

static_assert(sizeof(UnpackedK) * kPanelRows <= kKScratchBytesPerSuperBlock);

__m256i Load(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
__m256i LoadAligned(const void* p) { return _mm256_load_si256(static_cast<const __m256i*>(p)); }

// The super-block's scale and minimum of the 8 rows, lane r from row r.
void RowScales(const UnpackedK* row, __m256* d, __m256* dmin) {
  *d = _mm256_setr_ps(row[0].d, row[1].d, row[2].d, row[3].d, row[4].d, row[5].d, row[6].d, row[7].d);
  *dmin = _mm256_setr_ps(row[0].dmin, row[1].dmin, row[2].dmin, row[3].dmin, row[4].dmin, row[5].dmin,
                         row[6].dmin, row[7].dmin);
}

// Adds one super-block's term to y[0..8) for one x row and the 8 unpacked
// weight rows of a panel (lanes past `rows` repeat the last row and are not
// stored); on the first super-block the running sums start from 0.
template <bool kSigns>
void Tile(const UnpackedK* row, int rows, const BlockQ8_K& x, bool first, float* y) {
  __m256i acc[8];
  for (auto& a : acc) a = _mm256_setzero_si256();
  for (int v = 0; v < 8; ++v) {
    const __m256i xv = Load(x.qs + 32 * v);
    for (int r = 0; r < 8; ++r) {
      const __m256i xs = kSigns ? _mm256_sign_epi8(xv, LoadAligned(row[r].sq + 32 * v)) : xv;
      const __m256i p = _mm256_maddubs_epi16(LoadAligned(row[r].q + 32 * v), xs);
      acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(p, LoadAligned(row[r].sc + 16 * v)));
    }
  }
  const __m256i bsums = Load(x.bsums);
  __m256i mins[8];
  for (int r = 0; r < 8; ++r) {
    acc[r] = _mm256_sub_epi32(acc[r], _mm256_madd_epi16(LoadAligned(row[r].gcorr), bsums));
    mins[r] = _mm256_madd_epi16(LoadAligned(row[r].gmin), bsums);
  }
  __m256 d, dmin;
  RowScales(row, &d, &dmin);
  // The reference's update, lane by lane: sumf += d_x * (d * scaled - dmin * mins).
  const __m256 term = _mm256_sub_ps(_mm256_mul_ps(d, _mm256_cvtepi32_ps(SumEach(acc))),
                                    _mm256_mul_ps(dmin, _mm256_cvtepi32_ps(SumEach(mins))));
  const __m256i store = FirstLanes(rows);
  const __m256 sumf = first ? _mm256_setzero_ps() : _mm256_maskload_ps(y, store);
  _mm256_maskstore_ps(y, store, _mm256_add_ps(sumf, _mm256_mul_ps(_mm256_set1_ps(x.d), term)));
}

}  // namespace

void PanelsK(const BlockQ8_K* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
             void* scratch, float* y) {
  if (m == 1 && HasDecodePanelsK(w.dtype)) return DecodePanelsK(x, w, row_begin, row_end, y);
  const int64_t nb = w.cols / kSuperBlock;
  auto* unpacked = static_cast<UnpackedK*>(scratch);
  for (int64_t j0 = row_begin; j0 < row_end; j0 += kPanelRows) {
    const int rows = static_cast<int>(row_end - j0 < kPanelRows ? row_end - j0 : kPanelRows);
    const PanelPrefetch ahead(w.data, nb * DTypeBlockBytes(w.dtype), j0 + kPanelRows, kPanelRows, w.rows, nb);
    for (int64_t b = 0; b < nb; ++b) {
      ahead.Slice(b);
      // One super-block of the 8 rows at a time stays in L1 while every x
      // row streams past it; y carries the running sums between them.
      for (int r = 0; r < kPanelRows; ++r) UnpackKBlock(w, j0 + (r < rows ? r : rows - 1), nb, b, unpacked[r]);
      const bool signs = unpacked[0].signs != 0;  // a property of the type
      for (int64_t i = 0; i < m; ++i) {
        if (signs) {
          Tile<true>(unpacked, rows, x[i * nb + b], b == 0, y + i * w.rows + j0);
        } else {
          Tile<false>(unpacked, rows, x[i * nb + b], b == 0, y + i * w.rows + j0);
        }
      }
    }
  }
}

}  // namespace pagoda::kernels::cpu::avx2
