// The CUDA paged decode attention kernel as it was before the single-pass
// rewrite (three passes over each 256-position partition: scores into shared
// memory, their softmax, the weighted V rows; K/V loaded into registers, four
// rows in flight per thread), kept in the benchmark only, so that one GPU run
// times the library's kernel and this one side by side. It shares the
// library's plan and workspace layout. Not part of the library.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/kernels/cuda/paged_decode_attention.cuh"
#include "pagoda/kernels/cuda/paged_decode_plan.h"
#include "pagoda/kernels/cuda/warp_reduce.cuh"

namespace pagoda::kernels::cuda::baseline {

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
// K/V rows each thread loads before it uses the first: enough bytes in
// flight to cover memory latency.
constexpr int kUnroll = 4;
constexpr int kPartition = static_cast<int>(kDecodePartitionTokens);

struct DecodeArgs {
  const void* q;
  const void* k;
  const void* v;
  const int32_t* seq_lens;
  const int32_t* block_tables;
  int64_t max_blocks_per_seq;
  int64_t num_blocks;
  int64_t num_heads;
  int64_t num_kv_heads;
  int64_t head_chunks;
  int64_t num_partitions;
  int block_shift;
  float scale;
  float softcap;
  int64_t sliding_window;
  void* out;
  float* partial_out;
  float* partial_max;
  float* partial_sum;
};

// How the threads share one K or V row of kHeadDim elements: kLanes
// consecutive threads read it with 16-byte loads, kLoads each, and the
// thread block reads kRows rows at once.
template <typename T, int kHeadDim>
struct RowGeometry {
  static constexpr int kVec = 16 / static_cast<int>(sizeof(T));
  static constexpr int kLanes = kHeadDim / kVec < 32 ? kHeadDim / kVec : 32;
  static constexpr int kLoads = kHeadDim / (kVec * kLanes);
  static constexpr int kElems = kLoads * kVec;  // row elements per thread
  static constexpr int kRows = kThreads / kLanes;
  static_assert(kLoads * kVec * kLanes == kHeadDim);
};

template <int kHeadDim, int kHeads>
struct DecodeShared {
  union {
    // Scaled scores of the partition's positions, then their exponentials.
    float scores[kHeads][kPartition];
    // Once the scores are used: each warp's weighted V sums.
    float warp_sums[kWarps][kHeads][kHeadDim];
  };
  float max[kHeads];
  float sum[kHeads];
  // Ids of the blocks holding the partition's positions (a window may start
  // inside a block, so one more than the partition spans when aligned).
  int32_t blocks[kPartition + 1];
};

// The positions a sequence's query attends, [begin, end), and the
// partitions holding them (last < first when there are none).
struct Span {
  int begin, end;
  int first_partition, last_partition;
};

__device__ __forceinline__ Span AttendedSpan(int seq_len, int64_t sliding_window) {
  Span s;
  s.end = seq_len;
  s.begin = sliding_window > 0 && seq_len > sliding_window ? static_cast<int>(seq_len - sliding_window) : 0;
  if (s.end <= s.begin) {
    s.first_partition = 0;
    s.last_partition = -1;
  } else {
    s.first_partition = s.begin / kPartition;
    s.last_partition = (s.end - 1) / kPartition;
  }
  return s;
}

// Widens 16 bytes of T to f32.
template <typename T>
__device__ __forceinline__ void Widen16(const uint4& raw, float* out);

template <>
__device__ __forceinline__ void Widen16<float>(const uint4& raw, float* out) {
  out[0] = __uint_as_float(raw.x);
  out[1] = __uint_as_float(raw.y);
  out[2] = __uint_as_float(raw.z);
  out[3] = __uint_as_float(raw.w);
}

// A bf16 is the high half of an f32: each 32-bit word holds two, the first
// in its low half (little-endian).
template <>
__device__ __forceinline__ void Widen16<__nv_bfloat16>(const uint4& raw, float* out) {
  const uint32_t words[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    out[2 * i] = __uint_as_float(words[i] << 16);
    out[2 * i + 1] = __uint_as_float(words[i] & 0xffff0000u);
  }
}

template <typename T>
__device__ __forceinline__ T Narrow(float x);
template <>
__device__ __forceinline__ float Narrow<float>(float x) { return x; }
template <>
__device__ __forceinline__ __nv_bfloat16 Narrow<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// What one thread block works on.
struct Work {
  int64_t seq;
  int64_t kv_head;
  int64_t head0;      // its first query head
  int begin, end;     // positions of this partition it attends
  int64_t first_block;  // block-table index of position `begin`
};

// Element offset of position p's row for the block's KV head.
template <int kHeadDim, int kHeads>
__device__ __forceinline__ int64_t RowOffset(const DecodeArgs& a, const Work& w,
                                             const DecodeShared<kHeadDim, kHeads>& sh, int p) {
  const int64_t block = sh.blocks[(p >> a.block_shift) - w.first_block];
  const int64_t slot = (block << a.block_shift) + (p & ((1 << a.block_shift) - 1));
  return (slot * a.num_kv_heads + w.kv_head) * kHeadDim;
}

// Loads this thread's part of the rows of the next kUnroll * kRows
// positions from `base` (zeros past the partition's end).
template <typename T, int kHeadDim, int kHeads>
__device__ __forceinline__ void LoadRows(const DecodeArgs& a, const Work& w, const DecodeShared<kHeadDim, kHeads>& sh,
                                         const T* cache, int base,
                                         uint4 (&raw)[kUnroll][RowGeometry<T, kHeadDim>::kLoads]) {
  using G = RowGeometry<T, kHeadDim>;
  const int lane = threadIdx.x % G::kLanes;
  const int row = threadIdx.x / G::kLanes;
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int p = base + u * G::kRows + row;
#pragma unroll
    for (int j = 0; j < G::kLoads; ++j) raw[u][j] = make_uint4(0, 0, 0, 0);
    if (p < w.end) {
      const T* row_ptr = cache + RowOffset(a, w, sh, p);
#pragma unroll
      for (int j = 0; j < G::kLoads; ++j) {
        raw[u][j] = __ldg(reinterpret_cast<const uint4*>(row_ptr + (j * G::kLanes + lane) * G::kVec));
      }
    }
  }
}

