// One super-block of a 16-row panel of a K-quant or IQ4_XS matrix, unpacked
// for VPDPBUSD, for the AVX-512 units only (see matmul_k_avx512.cc). Lane l
// of every vector belongs to row l of the panel:
//   w      w[v] holds the 4 weight bytes that meet x bytes 4v..4v+3, unsigned:
//          value + bias (Q3_K 4, Q6_K 32, IQ4_XS 128, the others 0);
//   scale  per sub-block (16 of 16 elements or 8 of 32), the int32 scale;
//   group  group[g] holds the int16 pair that multiplies Q8_K's bsums 2g and
//          2g + 1: the sub-blocks' minimums for the types with one (Q2_K,
//          Q4_K, Q5_K), otherwise -bias * scale;
//   d, dmin  the f16 super-block scales, widened (dmin 0 without minimums).
// Then, exactly, with t_v = the dword sums of VPDPBUSD(w[v], x bytes 4v..):
//   scaled = sum_s scale_s * sum_{v in s} t_v  (+ group . bsums without minimums)
//   mins   = group . bsums                     (with minimums, else 0).
// An unpacker writes scale, group, d and dmin into a PackedK first, then
// hands each w[v] to a sink, which stores it or uses it at once; the last
// vector of each sub-block (v % (sub size / 4) == sub size / 4 - 1) comes
// after the sub-block's others.
//
// Like avx512_util.h, everything here has internal linkage: only AVX-512
// units include it.
#pragma once

#include "pagoda/kernels/cpu/avx512/avx512_util.h"
#include "pagoda/kernels/cpu/reference/iq4_values.h"
#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

struct alignas(64) PackedK {
  __m512i w[64];
  __m512i scale[16];
  __m512i group[8];
  __m512 d;
  __m512 dmin;
};

// Where an unpacker's 16-row gathers come from. All that it reads of a
// super-block goes through Dwords (GatherDwords) and LastDword
// (GatherLastDword), in an order that does not depend on the data. KRows
// gathers from the panel's 16 GGUF rows. KRecorder gathers the same way and
// appends each vector to the weights' panel planes (repacked at load,
// simd_matmul.h), and KReplay loads them back from there in that order. So
// an unpacker sees the same vectors from either, and only the planes skip
// the gathers' loads, inserts and transposes.
struct KRows {
  const uint8_t* row[16];  // the super-block in each row
  void Dwords(int64_t offset, __m512i out[4]) const { GatherDwords(row, offset, out); }
  __m512i LastDword(int64_t offset) const { return GatherLastDword(row, offset); }
};
struct KRecorder {
  KRows rows;
  __m512i* next;
  void Dwords(int64_t offset, __m512i out[4]) {
    rows.Dwords(offset, out);
    for (int t = 0; t < 4; ++t) _mm512_store_si512(next++, out[t]);
  }
  __m512i LastDword(int64_t offset) {
    const __m512i v = rows.LastDword(offset);
    _mm512_store_si512(next++, v);
    return v;
  }
};
struct KReplay {
  const __m512i* next;
  void Dwords(int64_t, __m512i out[4]) {
    for (int t = 0; t < 4; ++t) out[t] = _mm512_load_si512(next++);
  }
  __m512i LastDword(int64_t) { return _mm512_load_si512(next++); }
};

// The GatherDwords transposes come first, so that every bit operation after
// them runs on 16 rows at once and leaves its result in VPDPBUSD's layout
// (reference/k_block_decode.cc documents the bit layouts).

inline __m512i Bytes(int v) { return _mm512_set1_epi8(static_cast<char>(v)); }
inline __m512i And(__m512i a, __m512i b) { return _mm512_and_si512(a, b); }
inline __m512i Or(__m512i a, __m512i b) { return _mm512_or_si512(a, b); }
// a | (b & c)
inline __m512i OrMasked(__m512i a, __m512i b, __m512i c) { return _mm512_ternarylogic_epi32(a, b, c, 0xf8); }

