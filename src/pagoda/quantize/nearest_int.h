// GGML's rounding of a float to the nearest integer, for the K-quants.
#pragma once

#include <bit>
#include <cstdint>

namespace pagoda::quantize {

// Adding 1.5 * 2^23 leaves the integer part in the low mantissa bits, rounded
// half to even; for |v| < 2^22 that is std::nearbyint. GGML's nearest_int is
// this trick, and outside that range (a sub-block divided by a scale that
// rounded to a tiny f16) it returns garbage rather than the rounded value;
// matching llama-quantize byte for byte means returning the same garbage.
inline int NearestInt(float v) {
  const float shifted = v + 12582912.0f;
  return (std::bit_cast<int32_t>(shifted) & 0x007fffff) - 0x00400000;
}

// The bound GGML's searches treat a sub-block's largest magnitude as zero below.
constexpr float kGroupMaxEps = 1e-15f;

}  // namespace pagoda::quantize
