// Dot products in the arithmetic order documented in reference.h.
#include <cmath>

#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::reference {
namespace {
constexpr int kHalf = kQuantBlock / 2;
constexpr int kGroups = kQuantBlock / 4;

// Element j (0..31) of a Q4 block: low nibbles are elements 0-15, high nibbles 16-31.
int Q4Nibble(const uint8_t* qs, int j) { return j < kHalf ? (qs[j] & 0x0f) : (qs[j - kHalf] >> 4); }

// The Q4_1 minimum term m_w * s_x added to the running sum, fused as GGML's
// compiled ggml_vec_dot_q4_1_q8_1 does.
float SummsStep(float m, float s, float summs) { return std::fma(m, s, summs); }

}  // namespace

float Hsum8(const float (&a)[8]) {
  // hsum_float_8: high half + low half, then [0]+[2] and [1]+[3], then those two.
  const float r0 = a[4] + a[0], r1 = a[5] + a[1], r2 = a[6] + a[2], r3 = a[7] + a[3];
  return (r0 + r2) + (r1 + r3);
}

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
  float acc[kGroups] = {};
  float summs = 0.0f;
  for (int64_t b = 0; b < nb; ++b) {
    const float d0 = F16ToF32(w[b].d);
    const float d1 = F16ToF32(x[b].d);
    summs = SummsStep(F16ToF32(w[b].m), F16ToF32(x[b].s), summs);
    const float d0d1 = d0 * d1;
    for (int g = 0; g < kGroups; ++g) {
      int sumi = 0;
      for (int j = 4 * g; j < 4 * g + 4; ++j) sumi += Q4Nibble(w[b].qs, j) * x[b].qs[j];
      acc[g] = std::fma(d0d1, static_cast<float>(sumi), acc[g]);
    }
  }
  return Hsum8(acc) + summs;
}

float VecDotQ8_0Q8_0(const BlockQ8_0* w, const BlockQ8_0* x, int64_t nb) {
  float acc[kGroups] = {};
  for (int64_t b = 0; b < nb; ++b) {
    const float d = F16ToF32(w[b].d) * F16ToF32(x[b].d);
    for (int g = 0; g < kGroups; ++g) {
      int sumi = 0;
      for (int j = 4 * g; j < 4 * g + 4; ++j) sumi += w[b].qs[j] * x[b].qs[j];
      acc[g] = std::fma(d, static_cast<float>(sumi), acc[g]);
    }
  }
  return Hsum8(acc);
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

float GgmlDotF32(const float* a, const float* b, int64_t n) {
  constexpr int kLanes = 64;
  float lane[kLanes] = {};
  const int64_t np = n / kLanes * kLanes;
  for (int64_t i = 0; i < np; ++i) lane[i % kLanes] = std::fma(a[i], b[i], lane[i % kLanes]);
  for (int width = kLanes / 2; width >= 1; width /= 2) {
    for (int l = 0; l < width; ++l) lane[l] += lane[l + width];
  }
  float sum = lane[0];
  for (int64_t i = np; i < n; ++i) sum = std::fma(a[i], b[i], sum);
  return sum;
}

float LaneSum(const float* a, int64_t n) {
  float lane[kDotLanes] = {};
  const int64_t padded = (n + kDotLanes - 1) / kDotLanes * kDotLanes;
  for (int64_t i = 0; i < padded; ++i) lane[i % kDotLanes] += i < n ? a[i] : 0.0f;
  return Fold(lane);
}

}  // namespace pagoda::kernels::reference
