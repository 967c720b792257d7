// cuda::Gemm (cuBLAS, bf16 in, f32 sums) on an 8192³ product, the card's
// measured bf16 peak, and on Llama-3-8B's MatMul shapes at prefill (4096
// tokens) and decode (1 to 256 rows): time per call by CUDA events,
// TFLOP/s, and the share of the 8192³ rate; for the decode shapes, the
// weight bytes read per second beside this GPU's device-to-device copy
// bandwidth (bytes read plus written per second).
//
//   pagoda_bench_cuda_gemm
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_bench_util.cuh"
#include "pagoda/kernels/cuda/gemm.cuh"

namespace {

using pagoda::DType;
using pagoda::bench::Check;
using pagoda::kernels::cuda::CublasHandle;
using pagoda::kernels::cuda::Gemm;

constexpr int kWarmups = 3, kRuns = 20;

struct Buffer {
  void* ptr = nullptr;
  explicit Buffer(size_t bytes) {
    Check(cudaMalloc(&ptr, bytes), "cudaMalloc");
    // Small values (bf16 0x3c3c is about 0.0115), so sums stay finite.
    Check(cudaMemset(ptr, 0x3c, bytes), "cudaMemset");
  }
  ~Buffer() { cudaFree(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

template <typename Fn>
float TimePerCall(Fn fn) {
  return pagoda::bench::TimeMs(kWarmups, kRuns, fn);
}

struct Shape {
  const char* name;
  int64_t m, k, n;
};

}  // namespace

int main() {
  cudaDeviceProp prop{};
  Check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("GPU: %s\n", prop.name);
  auto cublas = CublasHandle::Create(nullptr);
  Check(cublas.status());
  const double copy = pagoda::bench::CopyBytesPerSecond(kWarmups, kRuns);
  std::printf("device-to-device copy: %.0f GB/s (read + write)\n", copy * 1e-9);

  auto run = [&](const Shape& s) {
    Buffer x(static_cast<size_t>(s.m * s.k) * 2), w(static_cast<size_t>(s.n * s.k) * 2);
    Buffer y(static_cast<size_t>(s.m * s.n) * 2);
    const float ms = TimePerCall([&] { Check(Gemm(*cublas, x.ptr, DType::kBF16, s.m, s.k, w.ptr, s.n, y.ptr, DType::kBF16)); });
    return ms;
  };
  const Shape peak_shape{"8192^3", 8192, 8192, 8192};
  const float peak_ms = run(peak_shape);
  const double peak = 2.0 * 8192.0 * 8192.0 * 8192.0 / (peak_ms * 1e-3);
  std::printf("%-28s %9.3f ms  %7.1f TFLOP/s (the measured peak)\n", peak_shape.name, peak_ms, peak * 1e-12);

  const std::vector<Shape> prefill = {{"prefill 4096: qkv", 4096, 4096, 6144},
                                      {"prefill 4096: o", 4096, 4096, 4096},
                                      {"prefill 4096: gate_up", 4096, 4096, 28672},
                                      {"prefill 4096: down", 4096, 14336, 4096},
                                      {"prefill 4096: lm_head", 4096, 4096, 128256}};
  for (const Shape& s : prefill) {
    const float ms = run(s);
    const double rate = 2.0 * s.m * s.k * s.n / (ms * 1e-3);
    std::printf("%-28s %9.3f ms  %7.1f TFLOP/s  %5.1f%% of the peak\n", s.name, ms, rate * 1e-12, 100 * rate / peak);
  }
  for (int64_t m : {1, 8, 64, 256}) {
    const Shape s{"decode: gate_up", m, 4096, 28672};
    const float ms = run(s);
    const double bytes = static_cast<double>(s.n * s.k) * 2;
    const double read = bytes / (ms * 1e-3);
    std::printf("%-20s m=%-5lld %9.3f ms  weights %6.0f GB/s  %5.1f%% of the copy's read+write\n", s.name,
                static_cast<long long>(m), ms, read * 1e-9, 100 * read / copy);
  }
  return 0;
}
