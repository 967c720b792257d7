// Unpacks the K-quant and IQ4_XS bit layouts (reference/k_block_decode.cc
// documents them) 32 elements per vector.
#include "pagoda/kernels/cpu/avx2/k_decode_avx2.h"

#include <immintrin.h>

#include <cstring>

#include "pagoda/kernels/cpu/avx2/avx2_util.h"
#include "pagoda/kernels/cpu/reference/iq4_values.h"

namespace pagoda::kernels::cpu::avx2 {
namespace {

__m256i Load(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
void Store(void* p, __m256i v) { _mm256_store_si256(static_cast<__m256i*>(p), v); }

// Bytes whose bit `bit` is set in `v` become `value`, the others 0.
__m256i BitAsByte(__m256i v, int bit, int value) {
  const __m256i mask = _mm256_set1_epi8(static_cast<char>(1 << bit));
  return _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(v, mask), mask), _mm256_set1_epi8(static_cast<char>(value)));
}

// Bits [2 * pair, 2 * pair + 2) of every byte.
__m256i Pair(__m256i v, int pair) {
  return _mm256_and_si256(_mm256_srli_epi16(v, 2 * pair), _mm256_set1_epi8(3));
}

__m256i Nibble(__m256i v, int high) {
  return _mm256_and_si256(_mm256_srli_epi16(v, 4 * high), _mm256_set1_epi8(0x0f));
}

// Fills sc, gcorr and gmin from per-sub-block scales and minimums, with
// the sub-block size a template argument so that the indexing is shifts.
template <int kSubSize>
void SetScales(const int32_t* scale, const int32_t* min, int bias, UnpackedK& out) {
  auto* sc = reinterpret_cast<__m256i*>(out.sc);
  for (int v = 0; v < 8; ++v) {
    if constexpr (kSubSize == 32) {
      Store(sc + v, _mm256_set1_epi16(static_cast<int16_t>(scale[v])));
    } else {
      Store(sc + v, _mm256_set_m128i(_mm_set1_epi16(static_cast<int16_t>(scale[2 * v + 1])),
                                     _mm_set1_epi16(static_cast<int16_t>(scale[2 * v]))));
    }
  }
  for (int g = 0; g < 16; ++g) {
    out.gcorr[g] = static_cast<int16_t>(bias * scale[g * 16 / kSubSize]);
    out.gmin[g] = static_cast<int16_t>(min == nullptr ? 0 : min[g * 16 / kSubSize]);
  }
}

void SetHeader(uint16_t d, uint16_t dmin, UnpackedK& out) {
  out.d = HalfToFloat(d);
  out.dmin = HalfToFloat(dmin);
  out.signs = 0;
}

// Q4_K/Q5_K's 12 bytes of six-bit scales and minimums (see
// reference/k_block_decode.cc) rearranged with word masks into 8 scale
// bytes then 8 minimum bytes: the low 6 bits of bytes 0-3 and 4-7 are
// sub-blocks 0-3; sub-blocks 4-7 take the nibbles of bytes 8-11 with the
// top 2 bits of bytes 0-3 (scales) and 4-7 (minimums) above them.
void ScaleMinK4(const uint8_t* packed, uint8_t out[16]) {
  uint32_t w[3];
  std::memcpy(w, packed, sizeof(w));
  constexpr uint32_t kLow6 = 0x3f3f3f3f, kLow4 = 0x0f0f0f0f, kLow2 = 0x03030303;
  const uint32_t words[4] = {
      w[0] & kLow6,
      (w[2] & kLow4) | (((w[0] >> 6) & kLow2) << 4),
      w[1] & kLow6,
      ((w[2] >> 4) & kLow4) | (((w[1] >> 6) & kLow2) << 4),
  };
  std::memcpy(out, words, sizeof(words));
}

// SetScales for the 32-element sub-blocks of Q4_K and Q5_K (no bias), from bytes.
void SetScalesK4(const uint8_t scale_min[16], UnpackedK& out) {
  auto* sc = reinterpret_cast<__m256i*>(out.sc);
  for (int v = 0; v < 8; ++v) Store(sc + v, _mm256_set1_epi16(scale_min[v]));
  Store(out.gcorr, _mm256_setzero_si256());
  // Each minimum serves two 16-element groups.
  const __m128i min = _mm_cvtepu8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(scale_min + 8)));
  Store(out.gmin, _mm256_set_m128i(_mm_unpackhi_epi16(min, min), _mm_unpacklo_epi16(min, min)));
}

void Unpack(const BlockQ2_K& b, UnpackedK& out) {
  SetHeader(b.d, b.dmin, out);
  int32_t scale[16], min[16];
  for (int s = 0; s < 16; ++s) {
    scale[s] = b.scales[s] & 0x0f;
    min[s] = b.scales[s] >> 4;
  }
  SetScales<16>(scale, min, 0, out);
  for (int half = 0; half < 2; ++half) {
    const __m256i qs = Load(b.qs + 32 * half);
    for (int pass = 0; pass < 4; ++pass) Store(out.q + 128 * half + 32 * pass, Pair(qs, pass));
  }
}

