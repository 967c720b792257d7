// Quantized-weight MatMul panels for AVX2 (see simd_matmul.h for the scheme).
//
// A panel is 8 weight rows; lane l of every vector belongs to row j0 + l. For
// each 32-column block the panel is packed as 8 vectors: vector t holds, in
// lane l, the 4 weight bytes that meet x bytes 4t..4t+3 of the block. One
// broadcast of those x bytes then serves all 8 rows, and the per-lane integer
// sums never need a horizontal reduction.
#include <immintrin.h>

#include "pagoda/kernels/cpu/avx2/avx2_kernels.h"
#include "pagoda/kernels/cpu/avx2/avx2_util.h"
#include "pagoda/kernels/cpu/avx2/matmul_quant_decode_avx2.h"
#include "pagoda/kernels/cpu/avx2/quant_block_avx2.h"
#include "pagoda/kernels/cpu/reference/iq4_values.h"

namespace pagoda::kernels::cpu::avx2 {
namespace {

// Packed block: kVectors weight vectors, then the 8 scales, then (Q4_1, Q5_1) the 8 minimums.
template <Kind K>
constexpr int kVectors = kSigned<K> ? 16 : 8;
template <Kind K>
constexpr int kPackedBytes = kVectors<K> * 32 + (kHasMinimum<K> ? 64 : 32);
static_assert(kPackedBytes<Kind::kQ8_0> <= kScratchBytesPerBlock);
static_assert(kPackedBytes<Kind::kQ4_1> <= kScratchBytesPerBlock);

// The block's f16 scale (low half of the first dword) of every row, and for
// Q4_1 the f16 minimum (high half), widened.
inline void GatherScales(const uint8_t* const row[8], int64_t offset, __m256* d, __m256* m) {
  __m256i v[4];
  LoadRows(row, offset, v);
  const __m256i dm =
      _mm256_unpacklo_epi64(_mm256_unpacklo_epi32(v[0], v[1]), _mm256_unpacklo_epi32(v[2], v[3]));
  // packus per 128-bit lane gives [d0-3 m0-3 | d4-7 m4-7]; the permute orders it [d0-7 | m0-7].
  const __m256i halves = _mm256_permute4x64_epi64(
      _mm256_packus_epi32(_mm256_and_si256(dm, _mm256_set1_epi32(0xffff)), _mm256_srli_epi32(dm, 16)),
      0xd8);
  *d = _mm256_cvtph_ps(_mm256_castsi256_si128(halves));
  *m = _mm256_cvtph_ps(_mm256_extracti128_si256(halves, 1));
}

template <Kind K>
void PackPanel(const MatrixView& w, int64_t j0, int rows, int64_t nb, uint8_t* packed) {
  using L = Layout<K>;
  const int64_t row_bytes = nb * L::kBlockBytes;
  const uint8_t* row[8];
  // Lanes past the last row repeat it; their results are never stored.
  for (int r = 0; r < 8; ++r) row[r] = static_cast<const uint8_t*>(w.data) + (j0 + (r < rows ? r : rows - 1)) * row_bytes;
  const __m256i low4 = _mm256_set1_epi8(0x0f);
  const __m256i iq4_table = _mm256_broadcastsi128_si256(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(reference::kIq4Values)));
  const PanelPrefetch ahead(w.data, row_bytes, j0 + kPanelRows, kPanelRows, w.rows, nb);
  for (int64_t b = 0; b < nb; ++b, packed += kPackedBytes<K>) {
    ahead.Slice(b);
    const int64_t block = b * L::kBlockBytes;
    auto* vec = reinterpret_cast<__m256i*>(packed);
    auto* scales = reinterpret_cast<float*>(packed + kVectors<K> * 32);
    __m256i o[4];
    GatherDwords(row, block + L::kQsOffset, o);
    if constexpr (K == Kind::kQ8_0) {
      for (int t = 0; t < 4; ++t) {
        _mm256_store_si256(vec + t, _mm256_abs_epi8(o[t]));
        _mm256_store_si256(vec + 8 + t, o[t]);
      }
      GatherDwords(row, block + L::kQsOffset + 16, o);
      for (int t = 0; t < 4; ++t) {
        _mm256_store_si256(vec + 4 + t, _mm256_abs_epi8(o[t]));
        _mm256_store_si256(vec + 12 + t, o[t]);
      }
    } else {
      // Low nibbles are elements 0-15, high nibbles 16-31: vector t holds
      // elements 4t .. 4t+3 of every lane's block.
      __m256i nibble[8];
      for (int t = 0; t < 4; ++t) {
        nibble[t] = _mm256_and_si256(o[t], low4);
        nibble[4 + t] = _mm256_and_si256(_mm256_srli_epi16(o[t], 4), low4);
      }
      if constexpr (K == Kind::kQ5_0 || K == Kind::kQ5_1) {
        __m256i qh[4];
        GatherDwords(row, block + L::kQhOffset, qh);  // qh[0]: each lane's 32 fifth bits
        const __m256i qh4 = _mm256_slli_epi32(qh[0], 4);
        for (int t = 0; t < 8; ++t) nibble[t] = _mm256_or_si256(nibble[t], FifthBits(qh[0], qh4, t));
      }
      for (int t = 0; t < 8; ++t) {
        if constexpr (K == Kind::kIQ4_NL) {
          const __m256i value = _mm256_shuffle_epi8(iq4_table, nibble[t]);
          _mm256_store_si256(vec + t, _mm256_abs_epi8(value));
          _mm256_store_si256(vec + 8 + t, value);
        } else {
          _mm256_store_si256(vec + t, nibble[t]);
        }
      }
    }
    __m256 d;
    __m256 m;
    GatherScales(row, block, &d, &m);
    _mm256_store_ps(scales, d);
    if constexpr (kHasMinimum<K>) _mm256_store_ps(scales + 8, m);
  }
}

// Q4_0, Q5_0, Q5_1 and IQ4_NL: R x rows against one packed panel, for
// batches (a single x row takes matmul_quant_decode_avx2.cc's path: the same
// sums and float updates without the packing). Per lane
// and block this is exactly the reference's float update, on the exact
// integer block sum.
template <Kind K, int R>
void Tile(const uint8_t* packed, const QuantizedRows& x, int64_t i0, int64_t nb, float* y,
          int64_t ldy, int rows) {
  static_assert(K == Kind::kQ4_0 || K == Kind::kQ5_0 || K == Kind::kQ5_1 || K == Kind::kIQ4_NL);
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b, packed += kPackedBytes<K>) {
    const auto* vec = reinterpret_cast<const __m256i*>(packed);
    const auto* scales = reinterpret_cast<const float*>(packed + kVectors<K> * 32);
    const __m256 dw = _mm256_load_ps(scales);
    __m256i sumi[R];
    for (int r = 0; r < R; ++r) sumi[r] = _mm256_setzero_si256();
    for (int t0 = 0; t0 < 8; t0 += kSteps16<K>) {
      __m256i s16[R];
      for (int r = 0; r < R; ++r) s16[r] = _mm256_setzero_si256();
      for (int t = t0; t < t0 + kSteps16<K>; ++t) {
        const __m256i wt = _mm256_load_si256(vec + t);
        for (int r = 0; r < R; ++r) {
          __m256i xb = Broadcast32(x.qs + (i0 + r) * x.k + b * 32 + 4 * t);
          if constexpr (kSigned<K>) xb = _mm256_sign_epi8(xb, _mm256_load_si256(vec + 8 + t));
          s16[r] = _mm256_add_epi16(s16[r], _mm256_maddubs_epi16(wt, xb));
        }
      }
      for (int r = 0; r < R; ++r) sumi[r] = _mm256_add_epi32(sumi[r], _mm256_madd_epi16(s16[r], ones));
    }
    for (int r = 0; r < R; ++r) {
      const int64_t xb = (i0 + r) * (x.k / 32) + b;
      const __m256 dx = _mm256_set1_ps(x.d[xb]);
      // sum((n - offset) * q) = sum(n * q) - offset * sum(q)
      const __m256i s = _mm256_sub_epi32(sumi[r], _mm256_set1_epi32(kOffset<K> * x.sum[xb]));
      __m256 term = _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(s), dw), dx);
      if constexpr (kHasMinimum<K>) {
        term = _mm256_add_ps(term, _mm256_mul_ps(_mm256_load_ps(scales + 8), _mm256_set1_ps(x.s[xb])));
      }
      acc[r] = _mm256_add_ps(acc[r], term);
    }
  }
  for (int r = 0; r < R; ++r) {
    float* dst = y + (i0 + r) * ldy;
    if (rows == 8) {
      _mm256_storeu_ps(dst, acc[r]);
    } else {
      _mm256_maskstore_ps(dst, FirstLanes(rows), acc[r]);
    }
  }
}

