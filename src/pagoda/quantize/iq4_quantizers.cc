// GGML's IQ4_NL and IQ4_XS quantizers as llama-quantize runs them without an
// importance matrix: ggml_quantize_chunk calls quantize_iq4_nl and
// quantize_iq4_xs, which try 15 more scales per 32 elements after a first
// fit (ntry = 7); IQ4_NL's _ref row function keeps its first guess, so it
// is not what llama-quantize writes. Each 32 elements map to indices
// into GGML's non-linear table; IQ4_XS then stores the eight sub-block
// scales of a super-block as six-bit multiples of one f16 scale.
//
// The order of every product and sum is GGML's: a different rounding can
// flip an index and so a byte of the file.
#include <algorithm>
#include <cmath>

#include "pagoda/kernels/cpu/reference/iq4_values.h"
#include "pagoda/quantize/block_quantizers.h"
#include "pagoda/quantize/nearest_int.h"
#include "pagoda/tensor/half.h"

namespace pagoda::quantize {
namespace {

using kernels::reference::kIq4Values;

constexpr int kLevels = 16;
constexpr int kSub = kQuantBlock;
constexpr int kSubBlocks = kSuperBlock / kSub;
// GGML's ntry: the scale search tries inverse scales (k - 127) / max for k
// in -kTries..kTries.
constexpr int kTries = 7;

// Index of the table value nearest v, by GGML's bisection (best_index_int8),
// whose ties go to the upper value: the file needs the same choice.
int NearestIndex(float v) {
  if (v <= kIq4Values[0]) return 0;
  if (v >= kIq4Values[kLevels - 1]) return kLevels - 1;
  int lo = 0, hi = kLevels - 1;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (v < kIq4Values[mid]) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return v - kIq4Values[hi - 1] < kIq4Values[hi] - v ? hi - 1 : hi;
}

struct Fit {
  float sumqx = 0.0f;
  float sumq2 = 0.0f;
};

// The sums of the least-squares scale sumqx / sumq2 for the indices that
// inverse scale `id` gives, with weights x^2.
Fit FitAt(const float* x, float id) {
  Fit f;
  for (int j = 0; j < kSub; ++j) {
    const auto q = static_cast<float>(kIq4Values[NearestIndex(id * x[j])]);
    const float w = x[j] * x[j];
    f.sumqx += w * q * x[j];
    f.sumq2 += w * q * q;
  }
  return f;
}

// The scale of 32 elements: the least-squares fit at 127 / max (max the
// element of largest magnitude, with its sign), replaced by that of any of
// the searched inverse scales that explains more of x. 0 below kGroupMaxEps.
float SearchScale(const float* x) {
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < kSub; ++j) {
    if (std::fabs(x[j]) > amax) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  }
  if (amax < kGroupMaxEps) return 0.0f;
  const float first = -max / kIq4Values[0];
  Fit f = FitAt(x, 1.0f / first);
  float d = f.sumq2 > 0 ? f.sumqx / f.sumq2 : 0.0f;
  float best = d * f.sumqx;
  for (int k = -kTries; k <= kTries; ++k) {
    f = FitAt(x, static_cast<float>(k + kIq4Values[0]) / max);
    if (f.sumq2 > 0 && f.sumqx * f.sumqx > best * f.sumq2) {
      d = f.sumqx / f.sumq2;
      best = d * f.sumqx;
    }
  }
  return d;
}

// The indices of `n` elements at inverse scale id, packed as the kernels
// read them: in each 32, element j in the low nibble of byte j, j + 16 in
// the high one.
void PackIndices(const float* x, int n, float id, uint8_t* qs) {
  for (int s = 0; s < n; s += kSub) {
    for (int j = 0; j < kSub / 2; ++j) {
      const int lo = NearestIndex(id * x[s + j]);
      const int hi = NearestIndex(id * x[s + kSub / 2 + j]);
      qs[s / 2 + j] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
}

// The inverse of a scale, 0 for a zero one (GGML's `d ? 1/d : 0`).
float Inverse(float d) { return d != 0.0f ? 1.0f / d : 0.0f; }

void QuantizeBlockIQ4_NL(const float* x, BlockIQ4_NL& y) {
  const float d = SearchScale(x);
  y.d = F32ToF16(d);
  // Against the unrounded scale, as GGML does.
  PackIndices(x, kSub, Inverse(d), y.qs);
}

void QuantizeBlockIQ4_XS(const float* x, BlockIQ4_XS& y) {
  float scales[kSubBlocks];
  float max_scale = 0.0f, amax_scale = 0.0f;
  for (int s = 0; s < kSubBlocks; ++s) {
    scales[s] = SearchScale(x + s * kSub);
    if (std::fabs(scales[s]) > amax_scale) {
      amax_scale = std::fabs(scales[s]);
      max_scale = scales[s];
    }
  }
  // The largest scale becomes -32 units, the most negative six-bit level;
  // for an all-zero super-block that is -0, stored as the f16 -0.
  const float d = -max_scale / 32;
  y.d = F32ToF16(d);
  const float id = Inverse(d);
  y.scales_h = 0;
  for (int s = 0; s < kSubBlocks; ++s) {
    const int l = std::max(-32, std::min(31, NearestInt(id * scales[s])));
    PackIndices(x + s * kSub, kSub, Inverse(d * static_cast<float>(l)), y.qs + s * kSub / 2);
    const int biased = l + 32;
    if (s % 2 == 0) {
      y.scales_l[s / 2] = static_cast<uint8_t>(biased & 0xF);
    } else {
      y.scales_l[s / 2] = static_cast<uint8_t>(y.scales_l[s / 2] | ((biased & 0xF) << 4));
    }
    y.scales_h = static_cast<uint16_t>(y.scales_h | ((biased >> 4) << (2 * s)));
  }
}

}  // namespace

void QuantizeIQ4_NL(const float* x, BlockIQ4_NL* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) QuantizeBlockIQ4_NL(x + b * kQuantBlock, y[b]);
}

void QuantizeIQ4_XS(const float* x, BlockIQ4_XS* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) QuantizeBlockIQ4_XS(x + b * kSuperBlock, y[b]);
}

}  // namespace pagoda::quantize