// Copies the partition's block ids to shared memory, checking each.
template <int kHeadDim, int kHeads>
__device__ void StageBlocks(const DecodeArgs& a, const Work& w, DecodeShared<kHeadDim, kHeads>& sh) {
  const int32_t* table = a.block_tables + w.seq * a.max_blocks_per_seq;
  const int count = static_cast<int>(((w.end - 1) >> a.block_shift) - w.first_block + 1);
  for (int i = threadIdx.x; i < count; i += kThreads) {
    const int32_t id = table[w.first_block + i];
    if (id < 0 || id >= a.num_blocks) __trap();  // would read outside the arena
    sh.blocks[i] = id;
  }
}

// This thread's elements of the kHeads query rows, in f32.
template <typename T, int kHeadDim, int kHeads>
__device__ void LoadQuery(const DecodeArgs& a, const Work& w,
                          float (&q)[kHeads][RowGeometry<T, kHeadDim>::kElems]) {
  using G = RowGeometry<T, kHeadDim>;
  const int lane = threadIdx.x % G::kLanes;
#pragma unroll
  for (int h = 0; h < kHeads; ++h) {
    const T* row = static_cast<const T*>(a.q) + (w.seq * a.num_heads + w.head0 + h) * kHeadDim;
#pragma unroll
    for (int j = 0; j < G::kLoads; ++j) {
      const uint4 raw = __ldg(reinterpret_cast<const uint4*>(row + (j * G::kLanes + lane) * G::kVec));
      Widen16<T>(raw, &q[h][j * G::kVec]);
    }
  }
}