void Unpack(const BlockQ3_K& b, UnpackedK& out) {
  SetHeader(b.d, 0, out);
  int32_t scale[16];
  for (int k = 0; k < 16; ++k) {
    const int low = k < 8 ? b.scales[k] & 0x0f : b.scales[k - 8] >> 4;
    const int high = (b.scales[8 + k % 4] >> (2 * (k / 4))) & 3;
    scale[k] = (low | (high << 4)) - 32;
  }
  SetScales<16>(scale, nullptr, 4, out);  // values are stored plus 4
  const __m256i hmask = Load(b.hmask);
  for (int half = 0; half < 2; ++half) {
    const __m256i qs = Load(b.qs + 32 * half);
    for (int pass = 0; pass < 4; ++pass) {
      // value + 4: a set high bit adds 4.
      Store(out.q + 128 * half + 32 * pass, _mm256_or_si256(Pair(qs, pass), BitAsByte(hmask, 4 * half + pass, 4)));
    }
  }
}

template <typename Block>
void UnpackQ4Q5K(const Block& b, const uint8_t* qh, UnpackedK& out) {
  SetHeader(b.d, b.dmin, out);
  uint8_t scale_min[16];
  ScaleMinK4(b.scales, scale_min);
  SetScalesK4(scale_min, out);
  const __m256i high = qh == nullptr ? _mm256_setzero_si256() : Load(qh);
  for (int s = 0; s < 8; ++s) {
    __m256i v = Nibble(Load(b.qs + 32 * (s / 2)), s % 2);
    if (qh != nullptr) v = _mm256_or_si256(v, BitAsByte(high, s, 16));
    Store(out.q + 32 * s, v);
  }
}

void Unpack(const BlockQ4_K& b, UnpackedK& out) { UnpackQ4Q5K(b, nullptr, out); }
void Unpack(const BlockQ5_K& b, UnpackedK& out) { UnpackQ4Q5K(b, b.qh, out); }

void Unpack(const BlockQ6_K& b, UnpackedK& out) {
  SetHeader(b.d, 0, out);
  int32_t scale[16];
  for (int s = 0; s < 16; ++s) scale[s] = b.scales[s];
  SetScales<16>(scale, nullptr, 32, out);  // values are stored plus 32
  for (int half = 0; half < 2; ++half) {
    const __m256i qh = Load(b.qh + 32 * half);
    for (int quarter = 0; quarter < 4; ++quarter) {
      const __m256i low = Nibble(Load(b.ql + 64 * half + 32 * (quarter % 2)), quarter / 2);
      const __m256i high = _mm256_slli_epi16(Pair(qh, quarter), 4);  // at most 0x30: no carry across bytes
      Store(out.q + 128 * half + 32 * quarter, _mm256_or_si256(low, high));  // value + 32
    }
  }
}

void Unpack(const BlockIQ4_XS& b, UnpackedK& out) {
  SetHeader(b.d, 0, out);
  out.signs = 1;
  int32_t scale[8];
  for (int s = 0; s < 8; ++s) {
    const int low = (b.scales_l[s / 2] >> (4 * (s % 2))) & 0x0f;
    const int high = (b.scales_h >> (2 * s)) & 3;
    scale[s] = (low | (high << 4)) - 32;
  }
  SetScales<32>(scale, nullptr, 0, out);
  const __m256i table = _mm256_broadcastsi128_si256(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(reference::kIq4Values)));
  for (int s = 0; s < 8; ++s) {
    const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs + 16 * s));
    // Elements 0-15 are the low nibbles, 16-31 the high ones.
    const __m256i index = _mm256_and_si256(
        _mm256_set_m128i(_mm_srli_epi16(packed, 4), packed), _mm256_set1_epi8(0x0f));
    const __m256i values = _mm256_shuffle_epi8(table, index);
    Store(out.q + 32 * s, _mm256_abs_epi8(values));
    Store(out.sq + 32 * s, values);
  }
}

}  // namespace

void UnpackKBlock(const MatrixView& w, int64_t row, int64_t nb, int64_t b, UnpackedK& out) {
  const auto* base = static_cast<const uint8_t*>(w.data);
  const int64_t at = row * nb + b;  // super-blocks before this one
  switch (w.dtype) {
    case DType::kQ2_K: Unpack(reinterpret_cast<const BlockQ2_K*>(base)[at], out); break;
    case DType::kQ3_K: Unpack(reinterpret_cast<const BlockQ3_K*>(base)[at], out); break;
    case DType::kQ4_K: Unpack(reinterpret_cast<const BlockQ4_K*>(base)[at], out); break;
    case DType::kQ5_K: Unpack(reinterpret_cast<const BlockQ5_K*>(base)[at], out); break;
    case DType::kQ6_K: Unpack(reinterpret_cast<const BlockQ6_K*>(base)[at], out); break;
    case DType::kIQ4_XS: Unpack(reinterpret_cast<const BlockIQ4_XS*>(base)[at], out); break;
    default: break;
  }
}

}  // namespace pagoda::kernels::cpu::avx2
