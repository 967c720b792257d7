// exp for vocabulary rows. std::exp does not vectorize without -ffast-math
// and the sampler takes ~10^5 exponentials per row, so FastExp is a
// branch-free polynomial the compiler turns into SIMD code: range reduction
// x = n ln2 + r, |r| <= ln2/2 (Cody and Waite's split of ln2), then a
// degree-6 polynomial for e^r (the classic Cephes expf coefficients).
// Relative error is under 3e-7 where expf is normal.
//
// It has internal linkage on purpose: each translation unit, the ones built
// for an instruction set included, compiles its own copy, so a copy built
// with AVX2 can never be the one that portable code calls.
#pragma once

#include <bit>
#include <cstdint>

namespace pagoda::kernels {
namespace {

inline float FastExp(float x) {
  // Below -87.3, expf is denormal or zero; the weight is 0 (so is that of
  // -inf, a masked token, and of NaN).
  const bool underflow = !(x >= -87.3f);
  x = x < -87.3f ? -87.3f : (x > 88.3f ? 88.3f : x);
  // Adding 1.5 * 2^23 rounds to the nearest integer, left in the low bits.
  constexpr float kRound = 12582912.0f;
  const float t = x * 1.44269504088896341f + kRound;  // x * log2(e)
  const int32_t n = std::bit_cast<int32_t>(t) - std::bit_cast<int32_t>(kRound);
  const float nf = t - kRound;
  const float r = (x - nf * 0.693359375f) - nf * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = p * r * r + r + 1.0f;
  const float two_n = std::bit_cast<float>(static_cast<uint32_t>(n + 127) << 23);
  return underflow ? 0.0f : er * two_n;
}

}  // namespace
}  // namespace pagoda::kernels
