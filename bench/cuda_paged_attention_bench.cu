// CUDA paged decode attention on Llama-3-8B's attention shape (32 query
// heads over 8 KV heads of 128, bf16, blocks of 16, every sequence's blocks
// shuffled over the arena): the time of one call (both kernels) by CUDA
// events, and the K/V bytes it must read per second beside this GPU's
// device-to-device copy bandwidth (bytes read plus bytes written per second,
// the most a kernel streaming memory can expect). One line per case and
// kernel: the library's, and (unless --variant=library) the baseline kernel
// of cuda_paged_attention_baseline.cuh on the same inputs, with the largest
// difference between their outputs.
//
//   pagoda_bench_cuda_paged_attention [--variant=both|library|baseline]
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cuda_bench_util.cuh"
#include "cuda_paged_attention_baseline.cuh"
#include "pagoda/kernels/cuda/paged_decode_attention.cuh"
#include "pagoda/tensor/half.h"

namespace {

using pagoda::DType;
using pagoda::bench::Check;
using pagoda::Status;
using pagoda::kernels::AttentionParams;
using pagoda::kernels::KvCacheLayer;
using pagoda::kernels::cuda::PagedDecodeAttention;
using pagoda::kernels::cuda::PagedDecodeBatch;
using pagoda::kernels::cuda::PagedDecodePlan;
using pagoda::kernels::cuda::PlanPagedDecodeAttention;

constexpr int64_t kHeads = 32, kKvHeads = 8, kHeadDim = 128, kBlockSize = 16;
constexpr int kWarmups = 5, kRuns = 50;

// Device memory for the length of a case.
struct Buffer {
  void* ptr = nullptr;
  explicit Buffer(size_t bytes) { Check(cudaMalloc(&ptr, std::max<size_t>(bytes, 1)), "cudaMalloc"); }
  ~Buffer() { cudaFree(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

// Uniform values in [-1, 1) from a hash of the index: filling a gigabyte
// from the host would take longer than the measurements.
__global__ void FillRandom(__nv_bfloat16* x, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 0x9e3779b1u ^ seed;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    x[i] = __float2bfloat16_rn(static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f);
  }
}

void Fill(void* x, size_t n, uint32_t seed) {
  FillRandom<<<1024, 256>>>(static_cast<__nv_bfloat16*>(x), n, seed);
  Check(cudaGetLastError(), "fill");
}

float TimeMs(const auto& run) { return pagoda::bench::TimeMs(kWarmups, kRuns, run); }

// Block tables giving every sequence ctx / kBlockSize blocks, all of the
// arena's blocks in a random order.
std::vector<int32_t> ShuffledBlockTables(int64_t batch, int64_t blocks_per_seq) {
  std::vector<int32_t> tables(static_cast<size_t>(batch * blocks_per_seq));
  std::iota(tables.begin(), tables.end(), 0);
  std::shuffle(tables.begin(), tables.end(), std::mt19937(42));
  return tables;
}

enum class Variant { kBoth, kLibrary, kBaseline };

// The largest |x - y| over the largest |y| of two bf16 outputs.
double RelativeDifference(const std::vector<uint16_t>& x, const std::vector<uint16_t>& y) {
  double diff = 0.0, largest = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double a = pagoda::BF16ToF32(x[i]), b = pagoda::BF16ToF32(y[i]);
    diff = std::max(diff, std::fabs(a - b));
    largest = std::max(largest, std::fabs(b));
  }
  return largest > 0.0 ? diff / largest : diff;
}

std::vector<uint16_t> ToHost(const Buffer& b, size_t elems) {
  std::vector<uint16_t> host(elems);
  Check(cudaMemcpy(host.data(), b.ptr, elems * 2, cudaMemcpyDeviceToHost), "copy output");
  return host;
}

void RunCase(int64_t batch, int64_t context, double copy_bytes_per_second, Variant variant) {
  const int64_t blocks_per_seq = (context + kBlockSize - 1) / kBlockSize;
  const int64_t num_blocks = batch * blocks_per_seq;
  const size_t arena_elems = static_cast<size_t>(num_blocks * kBlockSize * kKvHeads * kHeadDim);
  const size_t q_elems = static_cast<size_t>(batch * kHeads * kHeadDim);
  Buffer k(arena_elems * 2), v(arena_elems * 2), q(q_elems * 2), out(q_elems * 2), baseline_out(q_elems * 2);
  Fill(k.ptr, arena_elems, 1);
  Fill(v.ptr, arena_elems, 2);
  Fill(q.ptr, q_elems, 3);
  const std::vector<int32_t> host_tables = ShuffledBlockTables(batch, blocks_per_seq);
  const std::vector<int32_t> host_lens(static_cast<size_t>(batch), static_cast<int32_t>(context));
  Buffer tables(host_tables.size() * 4), lens(host_lens.size() * 4);
  Check(cudaMemcpy(tables.ptr, host_tables.data(), host_tables.size() * 4, cudaMemcpyHostToDevice), "copy tables");
  Check(cudaMemcpy(lens.ptr, host_lens.data(), host_lens.size() * 4, cudaMemcpyHostToDevice), "copy lengths");

  const KvCacheLayer cache{DType::kBF16, k.ptr, v.ptr, num_blocks, kBlockSize, kKvHeads, kHeadDim};
  const PagedDecodeBatch decode{batch, static_cast<const int32_t*>(lens.ptr), static_cast<const int32_t*>(tables.ptr),
                                blocks_per_seq, context};
  const auto plan = PlanPagedDecodeAttention(kHeads, cache, decode);
  Check(plan.status());
  Buffer workspace(plan->workspace_bytes);
  const AttentionParams params{.scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim))};
  const double kv_bytes = 2.0 * static_cast<double>(batch * context * kKvHeads * kHeadDim) * 2;
  auto report = [&](const char* name, float ms, const std::string& extra) {
    const double kv_bytes_per_second = kv_bytes / (ms * 1e-3);
    std::printf(
        "paged decode attention (%s), batch %4lld x context %5lld (32/8 heads x 128, bf16, block 16, %lld "
        "partitions): %8.3f ms, K/V read %6.0f GB/s = %5.1f%% of the copy's %6.0f GB/s%s\n",
        name, static_cast<long long>(batch), static_cast<long long>(context),
        static_cast<long long>(plan->num_partitions), ms, kv_bytes_per_second * 1e-9,
        100.0 * kv_bytes_per_second / copy_bytes_per_second, copy_bytes_per_second * 1e-9, extra.c_str());
  };
  if (variant != Variant::kBaseline) {
    const float ms = TimeMs([&] {
      Check(PagedDecodeAttention(q.ptr, kHeads, cache, decode, params, out.ptr, workspace.ptr, plan->workspace_bytes,
                                 nullptr));
    });
    Check(cudaDeviceSynchronize(), "paged decode attention");
    report("library", ms, "");
  }
  if (variant != Variant::kLibrary) {
    const float ms = TimeMs([&] {
      pagoda::kernels::cuda::baseline::PagedDecodeAttention(q.ptr, kHeads, cache, decode, params, *plan,
                                                            baseline_out.ptr, workspace.ptr, nullptr);
      Check(cudaGetLastError(), "baseline launch");
    });
    Check(cudaDeviceSynchronize(), "baseline paged decode attention");
    std::string extra;
    if (variant == Variant::kBoth) {
      char text[96];
      std::snprintf(text, sizeof(text), "; outputs differ by at most %.1e of the largest",
                    RelativeDifference(ToHost(out, q_elems), ToHost(baseline_out, q_elems)));
      extra = text;
    }
    report("baseline", ms, extra);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Variant variant = Variant::kBoth;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--variant=both") {
      variant = Variant::kBoth;
    } else if (arg == "--variant=library") {
      variant = Variant::kLibrary;
    } else if (arg == "--variant=baseline") {
      variant = Variant::kBaseline;
    } else {
      std::fprintf(stderr, "usage: %s [--variant=both|library|baseline]\n", argv[0]);
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop;
  Check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const double copy = pagoda::bench::CopyBytesPerSecond(kWarmups, kRuns);
  std::printf("%s, %d SMs; device-to-device copy of 1 GiB: %.0f GB/s (read + write)\n", prop.name,
              prop.multiProcessorCount, copy * 1e-9);
  for (auto [batch, context] :
       {std::pair<int64_t, int64_t>{64, 4096}, {256, 1024}, {16, 16384}, {1, 4096}, {1, 32768}}) {
    RunCase(batch, context, copy, variant);
  }
  return 0;
}