// Shifts every dword left by n (right by -n).
inline __m512i Shift(__m512i v, int n) {
  if (n > 0) return _mm512_slli_epi32(v, static_cast<unsigned>(n));
  if (n < 0) return _mm512_srli_epi32(v, static_cast<unsigned>(-n));
  return v;
}

// A VPSHUFB control that builds every dword from bytes b0..b3 of the same
// dword (-1: a zero byte).
inline __m512i DwordBytes(int b0, int b1, int b2, int b3) {
  int c[4];
#pragma GCC unroll 64
  for (int p = 0; p < 4; ++p) {
    const int b[4] = {b0, b1, b2, b3};
    c[p] = 0;
#pragma GCC unroll 64
    for (int i = 0; i < 4; ++i) c[p] |= (b[i] < 0 ? 0x80 : 4 * p + b[i]) << (8 * i);
  }
  return _mm512_set4_epi32(c[3], c[2], c[1], c[0]);
}

inline __m512i Pick(__m512i v, int b0, int b1, int b2, int b3) { return _mm512_shuffle_epi8(v, DwordBytes(b0, b1, b2, b3)); }

inline __m512 HalfLow(__m512i dwords) { return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(dwords)); }
inline __m512 HalfHigh(__m512i dwords) { return HalfLow(_mm512_srli_epi32(dwords, 16)); }

// Q4_K/Q5_K's header, gathered from bytes 0-15: d and dmin, then 12 bytes of
// six-bit scales and minimums rearranged into scale bytes 0-3, 4-7 and
// minimum bytes 0-3, 4-7 (as avx2::ScaleMinK4 does per row).
inline void ScalesK4(const __m512i hdr[4], PackedK* out) {
  const __m512i low6 = Bytes(0x3f), low4 = Bytes(0x0f), low2 = Bytes(0x03);
  const __m512i w0 = hdr[1], w1 = hdr[2], w2 = hdr[3];
  const __m512i sc[2] = {And(w0, low6),
                         Or(And(w2, low4), _mm512_slli_epi32(And(_mm512_srli_epi32(w0, 6), low2), 4))};
  const __m512i mn[2] = {And(w1, low6), Or(And(_mm512_srli_epi32(w2, 4), low4),
                                           _mm512_slli_epi32(And(_mm512_srli_epi32(w1, 6), low2), 4))};
#pragma GCC unroll 64
  for (int s = 0; s < 8; ++s) {
    out->scale[s] = Pick(sc[s / 4], s % 4, -1, -1, -1);
    out->group[s] = Pick(mn[s / 4], s % 4, -1, s % 4, -1);  // both groups of sub-block s
  }
  out->d = HalfLow(hdr[0]);
  out->dmin = HalfHigh(hdr[0]);
}

// Q4_K/Q5_K's nibbles at `offset`: 32 bytes per 64 elements, low nibbles
// (sub-block 2j) then high ones (2j + 1). With `high`, Q5_K's qh dwords, bit
// s of a byte is the fifth bit of the same byte position in sub-block s.
template <typename Src, typename Sink>
void NibblesK4(Src& src, int64_t offset, const __m512i* high, Sink& put) {
  const __m512i low4 = Bytes(0x0f), bit4 = Bytes(0x10);
#pragma GCC unroll 64
  for (int g = 0; g < 8; ++g) {
    __m512i o[4];
    src.Dwords(offset + 16 * g, o);
    const int j = g / 2, h = g % 2;
#pragma GCC unroll 64
    for (int q = 0; q < 4; ++q) {
      const int v[2] = {16 * j + 4 * h + q, 16 * j + 8 + 4 * h + q};
      __m512i w[2] = {And(o[q], low4), And(_mm512_srli_epi16(o[q], 4), low4)};
#pragma GCC unroll 64
      for (int n = 0; n < 2; ++n) {
        if (high != nullptr) w[n] = OrMasked(w[n], Shift(high[v[n] % 8], 4 - v[n] / 8), bit4);
        put(v[n], w[n]);
      }
    }
  }
}

template <typename Src, typename Sink>
void UnpackQ4K(Src& src, PackedK* out, Sink& put) {
  __m512i hdr[4];
  src.Dwords(0, hdr);
  ScalesK4(hdr, out);
  NibblesK4(src, 16, nullptr, put);
}

