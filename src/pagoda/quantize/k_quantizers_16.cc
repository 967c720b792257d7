// GGML's reference quantizers for the K-quants with sub-blocks of 16: Q2_K
// (scale and minimum per sub-block, four bits each), Q3_K (signed six-bit
// scales) and Q6_K (signed eight-bit scales). Each finds every sub-block's
// levels and scale (k_scale_search.h), quantizes the scales under one f16
// super-block scale, then requantizes the elements with the scales as
// stored, rounded to f16 and all, which is what a reader will multiply by.
#include <cmath>
#include <cstring>

#include "pagoda/quantize/block_quantizers.h"
#include "pagoda/quantize/k_scale_search.h"
#include "pagoda/quantize/nearest_int.h"
#include "pagoda/tensor/half.h"

namespace pagoda::quantize {
namespace {

constexpr int kSub = 16;
constexpr int kSubBlocks = kSuperBlock / kSub;

int Clamp(int l, int lo, int hi) { return l < lo ? lo : (l > hi ? hi : l); }

// The largest of v, or 0 if none is positive.
float LargestPositive(const float* v, int n) {
  float largest = 0.0f;
  for (int i = 0; i < n; ++i) {
    if (v[i] > largest) largest = v[i];
  }
  return largest;
}

// The value of largest magnitude among the sub-block scales (the first of
// equals), and that magnitude.
float LargestMagnitude(const float* v, int n, float* magnitude) {
  float value = 0.0f;
  *magnitude = 0.0f;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(v[i]) > *magnitude) {
      *magnitude = std::fabs(v[i]);
      value = v[i];
    }
  }
  return value;
}

// Q2_K and Q3_K store the low two bits of each level four to a byte: byte l
// of the 32 for each half of the super-block holds elements l, l+32, l+64
// and l+96 of that half, from the low bits up.
template <typename Level>
void PackTwoBits(const Level* levels, uint8_t* qs) {
  for (int half = 0; half < kSuperBlock; half += 128) {
    for (int l = 0; l < 32; ++l) {
      const Level* q = levels + half + l;
      qs[half / 4 + l] = static_cast<uint8_t>(q[0] | (q[32] << 2) | (q[64] << 4) | (q[96] << 6));
    }
  }
}

// --- Q2_K ---------------------------------------------------------------

constexpr AffineSearch kQ2Search{3, -0.5f, 0.1f, 15, true};

// Sub-block scales and minimums on 15 steps of d and dmin, low and high
// nibble of each scale byte.
void PackQ2Scales(const float* scales, const float* mins, BlockQ2_K& y) {
  const float max_scale = LargestPositive(scales, kSubBlocks);
  const float max_min = LargestPositive(mins, kSubBlocks);
  std::memset(y.scales, 0, sizeof(y.scales));
  y.d = F32ToF16(0.0f);
  y.dmin = F32ToF16(0.0f);
  if (max_scale > 0) {
    const float iscale = 15.0f / max_scale;
    for (int j = 0; j < kSubBlocks; ++j) y.scales[j] = static_cast<uint8_t>(NearestInt(iscale * scales[j]));
    y.d = F32ToF16(max_scale / 15.0f);
  }
  if (max_min > 0) {
    const float iscale = 15.0f / max_min;
    for (int j = 0; j < kSubBlocks; ++j) {
      y.scales[j] = static_cast<uint8_t>(y.scales[j] | (NearestInt(iscale * mins[j]) << 4));
    }
    y.dmin = F32ToF16(max_min / 15.0f);
  }
}

// Levels against the stored scales; a sub-block whose scale is 0 keeps
// the levels of its search.
void RequantizeQ2(const float* x, const BlockQ2_K& y, uint8_t* levels) {
  for (int j = 0; j < kSubBlocks; ++j) {
    const float d = F16ToF32(y.d) * static_cast<float>(y.scales[j] & 0xF);
    if (d == 0.0f) continue;
    const float dm = F16ToF32(y.dmin) * static_cast<float>(y.scales[j] >> 4);
    for (int i = 0; i < kSub; ++i) {
      levels[kSub * j + i] = static_cast<uint8_t>(Clamp(NearestInt((x[kSub * j + i] + dm) / d), 0, 3));
    }
  }
}

void QuantizeBlockQ2_K(const float* x, BlockQ2_K& y) {
  uint8_t levels[kSuperBlock];
  float scales[kSubBlocks];
  float mins[kSubBlocks];
  float weights[kSub];
  for (int j = 0; j < kSubBlocks; ++j) {
    const float* sub = x + kSub * j;
    for (int i = 0; i < kSub; ++i) weights[i] = std::fabs(sub[i]);
    scales[j] = SearchScaleAndMin(sub, weights, kSub, kQ2Search, levels + kSub * j, &mins[j]);
  }
  PackQ2Scales(scales, mins, y);
  RequantizeQ2(x, y, levels);
  PackTwoBits(levels, y.qs);
}

// --- Q3_K ---------------------------------------------------------------

// The sub-block scales as six-bit values biased by 32 (0 when every scale
// is 0), with d set so that scale j is d * (q[j] - 32).
void QuantizeQ3Scales(const float* scales, uint8_t* q, BlockQ3_K& y) {
  float magnitude = 0.0f;
  const float max_scale = LargestMagnitude(scales, kSubBlocks, &magnitude);
  std::memset(q, 0, kSubBlocks);
  if (max_scale == 0.0f) {
    y.d = F32ToF16(0.0f);
    return;
  }
  const float iscale = -32.0f / max_scale;
  for (int j = 0; j < kSubBlocks; ++j) {
    const int8_t l = static_cast<int8_t>(NearestInt(iscale * scales[j]));
    q[j] = static_cast<uint8_t>(Clamp(l, -32, 31) + 32);
  }
  y.d = F32ToF16(1.0f / iscale);
}

