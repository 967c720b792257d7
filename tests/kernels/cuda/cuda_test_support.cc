#include "cuda_test_support.h"

#include <stdexcept>
#include <string>

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

}  // namespace pagoda::kernels::cuda::testing
