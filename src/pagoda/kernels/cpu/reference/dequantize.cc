// reference::DequantizeRow: the float and 32-element block types here, the
// super-block types in dequantize_k.cc.
#include "pagoda/kernels/cpu/reference/dequantize.h"

#include <cstring>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/reference/iq4_values.h"
#include "pagoda/kernels/cpu/reference/q5_bits.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::reference {
namespace {

constexpr int kHalf = kQuantBlock / 2;

int64_t Blocks(DType type, int64_t n) {
  PAGODA_CHECK_MSG(n % DTypeBlockElems(type) == 0, "row length must be a multiple of the type's block");
  return n / DTypeBlockElems(type);
}

void DequantizeQ4_0(const BlockQ4_0* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, y += kQuantBlock) {
    const float d = F16ToF32(blocks[b].d);
    for (int j = 0; j < kHalf; ++j) {
      y[j] = static_cast<float>((blocks[b].qs[j] & 0x0f) - 8) * d;
      y[j + kHalf] = static_cast<float>((blocks[b].qs[j] >> 4) - 8) * d;
    }
  }
}

void DequantizeQ4_1(const BlockQ4_1* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, y += kQuantBlock) {
    const float d = F16ToF32(blocks[b].d);
    const float m = F16ToF32(blocks[b].m);
    for (int j = 0; j < kHalf; ++j) {
      y[j] = static_cast<float>(blocks[b].qs[j] & 0x0f) * d + m;
      y[j + kHalf] = static_cast<float>(blocks[b].qs[j] >> 4) * d + m;
    }
  }
}

// Q8_0 and Q8_1 share the layout of their first two fields that matter here.
template <typename Block>
void DequantizeQ8(const Block* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, y += kQuantBlock) {
    const float d = F16ToF32(blocks[b].d);
    for (int j = 0; j < kQuantBlock; ++j) y[j] = static_cast<float>(blocks[b].qs[j]) * d;
  }
}

}  // namespace

void DequantizeQ5_0(const BlockQ5_0* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, y += kQuantBlock) {
    const BlockQ5_0& x = blocks[b];
    const float d = F16ToF32(x.d);
    for (int j = 0; j < kHalf; ++j) {
      const int lo = Q5Value(x.qs, x.qh, j) - 16;
      const int hi = Q5Value(x.qs, x.qh, j + kHalf) - 16;
      y[j] = static_cast<float>(lo) * d;
      y[j + kHalf] = static_cast<float>(hi) * d;
    }
  }
}

void DequantizeQ5_1(const BlockQ5_1* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, y += kQuantBlock) {
    const BlockQ5_1& x = blocks[b];
    const float d = F16ToF32(x.d);
    const float m = F16ToF32(x.m);
    for (int j = 0; j < kHalf; ++j) {
      const int lo = Q5Value(x.qs, x.qh, j);
      const int hi = Q5Value(x.qs, x.qh, j + kHalf);
      y[j] = static_cast<float>(lo) * d + m;
      y[j + kHalf] = static_cast<float>(hi) * d + m;
    }
  }
}

void DequantizeIQ4_NL(const BlockIQ4_NL* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, y += kQuantBlock) {
    const float d = F16ToF32(blocks[b].d);
    for (int j = 0; j < kHalf; ++j) {
      y[j] = d * static_cast<float>(kIq4Values[blocks[b].qs[j] & 0x0f]);
      y[j + kHalf] = d * static_cast<float>(kIq4Values[blocks[b].qs[j] >> 4]);
    }
  }
}

void DequantizeRow(DType type, const void* src, float* dst, int64_t n) {
  const int64_t nb = Blocks(type, n);
  switch (type) {
    case DType::kF32: std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(float)); return;
    case DType::kF16:
      for (int64_t i = 0; i < n; ++i) dst[i] = F16ToF32(static_cast<const f16_bits*>(src)[i]);
      return;
    case DType::kBF16:
      for (int64_t i = 0; i < n; ++i) dst[i] = BF16ToF32(static_cast<const bf16_bits*>(src)[i]);
      return;
    case DType::kQ4_0: DequantizeQ4_0(static_cast<const BlockQ4_0*>(src), dst, nb); return;
    case DType::kQ4_1: DequantizeQ4_1(static_cast<const BlockQ4_1*>(src), dst, nb); return;
    case DType::kQ5_0: DequantizeQ5_0(static_cast<const BlockQ5_0*>(src), dst, nb); return;
    case DType::kQ5_1: DequantizeQ5_1(static_cast<const BlockQ5_1*>(src), dst, nb); return;
    case DType::kQ8_0: DequantizeQ8(static_cast<const BlockQ8_0*>(src), dst, nb); return;
    case DType::kQ8_1: DequantizeQ8(static_cast<const BlockQ8_1*>(src), dst, nb); return;
    case DType::kQ2_K: DequantizeQ2_K(static_cast<const BlockQ2_K*>(src), dst, nb); return;
    case DType::kQ3_K: DequantizeQ3_K(static_cast<const BlockQ3_K*>(src), dst, nb); return;
    case DType::kQ4_K: DequantizeQ4_K(static_cast<const BlockQ4_K*>(src), dst, nb); return;
    case DType::kQ5_K: DequantizeQ5_K(static_cast<const BlockQ5_K*>(src), dst, nb); return;
    case DType::kQ6_K: DequantizeQ6_K(static_cast<const BlockQ6_K*>(src), dst, nb); return;
    case DType::kIQ4_NL: DequantizeIQ4_NL(static_cast<const BlockIQ4_NL*>(src), dst, nb); return;
    case DType::kIQ4_XS: DequantizeIQ4_XS(static_cast<const BlockIQ4_XS*>(src), dst, nb); return;
    case DType::kQ8_K:  // activations only: nothing stores weights as Q8_K
    case DType::kI32: break;  // indices, not values
  }
  PAGODA_CHECK_MSG(false, "no dequantizer for this dtype");
}

}  // namespace pagoda::kernels::reference
