// Dot products in the arithmetic order documented in reference.h.
#include <cmath>

#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::reference {
namespace {
constexpr int kHalf = kQuantBlock / 2;
}  // namespace

float VecDotQ4_0Q8_0(const BlockQ4_0* w, const BlockQ8_0* x, int64_t nb) {
  float sumf = 0.0f;
  for (int64_t b = 0; b < nb; ++b) {
    int sumi = 0;
    for (int j = 0; j < kHalf; ++j) {
      sumi += ((w[b].qs[j] & 0x0f) - 8) * x[b].qs[j];
      sumi += ((w[b].qs[j] >> 4) - 8) * x[b].qs[j + kHalf];
    }
    sumf += static_cast<float>(sumi) * F16ToF32(w[b].d) * F16ToF32(x[b].d);
  }
  return sumf;
}

float VecDotQ4_1Q8_1(const BlockQ4_1* w, const BlockQ8_1* x, int64_t nb) {
  float sumf = 0.0f;
  for (int64_t b = 0; b < nb; ++b) {
    int sumi = 0;
    for (int j = 0; j < kHalf; ++j) {
      sumi += (w[b].qs[j] & 0x0f) * x[b].qs[j];
      sumi += (w[b].qs[j] >> 4) * x[b].qs[j + kHalf];
    }
    sumf += (F16ToF32(w[b].d) * F16ToF32(x[b].d)) * static_cast<float>(sumi) +
            F16ToF32(w[b].m) * F16ToF32(x[b].s);
  }
  return sumf;
}

float VecDotQ8_0Q8_0(const BlockQ8_0* w, const BlockQ8_0* x, int64_t nb) {
  float sumf = 0.0f;
  for (int64_t b = 0; b < nb; ++b) {
    int sumi = 0;
    for (int j = 0; j < kQuantBlock; ++j) sumi += w[b].qs[j] * x[b].qs[j];
    sumf += static_cast<float>(sumi) * (F16ToF32(w[b].d) * F16ToF32(x[b].d));
  }
  return sumf;
}

namespace {

float Fold(float (&lane)[kDotLanes]) {
  for (int width = kDotLanes / 2; width >= 1; width /= 2) {
    for (int l = 0; l < width; ++l) lane[l] += lane[l + width];
  }
  return lane[0];
}

}  // namespace

float LaneDot(const float* a, const float* b, int64_t n) {
  float lane[kDotLanes] = {};
  const int64_t padded = (n + kDotLanes - 1) / kDotLanes * kDotLanes;
  for (int64_t i = 0; i < padded; ++i) {
    const float ai = i < n ? a[i] : 0.0f;
    const float bi = i < n ? b[i] : 0.0f;
    lane[i % kDotLanes] = std::fma(ai, bi, lane[i % kDotLanes]);
  }
  return Fold(lane);
}

float LaneSum(const float* a, int64_t n) {
  float lane[kDotLanes] = {};
  const int64_t padded = (n + kDotLanes - 1) / kDotLanes * kDotLanes;
  for (int64_t i = 0; i < padded; ++i) lane[i % kDotLanes] += i < n ? a[i] : 0.0f;
  return Fold(lane);
}

}  // namespace pagoda::kernels::reference
