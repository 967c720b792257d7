// GGML's reference quantizers for Q4_K and Q5_K: eight sub-blocks of 32,
// each fitted as scale * level - min (k_scale_search.h) with weights
// favouring large elements, the scales and minimums then quantized to six
// bits under f16 d and dmin, and the elements requantized against those
// stored values. The two types differ in level range, search steps and how
// the levels are packed.
#include <cmath>
#include <cstring>

#include "pagoda/quantize/block_quantizers.h"
#include "pagoda/quantize/k_scale_search.h"
#include "pagoda/quantize/nearest_int.h"
#include "pagoda/tensor/half.h"

namespace pagoda::quantize {
namespace {

constexpr int kSub = 32;
constexpr int kSubBlocks = kSuperBlock / kSub;

constexpr AffineSearch kQ4Search{15, -1.0f, 0.1f, 20, false};
constexpr AffineSearch kQ5Search{31, -0.5f, 0.1f, 15, false};

// Both types' super-block header: d, dmin and the twelve scale bytes.
struct SixBitScales {
  f16_bits d = 0;
  f16_bits dmin = 0;
  uint8_t scale[kSubBlocks] = {};
  uint8_t min[kSubBlocks] = {};
};

// Weights for the search: the sub-block's root mean square plus each
// element's magnitude.
void SearchWeights(const float* x, float* weights) {
  float sum_x2 = 0.0f;
  for (int i = 0; i < kSub; ++i) sum_x2 += x[i] * x[i];
  const float av_x = std::sqrt(sum_x2 / 32.0f);
  for (int i = 0; i < kSub; ++i) weights[i] = av_x + std::fabs(x[i]);
}

float LargestPositive(const float* v) {
  float largest = 0.0f;
  for (int i = 0; i < kSubBlocks; ++i) {
    if (v[i] > largest) largest = v[i];
  }
  return largest;
}

// Six-bit value of a scale or minimum at an inverse step (GGML truncates
// the rounded value to a byte before capping it at 63).
uint8_t SixBits(float inverse, float v) {
  const auto l = static_cast<uint8_t>(NearestInt(inverse * v));
  return l < 63 ? l : 63;
}

SixBitScales QuantizeScales(const float* scales, const float* mins) {
  const float max_scale = LargestPositive(scales);
  const float max_min = LargestPositive(mins);
  const float inv_scale = max_scale > 0 ? 63.0f / max_scale : 0.0f;
  const float inv_min = max_min > 0 ? 63.0f / max_min : 0.0f;
  SixBitScales s;
  for (int j = 0; j < kSubBlocks; ++j) {
    s.scale[j] = SixBits(inv_scale, scales[j]);
    s.min[j] = SixBits(inv_min, mins[j]);
  }
  s.d = F32ToF16(max_scale / 63.0f);
  s.dmin = F32ToF16(max_min / 63.0f);
  return s;
}

// GGML's 12-byte layout: sub-blocks 0..3 whole in bytes 0..3 (scales) and
// 4..7 (minimums); sub-blocks 4..7 as low nibbles in bytes 8..11 (scale low,
// minimum high) and high two bits in the top bits of bytes 0..7.
void PackSixBitScales(const SixBitScales& s, uint8_t* packed) {
  for (int j = 0; j < 4; ++j) {
    packed[j] = static_cast<uint8_t>(s.scale[j] | ((s.scale[j + 4] >> 4) << 6));
    packed[j + 4] = static_cast<uint8_t>(s.min[j] | ((s.min[j + 4] >> 4) << 6));
    packed[j + 8] = static_cast<uint8_t>((s.scale[j + 4] & 0xF) | ((s.min[j + 4] & 0xF) << 4));
  }
}

// The levels of all sub-blocks: searched, then requantized against the
// stored d * scale and dmin * min (a sub-block whose stored scale is 0
// keeps its searched levels).
void FindLevels(const float* x, const AffineSearch& search, uint8_t* levels, SixBitScales* out) {
  float scales[kSubBlocks];
  float mins[kSubBlocks];
  float weights[kSub];
  for (int j = 0; j < kSubBlocks; ++j) {
    SearchWeights(x + kSub * j, weights);
    scales[j] = SearchScaleAndMin(x + kSub * j, weights, kSub, search, levels + kSub * j, &mins[j]);
  }
  const SixBitScales s = QuantizeScales(scales, mins);
  for (int j = 0; j < kSubBlocks; ++j) {
    const float d = F16ToF32(s.d) * static_cast<float>(s.scale[j]);
    if (d == 0.0f) continue;
    const float dm = F16ToF32(s.dmin) * static_cast<float>(s.min[j]);
    for (int i = 0; i < kSub; ++i) {
      const int l = NearestInt((x[kSub * j + i] + dm) / d);
      levels[kSub * j + i] = static_cast<uint8_t>(l < 0 ? 0 : (l > search.nmax ? search.nmax : l));
    }
  }
  *out = s;
}

void QuantizeBlockQ4_K(const float* x, BlockQ4_K& y) {
  uint8_t levels[kSuperBlock];
  SixBitScales s;
  FindLevels(x, kQ4Search, levels, &s);
  y.d = s.d;
  y.dmin = s.dmin;
  PackSixBitScales(s, y.scales);
  // Each 64 elements: the first 32 in the low nibbles of 32 bytes, the next
  // 32 in the high ones.
  for (int c = 0; c < kSuperBlock / 64; ++c) {
    const uint8_t* q = levels + 64 * c;
    for (int l = 0; l < 32; ++l) y.qs[32 * c + l] = static_cast<uint8_t>(q[l] | (q[l + 32] << 4));
  }
}

void QuantizeBlockQ5_K(const float* x, BlockQ5_K& y) {
  uint8_t levels[kSuperBlock];
  SixBitScales s;
  FindLevels(x, kQ5Search, levels, &s);
  y.d = s.d;
  y.dmin = s.dmin;
  PackSixBitScales(s, y.scales);
  // As Q4_K for the low four bits; the fifth bit of element l (+32) of
  // chunk c goes to bit 2c (2c + 1) of qh[l].
  std::memset(y.qh, 0, sizeof(y.qh));
  for (int c = 0; c < kSuperBlock / 64; ++c) {
    const uint8_t* q = levels + 64 * c;
    for (int l = 0; l < 32; ++l) {
      y.qs[32 * c + l] = static_cast<uint8_t>((q[l] & 0xF) | ((q[l + 32] & 0xF) << 4));
      y.qh[l] = static_cast<uint8_t>(y.qh[l] | ((q[l] >> 4) << (2 * c)) | ((q[l + 32] >> 4) << (2 * c + 1)));
    }
  }
}

}  // namespace

void QuantizeQ4_K(const float* x, BlockQ4_K* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) QuantizeBlockQ4_K(x + b * kSuperBlock, y[b]);
}

void QuantizeQ5_K(const float* x, BlockQ5_K* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) QuantizeBlockQ5_K(x + b * kSuperBlock, y[b]);
}

}  // namespace pagoda::quantize
