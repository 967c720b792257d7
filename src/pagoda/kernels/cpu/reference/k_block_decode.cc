// The K-quant and IQ4_XS bit layouts (GGML's block_q*_K and block_iq4_xs).
#include "pagoda/kernels/cpu/reference/k_block_decode.h"

#include "pagoda/kernels/cpu/reference/iq4_values.h"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::reference {
namespace {

// Q4_K/Q5_K pack 8 six-bit scales and 8 six-bit minimums into 12 bytes:
// sub-blocks 0-3 in the low 6 bits of bytes 0-3 (scales) and 4-7 (minimums);
// sub-blocks 4-7 in the nibbles of bytes 8-11, with their high 2 bits in the
// top bits of bytes 0-7.
void ScaleMinK4(const uint8_t* packed, int j, int32_t* scale, int32_t* min) {
  if (j < 4) {
    *scale = packed[j] & 63;
    *min = packed[j + 4] & 63;
  } else {
    *scale = (packed[j + 4] & 0x0f) | ((packed[j - 4] >> 6) << 4);
    *min = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
  }
}

// Q3_K's 16 six-bit scales, each stored plus 32: the low 4 bits of scale k
// in the nibbles of bytes 0-7 (k < 8 the low ones), the high 2 bits in
// bytes 8-11, two bits per scale (k % 4 picks the byte, k / 4 the pair).
int32_t ScaleQ3K(const uint8_t* packed, int k) {
  const int low = k < 8 ? packed[k] & 0x0f : packed[k - 8] >> 4;
  const int high = (packed[8 + k % 4] >> (2 * (k / 4))) & 3;
  return (low | (high << 4)) - 32;
}

// Q2_K and Q3_K store the low 2 bits of element 128 * half + 32 * pass + l
// (l < 32) at bits 2 * pass of qs[32 * half + l].
int LowTwoBits(const uint8_t* qs, int i) {
  const int half = i / 128, pass = i % 128 / 32, l = i % 32;
  return (qs[32 * half + l] >> (2 * pass)) & 3;
}

}  // namespace

void Decode(const BlockQ2_K& b, DecodedKBlock& out) {
  out.sub_size = 16;
  out.d = F16ToF32(b.d);
  out.dmin = F16ToF32(b.dmin);
  for (int s = 0; s < 16; ++s) {
    out.scale[s] = b.scales[s] & 0x0f;
    out.min[s] = b.scales[s] >> 4;
  }
  for (int i = 0; i < kSuperBlock; ++i) out.q[i] = static_cast<int8_t>(LowTwoBits(b.qs, i));
}

void Decode(const BlockQ3_K& b, DecodedKBlock& out) {
  out.sub_size = 16;
  out.d = F16ToF32(b.d);
  out.dmin = 0;
  for (int s = 0; s < 16; ++s) {
    out.scale[s] = ScaleQ3K(b.scales, s);
    out.min[s] = 0;
  }
  // The high bit of element 128 * half + 32 * pass + l is bit 4 * half + pass
  // of hmask[l]; a clear bit means the value is 4 lower.
  for (int i = 0; i < kSuperBlock; ++i) {
    const int bit = 4 * (i / 128) + i % 128 / 32;
    const int high = (b.hmask[i % 32] >> bit) & 1;
    out.q[i] = static_cast<int8_t>(LowTwoBits(b.qs, i) - (high ? 0 : 4));
  }
}

// Q4_K and Q5_K: 32 bytes of qs per 64 elements, low nibbles first, then
// high ones; Q5_K's fifth bit of sub-block s is bit s of qh.
template <typename Block>
void DecodeQ4Q5K(const Block& b, const uint8_t* qh, DecodedKBlock& out) {
  out.sub_size = 32;
  out.d = F16ToF32(b.d);
  out.dmin = F16ToF32(b.dmin);
  for (int s = 0; s < 8; ++s) ScaleMinK4(b.scales, s, &out.scale[s], &out.min[s]);
  for (int i = 0; i < kSuperBlock; ++i) {
    const int s = i / 32, l = i % 32;
    int value = (b.qs[32 * (s / 2) + l] >> (4 * (s % 2))) & 0x0f;
    if (qh != nullptr) value |= ((qh[l] >> s) & 1) << 4;
    out.q[i] = static_cast<int8_t>(value);
  }
}

void Decode(const BlockQ4_K& b, DecodedKBlock& out) { DecodeQ4Q5K(b, nullptr, out); }
void Decode(const BlockQ5_K& b, DecodedKBlock& out) { DecodeQ4Q5K(b, b.qh, out); }

void Decode(const BlockQ6_K& b, DecodedKBlock& out) {
  out.sub_size = 16;
  out.d = F16ToF32(b.d);
  out.dmin = 0;
  for (int s = 0; s < 16; ++s) {
    out.scale[s] = b.scales[s];
    out.min[s] = 0;
  }
  // Each 128-element half: 64 bytes of ql (two nibbles each) and 32 of qh
  // (four 2-bit pairs each); element 32 * quarter + l of the half takes
  // nibble quarter / 2 of ql[l + 32 * (quarter % 2)] and pair `quarter` of qh[l].
  for (int i = 0; i < kSuperBlock; ++i) {
    const int half = i / 128, quarter = i % 128 / 32, l = i % 32;
    const int low = (b.ql[64 * half + l + 32 * (quarter % 2)] >> (4 * (quarter / 2))) & 0x0f;
    const int high = (b.qh[32 * half + l] >> (2 * quarter)) & 3;
    out.q[i] = static_cast<int8_t>((low | (high << 4)) - 32);
  }
}

void Decode(const BlockIQ4_XS& b, DecodedKBlock& out) {
  out.sub_size = 32;
  out.d = F16ToF32(b.d);
  out.dmin = 0;
  for (int s = 0; s < 8; ++s) {
    const int low = (b.scales_l[s / 2] >> (4 * (s % 2))) & 0x0f;
    const int high = (b.scales_h >> (2 * s)) & 3;
    out.scale[s] = (low | (high << 4)) - 32;
    out.min[s] = 0;
  }
  // Each 32-element sub-block: 16 bytes of indices, low nibbles then high ones.
  for (int i = 0; i < kSuperBlock; ++i) {
    const int s = i / 32, l = i % 32;
    out.q[i] = kIq4Values[(b.qs[16 * s + l % 16] >> (4 * (l / 16))) & 0x0f];
  }
}

}  // namespace pagoda::kernels::reference
