// Dot products of the 32-element Q5_0, Q5_1 and IQ4_NL weight blocks with
// 8-bit activation blocks, in the order documented in reference.h.
#include "pagoda/kernels/cpu/reference/iq4_values.h"
#include "pagoda/kernels/cpu/reference/q5_bits.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::reference {

float VecDotQ5_0Q8_0(const BlockQ5_0* w, const BlockQ8_0* x, int64_t nb) {
  float sumf = 0.0f;
  for (int64_t b = 0; b < nb; ++b) {
    int sumi = 0;
    for (int j = 0; j < kQuantBlock; ++j) sumi += (Q5Value(w[b].qs, w[b].qh, j) - 16) * x[b].qs[j];
    sumf += static_cast<float>(sumi) * F16ToF32(w[b].d) * F16ToF32(x[b].d);
  }
  return sumf;
}

float VecDotQ5_1Q8_1(const BlockQ5_1* w, const BlockQ8_1* x, int64_t nb) {
  float sumf = 0.0f;
  for (int64_t b = 0; b < nb; ++b) {
    int sumi = 0;
    for (int j = 0; j < kQuantBlock; ++j) sumi += Q5Value(w[b].qs, w[b].qh, j) * x[b].qs[j];
    // The minimum times the activations' sum, which Q8_1 carries as d * sum(q).
    sumf += static_cast<float>(sumi) * F16ToF32(w[b].d) * F16ToF32(x[b].d) + F16ToF32(w[b].m) * F16ToF32(x[b].s);
  }
  return sumf;
}

float VecDotIQ4_NLQ8_0(const BlockIQ4_NL* w, const BlockQ8_0* x, int64_t nb) {
  constexpr int kHalf = kQuantBlock / 2;
  float sumf = 0.0f;
  for (int64_t b = 0; b < nb; ++b) {
    int sumi = 0;
    for (int j = 0; j < kHalf; ++j) {
      sumi += kIq4Values[w[b].qs[j] & 0x0f] * x[b].qs[j];
      sumi += kIq4Values[w[b].qs[j] >> 4] * x[b].qs[j + kHalf];
    }
    sumf += static_cast<float>(sumi) * F16ToF32(w[b].d) * F16ToF32(x[b].d);
  }
  return sumf;
}

}  // namespace pagoda::kernels::reference
