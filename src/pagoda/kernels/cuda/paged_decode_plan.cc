#include "pagoda/kernels/cuda/paged_decode_plan.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

namespace pagoda::kernels::cuda {
namespace {

// CUDA's limits on a grid's x dimension (partitions times KV heads' thread
// blocks) and its y and z dimensions (sequences).
constexpr int64_t kMaxGridX = std::numeric_limits<int32_t>::max();
constexpr int64_t kMaxGridYZ = 65535;
// Positions are int32 on the device (seq_lens are), partition ends included.
constexpr int64_t kMaxSeqLen = std::numeric_limits<int32_t>::max() - kDecodePartitionTokens;

Status CheckSupported(const PagedDecodeShape& s) {
  if (s.dtype != DType::kF32 && s.dtype != DType::kBF16) {
    return UnimplementedError("CUDA paged decode attention supports F32 and BF16 caches, not " +
                              std::string(DTypeName(s.dtype)));
  }
  if (s.head_dim != 64 && s.head_dim != 128 && s.head_dim != 256) {
    return UnimplementedError("CUDA paged decode attention supports head_dim 64, 128 and 256, not " +
                              std::to_string(s.head_dim));
  }
  if (s.block_size <= 0 || !std::has_single_bit(static_cast<uint64_t>(s.block_size)) ||
      s.block_size > kDecodePartitionTokens) {
    return UnimplementedError("CUDA paged decode attention needs a power-of-two block_size up to " +
                              std::to_string(kDecodePartitionTokens) + ", not " + std::to_string(s.block_size));
  }
  return Status::Ok();
}

Status CheckConsistent(const PagedDecodeShape& s) {
  if (s.num_kv_heads <= 0 || s.num_heads <= 0 || s.num_heads % s.num_kv_heads != 0) {
    return InvalidArgumentError("num_heads (" + std::to_string(s.num_heads) + ") must be a positive multiple of " +
                                "num_kv_heads (" + std::to_string(s.num_kv_heads) + ")");
  }
  if (s.num_seqs < 0 || s.num_seqs > kMaxGridYZ) {
    return InvalidArgumentError("a decode call takes 0 to 65535 sequences, not " + std::to_string(s.num_seqs));
  }
  if (s.max_seq_len < 0 || s.max_seq_len > kMaxSeqLen) {
    return InvalidArgumentError("max_seq_len " + std::to_string(s.max_seq_len) + " is outside [0, " +
                                std::to_string(kMaxSeqLen) + "]");
  }
  if (s.max_blocks_per_seq < 0 || s.max_seq_len > s.max_blocks_per_seq * s.block_size) {
    return InvalidArgumentError("max_seq_len " + std::to_string(s.max_seq_len) + " does not fit a block table of " +
                                std::to_string(s.max_blocks_per_seq) + " blocks of " +
                                std::to_string(s.block_size));
  }
  return Status::Ok();
}

// The largest power of two up to kMaxHeadsPerBlock that divides the group,
// so that every thread block serves the same number of query heads.
int64_t HeadsPerBlock(int64_t group) {
  int64_t heads = kMaxHeadsPerBlock;
  while (group % heads != 0) heads /= 2;
  return heads;
}

}  // namespace

StatusOr<PagedDecodePlan> PlanPagedDecode(const PagedDecodeShape& shape) {
  PAGODA_RETURN_IF_ERROR(CheckSupported(shape));
  PAGODA_RETURN_IF_ERROR(CheckConsistent(shape));
  PagedDecodePlan plan{};
  const int64_t group = shape.num_heads / shape.num_kv_heads;
  plan.heads_per_block = HeadsPerBlock(group);
  plan.head_chunks = group / plan.heads_per_block;
  if (shape.num_kv_heads * plan.head_chunks > kMaxGridYZ) {
    return InvalidArgumentError("too many heads for one grid: " + std::to_string(shape.num_heads));
  }
  plan.num_partitions = std::max<int64_t>(1, (shape.max_seq_len + kDecodePartitionTokens - 1) / kDecodePartitionTokens);
  if (plan.num_partitions * shape.num_kv_heads * plan.head_chunks > kMaxGridX) {
    return InvalidArgumentError("too many partitions of " + std::to_string(shape.max_seq_len) + " positions for " +
                                std::to_string(shape.num_heads) + " heads in one grid");
  }
  plan.block_shift = std::countr_zero(static_cast<uint64_t>(shape.block_size));
  if (plan.num_partitions > 1) {
    const size_t rows = static_cast<size_t>(shape.num_seqs * shape.num_heads * plan.num_partitions);
    plan.partial_max_offset = rows * static_cast<size_t>(shape.head_dim) * sizeof(float);
    plan.partial_sum_offset = plan.partial_max_offset + rows * sizeof(float);
    plan.workspace_bytes = plan.partial_sum_offset + rows * sizeof(float);
  }
  return plan;
}

}  // namespace pagoda::kernels::cuda
