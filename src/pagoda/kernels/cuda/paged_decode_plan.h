// How CUDA paged decode attention divides its work, decided on the host:
// which shapes it supports, how many query heads one thread block serves,
// how many context partitions the grid has and how large the split-K
// workspace is. Plain C++ (no CUDA), so it is tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pagoda/base/status.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::cuda {

// Context tokens one thread block attends over (flash-decoding's split-K).
// Fixed, not derived from the batch: a sequence's partitions, and so the
// order of its sums, must not depend on what else is in the batch.
inline constexpr int64_t kDecodePartitionTokens = 256;
// Query heads of one KV head that one thread block serves at most: they
// share every K/V row it reads.
inline constexpr int64_t kMaxHeadsPerBlock = 8;

// The shapes of one decode attention call. max_seq_len bounds every
// sequence's length (the grid and workspace are sized from it).
struct PagedDecodeShape {
  DType dtype;  // of q, the K/V cache and the output
  int64_t num_seqs;
  int64_t num_heads;
  int64_t num_kv_heads;
  int64_t head_dim;
  int64_t block_size;
  int64_t max_blocks_per_seq;
  int64_t max_seq_len;
};

struct PagedDecodePlan {
  int64_t heads_per_block;  // query heads per thread block: 8, 4, 2 or 1
  int64_t head_chunks;      // thread blocks per KV head: group / heads_per_block
  int64_t num_partitions;   // ceil(max_seq_len / kDecodePartitionTokens), at least 1
  int block_shift;          // log2(block_size)
  // Split-K workspace (all zero when one partition holds every sequence):
  // f32 partial outputs [num_seqs][num_heads][num_partitions][head_dim],
  // then each partition's score maximum and sum of exponentials
  // [num_seqs][num_heads][num_partitions], at these byte offsets.
  size_t partial_max_offset;
  size_t partial_sum_offset;
  size_t workspace_bytes;
};

// Unimplemented for what the kernel does not support (dtypes other than F32
// and BF16, head_dim other than 64, 128 or 256, block sizes that are not a
// power of two up to kDecodePartitionTokens), InvalidArgument for
// inconsistent shapes.
StatusOr<PagedDecodePlan> PlanPagedDecode(const PagedDecodeShape& shape);

}  // namespace pagoda::kernels::cuda
