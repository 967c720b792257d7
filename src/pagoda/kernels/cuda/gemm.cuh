// Dense MatMuls on CUDA through cuBLAS: the twin of kernels::MatMul for
// BF16 and F16 weights.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "pagoda/base/status.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::cuda {

// A cuBLAS handle bound to one stream, destroyed with it.
class CublasHandle {
 public:
  static StatusOr<CublasHandle> Create(cudaStream_t stream);
  cublasHandle_t get() const { return handle_.get(); }

 private:
  struct Destroy {
    void operator()(cublasContext* handle) const { cublasDestroy(handle); }
  };
  explicit CublasHandle(cublasHandle_t handle) : handle_(handle) {}
  std::unique_ptr<cublasContext, Destroy> handle_;
};

// y = x · wᵀ, as kernels::MatMul: x [m][k] and w [n][k] (a weight as
// stored, one row per output) of one dtype, BF16 or F16; y [m][n] of F32 or
// of x's dtype. Products are summed in f32 (CUBLAS_COMPUTE_32F, reduced
// precision disallowed). cuBLAS picks its algorithm by shape, so whether a
// row's bits depend on m is for the GPU test to tell
// (GemmBatchInvarianceTest.ARowDoesNotDependOnTheBatch). Device memory;
// queued on the handle's stream.
Status Gemm(const CublasHandle& cublas, const void* x, DType dtype, int64_t m, int64_t k, const void* w, int64_t n,
            void* y, DType y_dtype);

}  // namespace pagoda::kernels::cuda
