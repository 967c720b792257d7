// Copy-on-write of KV blocks: a sequence whose partial last block was copied
// to a fresh block continues exactly as the original would.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "pagoda/runner/kv_block_copy.h"
#include "test_model.h"

namespace pagoda {
namespace {

using testing::TestRunner;

TEST(KvBlockCopyTest, CopiesEveryLayerKAndV) {
  const KvCacheShape shape{2, 1, 4, 2, DType::kF32};
  auto arena = KvCacheArena::Create(shape, 3 * shape.BytesPerBlock());
  ASSERT_TRUE(arena.ok());
  const int64_t block_floats = shape.block_size * shape.num_kv_heads * shape.head_dim;
  float value = 1;
  for (const kernels::KvCacheLayer& layer : (*arena)->layers()) {
    for (void* data : {layer.k, layer.v}) {
      auto* f = static_cast<float*>(data);
      for (int64_t i = 0; i < 3 * block_floats; ++i) f[i] = value++;
    }
  }
  const std::vector<BlockCopy> copies = {{2, 0}, {0, 1}};  // the second reads the first's result
  CopyKvBlocks((*arena)->layers(), copies);
  for (const kernels::KvCacheLayer& layer : (*arena)->layers()) {
    for (void* data : {layer.k, layer.v}) {
      const auto* f = static_cast<const float*>(data);
      for (int64_t i = 0; i < block_floats; ++i) {
        EXPECT_EQ(f[i], f[2 * block_floats + i]);
        EXPECT_EQ(f[block_floats + i], f[2 * block_floats + i]);
      }
    }
  }
}

TEST(KvBlockCopyTest, CopiedPartialBlockGivesTheSameNextLogits) {
  PAGODA_ASSERT_TEST_MODEL();
  auto t = TestRunner::Create(8, DType::kF16);
  ASSERT_NE(t, nullptr);
  std::vector<int32_t> prompt(21);
  std::iota(prompt.begin(), prompt.end(), 100);
  const std::vector<int32_t> table = {0, 1};
  SequenceChunk prefill{prompt, 0, BlockTables(&table, 1), LogitsMode::kNone};
  t->runner->Execute({&prefill, 1});

  const std::vector<int32_t> next = {42};
  SequenceChunk decode{next, 21, BlockTables(&table, 1), LogitsMode::kLast};
  const auto original = t->runner->Execute({&decode, 1});
  const std::vector<float> expected(original.begin(), original.end());

  // Block 5 holds garbage from nothing; the copy must make it block 1.
  const std::vector<int32_t> copy_table = {0, 5};
  const BlockCopy copy{1, 5};
  SequenceChunk forked{next, 21, BlockTables(&copy_table, 1), LogitsMode::kLast};
  const auto copied = t->runner->Execute({&copy, 1}, {&forked, 1});
  ASSERT_EQ(copied.size(), expected.size());
  EXPECT_EQ(0, std::memcmp(copied.data(), expected.data(), expected.size() * sizeof(float)));

  // Without the copy the fresh block lacks the prompt's tail, so the logits change.
  const std::vector<int32_t> empty_table = {0, 6};
  SequenceChunk uncopied{next, 21, BlockTables(&empty_table, 1), LogitsMode::kLast};
  const auto wrong = t->runner->Execute({&uncopied, 1});
  EXPECT_NE(0, std::memcmp(wrong.data(), expected.data(), expected.size() * sizeof(float)));
}

}  // namespace
}  // namespace pagoda
