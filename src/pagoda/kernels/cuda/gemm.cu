#include "pagoda/kernels/cuda/gemm.cuh"

#include <limits>
#include <string>
#include <utility>

namespace pagoda::kernels::cuda {
namespace {

Status CublasStatus(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return Status::Ok();
  return InternalError(std::string(what) + ": " + cublasGetStatusName(status) + ": " + cublasGetStatusString(status));
}

bool ToCudaType(DType dtype, cudaDataType_t* type) {
  switch (dtype) {
    case DType::kBF16: *type = CUDA_R_16BF; return true;
    case DType::kF16: *type = CUDA_R_16F; return true;
    case DType::kF32: *type = CUDA_R_32F; return true;
    default: return false;
  }
}

}  // namespace

StatusOr<CublasHandle> CublasHandle::Create(cudaStream_t stream) {
  cublasHandle_t handle = nullptr;
  PAGODA_RETURN_IF_ERROR(CublasStatus(cublasCreate(&handle), "cublasCreate"));
  CublasHandle owned(handle);
  PAGODA_RETURN_IF_ERROR(CublasStatus(cublasSetStream(handle, stream), "cublasSetStream"));
  // f16 and bf16 inputs summed in f32, never in reduced precision.
  PAGODA_RETURN_IF_ERROR(
      CublasStatus(cublasSetMathMode(handle, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                                                      CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
                   "cublasSetMathMode"));
  return StatusOr<CublasHandle>(std::move(owned));
}

Status Gemm(const CublasHandle& cublas, const void* x, DType dtype, int64_t m, int64_t k, const void* w, int64_t n,
            void* y, DType y_dtype) {
  cudaDataType_t in_type{};
  cudaDataType_t out_type{};
  if ((dtype != DType::kBF16 && dtype != DType::kF16) || !ToCudaType(dtype, &in_type)) {
    return UnimplementedError("CUDA GEMM takes BF16 or F16 inputs");
  }
  if ((y_dtype != DType::kF32 && y_dtype != dtype) || !ToCudaType(y_dtype, &out_type)) {
    return UnimplementedError("CUDA GEMM writes F32 or its inputs' dtype");
  }
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  if (m < 0 || k <= 0 || n <= 0 || m > kMax || k > kMax || n > kMax) {
    return InvalidArgumentError("CUDA GEMM: m, k or n out of range");
  }
  if (m == 0) return Status::Ok();
  // Column-major, cuBLAS's view: yᵀ (n x m) = w (n x k, stored as kᵀ x n,
  // so transposed) times xᵀ (k x m).
  const float alpha = 1.0f;
  const float beta = 0.0f;
  return CublasStatus(cublasGemmEx(cublas.get(), CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
                                   static_cast<int>(k), &alpha, w, in_type, static_cast<int>(k), x, in_type,
                                   static_cast<int>(k), &beta, y, out_type, static_cast<int>(n), CUBLAS_COMPUTE_32F,
                                   CUBLAS_GEMM_DEFAULT),
                      "cublasGemmEx");
}

}  // namespace pagoda::kernels::cuda
