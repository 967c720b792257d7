// Conversions between float and the 16-bit float formats, exact and
// round-to-nearest-even, matching what F16C / GGML produce.
#pragma once

#include <cstdint>
#include <cstring>

#include "pagoda/tensor/dtype.h"

namespace pagoda {

inline float F32FromBits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint32_t BitsFromF32(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

inline float F16ToF32(f16_bits h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return F32FromBits(sign | 0x7f800000u | (mant << 13));  // inf / nan
  if (exp == 0) {
    if (mant == 0) return F32FromBits(sign);
    // Subnormal: normalize.
    exp = 127 - 15 + 1;
    while ((mant & 0x400u) == 0) { mant <<= 1; --exp; }
    mant &= 0x3ffu;
    return F32FromBits(sign | (exp << 23) | (mant << 13));
  }
  return F32FromBits(sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

inline f16_bits F32ToF16(float f) {
  const uint32_t x = BitsFromF32(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) {  // inf or nan
    return static_cast<f16_bits>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
  }
  if (absx >= 0x477ff000u) return static_cast<f16_bits>(sign | 0x7c00u);  // rounds to inf
  if (absx < 0x38800000u) {  // result is subnormal or zero
    if (absx < 0x33000000u) return static_cast<f16_bits>(sign);
    // value = m * 2^(e-150); in units of the smallest subnormal (2^-24) that is m >> (126 - e).
    const uint32_t e = absx >> 23;
    const uint32_t m = (absx & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t mid = 1u << (shift - 1);
    uint32_t r = m >> shift;
    if (rem > mid || (rem == mid && (r & 1u))) ++r;  // round to nearest even
    return static_cast<f16_bits>(sign | r);
  }
  uint32_t r = absx - 0x38000000u;  // rebias exponent 127 -> 15
  const uint32_t lsb = (r >> 13) & 1u;
  r += 0xfffu + lsb;  // round to nearest even
  return static_cast<f16_bits>(sign | (r >> 13));
}

inline float BF16ToF32(bf16_bits h) { return F32FromBits(static_cast<uint32_t>(h) << 16); }

inline bf16_bits F32ToBF16(float f) {
  uint32_t x = BitsFromF32(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<bf16_bits>((x >> 16) | 0x40u);  // quiet nan
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<bf16_bits>(x >> 16);
}

}  // namespace pagoda
