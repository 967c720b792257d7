// The host side of CUDA paged decode attention, which needs no GPU: the
// split-K plan and the refusals of unsupported or inconsistent calls.
#include <gtest/gtest.h>

#include <cstdint>

#include "pagoda/kernels/cuda/paged_decode_attention.cuh"
#include "pagoda/kernels/cuda/paged_decode_plan.h"
#include "pagoda/kernels/cuda/reshape_and_cache.cuh"

namespace pagoda::kernels::cuda {
namespace {

// Llama-3-8B's attention: 32 query heads over 8 KV heads of 128.
PagedDecodeShape Llama3(int64_t num_seqs, int64_t max_seq_len) {
  return {.dtype = DType::kBF16,
          .num_seqs = num_seqs,
          .num_heads = 32,
          .num_kv_heads = 8,
          .head_dim = 128,
          .block_size = 16,
          .max_blocks_per_seq = 4096 / 16,
          .max_seq_len = max_seq_len};
}

TEST(PagedDecodePlanTest, OnePartitionPerStartedPartitionLength) {
  for (auto [max_seq_len, partitions] :
       {std::pair<int64_t, int64_t>{0, 1}, {1, 1}, {256, 1}, {257, 2}, {1000, 4}, {4096, 16}}) {
    const StatusOr<PagedDecodePlan> plan = PlanPagedDecode(Llama3(64, max_seq_len));
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    EXPECT_EQ(plan->num_partitions, partitions) << "max_seq_len " << max_seq_len;
  }
}

TEST(PagedDecodePlanTest, PartitionsDependOnLengthNotBatch) {
  // Batch invariance: a sequence's partitions, and so its sums, are the same
  // whatever else is in the batch.
  for (int64_t num_seqs : {1, 7, 256}) {
    EXPECT_EQ(PlanPagedDecode(Llama3(num_seqs, 4096))->num_partitions, 4096 / kDecodePartitionTokens);
  }
}

TEST(PagedDecodePlanTest, WorkspaceHoldsEveryPartitionsOutputMaximumAndSum) {
  const StatusOr<PagedDecodePlan> plan = PlanPagedDecode(Llama3(64, 4096));
  ASSERT_TRUE(plan.ok());
  const size_t rows = 64 * 32 * 16;  // sequences * heads * partitions
  EXPECT_EQ(plan->partial_max_offset, rows * 128 * sizeof(float));
  EXPECT_EQ(plan->partial_sum_offset, plan->partial_max_offset + rows * sizeof(float));
  EXPECT_EQ(plan->workspace_bytes, plan->partial_sum_offset + rows * sizeof(float));
  EXPECT_EQ(plan->block_shift, 4);
  // One partition: the output is written directly, no workspace.
  EXPECT_EQ(PlanPagedDecode(Llama3(64, 200))->workspace_bytes, 0u);
}

TEST(PagedDecodePlanTest, HeadsPerBlockIsTheLargestPowerOfTwoUpTo8DividingTheGroup) {
  for (auto [group, heads] : {std::pair<int64_t, int64_t>{1, 1}, {2, 2}, {3, 1}, {4, 4}, {6, 2}, {8, 8}, {12, 4},
                              {16, 8}, {24, 8}}) {
    PagedDecodeShape shape = Llama3(4, 100);
    shape.num_kv_heads = 2;
    shape.num_heads = 2 * group;
    const StatusOr<PagedDecodePlan> plan = PlanPagedDecode(shape);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    EXPECT_EQ(plan->heads_per_block, heads) << "group " << group;
    EXPECT_EQ(plan->head_chunks, group / heads) << "group " << group;
  }
}

TEST(PagedDecodePlanTest, RefusesWhatTheKernelDoesNotSupport) {
  auto code = [](auto change) {
    PagedDecodeShape shape = Llama3(4, 100);
    change(shape);
    return PlanPagedDecode(shape).status().code();
  };
  EXPECT_EQ(code([](PagedDecodeShape& s) { s.dtype = DType::kF16; }), StatusCode::kUnimplemented);
  EXPECT_EQ(code([](PagedDecodeShape& s) { s.dtype = DType::kQ8_0; }), StatusCode::kUnimplemented);
  EXPECT_EQ(code([](PagedDecodeShape& s) { s.head_dim = 96; }), StatusCode::kUnimplemented);
  EXPECT_EQ(code([](PagedDecodeShape& s) { s.block_size = 24; }), StatusCode::kUnimplemented);
  EXPECT_EQ(code([](PagedDecodeShape& s) { s.block_size = 512; }), StatusCode::kUnimplemented);
  EXPECT_EQ(code([](PagedDecodeShape& s) { s.block_size = 0; }), StatusCode::kUnimplemented);
  EXPECT_EQ(code([](PagedDecodeShape& s) { s.num_heads = 12; }), StatusCode::kInvalidArgument);
  EXPECT_EQ(code([](PagedDecodeShape& s) { s.num_kv_heads = 0; }), StatusCode::kInvalidArgument);
  EXPECT_EQ(code([](PagedDecodeShape& s) { s.num_seqs = 65536; }), StatusCode::kInvalidArgument);
  EXPECT_EQ(code([](PagedDecodeShape& s) { s.max_seq_len = 4097; }), StatusCode::kInvalidArgument);
  EXPECT_EQ(code([](PagedDecodeShape& s) { s.max_seq_len = -1; }), StatusCode::kInvalidArgument);
  EXPECT_EQ(code([](PagedDecodeShape& s) { s.block_size = 32; }), StatusCode::kOk);
}

TEST(PagedDecodePlanTest, RefusesMorePartitionsTimesKvHeadsThanAGridHolds) {
  // The grid's x dimension counts partitions times KV heads' thread blocks.
  PagedDecodeShape shape = Llama3(1, (int64_t{1} << 31) - 512);
  shape.block_size = 256;
  shape.max_blocks_per_seq = shape.max_seq_len / 256;
  shape.num_kv_heads = 256;
  shape.num_heads = 256;
  EXPECT_TRUE(PlanPagedDecode(shape).ok());  // 8388606 partitions x 256 < 2^31
  shape.num_kv_heads = 512;
  shape.num_heads = 512;
  EXPECT_EQ(PlanPagedDecode(shape).status().code(), StatusCode::kInvalidArgument);
}

// Calls refused before anything reaches the GPU (the pointers are never
// dereferenced), so these run on any machine.
class PagedDecodeAttentionArgumentsTest : public ::testing::Test {
 protected:
  void* const aligned_ = reinterpret_cast<void*>(uintptr_t{1} << 20);
  KvCacheLayer cache_{DType::kBF16, aligned_, aligned_, 64, 16, 8, 128};
  PagedDecodeBatch batch_{4, nullptr, nullptr, 8, 100};

