#include "pagoda/model/hf/weight_conversion.h"

#include <cstring>

#include "pagoda/base/check.h"
#include "pagoda/tensor/half.h"

namespace pagoda::hf {
namespace {

size_t ElementSize(DType t) {
  PAGODA_CHECK(t == DType::kF32 || t == DType::kF16 || t == DType::kBF16);
  return t == DType::kF32 ? 4 : 2;
}

float Load(const uint8_t* p, DType t) {
  if (t == DType::kF32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return t == DType::kF16 ? F16ToF32(h) : BF16ToF32(h);
}

void Store(float f, uint8_t* p, DType t) {
  if (t == DType::kF32) {
    std::memcpy(p, &f, 4);
    return;
  }
  const uint16_t h = t == DType::kF16 ? F32ToF16(f) : F32ToBF16(f);
  std::memcpy(p, &h, 2);
}

}  // namespace

std::vector<uint8_t> ConvertFloats(std::span<const uint8_t> bytes, DType from, DType to) {
  const size_t n = bytes.size() / ElementSize(from);
  std::vector<uint8_t> out(n * ElementSize(to));
  for (size_t i = 0; i < n; ++i) Store(Load(bytes.data() + i * ElementSize(from), from), out.data() + i * ElementSize(to), to);
  return out;
}

std::vector<float> ToF32(std::span<const uint8_t> bytes, DType from, float add) {
  const size_t n = bytes.size() / ElementSize(from);
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = Load(bytes.data() + i * ElementSize(from), from) + add;
  return out;
}

}  // namespace pagoda::hf