template <typename Src, typename Sink>
void UnpackQ5K(Src& src, PackedK* out, Sink& put) {
  __m512i hdr[4], qh[8];
  src.Dwords(0, hdr);
  ScalesK4(hdr, out);
  src.Dwords(16, qh);
  src.Dwords(32, qh + 4);
  NibblesK4(src, 48, qh, put);
}

// Q6_K: element 128h + 32q + l takes nibble q / 2 of ql[64h + 32(q % 2) + l]
// and pair q of qh[32h + l]; values are stored plus 32.
template <typename Src, typename Sink>
void UnpackQ6K(Src& src, PackedK* out, Sink& put) {
  __m512i sc[4];
  src.Dwords(192, sc);
#pragma GCC unroll 16
  for (int s = 0; s < 16; ++s) out->scale[s] = _mm512_srai_epi32(Pick(sc[s / 4], -1, -1, -1, s % 4), 24);
#pragma GCC unroll 8
  for (int g = 0; g < 8; ++g) {
    // (scale << 8) >> 3 is 32 * scale, sign-extended; negated for -bias * scale.
    const __m512i scaled = _mm512_srai_epi16(Pick(sc[g / 2], -1, 2 * g % 4, -1, 2 * g % 4 + 1), 3);
    out->group[g] = _mm512_sub_epi16(_mm512_setzero_si512(), scaled);
  }
  out->d = HalfHigh(src.LastDword(194));  // bytes 206-209: scales 14-15, d
  out->dmin = _mm512_setzero_ps();
  const __m512i low4 = Bytes(0x0f), pair = Bytes(0x30);
  // A half's 8 qh dwords and 8 ql dwords at a time fit the registers.
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    __m512i qh[8];
    src.Dwords(128 + 32 * h, qh);
    src.Dwords(128 + 32 * h + 16, qh + 4);
#pragma GCC unroll 2
    for (int odd = 0; odd < 2; ++odd) {
      __m512i ql[8];
      src.Dwords(64 * h + 32 * odd, ql);
      src.Dwords(64 * h + 32 * odd + 16, ql + 4);
#pragma GCC unroll 2
      for (int nibble = 0; nibble < 2; ++nibble) {
        const int q = 2 * nibble + odd;
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k) {
          const __m512i low = And(nibble ? _mm512_srli_epi16(ql[k], 4) : ql[k], low4);
          put(32 * h + 8 * q + k, OrMasked(low, Shift(qh[k], 4 - 2 * q), pair));
        }
      }
    }
  }
}

