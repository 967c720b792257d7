// Decode (one x row) MatMul panels of Q4_K, Q5_K and Q6_K on AVX2.
//
// The batch panels (matmul_k_avx2.cc) unpack a super-block row by row into
// scratch and reduce each row's sums horizontally: right for many x rows,
// costly for one. Here, as in the AVX-512 set (avx512/k_unpack_avx512.h),
// lane l of every vector is weight row j0 + l of an 8-row panel: 16 bytes of
// every row are gathered and transposed, so each weight vector holds the 4
// bytes of each row that meet 4 x bytes, and a broadcast of those x bytes
// serves all 8 rows. maddubs adds pairs of products in 16 bits (a sub-block
// at a time, or half of one where 16 bits could overflow), and madd with
// the sub-block's scale widens them to 32: no horizontal sums, no scratch.
//
// The integers (the reference's scaled and mins of each super-block) are
// exact in any order, and the float update per super-block is the
// reference's, lane by lane, in super-block order, so every result equals
// the reference bit for bit, as the batch panels' do.
#include "pagoda/kernels/cpu/avx2/matmul_k_decode_avx2.h"

#include <immintrin.h>

#include <cstdint>

#include "pagoda/kernels/cpu/avx2/avx2_kernels.h"
#include "pagoda/kernels/cpu/avx2/avx2_util.h"
#include "pagoda/kernels/cpu/avx2/quant_block_avx2.h"

namespace pagoda::kernels::cpu::avx2 {
namespace {

__m256i Bytes(int v) { return _mm256_set1_epi8(static_cast<char>(v)); }
__m256i And(__m256i a, __m256i b) { return _mm256_and_si256(a, b); }
__m256i Or(__m256i a, __m256i b) { return _mm256_or_si256(a, b); }

// Shifts every dword left by n (right by -n).
__m256i Shift(__m256i v, int n) {
  if (n > 0) return _mm256_slli_epi32(v, n);
  if (n < 0) return _mm256_srli_epi32(v, -n);
  return v;
}

// Builds every dword from bytes b0..b3 of the same dword (-1: a zero byte).
__m256i Pick(__m256i v, int b0, int b1, int b2, int b3) {
  const auto byte = [](int index) { return static_cast<uint32_t>(index < 0 ? 0x80 : index); };
  const uint32_t c = byte(b0) | byte(b1) << 8 | byte(b2) << 16 | byte(b3) << 24;
  // Dword p of a 128-bit lane reads bytes 4p..4p+3; a zero byte's 0x80 stays set.
  const __m256i lanes = _mm256_setr_epi32(0, 0x04040404, 0x08080808, 0x0c0c0c0c, 0, 0x04040404, 0x08080808, 0x0c0c0c0c);
  const __m256i control = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(c)), lanes);
  return _mm256_shuffle_epi8(v, control);
}

// Two x int16s (Q8_K's bsums 2g, 2g + 1) in every dword.
__m256i BroadcastPair(const int16_t* p) { return Broadcast32(p); }

// The super-block's term added to the running sums, as the reference does:
// sumf += d_x * (d * scaled - dmin * mins).
__m256 AddTerm(__m256 sumf, float dx, __m256 d, __m256i scaled, __m256 dmin, __m256i mins) {
  const __m256 term = _mm256_sub_ps(_mm256_mul_ps(d, _mm256_cvtepi32_ps(scaled)),
                                    _mm256_mul_ps(dmin, _mm256_cvtepi32_ps(mins)));
  return _mm256_add_ps(sumf, _mm256_mul_ps(_mm256_set1_ps(dx), term));
}

void Store(float* y, int rows, __m256 v) {
  if (rows == 8) {
    _mm256_storeu_ps(y, v);
  } else {
    _mm256_maskstore_ps(y, FirstLanes(rows), v);
  }
}