// GGML's order for Q4_1 and Q8_0 (ggml_vec_dot_q4_1_q8_1, ggml_vec_dot_q8_0_q8_0
// on AVX2): per output, 8 float accumulators, one per group of 4 block
// elements; each block adds fma(d_w * d_x, (float)group_sum, acc[g]). Vector g
// holds accumulator g of the panel's 8 rows. Q4_1 also keeps
// summs = fma(m_w, s_x, summs). The result is GGML's hsum_float_8 of the 8
// accumulators (plus summs). One x row per pass: 8 accumulators fill the registers.
template <Kind K>
void GgmlTile(const uint8_t* packed, const QuantizedRows& x, int64_t i, int64_t nb, float* y, int64_t ldy,
              int rows) {
  static_assert(K == Kind::kQ4_1 || K == Kind::kQ8_0);
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 acc[8];
  for (auto& a : acc) a = _mm256_setzero_ps();
  __m256 summs = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b, packed += kPackedBytes<K>) {
    const auto* vec = reinterpret_cast<const __m256i*>(packed);
    const auto* scales = reinterpret_cast<const float*>(packed + kVectors<K> * 32);
    const int64_t xb = i * (x.k / 32) + b;
    const __m256 d0d1 = _mm256_mul_ps(_mm256_load_ps(scales), _mm256_set1_ps(x.d[xb]));
    if constexpr (K == Kind::kQ4_1) {
      summs = _mm256_fmadd_ps(_mm256_load_ps(scales + 8), _mm256_set1_ps(x.s[xb]), summs);
    }
    const int8_t* xq = x.qs + i * x.k + b * 32;
    for (int g = 0; g < 8; ++g) {
      const __m256i xg = Broadcast32(xq + 4 * g);
      __m256i p16;
      if constexpr (K == Kind::kQ8_0) {
        // maddubs needs an unsigned operand: |w| times x carrying w's sign.
        p16 = _mm256_maddubs_epi16(_mm256_load_si256(vec + g), _mm256_sign_epi8(xg, _mm256_load_si256(vec + 8 + g)));
      } else {
        p16 = _mm256_maddubs_epi16(_mm256_load_si256(vec + g), xg);
      }
      acc[g] = _mm256_fmadd_ps(d0d1, _mm256_cvtepi32_ps(_mm256_madd_epi16(p16, ones)), acc[g]);
    }
  }
  const __m256 h0 = _mm256_add_ps(_mm256_add_ps(acc[4], acc[0]), _mm256_add_ps(acc[6], acc[2]));
  const __m256 h1 = _mm256_add_ps(_mm256_add_ps(acc[5], acc[1]), _mm256_add_ps(acc[7], acc[3]));
  __m256 res = _mm256_add_ps(h0, h1);
  if constexpr (K == Kind::kQ4_1) res = _mm256_add_ps(res, summs);
  float* dst = y + i * ldy;
  if (rows == 8) {
    _mm256_storeu_ps(dst, res);
  } else {
    _mm256_maskstore_ps(dst, FirstLanes(rows), res);
  }
}