// Q3_K: element 128h + 32p + l takes pair p of qs[32h + l] and, plus 4, bit
// 4h + p of hmask[l]; values are stored plus 4.
template <typename Src, typename Sink>
void UnpackQ3K(Src& src, PackedK* out, Sink& put) {
  __m512i hm[8], qs[16], t[4];
  src.Dwords(0, hm);
  src.Dwords(16, hm + 4);
#pragma GCC unroll 64
  for (int g = 0; g < 4; ++g) src.Dwords(32 + 16 * g, qs + 4 * g);
  // Bytes 94-109 stay inside the block: qs 94-95, scales 96-107, d.
  src.Dwords(94, t);
  const __m512i a = Or(_mm512_srli_epi32(t[0], 16), _mm512_slli_epi32(t[1], 16));  // scale bytes 0-3
  const __m512i b = Or(_mm512_srli_epi32(t[1], 16), _mm512_slli_epi32(t[2], 16));  // 4-7
  const __m512i c = Or(_mm512_srli_epi32(t[2], 16), _mm512_slli_epi32(t[3], 16));  // 8-11
  const __m512i low4 = Bytes(0x0f), top = Bytes(0x30);
  // Scales 0-3, 4-7, 8-11, 12-15: a low nibble of a or b, the top two bits from c.
  const __m512i six[4] = {Or(And(a, low4), And(_mm512_slli_epi32(c, 4), top)),
                          Or(And(b, low4), And(_mm512_slli_epi32(c, 2), top)),
                          Or(And(_mm512_srli_epi32(a, 4), low4), And(c, top)),
                          Or(And(_mm512_srli_epi32(b, 4), low4), And(_mm512_srli_epi32(c, 2), top))};
#pragma GCC unroll 64
  for (int s = 0; s < 16; ++s) {
    out->scale[s] = _mm512_sub_epi32(Pick(six[s / 4], s % 4, -1, -1, -1), _mm512_set1_epi32(32));
  }
#pragma GCC unroll 64
  for (int g = 0; g < 8; ++g) {
    // -4 * (six - 32) = 128 - 4 * six
    const __m512i u = Pick(six[g / 2], 2 * g % 4, -1, 2 * g % 4 + 1, -1);
    out->group[g] = _mm512_sub_epi16(_mm512_set1_epi16(128), _mm512_slli_epi16(u, 2));
  }
  out->d = HalfHigh(t[3]);
  out->dmin = _mm512_setzero_ps();
  const __m512i low2 = Bytes(0x03), bit2 = Bytes(0x04);
#pragma GCC unroll 64
  for (int v = 0; v < 64; ++v) {
    const int h = v / 32, p = v / 8 % 4, k = v % 8;
    const __m512i low = And(Shift(qs[8 * h + k], -2 * p), low2);
    put(v, OrMasked(low, Shift(hm[k], 2 - (4 * h + p)), bit2));
  }
}

// Q2_K: element 128h + 32p + l is pair p of qs[32h + l]; scale and minimum
// per 16 in the low and high nibbles of scales[].
template <typename Src, typename Sink>
void UnpackQ2K(Src& src, PackedK* out, Sink& put) {
  __m512i qs[16], sc[4];
#pragma GCC unroll 64
  for (int g = 0; g < 4; ++g) src.Dwords(16 + 16 * g, qs + 4 * g);
  src.Dwords(0, sc);
#pragma GCC unroll 64
  for (int s = 0; s < 16; ++s) out->scale[s] = And(Pick(sc[s / 4], s % 4, -1, -1, -1), _mm512_set1_epi32(0x0f));
#pragma GCC unroll 64
  for (int g = 0; g < 8; ++g) out->group[g] = _mm512_srli_epi16(Pick(sc[g / 2], 2 * g % 4, -1, 2 * g % 4 + 1, -1), 4);
  const __m512i dm = src.LastDword(68);  // bytes 80-83: d, dmin
  out->d = HalfLow(dm);
  out->dmin = HalfHigh(dm);
  const __m512i low2 = Bytes(0x03);
#pragma GCC unroll 64
  for (int v = 0; v < 64; ++v) {
    const int h = v / 32, p = v / 8 % 4, k = v % 8;
    put(v, And(Shift(qs[8 * h + k], -2 * p), low2));
  }
}

// IQ4_XS: sub-block s is 16 bytes of table indices, low nibbles then high;
// the table values are stored plus 128.
template <typename Src, typename Sink>
void UnpackIQ4XS(Src& src, PackedK* out, Sink& put) {
  __m512i hdr[4];
  src.Dwords(0, hdr);  // d and scales_h, scales_l, then qs
#pragma GCC unroll 64
  for (int s = 0; s < 8; ++s) {
    // Nibble s of scales_l, and bits 2s, 2s + 1 of scales_h (dword bits 16 + 2s) as bits 4-5.
    const __m512i six = Or(And(_mm512_srli_epi32(hdr[1], static_cast<unsigned>(4 * s)), _mm512_set1_epi32(0x0f)),
                           And(_mm512_srli_epi32(hdr[0], static_cast<unsigned>(12 + 2 * s)), _mm512_set1_epi32(0x30)));
    out->scale[s] = _mm512_sub_epi32(six, _mm512_set1_epi32(32));
    const __m512i n = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_slli_epi32(out->scale[s], 7));
    out->group[s] = Or(And(n, _mm512_set1_epi32(0xffff)), _mm512_slli_epi32(n, 16));  // both groups
  }
  out->d = HalfLow(hdr[0]);
  out->dmin = _mm512_setzero_ps();
  const __m512i table = _mm512_xor_si512(
      _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(reference::kIq4Values))), Bytes(0x80));
  const __m512i low4 = Bytes(0x0f);
