// A paged batch equals the sequences run alone, to the last bit: the basis of
// batch invariance (docs/architecture.md).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <vector>

#include "test_model.h"

namespace pagoda {
namespace {

std::vector<std::vector<int32_t>> FixturePrompts(size_t n) {
  std::ifstream in(std::string(PAGODA_FIXTURES_DIR) + "/llama_cpp/greedy.json");
  const auto ref = nlohmann::json::parse(in);
  std::vector<std::vector<int32_t>> out;
  for (size_t i = 0; i < n; ++i) out.push_back(ref["prompts"][i]["prompt_token_ids"].get<std::vector<int32_t>>());
  return out;
}

// Logits after each prompt, then after each of `decode_steps` greedy tokens,
// with every sequence run on its own, the prompt in one chunk.
std::vector<std::vector<float>> RunAlone(testing::TestRunner& t, const std::vector<int32_t>& prompt,
                                         int decode_steps) {
  std::vector<std::vector<float>> out;
  std::vector<int32_t> tokens = prompt, table;
  int32_t computed = 0;
  for (int step = 0; step <= decode_steps; ++step) {
    EXPECT_TRUE(GrowBlockTable(*t.blocks, table, tokens.size(), 16).ok());
    SequenceChunk chunk{std::span(tokens).subspan(computed), computed, BlockTables(&table, 1), LogitsMode::kLast};
    auto logits = t.runner->Execute({&chunk, 1});
    out.emplace_back(logits.begin(), logits.end());
    computed = static_cast<int32_t>(tokens.size());
    tokens.push_back(static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin()));
  }
  ReleaseBlockTable(*t.blocks, table);
  return out;
}

// The check for one KV cache type: F16, and BF16 (the amx set's default,
// its attention on tiles at every position; the other sets read it through
// the reference's rows).
void CheckFourPromptsInTwoPrefillChunks(DType kv_dtype, const std::vector<std::vector<int32_t>>& prompts) {
  const int decode_steps = 3;
  auto t = testing::TestRunner::Create(256, kv_dtype);
  ASSERT_NE(t, nullptr);
  const int64_t vocab = t->runner->vocab_size();

  std::vector<std::vector<std::vector<float>>> alone;
  for (const auto& p : prompts) alone.push_back(RunAlone(*t, p, decode_steps));

  // Together: step 1 computes the first half of every prompt (no logits),
  // step 2 the rest, then decode steps run all four at once.
  std::vector<testing::TestSequence> seqs(prompts.size());
  for (size_t i = 0; i < prompts.size(); ++i) seqs[i].tokens = prompts[i];
  for (int step = 0; step < 2 + decode_steps; ++step) {
    std::vector<SequenceChunk> chunks;
    for (testing::TestSequence& s : seqs) {
      const int32_t end = step == 0 ? static_cast<int32_t>(s.tokens.size() / 2) : static_cast<int32_t>(s.tokens.size());
      ASSERT_TRUE(GrowBlockTable(*t->blocks, s.table, end, 16).ok());
      chunks.push_back({std::span(s.tokens).subspan(s.computed, end - s.computed), s.computed, BlockTables(&s.table, 1),
                        step == 0 ? LogitsMode::kNone : LogitsMode::kLast});
    }
    auto logits = t->runner->Execute(chunks);
    for (size_t i = 0; i < seqs.size(); ++i) {
      testing::TestSequence& s = seqs[i];
      s.computed += static_cast<int32_t>(chunks[i].token_ids.size());
      if (step == 0) continue;
      const auto row = logits.subspan(i * vocab, vocab);
      const auto& want = alone[i][step - 1];
      ASSERT_EQ(std::memcmp(row.data(), want.data(), vocab * sizeof(float)), 0)
          << DTypeName(kv_dtype) << " prompt " << i << " differs at step " << step;
      s.tokens.push_back(static_cast<int32_t>(std::max_element(row.begin(), row.end()) - row.begin()));
    }
  }
  for (testing::TestSequence& s : seqs) ReleaseBlockTable(*t->blocks, s.table);
  EXPECT_EQ(t->blocks->num_free(), t->blocks->num_blocks());
}

TEST(BatchInvarianceTest, FourPromptsInTwoPrefillChunksEqualEachAloneBitForBit) {
  PAGODA_ASSERT_TEST_MODEL();
  for (DType kv_dtype : {DType::kF16, DType::kBF16}) CheckFourPromptsInTwoPrefillChunks(kv_dtype, FixturePrompts(4));
}

// Prompts of 150 tokens or more: run alone, and in the batch's second step
// (four halves together), the MatMuls split the rows over the two workers,
// each adding, norming and quantizing its own rows (kernels::RowStage),
// and a worker's rows span sequences; the decode steps split the panels.
TEST(BatchInvarianceTest, LongPromptsSplitByRowsEqualEachAloneBitForBit) {
  PAGODA_ASSERT_TEST_MODEL();
  std::vector<std::vector<int32_t>> prompts = FixturePrompts(4);
  for (auto& p : prompts) {
    const std::vector<int32_t> once = p;
    while (p.size() < 150) p.insert(p.end(), once.begin(), once.end());
  }
  CheckFourPromptsInTwoPrefillChunks(DType::kBF16, prompts);
}

}  // namespace
}  // namespace pagoda
