// Row conversions from f32 to the storage types, following GGML's reference
// quantize_row_* arithmetic (dequantize.cc goes the other way).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::reference {
namespace {

constexpr int kHalf = kQuantBlock / 2;

int64_t Blocks(int64_t n) {
  PAGODA_CHECK_MSG(n % kQuantBlock == 0, "row length must be a multiple of 32");
  return n / kQuantBlock;
}

// The scale GGML's x86 quantize_row_q8_0/q8_1 use for 8-bit blocks: d = amax / 127,
// and the multiplier 127 / amax (not 1 / d; 0 for an all-zero block).
float Q8Scale(const float* x, float* inverse) {
  float amax = 0.0f;
  for (int j = 0; j < kQuantBlock; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 127.0f;
  *inverse = amax != 0.0f ? 127.0f / amax : 0.0f;
  return d;
}

// Round to nearest, ties to even, as the SIMD quantizers' round instruction does.
int8_t RoundQ8(float v) { return static_cast<int8_t>(std::nearbyint(v)); }

}  // namespace

void QuantizeRowQ8_0(const float* x, BlockQ8_0* y, int64_t n) {
  const int64_t nb = Blocks(n);
  for (int64_t b = 0; b < nb; ++b, x += kQuantBlock) {
    float id = 0.0f;
    const float d = Q8Scale(x, &id);
    y[b].d = F32ToF16(d);
    for (int j = 0; j < kQuantBlock; ++j) y[b].qs[j] = RoundQ8(x[j] * id);
  }
}

void QuantizeRowQ8_1(const float* x, BlockQ8_1* y, int64_t n) {
  const int64_t nb = Blocks(n);
  for (int64_t b = 0; b < nb; ++b, x += kQuantBlock) {
    float id = 0.0f;
    const float d = Q8Scale(x, &id);
    y[b].d = F32ToF16(d);
    int sum = 0;
    for (int j = 0; j < kQuantBlock; ++j) {
      y[b].qs[j] = RoundQ8(x[j] * id);
      sum += y[b].qs[j];
    }
    // GGML stores s from the unrounded d, not the f16 one.
    y[b].s = F32ToF16(static_cast<float>(sum) * d);
  }
}

void QuantizeRowQ4_0(const float* x, BlockQ4_0* y, int64_t n) {
  const int64_t nb = Blocks(n);
  for (int64_t b = 0; b < nb; ++b, x += kQuantBlock) {
    // The value of largest magnitude maps to -8, so its sign picks the scale's sign.
    float amax = 0.0f;
    float max = 0.0f;
    for (int j = 0; j < kQuantBlock; ++j) {
      if (amax < std::fabs(x[j])) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    }
    const float d = max / -8.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    y[b].d = F32ToF16(d);
    for (int j = 0; j < kHalf; ++j) {
      const int lo = std::min(15, static_cast<int>(static_cast<int8_t>(x[j] * id + 8.5f)));
      const int hi = std::min(15, static_cast<int>(static_cast<int8_t>(x[j + kHalf] * id + 8.5f)));
      y[b].qs[j] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
}

void QuantizeRowQ4_1(const float* x, BlockQ4_1* y, int64_t n) {
  const int64_t nb = Blocks(n);
  for (int64_t b = 0; b < nb; ++b, x += kQuantBlock) {
    float lo = x[0];
    float hi = x[0];
    for (int j = 1; j < kQuantBlock; ++j) {
      lo = std::min(lo, x[j]);
      hi = std::max(hi, x[j]);
    }
    const float d = (hi - lo) / 15.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    y[b].d = F32ToF16(d);
    y[b].m = F32ToF16(lo);
    for (int j = 0; j < kHalf; ++j) {
      const int q0 = std::min(15, static_cast<int>(static_cast<int8_t>((x[j] - lo) * id + 0.5f)));
      const int q1 = std::min(15, static_cast<int>(static_cast<int8_t>((x[j + kHalf] - lo) * id + 0.5f)));
      y[b].qs[j] = static_cast<uint8_t>(q0 | (q1 << 4));
    }
  }
}

void QuantizeRowF16(const float* x, f16_bits* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = F32ToF16(x[i]);
}

void QuantizeRowBF16(const float* x, bf16_bits* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = F32ToBF16(x[i]);
}

void QuantizeRow(DType type, const float* x, void* y, int64_t n) {
  switch (type) {
    case DType::kF32: std::memcpy(y, x, static_cast<size_t>(n) * sizeof(float)); return;
    case DType::kF16: QuantizeRowF16(x, static_cast<f16_bits*>(y), n); return;
    case DType::kBF16: QuantizeRowBF16(x, static_cast<bf16_bits*>(y), n); return;
    case DType::kQ4_0: QuantizeRowQ4_0(x, static_cast<BlockQ4_0*>(y), n); return;
    case DType::kQ4_1: QuantizeRowQ4_1(x, static_cast<BlockQ4_1*>(y), n); return;
    case DType::kQ8_0: QuantizeRowQ8_0(x, static_cast<BlockQ8_0*>(y), n); return;
    case DType::kQ8_1: QuantizeRowQ8_1(x, static_cast<BlockQ8_1*>(y), n); return;
    case DType::kQ8_K: QuantizeRowQ8_K(x, static_cast<BlockQ8_K*>(y), n); return;
    default: break;  // the types Pagoda only reads
  }
  PAGODA_CHECK_MSG(false, "no quantizer for this dtype");
}

}  // namespace pagoda::kernels::reference
