// The runner's own bookkeeping around the model: its logits buffer.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "test_model.h"

namespace pagoda {
namespace {

// Logits for every position of a sequence's first `n` tokens, run from an
// empty cache.
std::span<const float> LogitsOfFirst(testing::TestRunner& t, const std::vector<int32_t>& tokens, size_t n,
                                     std::vector<int32_t>& table) {
  SequenceChunk chunk{std::span(tokens).first(n), 0, BlockTables(&table, 1), LogitsMode::kAll};
  return t.runner->Execute({&chunk, 1});
}

TEST(ModelRunnerTest, ReservedLogitsStayInPlace) {
  PAGODA_ASSERT_TEST_MODEL();
  auto t = testing::TestRunner::Create(8, DType::kF16);
  ASSERT_NE(t, nullptr);
  const std::vector<int32_t> tokens = {1, 504, 3458, 314, 2113, 282, 4757, 47};
  std::vector<int32_t> table;
  ASSERT_TRUE(GrowBlockTable(*t->blocks, table, tokens.size(), 16).ok());
  t->runner->Reserve(static_cast<int64_t>(tokens.size()), static_cast<int64_t>(tokens.size()));
  const std::span<const float> one = LogitsOfFirst(*t, tokens, 1, table);
  ASSERT_EQ(one.size(), static_cast<size_t>(t->runner->vocab_size()));
  const std::vector<float> first_row(one.begin(), one.end());
  const std::span<const float> all = LogitsOfFirst(*t, tokens, tokens.size(), table);
  ASSERT_EQ(all.size(), tokens.size() * t->runner->vocab_size());
  // Up to the reserved rows the buffer never moves (so it never grows).
  EXPECT_EQ(all.data(), one.data());
  // The first row is the same whatever rows follow it.
  EXPECT_TRUE(std::equal(first_row.begin(), first_row.end(), all.begin()));
}

}  // namespace
}  // namespace pagoda