// Q4_K (kFifth false) and Q5_K: d, dmin, 12 bytes of six-bit scales and
// minimums, (Q5_K) 32 bytes of fifth bits, 128 bytes of nibbles.
template <bool kFifth>
__m256 SuperBlockQ4Q5K(const uint8_t* const row[8], const BlockQ8_K& x, const PanelPrefetch& ahead, int64_t b,
                       __m256 sumf) {
  constexpr int kQsOffset = kFifth ? 48 : 16;
  const __m256i low4 = Bytes(0x0f), low2 = Bytes(0x03), low6 = Bytes(0x3f);
  __m256i hdr[4];
  GatherDwords(row, 0, hdr);
  // Scale bytes 0-3, 4-7 and minimum bytes 0-3, 4-7 (reference ScaleMinK4).
  const __m256i sc[2] = {And(hdr[1], low6), Or(And(hdr[3], low4), Shift(And(Shift(hdr[1], -6), low2), 4))};
  const __m256i mn[2] = {And(hdr[2], low6),
                         Or(And(Shift(hdr[3], -4), low4), Shift(And(Shift(hdr[2], -6), low2), 4))};
  // mins: each sub-block's minimum times the x sums of its two 16-element groups.
  __m256i mins = _mm256_setzero_si256();
#pragma GCC unroll 16
  for (int s = 0; s < 8; ++s) {
    mins = _mm256_add_epi32(mins, _mm256_madd_epi16(Pick(mn[s / 4], s % 4, -1, s % 4, -1), BroadcastPair(x.bsums + 2 * s)));
  }
  __m256i high[8];
  if constexpr (kFifth) {
    GatherDwords(row, 16, high);  // bit s of byte l: the fifth bit of element 32s + l
    GatherDwords(row, 32, high + 4);
  }
  // Sub-blocks 2j and 2j + 1 are the low and high nibbles of bytes 32j..32j+31.
  // maddubs pairs are at most 2 x 15 x 128 (Q4_K) or 2 x 31 x 128 (Q5_K), so
  // 8 (Q4_K) or 4 (Q5_K) of them add up in 16 bits.
  __m256i scaled = _mm256_setzero_si256();
#pragma GCC unroll 16
  for (int j = 0; j < 4; ++j) {
    __m256i dot[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
#pragma GCC unroll 16
    for (int h = 0; h < 2; ++h) {
      ahead.Slice(8 * b + 2 * j + h);
      __m256i o[4];
      GatherDwords(row, kQsOffset + 32 * j + 16 * h, o);
#pragma GCC unroll 16
      for (int q = 0; q < 4; ++q) {
#pragma GCC unroll 16
        for (int n = 0; n < 2; ++n) {
          const int v = 16 * j + 8 * n + 4 * h + q;  // elements 4v..4v+3
          __m256i wv = And(n ? _mm256_srli_epi16(o[q], 4) : o[q], low4);
          if constexpr (kFifth) wv = Or(wv, And(Shift(high[v % 8], 4 - v / 8), Bytes(0x10)));
          dot[n] = _mm256_add_epi16(dot[n], _mm256_maddubs_epi16(wv, Broadcast32(x.qs + 4 * v)));
        }
      }
      if (kFifth || h == 1) {
#pragma GCC unroll 16
        for (int n = 0; n < 2; ++n) {
          const int s = 2 * j + n;
          scaled = _mm256_add_epi32(scaled, _mm256_madd_epi16(dot[n], Pick(sc[s / 4], s % 4, -1, s % 4, -1)));
          dot[n] = _mm256_setzero_si256();
        }
      }
    }
  }
  return AddTerm(sumf, x.d, HalfLow(hdr[0]), scaled, HalfLow(Shift(hdr[0], -16)), mins);
}

// Q6_K: 128 bytes of ql, 64 of qh, 16 signed scales (one per 16 elements),
// d. Element 128h + 32q + l takes nibble q / 2 of ql[64h + 32(q % 2) + l]
// and pair q of qh[32h + l], stored plus 32.
__m256 SuperBlockQ6K(const uint8_t* const row[8], const BlockQ8_K& x, const PanelPrefetch& ahead, int64_t b,
                     __m256 sumf) {
  __m256i sc[4];
  GatherDwords(row, 192, sc);
  __m256i tail[4];
  LoadRows(row, 194, tail);  // bytes 194-209: d is the high half of dword 3
  const __m256i d_dword =
      _mm256_unpackhi_epi64(_mm256_unpackhi_epi32(tail[0], tail[1]), _mm256_unpackhi_epi32(tail[2], tail[3]));
  // The bias: 32 * sum over groups g of scale_g * (x sum of group g).
  __m256i bias = _mm256_setzero_si256();
#pragma GCC unroll 16
  for (int g = 0; g < 8; ++g) {
    const __m256i pair = _mm256_srai_epi16(Pick(sc[g / 2], -1, 2 * g % 4, -1, 2 * g % 4 + 1), 8);
    bias = _mm256_add_epi32(bias, _mm256_madd_epi16(pair, BroadcastPair(x.bsums + 2 * g)));
  }
  const __m256i low4 = Bytes(0x0f), pair_bits = Bytes(0x30);
  // maddubs pairs are at most 2 x 63 x 128: two of them add up in 16 bits.
  // 16 bytes of l at a time (c) keep 4 qh and 4 ql dwords in registers.
  __m256i scaled = _mm256_setzero_si256();
#pragma GCC unroll 16
  for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 16
    for (int c = 0; c < 2; ++c) {
      ahead.Slice(4 * b + 2 * h + c);
      __m256i qh[4];
      GatherDwords(row, 128 + 32 * h + 16 * c, qh);
#pragma GCC unroll 16
      for (int odd = 0; odd < 2; ++odd) {
        __m256i ql[4];
        GatherDwords(row, 64 * h + 32 * odd + 16 * c, ql);
#pragma GCC unroll 16
        for (int nibble = 0; nibble < 2; ++nibble) {
          const int q = 2 * nibble + odd;
          const int s = 8 * h + 2 * q + c;  // the 16-element sub-block
          const __m256i scale = _mm256_srai_epi16(Pick(sc[s / 4], -1, s % 4, -1, s % 4), 8);
#pragma GCC unroll 16
          for (int e0 = 0; e0 < 4; e0 += 2) {
            __m256i p = _mm256_setzero_si256();
#pragma GCC unroll 16
            for (int e = e0; e < e0 + 2; ++e) {
              const __m256i low = And(nibble ? _mm256_srli_epi16(ql[e], 4) : ql[e], low4);
              const __m256i wv = Or(low, And(Shift(qh[e], 4 - 2 * q), pair_bits));
              const int v = 32 * h + 8 * q + 4 * c + e;  // elements 4v..4v+3
              p = _mm256_add_epi16(p, _mm256_maddubs_epi16(wv, Broadcast32(x.qs + 4 * v)));
            }
            scaled = _mm256_add_epi32(scaled, _mm256_madd_epi16(p, scale));
          }
        }
      }
    }
  }
  scaled = _mm256_sub_epi32(scaled, _mm256_slli_epi32(bias, 5));
  // No minimums: dmin and mins are 0, as in the reference.
  return AddTerm(sumf, x.d, HalfLow(Shift(d_dword, -16)), scaled, _mm256_setzero_ps(), _mm256_setzero_si256());
}

