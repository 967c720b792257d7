// The runner's own bookkeeping around the model (its logits buffer), and
// the model's weights repacked at load.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
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

// The weights repacked at load (as the engine and the shared test model run
// them) give the logits of the GGUF rows read in place, bit for bit: every
// position of a prompt, then greedy decode steps (single-row products).
TEST(ModelRunnerTest, RepackedWeightsGiveTheLogitsOfTheGgufRows) {
  PAGODA_ASSERT_TEST_MODEL();
  auto in_place = testing::LoadTestModel(/*packed=*/false);
  ASSERT_TRUE(in_place.ok()) << in_place.status().ToString();
  auto repacked = testing::LoadTestModel(/*packed=*/false);
  ASSERT_TRUE(repacked.ok());
  ThreadPool pool(2);
  kernels::ComputeContext ctx(kernels::cpu::BestKernelSet(), pool);
  const int64_t bytes = (*repacked)->PackWeights(ctx);
  const kernels::cpu::SimdMatMulOps* simd = ctx.kernels().simd;
  // The default model's Q4_1 and Q8_0 weights are repacked wherever the set repacks.
  EXPECT_EQ(bytes > 0, simd != nullptr && simd->pack != nullptr) << ctx.kernels().name;
  auto a = testing::TestRunner::Create(8, DType::kF16, 2, in_place->get());
  auto b = testing::TestRunner::Create(8, DType::kF16, 2, repacked->get());
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  std::vector<int32_t> tokens = {1, 504, 3458, 314, 2113, 282, 4757, 47};
  std::vector<int32_t> table_a, table_b;
  ASSERT_TRUE(GrowBlockTable(*a->blocks, table_a, tokens.size() + 4, 16).ok());
  ASSERT_TRUE(GrowBlockTable(*b->blocks, table_b, tokens.size() + 4, 16).ok());
  const std::span<const float> prompt_a = LogitsOfFirst(*a, tokens, tokens.size(), table_a);
  const std::span<const float> prompt_b = LogitsOfFirst(*b, tokens, tokens.size(), table_b);
  ASSERT_EQ(prompt_a.size(), prompt_b.size());
  ASSERT_EQ(0, std::memcmp(prompt_a.data(), prompt_b.data(), prompt_a.size_bytes()));
  int32_t next = static_cast<int32_t>(std::max_element(prompt_a.end() - a->runner->vocab_size(), prompt_a.end()) -
                                      (prompt_a.end() - a->runner->vocab_size()));
  for (int step = 0; step < 4; ++step) {
    tokens.push_back(next);
    const auto computed = static_cast<int32_t>(tokens.size() - 1);
    SequenceChunk chunk_a{std::span(tokens).subspan(computed), computed, BlockTables(&table_a, 1), LogitsMode::kLast};
    SequenceChunk chunk_b{std::span(tokens).subspan(computed), computed, BlockTables(&table_b, 1), LogitsMode::kLast};
    const std::span<const float> la = a->runner->Execute({&chunk_a, 1});
    const std::span<const float> lb = b->runner->Execute({&chunk_b, 1});
    ASSERT_EQ(0, std::memcmp(la.data(), lb.data(), la.size_bytes())) << "decode step " << step;
    next = static_cast<int32_t>(std::max_element(la.begin(), la.end()) - la.begin());
  }
}

}  // namespace
}  // namespace pagoda
