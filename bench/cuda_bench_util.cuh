// What the CUDA benchmarks share: exiting on a failed call, timing a call by
// CUDA events, and the device-to-device copy bandwidth they measure against.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#include "pagoda/base/status.h"

namespace pagoda::bench {

inline void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(error));
  std::exit(1);
}

inline void Check(const Status& status) {
  if (status.ok()) return;
  std::fprintf(stderr, "%s\n", status.ToString().c_str());
  std::exit(1);
}

// Mean milliseconds of `runs` calls of `run` after `warmups`, on the default
// stream.
template <typename Run>
float TimeMs(int warmups, int runs, Run run) {
  for (int i = 0; i < warmups; ++i) run();
  cudaEvent_t start, stop;
  Check(cudaEventCreate(&start), "cudaEventCreate");
  Check(cudaEventCreate(&stop), "cudaEventCreate");
  Check(cudaEventRecord(start), "cudaEventRecord");
  for (int i = 0; i < runs; ++i) run();
  Check(cudaEventRecord(stop), "cudaEventRecord");
  Check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0.0f;
  Check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / runs;
}

// A device-to-device copy of 1 GiB: bytes read plus written per second, the
// most a kernel streaming memory can expect.
inline double CopyBytesPerSecond(int warmups, int runs) {
  const size_t bytes = size_t{1} << 30;
  void* src = nullptr;
  void* dst = nullptr;
  Check(cudaMalloc(&src, bytes), "cudaMalloc");
  Check(cudaMalloc(&dst, bytes), "cudaMalloc");
  Check(cudaMemset(src, 1, bytes), "cudaMemset");
  const float ms = TimeMs(warmups, runs, [&] { Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "copy"); });
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * static_cast<double>(bytes) / (ms * 1e-3);
}

}  // namespace pagoda::bench
