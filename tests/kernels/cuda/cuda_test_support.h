// GPU plumbing for the CUDA kernel tests: whether a device is there, the
// fixture that skips without one, and device buffers.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::cuda::testing {

// cudaGetDeviceCount succeeds and finds at least one device.
bool HasCudaDevice();

// Tests that need a GPU: skipped (not failed) on a machine without one.
class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HasCudaDevice()) GTEST_SKIP() << "no CUDA device";
  }
};

// Throws std::runtime_error naming `what` unless error is cudaSuccess (gtest
// reports the exception as the test's failure).
void CudaCheck(cudaError_t error, const char* what);

// Device memory, freed on destruction.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes);
  template <typename T>
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size() * sizeof(T)) {
    CudaCheck(cudaMemcpy(ptr_, host.data(), bytes_, cudaMemcpyHostToDevice), "copy to device");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const { return static_cast<T*>(ptr_); }
  // The whole buffer as count = bytes / sizeof(T) elements.
  template <typename T>
  std::vector<T> ToHost() const {
    std::vector<T> host(bytes_ / sizeof(T));
    CudaCheck(cudaMemcpy(host.data(), ptr_, host.size() * sizeof(T), cudaMemcpyDeviceToHost), "copy to host");
    return host;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_;
};

// Host values as the bytes of dtype (F32, BF16 or F16, rounded to nearest
// even), and back.
std::vector<uint8_t> ToBytes(const std::vector<float>& values, DType dtype);
std::vector<float> FromBytes(const std::vector<uint8_t>& bytes, DType dtype);
// values rounded to dtype and widened again: what a kernel reading them sees.
std::vector<float> Rounded(const std::vector<float>& values, DType dtype);

// The tolerance of an op's output in dtype, relative to its largest
// reference value: 1e-5 for F32 (the same sums in another order), 1e-2 for
// BF16 and 2e-3 for F16 (the output's rounding).
float ElementTolerance(DType dtype);

// n values uniform in [lo, hi).
std::vector<float> RandomValues(size_t n, float lo, float hi, uint32_t seed);

// The largest |a[i] - b[i]| over the largest |b[i]| (1 where b is all zero).
float RelativeError(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace pagoda::kernels::cuda::testing
