#include "pagoda/kernels/cuda/paged_decode_attention.cuh"

#include <cuda_bf16.h>

#include <cstdint>

#include "pagoda/kernels/cuda/cuda_status.h"
#include "pagoda/kernels/cuda/element.cuh"
#include "pagoda/kernels/cuda/ptx.cuh"
#include "pagoda/kernels/cuda/warp_reduce.cuh"

namespace pagoda::kernels::cuda {
namespace {

// One thread block serves kHeads query heads of one KV head over one
// partition of one sequence's context, in a single pass: K and V rows stream
// through a ring of shared-memory tiles filled by asynchronous copies
// (kStages - 1 tiles in flight while the thread block works on one), and
// each group of threads that shares a row keeps an online softmax (running
// maximum, sum of exponentials, weighted V sum) over the positions it sees.
// At the partition's end the groups' states are merged, and either give the
// output (the sequence's only partition) or are left in the workspace for
// CombinePartitionsKernel. Every thread reads back only the bytes it copied
// itself, so the loop needs no barrier.
constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
constexpr int kPartition = static_cast<int>(kDecodePartitionTokens);
// Tiles in the ring: each holds 8 KiB of K and V rows (2 x 16 bytes of each
// per thread), so four are in flight per thread block, 32 KiB.
constexpr int kStages = 5;
// Scores are kept in base 2 (score * log2(e)), so exponentials are FastExp2.
constexpr float kLog2e = 1.4426950408889634f;

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
  int64_t kv_groups;  // num_kv_heads * head_chunks: thread blocks per partition
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

// How the threads share the K and V rows of kHeadDim elements: kLanes
// consecutive threads (a row group) read a row with 16-byte loads, kLoads
// each, kRows rows at once; a tile holds kTokens positions, kTokensPerThread
// per row group, so that every thread copies 32 bytes of K and of V per tile.
template <typename T, int kHeadDim, int kHeads>
struct Geometry {
  static constexpr int kVec = 16 / static_cast<int>(sizeof(T));
  static constexpr int kLanes = kHeadDim / kVec < 32 ? kHeadDim / kVec : 32;
  static constexpr int kLoads = kHeadDim / (kVec * kLanes);
  static constexpr int kElems = kLoads * kVec;  // row elements per thread
  static constexpr int kRows = kThreads / kLanes;
  static constexpr int kChunks = kHeadDim * static_cast<int>(sizeof(T)) / 16;  // 16-byte chunks per row
  static constexpr int kTokensPerThread = kLoads == 1 ? 2 : 1;
  static constexpr int kTokens = kTokensPerThread * kRows;
  static_assert(kLoads * kVec * kLanes == kHeadDim && kLanes * kLoads == kChunks);
  static_assert(kTokensPerThread * kLoads == 2);
  static_assert(kLanes >= kHeads, "each head's score needs a lane of the row group");
};

template <typename T, int kHeadDim, int kHeads>
struct DecodeShared {
  using G = Geometry<T, kHeadDim, kHeads>;
  union {
    // The tile ring: [stage][K, V][position in the tile][chunk of the row].
    uint4 tiles[kStages][2][G::kTokens * G::kChunks];
    // Once the ring is drained: each warp's merged state, for WriteResult.
    struct {
      float max[kWarps][kHeads];
      float sum[kWarps][kHeads];
      float acc[kWarps][kHeads][kHeadDim];
    } warps;
  };
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

// 2^(x - reference), reference the running maximum, or 0 while that is
// still -inf (no position seen): then x is -inf too and the result 0.
__device__ __forceinline__ float Exp2From(float x, float maximum) {
  return FastExp2(x - (maximum == -INFINITY ? 0.0f : maximum));
}

// What one thread block works on.
struct Work {
  int64_t seq;
  int64_t kv_head;
  int64_t head0;        // its first query head
  int begin, end;       // positions of this partition it attends
  int64_t first_block;  // block-table index of position `begin`
};

// A row group's online softmax over the positions it has seen. Each lane
// keeps m, the largest base-2 score, and l, the sum of exp2(score - m), of
// one head, HeadOfLane's (the lanes of a head hold the same values, and
// HolderLane's are the ones used), and acc, its elements of every head's sum
// of exp2(score - m) * v.
template <int kHeads, int kElems>
struct SoftmaxState {
  float m;
  float l;
  float acc[kHeads][kElems];
};

// Copies the partition's block ids to shared memory, checking each.
template <typename T, int kHeadDim, int kHeads>
__device__ void StageBlocks(const DecodeArgs& a, const Work& w, DecodeShared<T, kHeadDim, kHeads>& sh) {
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
                          float (&q)[kHeads][Geometry<T, kHeadDim, kHeads>::kElems]) {
  using G = Geometry<T, kHeadDim, kHeads>;
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

// Queues the copies of this thread's chunks of K and V for tile `tile` of
// the partition into ring stage `stage` (zeros past the partition's end).
template <typename T, int kHeadDim, int kHeads>
__device__ __forceinline__ void IssueTile(const DecodeArgs& a, const Work& w, DecodeShared<T, kHeadDim, kHeads>& sh,
                                          int tile, int stage) {
  using G = Geometry<T, kHeadDim, kHeads>;
  const int lane = threadIdx.x % G::kLanes;
  const int row = threadIdx.x / G::kLanes;
  const int64_t lane_offset = w.kv_head * kHeadDim + lane * G::kVec;
  const T* k = static_cast<const T*>(a.k) + lane_offset;
  const T* v = static_cast<const T*>(a.v) + lane_offset;
  const int64_t row_stride = a.num_kv_heads * kHeadDim;
#pragma unroll
  for (int u = 0; u < G::kTokensPerThread; ++u) {
    const int slot = u * G::kRows + row;  // the row's place in the tile
    const int p = w.begin + tile * G::kTokens + slot;
    const bool valid = p < w.end;
    int64_t offset = 0;
    if (valid) {
      const int64_t block = sh.blocks[(p >> a.block_shift) - w.first_block];
      offset = ((block << a.block_shift) + (p & ((1 << a.block_shift) - 1))) * row_stride;
    }
#pragma unroll
    for (int j = 0; j < G::kLoads; ++j) {
      const int chunk = slot * G::kChunks + j * G::kLanes + lane;
      CopyAsync16(&sh.tiles[stage][0][chunk], k + offset + j * G::kLanes * G::kVec, valid);
      CopyAsync16(&sh.tiles[stage][1][chunk], v + offset + j * G::kLanes * G::kVec, valid);
    }
  }
}

// The head whose score, maximum and sum a lane holds (lane: its place in the
// row group), and the first lane of the row group holding head h, the one
// the others take that head's values from.
template <typename G, int kHeads>
__device__ __forceinline__ int HeadOfLane(int lane) { return lane / (G::kLanes / kHeads); }
template <typename G, int kHeads>
__device__ __forceinline__ int HolderLane(int h) { return h * (G::kLanes / kHeads); }

// Adds tile `tile`, landed in ring stage `stage`, to the row group's state:
// its scores (each row's dot products summed over the group's lanes by
// SpreadSum, which leaves each lane with its head's), the online softmax
// update of each lane's head, and the rows of V weighted by every head's
// probabilities, gathered from their holder lanes.
template <typename T, int kHeadDim, int kHeads>
__device__ __forceinline__ void ConsumeTile(const DecodeArgs& a, const Work& w,
                                            const DecodeShared<T, kHeadDim, kHeads>& sh, int tile, int stage,
                                            const float (&q)[kHeads][Geometry<T, kHeadDim, kHeads>::kElems],
                                            SoftmaxState<kHeads, Geometry<T, kHeadDim, kHeads>::kElems>& st) {
  using G = Geometry<T, kHeadDim, kHeads>;
  const int lane = threadIdx.x % G::kLanes;
  const int row = threadIdx.x / G::kLanes;
  float s[G::kTokensPerThread];  // this lane's head's base-2 scores
#pragma unroll
  for (int u = 0; u < G::kTokensPerThread; ++u) {
    const int slot = u * G::kRows + row;
    float dot[kHeads] = {};
#pragma unroll
    for (int j = 0; j < G::kLoads; ++j) {
      float k[G::kVec];
      Widen16<T>(LoadShared16(&sh.tiles[stage][0][slot * G::kChunks + j * G::kLanes + lane]), k);
#pragma unroll
      for (int h = 0; h < kHeads; ++h) {
#pragma unroll
        for (int e = 0; e < G::kVec; ++e) dot[h] = fmaf(q[h][j * G::kVec + e], k[e], dot[h]);
      }
    }
    SpreadSum<kHeads, kHeads, G::kLanes / 2>(dot, lane);
    float score = dot[0] * a.scale;  // this lane's head's
    if (a.softcap > 0.0f) score = tanhf(score * (1.0f / a.softcap)) * a.softcap;
    s[u] = w.begin + tile * G::kTokens + slot < w.end ? score * kLog2e : -INFINITY;
  }
  // The online softmax update of this lane's head. The running sums are
  // rescaled only when a maximum grew, which after the first tiles is rare.
  float m = st.m;
#pragma unroll
  for (int u = 0; u < G::kTokensPerThread; ++u) m = fmaxf(m, s[u]);
  if (__any_sync(kFullWarpMask, m > st.m)) {
    const float rescale = Exp2From(st.m, m);  // 1 where the maximum stayed
    st.l *= rescale;
#pragma unroll
    for (int h = 0; h < kHeads; ++h) {
      const float head_rescale = __shfl_sync(kFullWarpMask, rescale, HolderLane<G, kHeads>(h), G::kLanes);
#pragma unroll
      for (int e = 0; e < G::kElems; ++e) st.acc[h][e] *= head_rescale;
    }
  }
  st.m = m;
  float weight[G::kTokensPerThread][kHeads];
#pragma unroll
  for (int u = 0; u < G::kTokensPerThread; ++u) {
    const float p = Exp2From(s[u], m);
    st.l += p;
#pragma unroll
    for (int h = 0; h < kHeads; ++h) weight[u][h] = __shfl_sync(kFullWarpMask, p, HolderLane<G, kHeads>(h), G::kLanes);
  }
#pragma unroll
  for (int u = 0; u < G::kTokensPerThread; ++u) {
    const int slot = u * G::kRows + row;
#pragma unroll
    for (int j = 0; j < G::kLoads; ++j) {
      float v[G::kVec];
      Widen16<T>(LoadShared16(&sh.tiles[stage][1][slot * G::kChunks + j * G::kLanes + lane]), v);
#pragma unroll
      for (int h = 0; h < kHeads; ++h) {
#pragma unroll
        for (int e = 0; e < G::kVec; ++e) {
          st.acc[h][j * G::kVec + e] = fmaf(weight[u][h], v[e], st.acc[h][j * G::kVec + e]);
        }
      }
    }
  }
}

// Streams the partition's K and V rows through the tile ring into the row
// group's state: kStages - 1 tiles are queued ahead of the one in use; the
// stage refilled each step is the one this thread finished with the step
// before.
template <typename T, int kHeadDim, int kHeads>
__device__ void AttendPartition(const DecodeArgs& a, const Work& w, DecodeShared<T, kHeadDim, kHeads>& sh,
                                const float (&q)[kHeads][Geometry<T, kHeadDim, kHeads>::kElems],
                                SoftmaxState<kHeads, Geometry<T, kHeadDim, kHeads>::kElems>& st) {
  using G = Geometry<T, kHeadDim, kHeads>;
  const int tiles = (w.end - w.begin + G::kTokens - 1) / G::kTokens;
#pragma unroll
  for (int t = 0; t < kStages - 1; ++t) {
    if (t < tiles) IssueTile(a, w, sh, t, t);
    CommitAsyncCopies();  // empty groups too: every step then counts the same
  }
  int stage = 0;
  for (int t = 0; t < tiles; ++t) {
    WaitAsyncCopies<kStages - 2>();  // tile t has landed
    const int refill = stage == 0 ? kStages - 1 : stage - 1;
    if (t + kStages - 1 < tiles) IssueTile(a, w, sh, t + kStages - 1, refill);
    CommitAsyncCopies();
    ConsumeTile(a, w, sh, t, stage, q, st);
    stage = stage == kStages - 1 ? 0 : stage + 1;
  }
  WaitAsyncCopies<0>();
}

// Merges the state of the row group `offset` lanes away into this one's
// (both end with the merged state).
template <typename G, int kHeads>
__device__ __forceinline__ void MergeAcrossLanes(SoftmaxState<kHeads, G::kElems>& st, int offset) {
  const float other_m = __shfl_xor_sync(kFullWarpMask, st.m, offset);
  const float other_l = __shfl_xor_sync(kFullWarpMask, st.l, offset);
  const float m = fmaxf(st.m, other_m);
  const float mine = Exp2From(st.m, m);
  const float theirs = Exp2From(other_m, m);
  st.m = m;
  st.l = st.l * mine + other_l * theirs;
#pragma unroll
  for (int h = 0; h < kHeads; ++h) {
    const float head_mine = __shfl_sync(kFullWarpMask, mine, HolderLane<G, kHeads>(h), G::kLanes);
    const float head_theirs = __shfl_sync(kFullWarpMask, theirs, HolderLane<G, kHeads>(h), G::kLanes);
#pragma unroll
    for (int e = 0; e < G::kElems; ++e) {
      st.acc[h][e] = st.acc[h][e] * head_mine + __shfl_xor_sync(kFullWarpMask, st.acc[h][e], offset) * head_theirs;
    }
  }
}

// Merges the row groups' states (within each warp by shuffles, then the
// warps' in warp order) and writes either the final output (when this
// partition is the sequence's only one) or the partition's unnormalised
// output, maximum and sum for CombinePartitionsKernel.
template <typename T, int kHeadDim, int kHeads>
__device__ void WriteResult(const DecodeArgs& a, const Work& w, int64_t partition, bool only_partition,
                            DecodeShared<T, kHeadDim, kHeads>& sh,
                            SoftmaxState<kHeads, Geometry<T, kHeadDim, kHeads>::kElems>& st) {
  using G = Geometry<T, kHeadDim, kHeads>;
#pragma unroll
  for (int offset = G::kLanes; offset < 32; offset *= 2) MergeAcrossLanes<G, kHeads>(st, offset);
  __syncthreads();  // every thread is done with the ring, whose memory sh.warps reuses
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (lane < G::kLanes) {
    if (lane == HolderLane<G, kHeads>(HeadOfLane<G, kHeads>(lane))) {
      sh.warps.max[warp][HeadOfLane<G, kHeads>(lane)] = st.m;
      sh.warps.sum[warp][HeadOfLane<G, kHeads>(lane)] = st.l;
    }
#pragma unroll
    for (int h = 0; h < kHeads; ++h) {
#pragma unroll
      for (int j = 0; j < G::kLoads; ++j) {
#pragma unroll
        for (int e = 0; e < G::kVec; e += 4) {
          *reinterpret_cast<float4*>(&sh.warps.acc[warp][h][(j * G::kLanes + lane) * G::kVec + e]) =
              make_float4(st.acc[h][j * G::kVec + e], st.acc[h][j * G::kVec + e + 1], st.acc[h][j * G::kVec + e + 2],
                          st.acc[h][j * G::kVec + e + 3]);
        }
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kHeads * kHeadDim; i += kThreads) {
    const int h = i / kHeadDim;
    const int d = i % kHeadDim;
    float m = -INFINITY;
#pragma unroll
    for (int k = 0; k < kWarps; ++k) m = fmaxf(m, sh.warps.max[k][h]);
    float sum = 0.0f;
    float total = 0.0f;
#pragma unroll
    for (int k = 0; k < kWarps; ++k) {
      const float weight = Exp2From(sh.warps.max[k][h], m);
      sum = fmaf(sh.warps.sum[k][h], weight, sum);
      total = fmaf(sh.warps.acc[k][h][d], weight, total);
    }
    const int64_t head_row = w.seq * a.num_heads + w.head0 + h;
    if (only_partition) {
      static_cast<T*>(a.out)[head_row * kHeadDim + d] = FromFloat<T>(total / sum);
    } else {
      const int64_t part_row = head_row * a.num_partitions + partition;
      a.partial_out[part_row * kHeadDim + d] = total;
      if (d == 0) {
        a.partial_max[part_row] = m;
        a.partial_sum[part_row] = sum;
      }
    }
  }
}

// Grid: (partition * kv_groups + KV head * head_chunks + chunk, sequence):
// the thread blocks of one partition's KV heads are consecutive, so they run
// together and read each position's rows of all KV heads, which lie side by
// side, at about the same time.
template <typename T, int kHeadDim, int kHeads>
__global__ void __launch_bounds__(kThreads) PagedDecodeKernel(const DecodeArgs a) {
  __shared__ DecodeShared<T, kHeadDim, kHeads> sh;
  const unsigned kv_groups = static_cast<unsigned>(a.kv_groups);
  const int64_t partition = blockIdx.x / kv_groups;
  const int64_t kv_group = blockIdx.x % kv_groups;
  Work w;
  w.seq = blockIdx.y;
  w.kv_head = kv_group / a.head_chunks;
  w.head0 = w.kv_head * (a.num_heads / a.num_kv_heads) + (kv_group % a.head_chunks) * kHeads;
  const Span span = AttendedSpan(a.seq_lens[w.seq], a.sliding_window);
  if (span.last_partition < span.first_partition) {  // a padding row: zeros
    if (partition == 0) {
      for (int i = threadIdx.x; i < kHeads * kHeadDim; i += kThreads) {
        static_cast<T*>(a.out)[(w.seq * a.num_heads + w.head0) * kHeadDim + i] = FromFloat<T>(0.0f);
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
  using G = Geometry<T, kHeadDim, kHeads>;
  float q[kHeads][G::kElems];
  LoadQuery<T, kHeadDim, kHeads>(a, w, q);
  SoftmaxState<kHeads, G::kElems> st;
  st.m = -INFINITY;
  st.l = 0.0f;
#pragma unroll
  for (int h = 0; h < kHeads; ++h) {
#pragma unroll
    for (int e = 0; e < G::kElems; ++e) st.acc[h][e] = 0.0f;
  }
  __syncthreads();  // the block ids are staged
  AttendPartition<T, kHeadDim, kHeads>(a, w, sh, q, st);
  WriteResult<T, kHeadDim, kHeads>(a, w, partition, span.first_partition == span.last_partition, sh, st);
}

constexpr int kCombineThreads = 128;
constexpr int kCombineWarps = kCombineThreads / 32;

// The maximum or sum of every thread's x, in the same order every time;
// `scratch` holds kCombineWarps floats and is free again when it returns.
template <bool kMax>
__device__ __forceinline__ float BlockReduce(float x, float* scratch) {
  x = kMax ? WarpMax(x) : WarpSum(x);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = x;
  __syncthreads();
  float total = scratch[0];
#pragma unroll
  for (int i = 1; i < kCombineWarps; ++i) total = kMax ? fmaxf(total, scratch[i]) : total + scratch[i];
  __syncthreads();
  return total;
}

// Grid: (query head, sequence). out = sum_i partial_out_i * w_i /
// sum_i partial_sum_i * w_i, w_i = exp2(max_i - M), M the largest max_i,
// over the sequence's partitions. The weights of up to kCombineThreads
// partitions at a time are computed once, in shared memory; each thread sums
// 4 columns of every kGroups-th partition with 16-byte loads, and the groups'
// sums are added in group order.
template <typename T, int kHeadDim>
__global__ void __launch_bounds__(kCombineThreads) CombinePartitionsKernel(const DecodeArgs a) {
  constexpr int kColumns = kHeadDim / 4;                // of 4 floats
  constexpr int kGroups = kCombineThreads / kColumns;  // threads per column
  static_assert(kGroups * kColumns == kCombineThreads);
  __shared__ float scratch[kCombineWarps];
  __shared__ float weights[kCombineThreads];
  __shared__ float4 group_totals[kGroups][kColumns];
  const int64_t head = blockIdx.x;
  const int64_t seq = blockIdx.y;
  const Span span = AttendedSpan(a.seq_lens[seq], a.sliding_window);
  if (span.last_partition <= span.first_partition) return;  // written by PagedDecodeKernel
  if (span.last_partition >= a.num_partitions) __trap();
  const int64_t part_row = (seq * a.num_heads + head) * a.num_partitions + span.first_partition;
  const float* maxima = a.partial_max + part_row;
  const float* sums = a.partial_sum + part_row;
  const int count = span.last_partition - span.first_partition + 1;
  float m = -INFINITY;
  for (int i = threadIdx.x; i < count; i += kCombineThreads) m = fmaxf(m, maxima[i]);
  m = BlockReduce<true>(m, scratch);
  float sum = 0.0f;
  for (int i = threadIdx.x; i < count; i += kCombineThreads) sum = fmaf(sums[i], FastExp2(maxima[i] - m), sum);
  sum = BlockReduce<false>(sum, scratch);
  const int column = threadIdx.x % kColumns;
  const int group = threadIdx.x / kColumns;
  const float4* outs = reinterpret_cast<const float4*>(a.partial_out + part_row * kHeadDim) + column;
  float4 total = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int base = 0; base < count; base += kCombineThreads) {
    const int n = min(kCombineThreads, count - base);
    if (threadIdx.x < n) weights[threadIdx.x] = FastExp2(maxima[base + threadIdx.x] - m);
    __syncthreads();
#pragma unroll 8
    for (int i = group; i < n; i += kGroups) {
      const float4 x = outs[static_cast<int64_t>(base + i) * kColumns];
      const float weight = weights[i];
      total.x = fmaf(x.x, weight, total.x);
      total.y = fmaf(x.y, weight, total.y);
      total.z = fmaf(x.z, weight, total.z);
      total.w = fmaf(x.w, weight, total.w);
    }
    __syncthreads();  // the weights are used before the next chunk's replace them
  }
  group_totals[group][column] = total;
  __syncthreads();
  if (threadIdx.x < kColumns) {
    float4 t = group_totals[0][column];
#pragma unroll
    for (int g = 1; g < kGroups; ++g) {
      t.x += group_totals[g][column].x;
      t.y += group_totals[g][column].y;
      t.z += group_totals[g][column].z;
      t.w += group_totals[g][column].w;
    }
    T* out = static_cast<T*>(a.out) + (seq * a.num_heads + head) * kHeadDim + 4 * column;
    out[0] = FromFloat<T>(t.x / sum);
    out[1] = FromFloat<T>(t.y / sum);
    out[2] = FromFloat<T>(t.z / sum);
    out[3] = FromFloat<T>(t.w / sum);
  }
}

template <typename T, int kHeadDim, int kHeads>
void LaunchDecode(const DecodeArgs& a, const PagedDecodePlan& plan, int64_t num_seqs, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(plan.num_partitions * a.kv_groups), static_cast<unsigned>(num_seqs));
  PagedDecodeKernel<T, kHeadDim, kHeads><<<grid, kThreads, 0, stream>>>(a);
}

template <typename T, int kHeadDim>
void LaunchForHeads(const DecodeArgs& a, const PagedDecodePlan& plan, int64_t num_seqs, cudaStream_t stream) {
  switch (plan.heads_per_block) {
    case 8: LaunchDecode<T, kHeadDim, 8>(a, plan, num_seqs, stream); break;
    case 4: LaunchDecode<T, kHeadDim, 4>(a, plan, num_seqs, stream); break;
    case 2: LaunchDecode<T, kHeadDim, 2>(a, plan, num_seqs, stream); break;
    default: LaunchDecode<T, kHeadDim, 1>(a, plan, num_seqs, stream); break;
  }
  if (plan.num_partitions > 1) {
    const dim3 grid(static_cast<unsigned>(a.num_heads), static_cast<unsigned>(num_seqs));
    CombinePartitionsKernel<T, kHeadDim><<<grid, kCombineThreads, 0, stream>>>(a);
  }
}

template <typename T>
void Launch(const DecodeArgs& a, const PagedDecodePlan& plan, int64_t num_seqs, int64_t head_dim,
            cudaStream_t stream) {
  switch (head_dim) {
    case 64: LaunchForHeads<T, 64>(a, plan, num_seqs, stream); break;
    case 128: LaunchForHeads<T, 128>(a, plan, num_seqs, stream); break;
    default: LaunchForHeads<T, 256>(a, plan, num_seqs, stream); break;
  }
}

bool Aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

Status CheckCall(const void* q, const KvCacheLayer& cache, const AttentionParams& params, const void* workspace,
                 size_t workspace_bytes, const PagedDecodePlan& plan) {
  if (params.sliding_window < 0 || params.softcap < 0.0f) {
    return InvalidArgumentError("paged decode attention: sliding_window and softcap must not be negative");
  }
  if (!Aligned16(q) || !Aligned16(cache.k) || !Aligned16(cache.v) || !Aligned16(workspace)) {
    return InvalidArgumentError("paged decode attention: q, the K/V arena and the workspace must be 16-byte aligned");
  }
  if (workspace_bytes < plan.workspace_bytes || (plan.workspace_bytes > 0 && workspace == nullptr)) {
    return InvalidArgumentError("paged decode attention: the workspace needs " + std::to_string(plan.workspace_bytes) +
                                " bytes, got " + std::to_string(workspace_bytes));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<PagedDecodePlan> PlanPagedDecodeAttention(int64_t num_heads, const KvCacheLayer& cache,
                                                   const PagedDecodeBatch& batch) {
  return PlanPagedDecode({.dtype = cache.dtype,
                          .num_seqs = batch.num_seqs,
                          .num_heads = num_heads,
                          .num_kv_heads = cache.num_kv_heads,
                          .head_dim = cache.head_dim,
                          .block_size = cache.block_size,
                          .max_blocks_per_seq = batch.max_blocks_per_seq,
                          .max_seq_len = batch.max_seq_len});
}

Status PagedDecodeAttention(const void* q, int64_t num_heads, const KvCacheLayer& cache,
                            const PagedDecodeBatch& batch, const AttentionParams& params, void* out, void* workspace,
                            size_t workspace_bytes, cudaStream_t stream) {
  PAGODA_ASSIGN_OR_RETURN(const PagedDecodePlan plan, PlanPagedDecodeAttention(num_heads, cache, batch));
  PAGODA_RETURN_IF_ERROR(CheckCall(q, cache, params, workspace, workspace_bytes, plan));
  if (batch.num_seqs == 0) return Status::Ok();
  char* ws = static_cast<char*>(workspace);
  const DecodeArgs args{.q = q,
                        .k = cache.k,
                        .v = cache.v,
                        .seq_lens = batch.seq_lens,
                        .block_tables = batch.block_tables,
                        .max_blocks_per_seq = batch.max_blocks_per_seq,
                        .num_blocks = cache.num_blocks,
                        .num_heads = num_heads,
                        .num_kv_heads = cache.num_kv_heads,
                        .head_chunks = plan.head_chunks,
                        .kv_groups = cache.num_kv_heads * plan.head_chunks,
                        .num_partitions = plan.num_partitions,
                        .block_shift = plan.block_shift,
                        .scale = params.scale,
                        .softcap = params.softcap,
                        .sliding_window = params.sliding_window,
                        .out = out,
                        .partial_out = reinterpret_cast<float*>(ws),
                        .partial_max = reinterpret_cast<float*>(ws + plan.partial_max_offset),
                        .partial_sum = reinterpret_cast<float*>(ws + plan.partial_sum_offset)};
  if (cache.dtype == DType::kF32) {
    Launch<float>(args, plan, batch.num_seqs, cache.head_dim, stream);
  } else {
    Launch<__nv_bfloat16>(args, plan, batch.num_seqs, cache.head_dim, stream);
  }
  return CudaStatus(cudaGetLastError(), "paged decode attention launch");
}

}  // namespace pagoda::kernels::cuda