// Pass 1: sh.scores[h][p - begin] = the scaled (and capped) q_h . k_p.
template <typename T, int kHeadDim, int kHeads>
__device__ void ScorePartition(const DecodeArgs& a, const Work& w, DecodeShared<kHeadDim, kHeads>& sh) {
  using G = RowGeometry<T, kHeadDim>;
  static_assert(G::kLanes >= kHeads, "each head's score needs a lane of the row's group");
  constexpr int kLanesPerHead = G::kLanes / kHeads;
  const int lane = threadIdx.x % G::kLanes;
  const int row = threadIdx.x / G::kLanes;
  float q[kHeads][G::kElems];
  LoadQuery<T, kHeadDim, kHeads>(a, w, q);
  // Every thread runs the same iterations: SpreadSum needs whole warps.
  for (int base = w.begin; base < w.end; base += G::kRows * kUnroll) {
    uint4 raw[kUnroll][G::kLoads];
    LoadRows<T, kHeadDim, kHeads>(a, w, sh, static_cast<const T*>(a.k), base, raw);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      float dot[kHeads] = {};
#pragma unroll
      for (int j = 0; j < G::kLoads; ++j) {
        float k[G::kVec];
        Widen16<T>(raw[u][j], k);
#pragma unroll
        for (int h = 0; h < kHeads; ++h) {
#pragma unroll
          for (int e = 0; e < G::kVec; ++e) dot[h] = fmaf(q[h][j * G::kVec + e], k[e], dot[h]);
        }
      }
      SpreadSum<kHeads, kHeads, G::kLanes / 2>(dot, lane);
      const int p = base + u * G::kRows + row;
      if (p < w.end && lane % kLanesPerHead == 0) {
        float s = dot[0] * a.scale;
        if (a.softcap > 0.0f) s = tanhf(s * (1.0f / a.softcap)) * a.softcap;
        sh.scores[lane / kLanesPerHead][p - w.begin] = s;
      }
    }
  }
}

// Pass 2: the scores become exp(score - max); sh.max and sh.sum per head.
template <int kHeadDim, int kHeads>
__device__ void SoftmaxPartition(const Work& w, DecodeShared<kHeadDim, kHeads>& sh) {
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int n = w.end - w.begin;
  for (int h = warp; h < kHeads; h += kWarps) {
    float* s = sh.scores[h];
    float mx = -INFINITY;
    for (int i = lane; i < n; i += 32) mx = fmaxf(mx, s[i]);
    mx = WarpMax(mx);
    float sum = 0.0f;
    for (int i = lane; i < n; i += 32) {
      const float e = expf(s[i] - mx);
      s[i] = e;
      sum += e;
    }
    sum = WarpSum(sum);
    if (lane == 0) {
      sh.max[h] = mx;
      sh.sum[h] = sum;
    }
  }
}

// Pass 3: sh.warp_sums[warp][h][d] = each warp's share of
// sum_p exp(score_hp - max_h) * v_p[d].
template <typename T, int kHeadDim, int kHeads>
__device__ void WeighValues(const DecodeArgs& a, const Work& w, DecodeShared<kHeadDim, kHeads>& sh) {
  using G = RowGeometry<T, kHeadDim>;
  const int lane = threadIdx.x % G::kLanes;
  const int row = threadIdx.x / G::kLanes;
  float acc[kHeads][G::kElems] = {};
  for (int base = w.begin; base < w.end; base += G::kRows * kUnroll) {
    uint4 raw[kUnroll][G::kLoads];
    LoadRows<T, kHeadDim, kHeads>(a, w, sh, static_cast<const T*>(a.v), base, raw);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int p = base + u * G::kRows + row;
      if (p >= w.end) continue;
      float weight[kHeads];
#pragma unroll
      for (int h = 0; h < kHeads; ++h) weight[h] = sh.scores[h][p - w.begin];
#pragma unroll
      for (int j = 0; j < G::kLoads; ++j) {
        float v[G::kVec];
        Widen16<T>(raw[u][j], v);
#pragma unroll
        for (int h = 0; h < kHeads; ++h) {
#pragma unroll
          for (int e = 0; e < G::kVec; ++e) acc[h][j * G::kVec + e] = fmaf(weight[h], v[e], acc[h][j * G::kVec + e]);
        }
      }
    }
  }
  // The rows a warp read at once: fold them onto its first row's lanes.
#pragma unroll
  for (int offset = G::kLanes; offset < 32; offset *= 2) {
#pragma unroll
    for (int h = 0; h < kHeads; ++h) {
#pragma unroll
      for (int i = 0; i < G::kElems; ++i) acc[h][i] += __shfl_xor_sync(kFullWarpMask, acc[h][i], offset);
    }
  }
  __syncthreads();  // every thread is done with the scores, whose memory warp_sums reuses
  if (threadIdx.x % 32 < G::kLanes) {
    const int warp = threadIdx.x / 32;
#pragma unroll
    for (int h = 0; h < kHeads; ++h) {
#pragma unroll
      for (int j = 0; j < G::kLoads; ++j) {
#pragma unroll
        for (int e = 0; e < G::kVec; ++e) {
          sh.warp_sums[warp][h][(j * G::kLanes + lane) * G::kVec + e] = acc[h][j * G::kVec + e];
        }
      }
    }
  }
}

