// Converts a float tensor's elements between the checkpoint types Pagoda
// reads in place (F32, F16, BF16), rounding to nearest even.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "pagoda/tensor/dtype.h"

namespace pagoda::hf {

// `from` and `to` are each kF32, kF16 or kBF16; `bytes` holds n elements of `from`.
std::vector<uint8_t> ConvertFloats(std::span<const uint8_t> bytes, DType from, DType to);

// The elements as float32, each plus `add` (Gemma stores w for its (1 + w) norms).
std::vector<float> ToF32(std::span<const uint8_t> bytes, DType from, float add = 0.0f);

}  // namespace pagoda::hf
