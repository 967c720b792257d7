// The bf16 pieces that the attention kernels on VDPBF16PS
// (attention_bf16_avx512.cc) and on AMX-BF16 tiles (amx/attention_amx.cc)
// share: rounding f32 to bf16 pairs, interleaving two rows into pairs, the
// 16 x 16 dword transpose, and cache rows read as bf16. Internal linkage, as
// avx512_util.h, for units built with -mavx512bf16.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu/avx512/attention_tiles_avx512.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

// Dimensions rounded up to whole VDPBF16PS inputs (32 bf16); the padding is
// zeros in both the query and the K rows.
constexpr int64_t Padded32(int64_t hd) { return (hd + 31) / 32 * 32; }

// 32 floats (16 at `lo`, 16 at `hi`, masked lanes zero) as 32 bf16,
// rounded to nearest even.
inline __m512i ToBf16(__m512 lo, __m512 hi) { return (__m512i)_mm512_cvtne2ps_pbh(hi, lo); }

// The bf16 pair at p in every 32-bit lane, broadcast straight from memory
// (a load, not a vector ALU operation).
inline __m512bh BroadcastPair(const void* p) { return (__m512bh)_mm512_broadcastd_epi32(_mm_loadu_si32(p)); }

// Lane i of the result: element i of a, then element i of b (16 + 16 bf16
// in, 16 pairs out), the layout VDPBF16PS multiplies a broadcast pair by.
inline __m512i InterleavePairs(__m512i a_then_b) {
  alignas(64) static constexpr uint16_t kOrder[32] = {0,  16, 1,  17, 2,  18, 3,  19, 4,  20, 5,  21, 6,  22, 7,  23,
                                                      8,  24, 9,  25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  return _mm512_permutexvar_epi16(_mm512_load_si512(kOrder), a_then_b);
}

// Transposes a 16 x 16 block of dwords: rows r[0..15] in, columns c[0..15]
// out (c[j] lane p = r[p] lane j).
inline void Transpose16x16(const __m512i r[16], __m512i c[16]) {
  __m512i t[16], u[16], v[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  // u[4g + e], 128-bit lane k: element 4k + e of rows 4g..4g+3.
  for (int g = 0; g < 4; ++g) {
    u[4 * g + 0] = _mm512_unpacklo_epi64(t[4 * g], t[4 * g + 2]);
    u[4 * g + 1] = _mm512_unpackhi_epi64(t[4 * g], t[4 * g + 2]);
    u[4 * g + 2] = _mm512_unpacklo_epi64(t[4 * g + 1], t[4 * g + 3]);
    u[4 * g + 3] = _mm512_unpackhi_epi64(t[4 * g + 1], t[4 * g + 3]);
  }
  // v[8h + 2e]: elements e and 8 + e of row groups 2h and 2h + 1; v[8h + 2e + 1]: 4 + e and 12 + e.
  for (int h = 0; h < 2; ++h) {
    for (int e = 0; e < 4; ++e) {
      v[8 * h + 2 * e] = _mm512_shuffle_i32x4(u[8 * h + e], u[8 * h + 4 + e], 0x88);
      v[8 * h + 2 * e + 1] = _mm512_shuffle_i32x4(u[8 * h + e], u[8 * h + 4 + e], 0xDD);
    }
  }
  for (int e = 0; e < 4; ++e) {
    c[e] = _mm512_shuffle_i32x4(v[2 * e], v[8 + 2 * e], 0x88);
    c[8 + e] = _mm512_shuffle_i32x4(v[2 * e], v[8 + 2 * e], 0xDD);
    c[4 + e] = _mm512_shuffle_i32x4(v[2 * e + 1], v[8 + 2 * e + 1], 0x88);
    c[12 + e] = _mm512_shuffle_i32x4(v[2 * e + 1], v[8 + 2 * e + 1], 0xDD);
  }
}

// 32 dimensions [d, d + 32) of a cache row (kF16: f16 elements, else f32)
// or, with kF16 false, of a query, as bf16 (zero past hd).
template <bool kF16>
inline __m512i Bf16Dims(const void* row, int64_t d, int64_t hd) {
  const __m512 lo = d < hd ? LoadWide<kF16>(row, d, FirstLanes(hd - d)) : _mm512_setzero_ps();
  const __m512 hi = d + 16 < hd ? LoadWide<kF16>(row, d + 16, FirstLanes(hd - d - 16)) : _mm512_setzero_ps();
  return ToBf16(lo, hi);
}

// Dimensions [d, d + 16) of the V rows v[2j] and v[2j + 1] (d < hd), as
// pairs: lane l holds both positions at dimension d + l.
template <bool kF16>
inline __m512i VPairs(const void* const* v, int j, int64_t d, int64_t hd) {
  const __mmask16 mask = FirstLanes(hd - d);
  return InterleavePairs(ToBf16(LoadWide<kF16>(v[2 * j], d, mask), LoadWide<kF16>(v[2 * j + 1], d, mask)));
}

}  // namespace
}  // namespace pagoda::kernels::cpu::avx512
