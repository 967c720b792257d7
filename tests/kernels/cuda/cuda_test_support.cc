#include "cuda_test_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

#include "pagoda/tensor/half.h"

namespace pagoda::kernels::cuda::testing {

bool HasCudaDevice() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

void CudaCheck(cudaError_t error, const char* what) {
  if (error != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
  }
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  // cudaMalloc(0) may return null; one byte keeps every buffer a real pointer.
  CudaCheck(cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes), "cudaMalloc");
}

DeviceBuffer::~DeviceBuffer() { cudaFree(ptr_); }

std::vector<uint8_t> ToBytes(const std::vector<float>& values, DType dtype) {
  std::vector<uint8_t> bytes(values.size() * (dtype == DType::kF32 ? 4 : 2));
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::kF32) {
      std::memcpy(bytes.data() + 4 * i, &values[i], 4);
    } else {
      const uint16_t h = dtype == DType::kBF16 ? F32ToBF16(values[i]) : F32ToF16(values[i]);
      std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
  }
  return bytes;
}

std::vector<float> FromBytes(const std::vector<uint8_t>& bytes, DType dtype) {
  const size_t width = dtype == DType::kF32 ? 4 : 2;
  std::vector<float> values(bytes.size() / width);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::kF32) {
      std::memcpy(&values[i], bytes.data() + 4 * i, 4);
    } else {
      uint16_t h = 0;
      std::memcpy(&h, bytes.data() + 2 * i, 2);
      values[i] = dtype == DType::kBF16 ? BF16ToF32(h) : F16ToF32(h);
    }
  }
  return values;
}

std::vector<float> Rounded(const std::vector<float>& values, DType dtype) {
  return FromBytes(ToBytes(values, dtype), dtype);
}

float ElementTolerance(DType dtype) { return dtype == DType::kF32 ? 1e-5f : dtype == DType::kBF16 ? 1e-2f : 2e-3f; }

std::vector<float> RandomValues(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(n);
  for (float& v : values) v = dist(rng);
  return values;
}

float RelativeError(const std::vector<float>& a, const std::vector<float>& b) {
  float worst = 0.0f;
  float scale = 0.0f;
  for (size_t i = 0; i < b.size(); ++i) {
    const float diff = std::fabs(a[i] - b[i]);
    if (std::isnan(diff)) return INFINITY;
    worst = std::max(worst, diff);
    scale = std::max(scale, std::fabs(b[i]));
  }
  return worst / (scale > 0.0f ? scale : 1.0f);
}

}  // namespace pagoda::kernels::cuda::testing