// Sums the warps' shares (in warp order) and writes either the final output
// (when this partition is the sequence's only one) or the partition's
// unnormalised output, maximum and sum for CombinePartitionsKernel.
template <typename T, int kHeadDim, int kHeads>
__device__ void WriteResult(const DecodeArgs& a, const Work& w, int64_t partition, bool only_partition,
                            const DecodeShared<kHeadDim, kHeads>& sh) {
  for (int i = threadIdx.x; i < kHeads * kHeadDim; i += kThreads) {
    const int h = i / kHeadDim;
    const int d = i % kHeadDim;
    float total = 0.0f;
#pragma unroll
    for (int warp = 0; warp < kWarps; ++warp) total += sh.warp_sums[warp][h][d];
    const int64_t head_row = w.seq * a.num_heads + w.head0 + h;
    if (only_partition) {
      static_cast<T*>(a.out)[head_row * kHeadDim + d] = Narrow<T>(total / sh.sum[h]);
    } else {
      const int64_t part_row = head_row * a.num_partitions + partition;
      a.partial_out[part_row * kHeadDim + d] = total;
      if (d == 0) {
        a.partial_max[part_row] = sh.max[h];
        a.partial_sum[part_row] = sh.sum[h];
      }
    }
  }
}

// Grid: (partition, KV head * head_chunks + chunk, sequence).
template <typename T, int kHeadDim, int kHeads>
__global__ void __launch_bounds__(kThreads) PagedDecodeKernel(const DecodeArgs a) {
  __shared__ DecodeShared<kHeadDim, kHeads> sh;
  const int64_t partition = blockIdx.x;
  Work w;
  w.seq = blockIdx.z;
  w.kv_head = blockIdx.y / a.head_chunks;
  w.head0 = w.kv_head * (a.num_heads / a.num_kv_heads) + (blockIdx.y % a.head_chunks) * kHeads;
  const Span span = AttendedSpan(a.seq_lens[w.seq], a.sliding_window);
  if (span.last_partition < span.first_partition) {  // a padding row: zeros
    if (partition == 0) {
      for (int i = threadIdx.x; i < kHeads * kHeadDim; i += kThreads) {
        static_cast<T*>(a.out)[(w.seq * a.num_heads + w.head0) * kHeadDim + i] = Narrow<T>(0.0f);
      }
    }
    return;
  }
  // Longer than the grid or the block table: would read or write out of bounds.
  if (span.last_partition >= a.num_partitions || ((span.end - 1) >> a.block_shift) >= a.max_blocks_per_seq) __trap();
  w.begin = max(span.begin, static_cast<int>(partition) * kPartition);
  w.end = min(span.end, static_cast<int>(partition) * kPartition + kPartition);
  if (w.begin >= w.end) return;  // outside the window, or past this sequence's end
  w.first_block = w.begin >> a.block_shift;
  StageBlocks(a, w, sh);
  __syncthreads();
  ScorePartition<T, kHeadDim, kHeads>(a, w, sh);
  __syncthreads();
  SoftmaxPartition(w, sh);
  __syncthreads();
  WeighValues<T, kHeadDim, kHeads>(a, w, sh);
  __syncthreads();
  WriteResult<T, kHeadDim, kHeads>(a, w, partition, span.first_partition == span.last_partition, sh);
}

