// cuda::PagedDecodeAttention against the CPU scalar reference
// (reference::PagedAttention) on random scattered block tables.
// Tolerances, per (sequence, head) row, relative to the row's largest
// |reference| output: F32 1e-4; BF16 1e-2, the reference run on the same
// bf16-rounded q/K/V, so the gap is the f32 summation order and the bf16
// rounding of the output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "cuda_test_support.h"
#include "decode_problem.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::cuda {
namespace {

using testing::DecodeCase;
using testing::DecodeProblem;

float Tolerance(DType dtype) { return dtype == DType::kF32 ? 1e-4f : 1e-2f; }

float DefaultScale(int64_t head_dim) { return 1.0f / std::sqrt(static_cast<float>(head_dim)); }

// Also prints the worst error found, for scripts/gpu_check.sh's report.
void ExpectMatchesReference(const DecodeCase& c) {
  SCOPED_TRACE(testing::Describe(c));
  const DecodeProblem p = testing::MakeDecodeProblem(c);
  const std::vector<float> gpu = testing::GpuOutput(p);
  const std::vector<float> reference = testing::ReferenceOutput(p);
  EXPECT_TRUE(testing::OutputsClose(p, gpu, reference, Tolerance(c.dtype)));
  std::printf("worst relative error %s %.2e (tolerance %.0e): %s\n", std::string(DTypeName(c.dtype)).c_str(),
              testing::WorstRelativeError(p, gpu, reference), Tolerance(c.dtype), testing::Describe(c).c_str());
}

// Lengths at the edges of blocks and partitions (256 positions), one and
// the longest, and random ones up to 4096.
std::vector<int32_t> EdgeAndRandomLengths(int32_t block_size, int count, uint32_t seed) {
  std::vector<int32_t> lens = {1, block_size - 1, block_size + 1, 255, 256, 257, 4096};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> len(1, 4096);
  while (static_cast<int>(lens.size()) < count) lens.push_back(len(rng));
  std::shuffle(lens.begin(), lens.end(), rng);
  return lens;
}

std::vector<int32_t> RandomLengths(int count, int32_t max_len, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> len(1, max_len);
  std::vector<int32_t> lens(static_cast<size_t>(count));
  for (int32_t& l : lens) l = len(rng);
  return lens;
}

class PagedDecodeAttentionTest : public testing::CudaTest {};

TEST_F(PagedDecodeAttentionTest, MatchesReferenceForEveryDtypeBlockSizeGroupAndHeadDim) {
  uint32_t seed = 1;
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    for (int64_t block_size : {16, 32}) {
      for (int64_t group : {1, 4, 8}) {
        for (int64_t head_dim : {64, 128}) {
          ExpectMatchesReference({dtype, 2, group, head_dim, block_size,
                                  EdgeAndRandomLengths(static_cast<int32_t>(block_size), 10, seed),
                                  {.scale = DefaultScale(head_dim)}, seed});
          ++seed;
        }
      }
    }
  }
}

TEST_F(PagedDecodeAttentionTest, MatchesReferenceAtSeveralBatchSizes) {
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    for (int batch : {1, 3, 17, 64}) {
      ExpectMatchesReference({dtype, 2, 4, 128, 16, RandomLengths(batch, 4096, 100 + batch),
                              {.scale = DefaultScale(128)}, static_cast<uint32_t>(200 + batch)});
    }
  }
}

// Windows of one position, narrower than a block, across partition edges
// and wider than every sequence; blocks that left the window are -1 in the
// tables and their slots NaN, so reading one would show. Soft caps near the
// scores' size, with a sharper scale so that they bend them.
TEST_F(PagedDecodeAttentionTest, SlidingWindowAndSoftcapMatchReference) {
  uint32_t seed = 300;
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    for (AttentionParams params : {AttentionParams{.scale = 0.125f, .sliding_window = 1},
                                   AttentionParams{.scale = 0.125f, .sliding_window = 13},
                                   AttentionParams{.scale = 0.125f, .sliding_window = 300},
                                   AttentionParams{.scale = 0.125f, .sliding_window = 700},
                                   AttentionParams{.scale = 0.125f, .sliding_window = 5000},
                                   AttentionParams{.scale = 0.5f, .softcap = 2.0f},
                                   AttentionParams{.scale = 0.5f, .sliding_window = 400, .softcap = 1.5f}}) {
      ExpectMatchesReference({dtype, 2, 4, 128, 16, EdgeAndRandomLengths(16, 9, seed), params, seed});
      ++seed;
    }
  }
}

