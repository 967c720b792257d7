#include "pagoda/apps/bench_serve/dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

namespace pagoda::apps::bench_serve {
namespace {

std::vector<int32_t> Vocab() { return {5, 6, 7, 8, 9, 10, 11, 12}; }

bool AllInVocab(const std::vector<int32_t>& ids) {
  const auto v = Vocab();
  return std::all_of(ids.begin(), ids.end(), [&](int32_t id) { return std::find(v.begin(), v.end(), id) != v.end(); });
}

TEST(DatasetTest, RandomPromptsHaveExactLengths) {
  const auto prompts = RandomPrompts({.num_prompts = 20, .input_len = 32, .output_len = 8}, Vocab(), 1);
  ASSERT_TRUE(prompts.ok());
  ASSERT_EQ(prompts->size(), 20u);
  std::set<std::vector<int32_t>> distinct;
  for (const BenchPrompt& p : *prompts) {
    EXPECT_EQ(p.token_ids.size(), 32u);
    EXPECT_EQ(p.prompt_len, 32);
    EXPECT_EQ(p.output_len, 8);
    EXPECT_TRUE(p.text.empty());
    EXPECT_TRUE(AllInVocab(p.token_ids));
    distinct.insert(p.token_ids);
  }
  EXPECT_EQ(distinct.size(), 20u);
}

TEST(DatasetTest, RangeRatioBoundsTheLengthsAsVllm) {
  // floor(10 * 0.5) = 5 to ceil(10 * 1.5) = 15; output floor(3 * 0.5) = 1 to ceil(4.5) = 5.
  const auto prompts =
      RandomPrompts({.num_prompts = 400, .input_len = 10, .output_len = 3, .range_ratio = 0.5}, Vocab(), 3);
  ASSERT_TRUE(prompts.ok());
  std::set<int64_t> inputs;
  std::set<int> outputs;
  for (const BenchPrompt& p : *prompts) {
    EXPECT_EQ(static_cast<int64_t>(p.token_ids.size()), p.prompt_len);
    inputs.insert(p.prompt_len);
    outputs.insert(p.output_len);
  }
  EXPECT_EQ(*inputs.begin(), 5);
  EXPECT_EQ(*inputs.rbegin(), 15);
  EXPECT_EQ(inputs.size(), 11u);
  EXPECT_EQ(*outputs.begin(), 1);
  EXPECT_EQ(*outputs.rbegin(), 5);
}

TEST(DatasetTest, RandomPromptsRefuseBadLengths) {
  EXPECT_FALSE(RandomPrompts({.num_prompts = 1, .input_len = 0, .output_len = 8}, Vocab(), 1).ok());
  EXPECT_FALSE(RandomPrompts({.num_prompts = 1, .input_len = 4, .output_len = 4, .range_ratio = 1.0}, Vocab(), 1).ok());
  EXPECT_FALSE(RandomPrompts({.num_prompts = 1, .input_len = 4, .output_len = 4}, {}, 1).ok());
}

TEST(DatasetTest, SharedPrefixIsReallyShared) {
  const auto prompts = SharedPrefixPrompts(
      {.num_prompts = 9, .prefix_len = 16, .suffix_len = 4, .num_prefixes = 3, .output_len = 5}, Vocab(), 2);
  ASSERT_TRUE(prompts.ok());
  ASSERT_EQ(prompts->size(), 9u);
  std::set<std::vector<int32_t>> prefixes, suffixes;
  for (size_t i = 0; i < prompts->size(); ++i) {
    const BenchPrompt& p = (*prompts)[i];
    ASSERT_EQ(p.token_ids.size(), 20u);
    EXPECT_EQ(p.prompt_len, 20);
    EXPECT_EQ(p.output_len, 5);
    EXPECT_TRUE(AllInVocab(p.token_ids));
    const std::vector<int32_t> prefix(p.token_ids.begin(), p.token_ids.begin() + 16);
    // Prefixes are used in turn: request i shares request i % 3's.
    const auto& first_of_its_group = (*prompts)[i % 3].token_ids;
    EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), first_of_its_group.begin())) << i;
    prefixes.insert(prefix);
    suffixes.insert({p.token_ids.begin() + 16, p.token_ids.end()});
  }
  EXPECT_EQ(prefixes.size(), 3u);
  EXPECT_GT(suffixes.size(), 1u);
}

class PromptFileTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() /
                      (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".jsonl");
    std::ofstream(path) << text;
    paths_.push_back(path);
    return path.string();
  }
  void TearDown() override {
    for (const auto& p : paths_) std::filesystem::remove(p);
  }
  std::vector<std::filesystem::path> paths_;
};

TEST_F(PromptFileTest, ReadsTextIdsAndOutputLengthsAndCycles) {
  const std::string path = Write("{\"prompt\": \"Hello\", \"output_len\": 3}\n\n{\"prompt\": [1, 2, 3]}\n");
  const auto prompts = ReadPromptFile(path, 5, 7);
  ASSERT_TRUE(prompts.ok()) << prompts.status().message();
  ASSERT_EQ(prompts->size(), 5u);
  EXPECT_EQ((*prompts)[0].text, "Hello");
  EXPECT_EQ((*prompts)[0].output_len, 3);
  EXPECT_EQ((*prompts)[0].prompt_len, 0);  // not known without a tokenizer: the server's usage says
  EXPECT_EQ((*prompts)[1].token_ids, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ((*prompts)[1].prompt_len, 3);
  EXPECT_EQ((*prompts)[1].output_len, 7);
  EXPECT_EQ((*prompts)[4].text, "Hello");
}

TEST_F(PromptFileTest, BadLinesAreNamedWithTheirLineNumber) {
  const std::string path = Write("{\"prompt\": \"ok\"}\n{\"prompt\": \"x\", \"max_tokens\": 3}\n");
  const auto prompts = ReadPromptFile(path, 2, 7);
  ASSERT_FALSE(prompts.ok());
  EXPECT_NE(prompts.status().message().find(path + ":2"), std::string::npos) << prompts.status().message();
  EXPECT_NE(prompts.status().message().find("max_tokens"), std::string::npos);
  EXPECT_FALSE(ReadPromptFile(Write("{\"prompt\": \"x\", \"output_len\": 0}\n"), 1, 7).ok());
  EXPECT_FALSE(ReadPromptFile(Write("not json\n"), 1, 7).ok());
  EXPECT_FALSE(ReadPromptFile(Write("\n"), 1, 7).ok());
  EXPECT_FALSE(ReadPromptFile("/nonexistent/prompts.jsonl", 1, 7).ok());
}

}  // namespace
}  // namespace pagoda::apps::bench_serve