// Grid: (query head, sequence). out = sum_i partial_out_i * exp(max_i - M) /
// sum_i partial_sum_i * exp(max_i - M), M the largest max_i, over the
// sequence's partitions in order.
template <typename T>
__global__ void __launch_bounds__(kThreads) CombinePartitionsKernel(const DecodeArgs a, int head_dim) {
  const int64_t head = blockIdx.x;
  const int64_t seq = blockIdx.y;
  const Span span = AttendedSpan(a.seq_lens[seq], a.sliding_window);
  if (span.last_partition <= span.first_partition) return;  // written by PagedDecodeKernel
  if (span.last_partition >= a.num_partitions) __trap();
  const int64_t part_row = (seq * a.num_heads + head) * a.num_partitions;
  float mx = -INFINITY;
  for (int p = span.first_partition; p <= span.last_partition; ++p) mx = fmaxf(mx, a.partial_max[part_row + p]);
  float sum = 0.0f;
  for (int p = span.first_partition; p <= span.last_partition; ++p) {
    sum = fmaf(a.partial_sum[part_row + p], expf(a.partial_max[part_row + p] - mx), sum);
  }
  for (int d = threadIdx.x; d < head_dim; d += kThreads) {
    float total = 0.0f;
    for (int p = span.first_partition; p <= span.last_partition; ++p) {
      total = fmaf(a.partial_out[(part_row + p) * head_dim + d], expf(a.partial_max[part_row + p] - mx), total);
    }
    static_cast<T*>(a.out)[(seq * a.num_heads + head) * head_dim + d] = Narrow<T>(total / sum);
  }
}

template <typename T, int kHeadDim, int kHeads>
void LaunchDecode(const DecodeArgs& a, const PagedDecodePlan& plan, int64_t num_seqs, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(plan.num_partitions), static_cast<unsigned>(a.num_kv_heads * plan.head_chunks),
                  static_cast<unsigned>(num_seqs));
  PagedDecodeKernel<T, kHeadDim, kHeads><<<grid, kThreads, 0, stream>>>(a);
}

template <typename T, int kHeadDim>
void LaunchForHeads(const DecodeArgs& a, const PagedDecodePlan& plan, int64_t num_seqs, cudaStream_t stream) {
  switch (plan.heads_per_block) {
    case 8: return LaunchDecode<T, kHeadDim, 8>(a, plan, num_seqs, stream);
    case 4: return LaunchDecode<T, kHeadDim, 4>(a, plan, num_seqs, stream);
    case 2: return LaunchDecode<T, kHeadDim, 2>(a, plan, num_seqs, stream);
    default: return LaunchDecode<T, kHeadDim, 1>(a, plan, num_seqs, stream);
  }
}

// The benchmark's BF16 calls only: the plan from the library, the workspace
// at least plan.workspace_bytes.
inline void PagedDecodeAttention(const void* q, int64_t num_heads, const KvCacheLayer& cache,
                                 const PagedDecodeBatch& batch, const AttentionParams& params,
                                 const PagedDecodePlan& plan, void* out, void* workspace, cudaStream_t stream) {
  char* ws = static_cast<char*>(workspace);
  const DecodeArgs a{.q = q,
                     .k = cache.k,
                     .v = cache.v,
                     .seq_lens = batch.seq_lens,
                     .block_tables = batch.block_tables,
                     .max_blocks_per_seq = batch.max_blocks_per_seq,
                     .num_blocks = cache.num_blocks,
                     .num_heads = num_heads,
                     .num_kv_heads = cache.num_kv_heads,
                     .head_chunks = plan.head_chunks,
                     .num_partitions = plan.num_partitions,
                     .block_shift = plan.block_shift,
                     .scale = params.scale,
                     .softcap = params.softcap,
                     .sliding_window = params.sliding_window,
                     .out = out,
                     .partial_out = reinterpret_cast<float*>(ws),
                     .partial_max = reinterpret_cast<float*>(ws + plan.partial_max_offset),
                     .partial_sum = reinterpret_cast<float*>(ws + plan.partial_sum_offset)};
  switch (cache.head_dim) {
    case 64: LaunchForHeads<__nv_bfloat16, 64>(a, plan, batch.num_seqs, stream); break;
    case 128: LaunchForHeads<__nv_bfloat16, 128>(a, plan, batch.num_seqs, stream); break;
    default: LaunchForHeads<__nv_bfloat16, 256>(a, plan, batch.num_seqs, stream); break;
  }
  if (plan.num_partitions > 1) {
    const dim3 grid(static_cast<unsigned>(a.num_heads), static_cast<unsigned>(batch.num_seqs));
    CombinePartitionsKernel<__nv_bfloat16><<<grid, kThreads, 0, stream>>>(a, static_cast<int>(cache.head_dim));
  }
}

}  // namespace pagoda::kernels::cuda::baseline
