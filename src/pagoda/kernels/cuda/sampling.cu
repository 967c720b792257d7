#include "pagoda/kernels/cuda/sampling.cuh"

#include <cstdint>
#include <limits>

#include "pagoda/kernels/cuda/cuda_status.h"
#include "pagoda/kernels/cuda/warp_reduce.cuh"

namespace pagoda::kernels::cuda {
namespace {

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
constexpr int32_t kNoIndex = 0x7fffffff;  // above every id

// Block-wide reductions in a fixed order (lanes by butterfly, then warps in
// index order); every thread gets the result. `scratch` holds kWarps values.
__device__ float BlockSum(float x, float* scratch) {
  x = WarpSum(x);
  __syncthreads();
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = x;
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < kWarps; ++w) total += scratch[w];
  return total;
}

__device__ float BlockMax(float x, float* scratch) {
  x = WarpMax(x);
  __syncthreads();
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = x;
  __syncthreads();
  float top = -INFINITY;
  for (int w = 0; w < kWarps; ++w) top = fmaxf(top, scratch[w]);
  return top;
}

// Keys that order as the floats do (-inf lowest), for selection by bits.
__device__ __forceinline__ uint32_t OrderKey(float x) {
  const uint32_t bits = __float_as_uint(x);
  return (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
}

// The highest logit of the row, the lowest id among ties.
__device__ int32_t Argmax(const float* row, int64_t vocab, float* scratch, int32_t* index_scratch) {
  float best = -INFINITY;
  int32_t best_id = kNoIndex;
  for (int64_t i = threadIdx.x; i < vocab; i += kThreads) {
    if (row[i] > best) {  // ids rise within a thread, so the first of a tie stays
      best = row[i];
      best_id = static_cast<int32_t>(i);
    }
  }
  const float top = BlockMax(best, scratch);
  __syncthreads();
  if (threadIdx.x == 0) *index_scratch = kNoIndex;
  __syncthreads();
  if (best == top) atomicMin(index_scratch, best_id);
  __syncthreads();
  const int32_t id = *index_scratch;
  return top == -INFINITY ? -1 : id;
}

// The row's values divided by the temperature, as the selection sees them.
struct Scaled {
  const float* row;
  float temperature;
  __device__ float operator()(int64_t i) const { return row[i] / temperature; }
};

// The key of the k-th largest value: the largest key with at least k
// values at or above it, found bit by bit.
__device__ uint32_t KthLargestKey(const Scaled& value, int64_t vocab, int32_t k, float* scratch) {
  uint32_t prefix = 0;
  for (int bit = 31; bit >= 0; --bit) {
    const uint32_t candidate = prefix | (1u << bit);
    float count = 0.0f;  // exact: at most 2^24 values
    for (int64_t i = threadIdx.x; i < vocab; i += kThreads) count += OrderKey(value(i)) >= candidate ? 1.0f : 0.0f;
    if (BlockSum(count, scratch) >= static_cast<float>(k)) prefix = candidate;
  }
  return prefix;
}

// Which ids survive: keys above `above`, and keys equal to `tie` with ids
// below `tie_end`.
struct Survivors {
  uint32_t above;
  uint32_t tie;
  int64_t tie_end;
  __device__ bool operator()(uint32_t key, int64_t id) const { return key > above || (key == tie && id < tie_end); }
};

// The first surviving id, in id order, at which the survivors' running
// mass passes `threshold` (reaches it, where or_equal); -1 if none does.
// One tile of kThreads ids at a time: a block-wide inclusive scan of the
// tile's masses (within warps, then over the warps' totals in order).
__device__ int32_t FirstPassing(const Scaled& value, int64_t vocab, float top, const Survivors& kept,
                                float threshold, bool or_equal, int32_t* index_scratch) {
  __shared__ float warp_totals[kWarps];
  float carried = 0.0f;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  for (int64_t base = 0; base < vocab; base += kThreads) {
    const int64_t i = base + threadIdx.x;
    float mass = 0.0f;
    bool is_kept = false;
    if (i < vocab) {
      const float x = value(i);
      is_kept = kept(OrderKey(x), i);
      if (is_kept) mass = expf(x - top);
    }
    float inclusive = mass;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const float from = __shfl_up_sync(kFullWarpMask, inclusive, offset);
      if (lane >= offset) inclusive += from;
    }
    __syncthreads();  // the last tile's readers are done
    if (lane == 31) warp_totals[warp] = inclusive;
    if (threadIdx.x == 0) *index_scratch = kNoIndex;
    __syncthreads();
    float running = carried;
    for (int w = 0; w < warp; ++w) running += warp_totals[w];
    running += inclusive;
    if (is_kept && (or_equal ? running >= threshold : running > threshold)) {
      atomicMin(index_scratch, static_cast<int32_t>(i));
    }
    float tile_total = 0.0f;
    for (int w = 0; w < kWarps; ++w) tile_total += warp_totals[w];
    __syncthreads();
    const int32_t found = *index_scratch;
    if (found != kNoIndex) return found;
    carried += tile_total;
  }
  return -1;
}

// The mass of the survivors.
__device__ float MassOf(const Scaled& value, int64_t vocab, float top, const Survivors& kept, float* scratch) {
  float mass = 0.0f;
  for (int64_t i = threadIdx.x; i < vocab; i += kThreads) {
    const float x = value(i);
    if (kept(OrderKey(x), i)) mass += expf(x - top);
  }
  return BlockSum(mass, scratch);
}

// The last survivor in id order.
__device__ int32_t LastSurvivor(const Scaled& value, int64_t vocab, const Survivors& kept, int32_t* index_scratch) {
  int32_t last = -1;
  for (int64_t i = threadIdx.x; i < vocab; i += kThreads) {
    if (kept(OrderKey(value(i)), i)) last = static_cast<int32_t>(i);
  }
  __syncthreads();
  if (threadIdx.x == 0) *index_scratch = -1;
  __syncthreads();
  atomicMax(index_scratch, last);
  __syncthreads();
  return *index_scratch;
}

// Every key from `from` on survives.
__device__ Survivors From(uint32_t from) { return Survivors{from - 1, from, 0}; }

__global__ void __launch_bounds__(kThreads)
    SampleKernel(const float* logits, int64_t vocab, const RowSampling* sampling, int32_t* tokens) {
  __shared__ float scratch[kWarps];
  __shared__ int32_t index_scratch;
  const float* row = logits + static_cast<int64_t>(blockIdx.x) * vocab;
  const RowSampling s = sampling[blockIdx.x];
  if (s.temperature <= 0.0f) {
    const int32_t token = Argmax(row, vocab, scratch, &index_scratch);
    if (threadIdx.x == 0) tokens[blockIdx.x] = token;
    return;
  }
  const Scaled value{row, s.temperature};
  float local_top = -INFINITY;
  for (int64_t i = threadIdx.x; i < vocab; i += kThreads) local_top = fmaxf(local_top, value(i));
  const float top = BlockMax(local_top, scratch);
  if (top == -INFINITY) {
    if (threadIdx.x == 0) tokens[blockIdx.x] = -1;
    return;
  }
  // Top-k: every key at or above the k-th largest's survives; -inf never.
  const uint32_t lowest = OrderKey(-INFINITY) + 1;
  uint32_t floor = lowest;
  if (s.top_k > 0 && s.top_k < vocab) {
    const uint32_t kth = KthLargestKey(value, vocab, s.top_k, scratch);
    floor = kth > lowest ? kth : lowest;
  }
  Survivors kept = From(floor);
  float total = MassOf(value, vocab, top, kept, scratch);
  if (s.top_p < 1.0f) {
    // t: the largest key whose mass from the top reaches the target. Every
    // key above t survives (the mass before each is below the target), and
    // t's ties in id order while the mass before each is still below it:
    // through the first tie at which the running mass reaches it.
    const float target = s.top_p * total;
    uint32_t t = 0;
    for (int bit = 31; bit >= 0; --bit) {
      const uint32_t candidate = t | (1u << bit);
      if (MassOf(value, vocab, top, From(candidate > floor ? candidate : floor), scratch) >= target) t = candidate;
    }
    if (t < floor) t = floor;
    const Survivors above_t{t, t, 0};
    const float above = MassOf(value, vocab, top, above_t, scratch);
    const Survivors ties{0xffffffffu, t, vocab};
    const int32_t last_tie = FirstPassing(value, vocab, top, ties, target - above, true, &index_scratch);
    kept = Survivors{t, t, last_tie >= 0 ? int64_t{last_tie} + 1 : vocab};
    total = MassOf(value, vocab, top, kept, scratch);
  }
  int32_t token = FirstPassing(value, vocab, top, kept, s.uniform * total, false, &index_scratch);
  // Rounding can leave the threshold at the very end: the last survivor.
  if (token < 0) token = LastSurvivor(value, vocab, kept, &index_scratch);
  if (threadIdx.x == 0) tokens[blockIdx.x] = token;
}

}  // namespace

Status SampleTokens(const float* logits, int64_t rows, int64_t vocab, const RowSampling* sampling, int32_t* tokens,
                    cudaStream_t stream) {
  if (rows < 0 || rows > std::numeric_limits<int32_t>::max() || vocab <= 0 || vocab > (int64_t{1} << 24)) {
    return InvalidArgumentError("CUDA sampling: rows or vocab out of range (vocab up to 2^24)");
  }
  if (rows == 0) return Status::Ok();
  SampleKernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(logits, vocab, sampling, tokens);
  return CudaStatus(cudaGetLastError(), "sampling launch");
}

}  // namespace pagoda::kernels::cuda
