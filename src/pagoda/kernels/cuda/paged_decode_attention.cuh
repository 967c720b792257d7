// Paged decode attention on CUDA: the decode-step case of
// kernels::PagedAttention (one query row per sequence), reading K/V through
// each sequence's block table with split-K over the context
// ("flash-decoding") so that long contexts fill the GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "pagoda/base/status.h"
#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/kernels/cuda/paged_decode_plan.h"

namespace pagoda::kernels::cuda {

// The sequences of one decode step. Sequence s has one query row, its
// newest token, at position seq_lens[s] - 1; it attends to positions
// [0, seq_lens[s]), or the sliding window's part of them, as
// kernels::PagedAttention does.
struct PagedDecodeBatch {
  int64_t num_seqs;
  // [num_seqs], device memory: context lengths including the new token. 0
  // marks a padding row (a batch padded to a captured size), whose output
  // is zeros.
  const int32_t* seq_lens;
  // [num_seqs][max_blocks_per_seq], device memory: block ids. Only the
  // blocks holding attended positions are read, so blocks that left a
  // sliding window may already be gone (any value).
  const int32_t* block_tables;
  int64_t max_blocks_per_seq;
  // A bound on seq_lens known on the host: it sizes the grid and the
  // workspace. A sequence longer than this stops the kernel.
  int64_t max_seq_len;
};

// The plan for this call's shapes (see paged_decode_plan.h); the caller
// provides plan.workspace_bytes of device memory to PagedDecodeAttention.
StatusOr<PagedDecodePlan> PlanPagedDecodeAttention(int64_t num_heads, const KvCacheLayer& cache,
                                                   const PagedDecodeBatch& batch);

// out[s][h] = attention of q[s][h] over sequence s's context, q and out
// [num_seqs][num_heads][head_dim] of cache.dtype (F32 or BF16), the K/V
// arena laid out as KvCacheLayer says; head h reads KV head
// h / (num_heads / num_kv_heads). Scores are dot(q, k) * params.scale, then
// softcap * tanh(score / softcap) when params.softcap > 0, with
// params.sliding_window as in kernels::PagedAttention. Sums are f32; the
// result matches the CPU kernel within rounding, not bit for bit, and does
// not depend on the other sequences of the batch. q, the arena and the
// workspace must be 16-byte aligned device memory. Work is queued on
// `stream`; errors of the arguments and of the launch are returned, while a
// block id outside the arena or a sequence longer than its table or than
// max_seq_len stops the kernel (programmer errors).
Status PagedDecodeAttention(const void* q, int64_t num_heads, const KvCacheLayer& cache,
                            const PagedDecodeBatch& batch, const AttentionParams& params, void* out, void* workspace,
                            size_t workspace_bytes, cudaStream_t stream);

}  // namespace pagoda::kernels::cuda
