// The offline API: every prompt runs through one engine concurrently, and
// the outputs come back in prompt order.
#include "pagoda/engine/llm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "engine_test_util.h"
#include "pagoda/tokenizer/tokenizer.h"

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

// Token prompts skip the tokenizer; text given with them is what the output
// reports; the callback sees each request once, as it finishes.
TEST(LlmTest, GenerateInputsTakesTokenPromptsAndCallsBackPerRequest) {
  LLM llm(TestEngineConfig(64));
  const std::string text = "The capital of France is";
  const std::vector<int32_t> ids = llm.engine().tokenizer().Encode(text);
  std::vector<std::string> finished;
  auto outputs = llm.GenerateInputs({PromptInput{.text = text}, PromptInput{.token_ids = ids},
                                     PromptInput{.text = "rendered", .token_ids = ids}},
                                    {Greedy(4), Greedy(4), Greedy(4)},
                                    [&](const RequestOutput& out) { finished.push_back(out.request_id); });
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), 3u);
  EXPECT_EQ((*outputs)[0].prompt, text);
  EXPECT_EQ((*outputs)[1].prompt, std::nullopt);
  EXPECT_EQ((*outputs)[2].prompt, "rendered");
  for (const RequestOutput& out : *outputs) {
    EXPECT_EQ(out.prompt_token_ids, ids);
    EXPECT_EQ(out.outputs.at(0).token_ids, (*outputs)[0].outputs.at(0).token_ids);
    EXPECT_EQ(std::count(finished.begin(), finished.end(), out.request_id), 1);
  }
}

TEST(LlmTest, AThrowingCallbackAbortsTheRest) {
  LLM llm(TestEngineConfig(64));
  SamplingParams long_run = Greedy(500);
  long_run.ignore_eos = true;
  EXPECT_THROW(llm.GenerateInputs({PromptInput{.text = "Hi"}, PromptInput{.text = "Hello"}}, {Greedy(1), long_run},
                                  [](const RequestOutput&) { throw std::runtime_error("stop"); }),
               std::runtime_error);
  EXPECT_EQ(WaitForStats(llm.engine(), [](const EngineStats& s) { return s.num_running_seqs == 0; }).kv_cache_usage,
            0);
}

}  // namespace
}  // namespace pagoda
