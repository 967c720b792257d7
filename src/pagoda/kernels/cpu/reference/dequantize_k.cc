// Dequantization of the K-quant super-blocks (GGML's dequantize_row_q*_K
// arithmetic: each value is (d * sub-block scale) * q - (dmin * sub-block
// minimum), in f32, without fused multiply-add).
#include "pagoda/kernels/cpu/reference/dequantize.h"

#include "pagoda/tensor/half.h"

namespace pagoda::kernels::reference {
namespace {

// Q4_K/Q5_K pack 8 six-bit scales and 8 six-bit minimums into 12 bytes:
// sub-blocks 0-3 in the low 6 bits of bytes 0-3 (scales) and 4-7 (minimums);
// sub-blocks 4-7 in the nibbles of bytes 8-11, with their high 2 bits in the
// top bits of bytes 0-7.
void ScaleMinK4(const uint8_t* packed, int j, int* scale, int* min) {
  if (j < 4) {
    *scale = packed[j] & 63;
    *min = packed[j + 4] & 63;
  } else {
    *scale = (packed[j + 4] & 0x0f) | ((packed[j - 4] >> 6) << 4);
    *min = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
  }
}

// Q3_K's 16 six-bit scales, each stored minus 32: the low 4 bits of scale k
// in the nibbles of bytes 0-7 (k < 8 the low ones), the high 2 bits in
// bytes 8-11, two bits per scale (k % 4 picks the byte, k / 4 the pair).
int ScaleQ3K(const uint8_t* packed, int k) {
  const int low = k < 8 ? packed[k] & 0x0f : packed[k - 8] >> 4;
  const int high = (packed[8 + k % 4] >> (2 * (k / 4))) & 3;
  return (low | (high << 4)) - 32;
}

}  // namespace

void DequantizeQ2_K(const BlockQ2_K* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) {
    const BlockQ2_K& x = blocks[b];
    const float d = F16ToF32(x.d);
    const float dmin = F16ToF32(x.dmin);
    // Each 128-element half reads 32 bytes of qs four times, 2 bits deeper
    // each time; each pass covers two sub-blocks of 16.
    int sub = 0;
    for (int half = 0; half < 2; ++half) {
      const uint8_t* q = x.qs + 32 * half;
      for (int shift = 0; shift < 8; shift += 2) {
        for (int part = 0; part < 2; ++part, ++sub) {
          const float dl = d * static_cast<float>(x.scales[sub] & 0x0f);
          const float ml = dmin * static_cast<float>(x.scales[sub] >> 4);
          for (int l = 0; l < 16; ++l) *y++ = dl * static_cast<float>((q[16 * part + l] >> shift) & 3) - ml;
        }
      }
    }
  }
}

void DequantizeQ3_K(const BlockQ3_K* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) {
    const BlockQ3_K& x = blocks[b];
    const float d = F16ToF32(x.d);
    int sub = 0;
    int bit = 0;  // which bit of hmask holds the high bits for this pass
    for (int half = 0; half < 2; ++half) {
      const uint8_t* q = x.qs + 32 * half;
      for (int shift = 0; shift < 8; shift += 2, ++bit) {
        for (int part = 0; part < 2; ++part, ++sub) {
          const float dl = d * static_cast<float>(ScaleQ3K(x.scales, sub));
          for (int l = 16 * part; l < 16 * part + 16; ++l) {
            // A clear high bit means the value is 4 lower.
            const int value = ((q[l] >> shift) & 3) - ((x.hmask[l] >> bit) & 1 ? 0 : 4);
            *y++ = dl * static_cast<float>(value);
          }
        }
      }
    }
  }
}

void DequantizeQ4_K(const BlockQ4_K* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) {
    const BlockQ4_K& x = blocks[b];
    const float d = F16ToF32(x.d);
    const float dmin = F16ToF32(x.dmin);
    // 32 bytes of qs per 64 elements: low nibbles first, then high ones.
    for (int j = 0; j < 4; ++j) {
      const uint8_t* q = x.qs + 32 * j;
      for (int nibble = 0; nibble < 2; ++nibble) {
        int scale = 0, min = 0;
        ScaleMinK4(x.scales, 2 * j + nibble, &scale, &min);
        const float dl = d * static_cast<float>(scale);
        const float ml = dmin * static_cast<float>(min);
        for (int l = 0; l < 32; ++l) *y++ = dl * static_cast<float>((q[l] >> (4 * nibble)) & 0x0f) - ml;
      }
    }
  }
}

void DequantizeQ5_K(const BlockQ5_K* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) {
    const BlockQ5_K& x = blocks[b];
    const float d = F16ToF32(x.d);
    const float dmin = F16ToF32(x.dmin);
    // As Q4_K, with sub-block s's fifth bits in bit s of qh.
    for (int j = 0; j < 4; ++j) {
      const uint8_t* q = x.qs + 32 * j;
      for (int nibble = 0; nibble < 2; ++nibble) {
        const int sub = 2 * j + nibble;
        int scale = 0, min = 0;
        ScaleMinK4(x.scales, sub, &scale, &min);
        const float dl = d * static_cast<float>(scale);
        const float ml = dmin * static_cast<float>(min);
        for (int l = 0; l < 32; ++l) {
          const int value = ((q[l] >> (4 * nibble)) & 0x0f) | (((x.qh[l] >> sub) & 1) << 4);
          *y++ = dl * static_cast<float>(value) - ml;
        }
      }
    }
  }
}

void DequantizeQ6_K(const BlockQ6_K* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) {
    const BlockQ6_K& x = blocks[b];
    const float d = F16ToF32(x.d);
    // Each 128-element half: 64 bytes of ql (two nibbles each) and 32 of qh
    // (four 2-bit pairs each); element 32 * quarter + l takes nibble
    // quarter / 2 of ql[l + 32 * (quarter % 2)] and pair `quarter` of qh[l].
    for (int half = 0; half < 2; ++half) {
      const uint8_t* ql = x.ql + 64 * half;
      const uint8_t* qh = x.qh + 32 * half;
      const int8_t* sc = x.scales + 8 * half;
      for (int quarter = 0; quarter < 4; ++quarter) {
        for (int l = 0; l < 32; ++l) {
          const int low = (ql[l + 32 * (quarter % 2)] >> (4 * (quarter / 2))) & 0x0f;
          const int high = (qh[l] >> (2 * quarter)) & 3;
          const float dl = d * static_cast<float>(sc[l / 16 + 2 * quarter]);
          y[32 * quarter + l] = dl * static_cast<float>((low | (high << 4)) - 32);
        }
      }
      y += 128;
    }
  }
}

}  // namespace pagoda::kernels::reference