  StatusCode Call(const void* q, const AttentionParams& params, size_t workspace_bytes = 0) {
    return PagedDecodeAttention(q, 32, cache_, batch_, params, aligned_, aligned_, workspace_bytes, nullptr).code();
  }
};

TEST_F(PagedDecodeAttentionArgumentsTest, RefusesNegativeWindowOrSoftcap) {
  EXPECT_EQ(Call(aligned_, {.scale = 1.0f, .sliding_window = -1}), StatusCode::kInvalidArgument);
  EXPECT_EQ(Call(aligned_, {.scale = 1.0f, .softcap = -2.0f}), StatusCode::kInvalidArgument);
}

TEST_F(PagedDecodeAttentionArgumentsTest, RefusesMisalignedPointers) {
  EXPECT_EQ(Call(static_cast<const char*>(aligned_) + 2, {}), StatusCode::kInvalidArgument);
}

TEST_F(PagedDecodeAttentionArgumentsTest, RefusesAShortWorkspace) {
  batch_.max_seq_len = 1000;
  batch_.max_blocks_per_seq = 63;
  const StatusOr<PagedDecodePlan> plan = PlanPagedDecodeAttention(32, cache_, batch_);
  ASSERT_TRUE(plan.ok());
  ASSERT_GT(plan->workspace_bytes, 0u);
  EXPECT_EQ(Call(aligned_, {}, plan->workspace_bytes - 1), StatusCode::kInvalidArgument);
}

TEST_F(PagedDecodeAttentionArgumentsTest, RefusesAnF16Cache) {
  cache_.dtype = DType::kF16;
  EXPECT_EQ(Call(aligned_, {}), StatusCode::kUnimplemented);
}

TEST(ReshapeAndCacheArgumentsTest, RefusesOtherDtypesAndNegativeCounts) {
  KvCacheLayer cache{DType::kF16, nullptr, nullptr, 4, 16, 2, 64};
  EXPECT_EQ(ReshapeAndCache(nullptr, nullptr, DType::kF32, nullptr, 1, cache, nullptr).code(),
            StatusCode::kUnimplemented);
  cache.dtype = DType::kBF16;
  EXPECT_EQ(ReshapeAndCache(nullptr, nullptr, DType::kF16, nullptr, 1, cache, nullptr).code(),
            StatusCode::kUnimplemented);
  EXPECT_EQ(ReshapeAndCache(nullptr, nullptr, DType::kF32, nullptr, -1, cache, nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(ReshapeAndCache(nullptr, nullptr, DType::kF32, nullptr, 0, cache, nullptr).ok());
}

}  // namespace
}  // namespace pagoda::kernels::cuda
