// CUDA runtime results as Status, for the host side of the CUDA kernels.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "pagoda/base/status.h"

namespace pagoda::kernels::cuda {

// OK, or Internal naming what failed and CUDA's description of why (a bad
// launch configuration, a missing device, an earlier kernel's fault).
inline Status CudaStatus(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return Status::Ok();
  return InternalError(std::string(what) + ": " + cudaGetErrorName(error) + ": " + cudaGetErrorString(error));
}

}  // namespace pagoda::kernels::cuda
