// The offline API: every prompt runs through one engine concurrently, and
// the outputs come back in prompt order.
#include "pagoda/engine/llm.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "engine_test_util.h"

namespace pagoda {
namespace {

using namespace pagoda::testing;

TEST(LlmTest, GeneratesInPromptOrder) {
  LLM llm(TestEngineConfig(64));
  const std::vector<std::string> prompts = {"Hello, my name is", "The capital of France is",
                                            "Once upon a time, in a land far, far away, there lived"};
  std::vector<SamplingParams> params;
  for (int32_t i = 0; i < 3; ++i) params.push_back(Greedy(3 + 2 * i));
  const std::vector<RequestOutput> outputs = llm.generate(prompts, params);
  ASSERT_EQ(outputs.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(outputs[i].prompt, prompts[i]);
    EXPECT_TRUE(outputs[i].finished);
    ASSERT_EQ(outputs[i].outputs.size(), 1u);
    EXPECT_EQ(outputs[i].outputs[0].token_ids.size(), static_cast<size_t>(3 + 2 * i));
    EXPECT_EQ(outputs[i].outputs[0].finish_reason, FinishReason::kLength);
    // The same prompt alone (greedy) gives the same tokens.
    const std::vector<RequestOutput> alone = llm.generate({prompts[i]}, params[i]);
    EXPECT_EQ(alone.at(0).outputs.at(0).token_ids, outputs[i].outputs[0].token_ids);
  }
}

TEST(LlmTest, RefusalsThrowOrReturnStatus) {
  EngineConfig config = TestEngineConfig(64);
  config.max_model_len = 8;
  auto llm = LLM::Create(config);
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  const std::string long_prompt = "one two three four five six seven eight nine ten";
  EXPECT_THROW((*llm)->generate({"Hi", long_prompt}, Greedy(2)), std::invalid_argument);
  EXPECT_EQ((*llm)->Generate({"Hi"}, {}).status().code(), StatusCode::kInvalidArgument);
  // Still serving after a refusal, and the aborted partner left nothing behind.
  EXPECT_EQ((*llm)->generate({"Hi"}, Greedy(2)).at(0).outputs.at(0).token_ids.size(), 2u);
  EXPECT_EQ(WaitForStats((*llm)->engine(), [](const EngineStats& s) { return s.num_running_seqs == 0; })
                .kv_cache_usage,
            0);

  EngineConfig bad = TestEngineConfig(64);
  bad.model = "no/such/model.gguf";
  EXPECT_THROW(LLM{bad}, std::runtime_error);
}

}  // namespace
}  // namespace pagoda
