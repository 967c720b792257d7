// Decode MatMul panels for Q4_0, Q5_0, Q5_1 and IQ4_NL on AVX2 (one x row).
//
// The packing panels (matmul_quant_avx2.cc) unpack a whole panel into
// scratch so that many x rows can share it; with one x row that store and
// reload is pure overhead. Here each block of the 8 rows is gathered
// (lane l = row j0 + l, vector t = the 4 weight bytes that meet x bytes
// 4t..4t+3), unpacked in registers and multiplied at once. The fifth bits of
// Q5_0/Q5_1 come from the same 16-byte gather as the block's scale, so a
// block costs two gathers. The integer block sums and the float update per
// block are those of the packing Tile, so results are bit-identical to it
// (and to the reference) whatever the batch.
#include "pagoda/kernels/cpu/avx2/matmul_quant_decode_avx2.h"

#include <immintrin.h>

#include "pagoda/kernels/cpu/avx2/avx2_kernels.h"
#include "pagoda/kernels/cpu/avx2/avx2_util.h"
#include "pagoda/kernels/cpu/avx2/quant_block_avx2.h"
#include "pagoda/kernels/cpu/reference/iq4_values.h"

namespace pagoda::kernels::cpu::avx2 {
namespace {

// One block of the panel in registers: w[t] as the packing panels store it
// (unsigned n, or for IQ4_NL the signed table value), the scales and (Q5_1)
// the minimums.
struct Block {
  __m256i w[8];
  __m256 d;
  __m256 m;
};

template <Kind K>
inline void Unpack(const uint8_t* const row[8], int64_t block, Block* out) {
  using L = Layout<K>;
  // Dwords 0 and 1 of the block's first 16 bytes: the f16 scale (Q5_1: and
  // minimum) and, for Q5_0/Q5_1, the fifth bits.
  __m256i v[4];
  LoadRows(row, block, v);
  const __m256i t0 = _mm256_unpacklo_epi32(v[0], v[1]);
  const __m256i t2 = _mm256_unpacklo_epi32(v[2], v[3]);
  const __m256i h0 = _mm256_unpacklo_epi64(t0, t2);
  out->d = HalfLow(h0);
  if constexpr (kHasMinimum<K>) out->m = HalfLow(_mm256_srli_epi32(h0, 16));

  __m256i o[4];
  GatherDwords(row, block + L::kQsOffset, o);
  const __m256i low4 = _mm256_set1_epi8(0x0f);
  // Low nibbles are elements 0-15, high nibbles 16-31.
  for (int t = 0; t < 4; ++t) {
    out->w[t] = _mm256_and_si256(o[t], low4);
    out->w[4 + t] = _mm256_and_si256(_mm256_srli_epi16(o[t], 4), low4);
  }
  if constexpr (kHasFifthBits<K>) {
    const __m256i h1 = _mm256_unpackhi_epi64(t0, t2);
    // Q5_0: d in bytes 0-1, qh in 2-5; Q5_1: d, m in 0-3, qh in 4-7.
    const __m256i qh =
        K == Kind::kQ5_0 ? _mm256_or_si256(_mm256_srli_epi32(h0, 16), _mm256_slli_epi32(h1, 16)) : h1;
    const __m256i qh4 = _mm256_slli_epi32(qh, 4);
    for (int t = 0; t < 8; ++t) out->w[t] = _mm256_or_si256(out->w[t], FifthBits(qh, qh4, t));
  }
  if constexpr (K == Kind::kIQ4_NL) {
    const __m256i table =
        _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(reference::kIq4Values)));
    for (int t = 0; t < 8; ++t) out->w[t] = _mm256_shuffle_epi8(table, out->w[t]);
  }
}

// The exact integer sum of the block's 32 products for every lane.
template <Kind K>
inline __m256i BlockSum(const Block& blk, const int8_t* xq) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i sumi = _mm256_setzero_si256();
  for (int t0 = 0; t0 < 8; t0 += kSteps16<K>) {
    __m256i s16 = _mm256_setzero_si256();
    for (int t = t0; t < t0 + kSteps16<K>; ++t) {
      const __m256i xb = Broadcast32(xq + 4 * t);
      const __m256i p = kSigned<K> ? _mm256_maddubs_epi16(_mm256_abs_epi8(blk.w[t]), _mm256_sign_epi8(xb, blk.w[t]))
                                   : _mm256_maddubs_epi16(blk.w[t], xb);
      s16 = _mm256_add_epi16(s16, p);
    }
    sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(s16, ones));
  }
  return sumi;
}

template <Kind K>
void DecodePanels(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y) {
  static_assert(K == Kind::kQ4_0 || K == Kind::kQ5_0 || K == Kind::kQ5_1 || K == Kind::kIQ4_NL);
  using L = Layout<K>;
  const int64_t nb = w.cols / 32;
  const int64_t row_bytes = nb * L::kBlockBytes;
  for (int64_t j0 = row_begin; j0 < row_end; j0 += kPanelRows) {
    const int rows = static_cast<int>(row_end - j0 < kPanelRows ? row_end - j0 : kPanelRows);
    const uint8_t* row[8];
    // Lanes past the last row repeat it; their results are never stored.
    for (int r = 0; r < 8; ++r) {
      row[r] = static_cast<const uint8_t*>(w.data) + (j0 + (r < rows ? r : rows - 1)) * row_bytes;
    }
    const PanelPrefetch ahead(w.data, row_bytes, j0 + kPanelRows, kPanelRows, w.rows, nb);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
      ahead.Slice(b);
      Block blk;
      Unpack<K>(row, b * L::kBlockBytes, &blk);
      const __m256i sumi = BlockSum<K>(blk, x.qs + b * 32);
      // The packing Tile's update: (n - offset) . q = n . q - offset * sum(q).
      const __m256 dx = _mm256_set1_ps(x.d[b]);
      const __m256i s = _mm256_sub_epi32(sumi, _mm256_set1_epi32(kOffset<K> * x.sum[b]));
      __m256 term = _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(s), blk.d), dx);
      if constexpr (kHasMinimum<K>) term = _mm256_add_ps(term, _mm256_mul_ps(blk.m, _mm256_set1_ps(x.s[b])));
      acc = _mm256_add_ps(acc, term);
    }
    if (rows == 8) {
      _mm256_storeu_ps(y + j0, acc);
    } else {
      _mm256_maskstore_ps(y + j0, FirstLanes(rows), acc);
    }
  }
}

}  // namespace

void DecodePanelsQ4_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y) {
  DecodePanels<Kind::kQ4_0>(x, w, row_begin, row_end, y);
}
void DecodePanelsQ5_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y) {
  DecodePanels<Kind::kQ5_0>(x, w, row_begin, row_end, y);
}
void DecodePanelsQ5_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y) {
  DecodePanels<Kind::kQ5_1>(x, w, row_begin, row_end, y);
}
void DecodePanelsIQ4_NL(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                        float* y) {
  DecodePanels<Kind::kIQ4_NL>(x, w, row_begin, row_end, y);
}

}  // namespace pagoda::kernels::cpu::avx2