// Low nibbles of scales 0..7 then of 8..15 (in the high nibbles) in bytes
// 0..7; the high two bits of scale j in bits 2 (j / 4) of byte 8 + j % 4.
void PackQ3Scales(const uint8_t* q, uint8_t* packed) {
  std::memset(packed, 0, 12);
  for (int j = 0; j < kSubBlocks; ++j) {
    packed[j % 8] = static_cast<uint8_t>(packed[j % 8] | ((q[j] & 0xF) << (j < 8 ? 0 : 4)));
    packed[8 + j % 4] = static_cast<uint8_t>(packed[8 + j % 4] | ((q[j] >> 4) << (2 * (j / 4))));
  }
}

void RequantizeQ3(const float* x, f16_bits d_bits, const uint8_t* q, int8_t* levels) {
  for (int j = 0; j < kSubBlocks; ++j) {
    const float d = F16ToF32(d_bits) * static_cast<float>(q[j] - 32);
    if (d == 0.0f) continue;
    for (int i = 0; i < kSub; ++i) {
      levels[kSub * j + i] = static_cast<int8_t>(Clamp(NearestInt(x[kSub * j + i] / d), -4, 3) + 4);
    }
  }
}

// The third bit of level j goes to bit j / 32 of hmask[j % 32]; the level
// keeps its low two bits.
void SplitHighBits(int8_t* levels, uint8_t* hmask) {
  std::memset(hmask, 0, kSuperBlock / 8);
  for (int j = 0; j < kSuperBlock; ++j) {
    if (levels[j] > 3) {
      hmask[j % 32] = static_cast<uint8_t>(hmask[j % 32] | (1 << (j / 32)));
      levels[j] = static_cast<int8_t>(levels[j] - 4);
    }
  }
}

void QuantizeBlockQ3_K(const float* x, BlockQ3_K& y) {
  int8_t levels[kSuperBlock];
  float scales[kSubBlocks];
  for (int j = 0; j < kSubBlocks; ++j) {
    scales[j] = RefineSymmetricLevels(x + kSub * j, kSub, 4, levels + kSub * j);
  }
  uint8_t q[kSubBlocks];
  QuantizeQ3Scales(scales, q, y);
  PackQ3Scales(q, y.scales);
  RequantizeQ3(x, y.d, q, levels);
  SplitHighBits(levels, y.hmask);
  PackTwoBits(levels, y.qs);
}

// --- Q6_K ---------------------------------------------------------------

void RequantizeQ6(const float* x, const BlockQ6_K& y, int8_t* levels) {
  for (int j = 0; j < kSubBlocks; ++j) {
    const float d = F16ToF32(y.d) * static_cast<float>(y.scales[j]);
    if (d == 0.0f) continue;
    for (int i = 0; i < kSub; ++i) {
      levels[kSub * j + i] = static_cast<int8_t>(Clamp(NearestInt(x[kSub * j + i] / d), -32, 31) + 32);
    }
  }
}

// Six-bit levels: low nibbles in ql (elements l and l+64 of each half in
// byte l, l+32 and l+96 in byte l+32), high two-bit pairs in qh (elements l,
// l+32, l+64, l+96 of each half in byte l, from the low bits up).
void PackQ6Levels(const int8_t* levels, BlockQ6_K& y) {
  for (int half = 0; half < 2; ++half) {
    const int8_t* q = levels + 128 * half;
    uint8_t* ql = y.ql + 64 * half;
    uint8_t* qh = y.qh + 32 * half;
    for (int l = 0; l < 32; ++l) {
      ql[l] = static_cast<uint8_t>((q[l] & 0xF) | ((q[l + 64] & 0xF) << 4));
      ql[l + 32] = static_cast<uint8_t>((q[l + 32] & 0xF) | ((q[l + 96] & 0xF) << 4));
      qh[l] = static_cast<uint8_t>((q[l] >> 4) | ((q[l + 32] >> 4) << 2) | ((q[l + 64] >> 4) << 4) |
                                   ((q[l + 96] >> 4) << 6));
    }
  }
}

void QuantizeBlockQ6_K(const float* x, BlockQ6_K& y) {
  int8_t levels[kSuperBlock];
  float scales[kSubBlocks];
  for (int j = 0; j < kSubBlocks; ++j) {
    scales[j] = SearchSymmetricScale(x + kSub * j, kSub, 32, levels + kSub * j);
  }
  float magnitude = 0.0f;
  const float max_scale = LargestMagnitude(scales, kSubBlocks, &magnitude);
  if (magnitude < kGroupMaxEps) {
    std::memset(&y, 0, sizeof(y));
    return;
  }
  // The largest scale maps to -128; the others' eight-bit values cap at 127.
  const float iscale = -128.0f / max_scale;
  y.d = F32ToF16(1.0f / iscale);
  for (int j = 0; j < kSubBlocks; ++j) {
    const int l = NearestInt(iscale * scales[j]);
    y.scales[j] = static_cast<int8_t>(l < 127 ? l : 127);
  }
  RequantizeQ6(x, y, levels);
  PackQ6Levels(levels, y);
}

}  // namespace

void QuantizeQ2_K(const float* x, BlockQ2_K* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) QuantizeBlockQ2_K(x + b * kSuperBlock, y[b]);
}

void QuantizeQ3_K(const float* x, BlockQ3_K* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) QuantizeBlockQ3_K(x + b * kSuperBlock, y[b]);
}

void QuantizeQ6_K(const float* x, BlockQ6_K* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) QuantizeBlockQ6_K(x + b * kSuperBlock, y[b]);
}

}  // namespace pagoda::quantize
