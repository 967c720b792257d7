// The 32-element block types' layouts and the 8-row gathers that put a
// panel's rows in the lanes of a vector, for the AVX2 units only: the
// packing panels (matmul_quant_avx2.cc) and the decode panels
// (matmul_quant_decode_avx2.cc) share them. Like avx2_util.h, everything here has
// internal linkage.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "pagoda/kernels/cpu/avx2/avx2_util.h"
#include "pagoda/kernels/cpu/quant_block_layout.h"

namespace pagoda::kernels::cpu::avx2 {
namespace {

template <Kind K>
constexpr bool kHasFifthBits = K == Kind::kQ5_0 || K == Kind::kQ5_1;
// Signed weights: maddubs takes |w| and x carrying w's sign.
template <Kind K>
constexpr bool kSigned = K == Kind::kQ8_0 || K == Kind::kIQ4_NL;
// Weights stored as unsigned n stand for n - kOffset (the signed kinds: 0).
template <Kind K>
constexpr int kOffset = K == Kind::kQ4_0 ? 8 : K == Kind::kQ5_0 ? 16 : 0;
// maddubs pairs add up in 16 bits for this many of a block's 8 steps without
// overflow: 8 x 2 x 15 x 127 (Q4) and 4 x 2 x 31 x 127 (Q5); IQ4_NL's
// |w| <= 127 allows one.
template <Kind K>
constexpr int kSteps16 = K == Kind::kQ4_0 ? 8 : kSigned<K> ? 1 : 4;

// Transposes 4 vectors whose 128-bit lanes hold rows (lane L of v[a] = row a + 4L)
// so that dword r of out[t] is dword t of row r.
inline void Transpose4(const __m256i v[4], __m256i out[4]) {
  const __m256i t0 = _mm256_unpacklo_epi32(v[0], v[1]);
  const __m256i t1 = _mm256_unpackhi_epi32(v[0], v[1]);
  const __m256i t2 = _mm256_unpacklo_epi32(v[2], v[3]);
  const __m256i t3 = _mm256_unpackhi_epi32(v[2], v[3]);
  out[0] = _mm256_unpacklo_epi64(t0, t2);
  out[1] = _mm256_unpackhi_epi64(t0, t2);
  out[2] = _mm256_unpacklo_epi64(t1, t3);
  out[3] = _mm256_unpackhi_epi64(t1, t3);
}

// 16 bytes at `offset` of every row, arranged so that lane L of v[a] holds row a + 4L.
inline void LoadRows(const uint8_t* const row[8], int64_t offset, __m256i v[4]) {
  for (int a = 0; a < 4; ++a) {
    v[a] = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(row[a + 4] + offset),
                               reinterpret_cast<const __m128i*>(row[a] + offset));
  }
}

// Dwords t of 16 bytes at `offset` in each of the 8 rows, lane r from row r.
inline void GatherDwords(const uint8_t* const row[8], int64_t offset, __m256i out[4]) {
  __m256i v[4];
  LoadRows(row, offset, v);
  Transpose4(v, out);
}

// The low halves of the 8 dwords as floats (f16 scales gathered with their
// neighbours).
inline __m256 HalfLow(__m256i dwords) {
  const __m256i pick = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1,
                                        0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i halves = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(dwords, pick), 0x08);
  return _mm256_cvtph_ps(_mm256_castsi256_si128(halves));
}

// The fifth bits of elements 4t .. 4t+3 of every lane's block, as 0x10 in
// the byte of each element whose bit is set, given each lane's 32 bits in
// qh and the same shifted left by 4 in qh4. Bit 4t+k sits in byte t/2 of
// qh (odd t: bit 4+k; even t: bit k, which is bit 4+k of qh4's byte t/2);
// a byte shuffle copies that byte to the 4 bytes, byte k keeps bit 4+k, and
// the unsigned minimum with 0x10 turns any kept bit into 0x10.
inline __m256i FifthBits(__m256i qh, __m256i qh4, int t) {
  const char s = static_cast<char>(t / 2);
  const __m256i copy = _mm256_setr_epi8(s, s, s, s, s + 4, s + 4, s + 4, s + 4, s + 8, s + 8, s + 8, s + 8, s + 12,
                                        s + 12, s + 12, s + 12, s, s, s, s, s + 4, s + 4, s + 4, s + 4, s + 8, s + 8,
                                        s + 8, s + 8, s + 12, s + 12, s + 12, s + 12);
  const __m256i kept = _mm256_and_si256(_mm256_shuffle_epi8(t % 2 ? qh : qh4, copy),
                                        _mm256_set1_epi32(static_cast<int>(0x80402010u)));
  return _mm256_min_epu8(kept, _mm256_set1_epi8(0x10));
}

}  // namespace
}  // namespace pagoda::kernels::cpu::avx2