template <Kind K>
void Panels(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
            void* scratch, float* y) {
  const int64_t nb = w.cols / 32;
  auto* packed = static_cast<uint8_t*>(scratch);
  for (int64_t j0 = row_begin; j0 < row_end; j0 += kPanelRows) {
    const int rows = static_cast<int>(row_end - j0 < kPanelRows ? row_end - j0 : kPanelRows);
    PackPanel<K>(w, j0, rows, nb, packed);
    if constexpr (K == Kind::kQ4_1 || K == Kind::kQ8_0) {
      for (int64_t i = 0; i < x.m; ++i) GgmlTile<K>(packed, x, i, nb, y + j0, w.rows, rows);
    } else {
      int64_t i = 0;
      for (; i + 4 <= x.m; i += 4) Tile<K, 4>(packed, x, i, nb, y + j0, w.rows, rows);
      switch (x.m - i) {
        case 3: Tile<K, 3>(packed, x, i, nb, y + j0, w.rows, rows); break;
        case 2: Tile<K, 2>(packed, x, i, nb, y + j0, w.rows, rows); break;
        case 1: Tile<K, 1>(packed, x, i, nb, y + j0, w.rows, rows); break;
        default: break;
      }
    }
  }
}

}  // namespace

void PanelsQ4_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y) {
  if (x.m == 1) return DecodePanelsQ4_0(x, w, row_begin, row_end, y);
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
  if (x.m == 1) return DecodePanelsQ5_0(x, w, row_begin, row_end, y);
  Panels<Kind::kQ5_0>(x, w, row_begin, row_end, scratch, y);
}
void PanelsQ5_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y) {
  if (x.m == 1) return DecodePanelsQ5_1(x, w, row_begin, row_end, y);
  Panels<Kind::kQ5_1>(x, w, row_begin, row_end, scratch, y);
}
void PanelsIQ4_NL(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                  void* scratch, float* y) {
  if (x.m == 1) return DecodePanelsIQ4_NL(x, w, row_begin, row_end, y);
  Panels<Kind::kIQ4_NL>(x, w, row_begin, row_end, scratch, y);
}

}  // namespace pagoda::kernels::cpu::avx2
