// GGML's reference quantizers for the 32-element block types the kernels do
// not quantize this way: Q5_0, Q5_1 and Q8_0 (the kernels' Q8_0 is the
// activation quantizer, which rounds half to even with multiplier 127 / amax).
//
// The truncating casts and the order of every product and sum are GGML's:
// the files this writes must match llama-quantize's byte for byte.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "pagoda/quantize/block_quantizers.h"
#include "pagoda/tensor/half.h"

namespace pagoda::quantize {
namespace {

constexpr int kHalf = kQuantBlock / 2;

// The element of largest magnitude, with its sign (the first of equals):
// the symmetric types map it to their most negative level.
float SignedAbsMax(const float* x) {
  float amax = 0.0f;
  float max = 0.0f;
  for (int j = 0; j < kQuantBlock; ++j) {
    if (amax < std::fabs(x[j])) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  }
  return max;
}

struct Range {
  float min = FLT_MAX;
  float max = -FLT_MAX;
};

Range BlockRange(const float* x) {
  Range r;
  for (int j = 0; j < kQuantBlock; ++j) {
    if (x[j] < r.min) r.min = x[j];
    if (x[j] > r.max) r.max = x[j];
  }
  return r;
}

// The inverse scale, 0 for a zero scale (an all-zero block).
float Inverse(float d) { return d != 0.0f ? 1.0f / d : 0.0f; }

// Five-bit levels lo (elements 0..15) and hi (16..31) of element pair j:
// the low nibbles go into qs, the fifth bits into the word qh.
void PackFiveBits(int j, uint8_t lo, uint8_t hi, uint8_t* qs, uint32_t* qh) {
  qs[j] = static_cast<uint8_t>((lo & 0x0F) | ((hi & 0x0F) << 4));
  *qh |= static_cast<uint32_t>((lo & 0x10u) >> 4) << j;
  *qh |= static_cast<uint32_t>((hi & 0x10u) >> 4) << (j + kHalf);
}

// Level of a Q5_0 element already multiplied by the inverse scale: offset
// by 16.5 and truncated, which rounds half up, capped at 31.
uint8_t Q5_0Level(float scaled) {
  return static_cast<uint8_t>(std::min(31, static_cast<int>(static_cast<int8_t>(scaled + 16.5f))));
}

void QuantizeBlockQ5_0(const float* x, BlockQ5_0& y) {
  const float d = SignedAbsMax(x) / -16.0f;
  const float id = Inverse(d);
  y.d = F32ToF16(d);
  uint32_t qh = 0;
  for (int j = 0; j < kHalf; ++j) {
    PackFiveBits(j, Q5_0Level(x[j] * id), Q5_0Level(x[j + kHalf] * id), y.qs, &qh);
  }
  std::memcpy(y.qh, &qh, sizeof(qh));
}

// Q5_1's level from an element's distance above the minimum, scaled: GGML
// truncates it plus one half, with no cap (it cannot exceed 31).
uint8_t Q5_1Level(float scaled) { return static_cast<uint8_t>(scaled + 0.5f); }

void QuantizeBlockQ5_1(const float* x, BlockQ5_1& y) {
  const Range r = BlockRange(x);
  const float d = (r.max - r.min) / 31.0f;
  const float id = Inverse(d);
  y.d = F32ToF16(d);
  y.m = F32ToF16(r.min);
  uint32_t qh = 0;
  for (int j = 0; j < kHalf; ++j) {
    PackFiveBits(j, Q5_1Level((x[j] - r.min) * id), Q5_1Level((x[j + kHalf] - r.min) * id), y.qs, &qh);
  }
  std::memcpy(y.qh, &qh, sizeof(qh));
}

// Unlike the activation quantizer: d = amax / 127, multiplier 1 / d, and
// rounding half away from zero (roundf).
void QuantizeBlockQ8_0(const float* x, BlockQ8_0& y) {
  float amax = 0.0f;
  for (int j = 0; j < kQuantBlock; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 127.0f;
  const float id = Inverse(d);
  y.d = F32ToF16(d);
  for (int j = 0; j < kQuantBlock; ++j) y.qs[j] = static_cast<int8_t>(std::round(x[j] * id));
}

}  // namespace

void QuantizeQ5_0(const float* x, BlockQ5_0* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) QuantizeBlockQ5_0(x + b * kQuantBlock, y[b]);
}

void QuantizeQ5_1(const float* x, BlockQ5_1* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) QuantizeBlockQ5_1(x + b * kQuantBlock, y[b]);
}

void QuantizeQ8_0(const float* x, BlockQ8_0* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) QuantizeBlockQ8_0(x + b * kQuantBlock, y[b]);
}

}  // namespace pagoda::quantize