// Groups that give 2 or 1 heads per thread block or several thread blocks
// per KV head, head_dim 256, other block sizes, a longer context.
TEST_F(PagedDecodeAttentionTest, OtherGroupsHeadDimsAndBlockSizesMatchReference) {
  uint32_t seed = 400;
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    ExpectMatchesReference({dtype, 2, 2, 128, 16, EdgeAndRandomLengths(16, 8, seed), {.scale = 0.1f}, seed + 1});
    ExpectMatchesReference({dtype, 1, 3, 64, 8, EdgeAndRandomLengths(8, 8, seed), {.scale = 0.1f}, seed + 2});
    ExpectMatchesReference({dtype, 2, 6, 128, 32, EdgeAndRandomLengths(32, 8, seed), {.scale = 0.1f}, seed + 3});
    ExpectMatchesReference({dtype, 1, 16, 128, 16, EdgeAndRandomLengths(16, 8, seed), {.scale = 0.1f}, seed + 4});
    ExpectMatchesReference({dtype, 2, 4, 256, 16, EdgeAndRandomLengths(16, 8, seed), {.scale = 0.0625f}, seed + 5});
    ExpectMatchesReference({dtype, 1, 8, 256, 64, EdgeAndRandomLengths(64, 8, seed), {.scale = 0.0625f}, seed + 6});
    ExpectMatchesReference({dtype, 1, 4, 128, 16, {20000}, {.scale = 0.1f}, seed + 7});
    seed += 10;
  }
}

TEST_F(PagedDecodeAttentionTest, PaddingRowsAreZeroAndOthersUnaffected) {
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    ExpectMatchesReference({dtype, 2, 4, 128, 16, {0, 700, 0, 1, 1000, 0}, {.scale = 0.1f}, 500});
  }
}

// A sequence's output does not depend on the rest of the batch, bit for bit.
TEST_F(PagedDecodeAttentionTest, OutputOfASequenceDoesNotDependOnTheBatch) {
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    DecodeCase batch{dtype, 2, 4, 128, 16, RandomLengths(24, 4096, 600), {.scale = 0.1f}, 601};
    batch.seq_lens[9] = 3001;
    const DecodeProblem full = testing::MakeDecodeProblem(batch);
    const std::vector<float> full_out = testing::GpuOutput(full);

    // The same sequence alone: its q, and its blocks' contents at the same ids.
    DecodeProblem alone = full;
    alone.c.seq_lens = {3001};
    alone.max_seq_len = 3001;
    const int64_t width = full.num_heads * batch.head_dim;
    alone.q.assign(full.q.begin() + 9 * width, full.q.begin() + 10 * width);
    alone.block_tables.assign(full.block_tables.begin() + 9 * full.max_blocks_per_seq,
                              full.block_tables.begin() + 10 * full.max_blocks_per_seq);
    const std::vector<float> alone_out = testing::GpuOutput(alone);
    ASSERT_EQ(alone_out.size(), static_cast<size_t>(width));
    for (int64_t i = 0; i < width; ++i) {
      ASSERT_EQ(BitsFromF32(alone_out[i]), BitsFromF32(full_out[9 * width + i])) << DTypeName(dtype) << " element " << i;
    }
  }
}

// A prompt chunk's attention as decode rows: the chunk's last T rows of one
// sequence of length L, each run as a row of its own whose context ends at
// its position, all on the sequence's block table. This is how the CUDA
// runner attends a prefill chunk (cached prefix and chunk alike through the
// table); the reference computes the T rows as one causal prefill.
TEST_F(PagedDecodeAttentionTest, PrefillRowsAsDecodeRowsMatchTheReferencesPrefill) {
  for (DType dtype : {DType::kF32, DType::kBF16}) {
    for (const auto& [length, rows, softcap] : {std::tuple{37, 37, 0.0f}, std::tuple{300, 40, 0.0f},
                                                 std::tuple{1500, 64, 30.0f}}) {
      const DecodeCase whole{dtype, 2, 4, 128, 16, {length}, {.scale = 0.1f, .softcap = softcap}, 700};
      const DecodeProblem sequence = testing::MakeDecodeProblem(whole);
      DecodeProblem expanded = sequence;
      expanded.c.seq_lens.clear();
      expanded.block_tables.clear();
      for (int32_t r = 0; r < rows; ++r) {
        expanded.c.seq_lens.push_back(length - rows + r + 1);
        expanded.block_tables.insert(expanded.block_tables.end(), sequence.block_tables.begin(),
                                     sequence.block_tables.end());
      }
      const int64_t width = sequence.num_heads * whole.head_dim;
      expanded.q = testing::Rounded(testing::RandomValues(static_cast<size_t>(rows * width), -1.0f, 1.0f, 701), dtype);
      const std::vector<float> gpu = testing::GpuOutput(expanded);

      std::vector<float> reference(static_cast<size_t>(rows * width));
      const KvCacheLayer cache{DType::kF32, const_cast<float*>(sequence.k.data()), const_cast<float*>(sequence.v.data()),
                               sequence.num_blocks, whole.block_size, whole.num_kv_heads, whole.head_dim};
      const int32_t query_start_loc[2] = {0, rows};
      const AttentionBatch prefill{1, query_start_loc, &length, sequence.block_tables.data(), sequence.max_blocks_per_seq};
      reference::PagedAttention(expanded.q.data(), sequence.num_heads, cache, prefill, whole.params, reference.data());
      SCOPED_TRACE(testing::Describe(whole) + " rows " + std::to_string(rows));
      EXPECT_TRUE(testing::OutputsClose(expanded, gpu, reference, Tolerance(dtype)));
    }
  }
}

}  // namespace
}  // namespace pagoda::kernels::cuda
