#include "pagoda/request/sampling_params.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>

namespace pagoda {
namespace {

// Expects Validate() to fail for params changed by `edit`, naming `field`.
void ExpectInvalid(const std::function<void(SamplingParams&)>& edit, const std::string& field) {
  SamplingParams p;
  edit(p);
  const Status s = p.Validate();
  EXPECT_FALSE(s.ok()) << field;
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << field;
  EXPECT_NE(s.message().find(field), std::string::npos) << "message '" << s.message() << "' should name " << field;
}

void ExpectValid(const std::function<void(SamplingParams&)>& edit) {
  SamplingParams p;
  edit(p);
  const Status s = p.Validate();
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(SamplingParamsTest, DefaultsAreValid) { EXPECT_TRUE(SamplingParams{}.Validate().ok()); }

TEST(SamplingParamsTest, CountsAndPenalties) {
  ExpectInvalid([](auto& p) { p.n = 0; }, "n must be at least 1");
  ExpectInvalid([](auto& p) { p.best_of = 0; }, "best_of");
  ExpectInvalid([](auto& p) { p.n = 3; p.best_of = 2; }, "best_of must be greater than or equal to n");
  ExpectValid([](auto& p) { p.n = 2; p.best_of = 3; });
  ExpectInvalid([](auto& p) { p.presence_penalty = 2.5f; }, "presence_penalty");
  ExpectInvalid([](auto& p) { p.presence_penalty = std::numeric_limits<float>::quiet_NaN(); }, "presence_penalty");
  ExpectValid([](auto& p) { p.presence_penalty = -2.0f; p.frequency_penalty = 2.0f; });
  ExpectInvalid([](auto& p) { p.frequency_penalty = -2.01f; }, "frequency_penalty");
  ExpectInvalid([](auto& p) { p.repetition_penalty = 0.0f; }, "repetition_penalty");
  ExpectValid([](auto& p) { p.repetition_penalty = 0.5f; });
}

TEST(SamplingParamsTest, DistributionKnobs) {
  ExpectInvalid([](auto& p) { p.temperature = -0.1f; }, "temperature");
  ExpectInvalid([](auto& p) { p.temperature = std::numeric_limits<float>::infinity(); }, "temperature");
  ExpectInvalid([](auto& p) { p.top_p = 0.0f; }, "top_p");
  ExpectInvalid([](auto& p) { p.top_p = 1.01f; }, "top_p");
  ExpectValid([](auto& p) { p.top_p = 1e-3f; });
  ExpectInvalid([](auto& p) { p.top_k = -2; }, "top_k");
  ExpectValid([](auto& p) { p.top_k = -1; });
  ExpectValid([](auto& p) { p.top_k = 0; });
  ExpectValid([](auto& p) { p.top_k = 1; });
  ExpectInvalid([](auto& p) { p.min_p = -0.01f; }, "min_p");
  ExpectInvalid([](auto& p) { p.min_p = 1.5f; }, "min_p");
  ExpectValid([](auto& p) { p.min_p = 1.0f; });
}

TEST(SamplingParamsTest, LengthsLogprobsAndStrings) {
  ExpectInvalid([](auto& p) { p.max_tokens = 0; }, "max_tokens");
  ExpectValid([](auto& p) { p.max_tokens.reset(); p.min_tokens = 1000; });
  ExpectInvalid([](auto& p) { p.min_tokens = -1; }, "min_tokens");
  ExpectInvalid([](auto& p) { p.max_tokens = 5; p.min_tokens = 6; }, "min_tokens must be less than or equal to max_tokens=5");
  ExpectValid([](auto& p) { p.max_tokens = 5; p.min_tokens = 5; });
  ExpectInvalid([](auto& p) { p.logprobs = -1; }, "logprobs");
  ExpectInvalid([](auto& p) { p.prompt_logprobs = -1; }, "prompt_logprobs");
  ExpectValid([](auto& p) { p.logprobs = 0; p.prompt_logprobs = 1000; });  // the cap is the server's
  ExpectInvalid([](auto& p) { p.stop = {"x", ""}; }, "stop cannot contain an empty string");
  ExpectInvalid([](auto& p) { p.bad_words = {""}; }, "bad_words");
  ExpectInvalid([](auto& p) { p.logit_bias[3] = std::numeric_limits<float>::quiet_NaN(); }, "logit_bias");
  ExpectInvalid([](auto& p) { p.allowed_token_ids = std::vector<int32_t>{}; }, "allowed_token_ids");
  ExpectInvalid([](auto& p) { p.n = 2; p.best_of = 3; p.output_kind = OutputKind::kDelta; }, "best_of must equal n");
  ExpectValid([](auto& p) { p.n = 2; p.output_kind = OutputKind::kDelta; });
}

TEST(SamplingParamsTest, GreedyRefusesSeveralSequencesAsVllmDoes) {
  ExpectInvalid([](auto& p) { p.temperature = 0.0f; p.n = 2; }, "n must be 1 when using greedy sampling");
  ExpectInvalid([](auto& p) { p.temperature = 0.0f; p.best_of = 2; }, "best_of must be 1 when using greedy sampling");
  ExpectValid([](auto& p) { p.temperature = 0.0f; p.best_of = 1; });
  // A tiny positive temperature is raised to 0.01 by Normalize, so it samples.
  ExpectValid([](auto& p) { p.temperature = 1e-6f; p.n = 2; });
}

TEST(SamplingParamsTest, BeamSearch) {
  auto beam = [](SamplingParams& p) {
    p.use_beam_search = true;
    p.beam_width = 4;
    p.temperature = 0.0f;
  };
  ExpectValid([&](auto& p) { beam(p); p.n = 4; p.length_penalty = 0.5f; });
  ExpectInvalid([&](auto& p) { beam(p); p.beam_width = 0; }, "beam_width");
  ExpectInvalid([&](auto& p) { beam(p); p.n = 5; }, "n must be at most beam_width=4");
  ExpectInvalid([&](auto& p) { beam(p); p.temperature = 0.7f; }, "temperature must be 0 with beam search");
  ExpectInvalid([&](auto& p) { beam(p); p.top_p = 0.9f; }, "top_p");
  ExpectInvalid([&](auto& p) { beam(p); p.top_k = 5; }, "top_k");
  ExpectInvalid([&](auto& p) { beam(p); p.min_p = 0.1f; }, "min_p");
  ExpectInvalid([&](auto& p) { beam(p); p.best_of = 4; }, "best_of");
  ExpectInvalid([](auto& p) { p.length_penalty = 0.5f; }, "length_penalty");
}

TEST(SamplingParamsTest, TokenIdsMustBeInTheVocabulary) {
  SamplingParams p;
  p.logit_bias = {{9, 1.0f}};
  EXPECT_TRUE(p.ValidateTokenIds(10).ok());
  const Status s = p.ValidateTokenIds(9);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("logit_bias"), std::string::npos);
  p.logit_bias.clear();
  p.allowed_token_ids = std::vector<int32_t>{0, -1};
  EXPECT_NE(p.ValidateTokenIds(10).message().find("allowed_token_ids"), std::string::npos);
  p.allowed_token_ids.reset();
  p.stop_token_ids = {3, 10};
  EXPECT_NE(p.ValidateTokenIds(10).message().find("stop_token_ids"), std::string::npos);
  EXPECT_TRUE(p.ValidateTokenIds(11).ok());
}

TEST(SamplingParamsTest, NormalizeAppliesVllmDefaults) {
  SamplingParams greedy;
  greedy.temperature = 0.0f;
  greedy.top_p = 0.5f;
  greedy.top_k = 7;
  greedy.min_p = 0.3f;
  greedy.Normalize();
  EXPECT_TRUE(greedy.IsGreedy());
  EXPECT_EQ(greedy.top_p, 1.0f);
  EXPECT_EQ(greedy.top_k, 0);
  EXPECT_EQ(greedy.min_p, 0.0f);

  SamplingParams cold;
  cold.temperature = 0.001f;
  cold.top_k = -1;
  cold.seed = -1;
  cold.top_p = 0.5f;
  cold.Normalize();
  EXPECT_EQ(cold.temperature, 0.01f);
  EXPECT_FALSE(cold.IsGreedy());
  EXPECT_EQ(cold.top_k, 0);
  EXPECT_FALSE(cold.seed.has_value());
  EXPECT_EQ(cold.top_p, 0.5f);  // sampling keeps its knobs
}

TEST(SamplingParamsTest, NumSequences) {
  SamplingParams p;
  p.n = 2;
  EXPECT_EQ(p.num_sequences(), 2);
  p.best_of = 5;
  EXPECT_EQ(p.num_sequences(), 5);
  p.use_beam_search = true;
  p.beam_width = 3;
  EXPECT_EQ(p.num_sequences(), 3);
}

}  // namespace
}  // namespace pagoda