#pragma GCC unroll 64
  for (int g = 0; g < 8; ++g) {
    __m512i o[4];
    src.Dwords(8 + 16 * g, o);
#pragma GCC unroll 64
    for (int q = 0; q < 4; ++q) {
      put(8 * g + q, _mm512_shuffle_epi8(table, And(o[q], low4)));
      put(8 * g + 4 + q, _mm512_shuffle_epi8(table, And(_mm512_srli_epi16(o[q], 4), low4)));
    }
  }
}

// Per type: sub-block size, whether group feeds mins, the vectors the
// unpacker gathers per super-block (what the planes hold: about the GGUF
// block's bytes, a little more where gathers overlap or pass its end), and
// the unpacker.
template <int kSubSize, bool kHasMins, int kGatheredVectors>
struct KTraits {
  static constexpr int kSub = kSubSize;
  static constexpr bool kMins = kHasMins;
  static constexpr int kGathered = kGatheredVectors;
};
struct Q2K : KTraits<16, true, 21> {
  template <typename Src, typename Sink> static void Unpack(Src& src, PackedK* out, Sink& put) { UnpackQ2K(src, out, put); }
};
struct Q3K : KTraits<16, false, 28> {
  template <typename Src, typename Sink> static void Unpack(Src& src, PackedK* out, Sink& put) { UnpackQ3K(src, out, put); }
};
struct Q4K : KTraits<32, true, 36> {
  template <typename Src, typename Sink> static void Unpack(Src& src, PackedK* out, Sink& put) { UnpackQ4K(src, out, put); }
};
struct Q5K : KTraits<32, true, 44> {
  template <typename Src, typename Sink> static void Unpack(Src& src, PackedK* out, Sink& put) { UnpackQ5K(src, out, put); }
};
struct Q6K : KTraits<16, false, 53> {
  template <typename Src, typename Sink> static void Unpack(Src& src, PackedK* out, Sink& put) { UnpackQ6K(src, out, put); }
};
struct IQ4XS : KTraits<32, false, 36> {
  template <typename Src, typename Sink> static void Unpack(Src& src, PackedK* out, Sink& put) { UnpackIQ4XS(src, out, put); }
};

// Adds super-block p's term to y[r][0..16) (lanes in `store`) for R x rows,
// given their scaled sums without the group term; on the first super-block
// the running sums start from 0. The one float update of the VNNI and AMX
// panels (matmul_k_avx512.cc, matmul_k_amx.cc), the reference's lane by lane.
template <bool kMins, int R>
inline void AddKTerm(const PackedK& p, const BlockQ8_K* const x[R], __m512i scaled[R], float* const y[R], bool first,
             __mmask16 store) {
  __m512i mins[R];
  for (int r = 0; r < R; ++r) mins[r] = _mm512_setzero_si512();
  for (int g = 0; g < 8; ++g) {
    const __m512i group = _mm512_load_si512(p.group + g);
    for (int r = 0; r < R; ++r) {
      __m512i& acc = kMins ? mins[r] : scaled[r];
      acc = _mm512_dpwssd_epi32(acc, group, _mm512_set1_epi32(Load32(x[r]->bsums + 2 * g)));
    }
  }
  for (int r = 0; r < R; ++r) {
    const __m512 term = _mm512_sub_ps(_mm512_mul_ps(p.d, _mm512_cvtepi32_ps(scaled[r])),
                                      _mm512_mul_ps(p.dmin, _mm512_cvtepi32_ps(mins[r])));
    const __m512 sum = first ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(store, y[r]);
    _mm512_mask_storeu_ps(y[r], store, _mm512_add_ps(sum, _mm512_mul_ps(_mm512_set1_ps(x[r]->d), term)));
  }
}

}  // namespace
}  // namespace pagoda::kernels::cpu::avx512