template <DType T>
void Panels(const BlockQ8_K* x, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y) {
  const int64_t nb = w.cols / kSuperBlock;
  const int64_t block_bytes = DTypeBlockBytes(T);
  const int64_t row_bytes = nb * block_bytes;
  // Prefetch slices per super-block: one per gather of nibbles (Q4_K/Q5_K)
  // or of ql (Q6_K), spread so that they do not all wait at once.
  constexpr int kSlices = T == DType::kQ6_K ? 4 : 8;
  for (int64_t j0 = row_begin; j0 < row_end; j0 += kPanelRows) {
    const int rows = static_cast<int>(row_end - j0 < kPanelRows ? row_end - j0 : kPanelRows);
    const uint8_t* base[8];
    // Lanes past the last row repeat it; their results are never stored.
    for (int r = 0; r < 8; ++r) {
      base[r] = static_cast<const uint8_t*>(w.data) + (j0 + (r < rows ? r : rows - 1)) * row_bytes;
    }
    const PanelPrefetch ahead(w.data, row_bytes, j0 + kPanelRows, kPanelRows, w.rows, kSlices * nb);
    __m256 sumf = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
      const uint8_t* row[8];
      for (int r = 0; r < 8; ++r) row[r] = base[r] + b * block_bytes;
      if constexpr (T == DType::kQ6_K) {
        sumf = SuperBlockQ6K(row, x[b], ahead, b, sumf);
      } else {
        sumf = SuperBlockQ4Q5K<T == DType::kQ5_K>(row, x[b], ahead, b, sumf);
      }
    }
    Store(y + j0, rows, sumf);
  }
}

}  // namespace

bool HasDecodePanelsK(DType t) { return t == DType::kQ4_K || t == DType::kQ5_K || t == DType::kQ6_K; }

void DecodePanelsK(const BlockQ8_K* x, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y) {
  switch (w.dtype) {
    case DType::kQ4_K: Panels<DType::kQ4_K>(x, w, row_begin, row_end, y); break;
    case DType::kQ5_K: Panels<DType::kQ5_K>(x, w, row_begin, row_end, y); break;
    case DType::kQ6_K: Panels<DType::kQ6_K>(x, w, row_begin, row_end, y); break;
    default: break;
  }
}

}  // namespace pagoda::kernels::cpu::avx2
