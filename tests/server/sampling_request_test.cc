// Request fields to SamplingParams: types, vLLM's defaults and renames, and
// errors that name the field.
#include "pagoda/server/sampling_request.h"

#include <gtest/gtest.h>

namespace pagoda::server {
namespace {

const ServingLimits kLimits{.max_model_len = 100, .vocab_size = 1000, .max_logprobs = 5};

std::optional<SamplingRequest> Read(const nlohmann::json& body, Endpoint endpoint, std::optional<ApiError>* error,
                                    const ServingLimits& limits = kLimits) {
  FieldReader r(body);
  const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(body.dump());
  std::optional<SamplingRequest> out = ReadSamplingRequest(r, ordered, endpoint, OutputKind::kFinalOnly, limits);
  *error = r.error();
  return out;
}

// A model's generation_config.json values fill what a request leaves out,
// and its max_new_tokens caps max_tokens, as vLLM applies them.
TEST(SamplingRequestTest, TheModelsGenerationDefaultsFillOmittedFields) {
  ServingLimits limits = kLimits;
  limits.defaults = {.temperature = 0.7f, .top_p = 0.8f, .top_k = 20, .min_p = std::nullopt, .repetition_penalty = 1.05f,
                     .max_tokens = 12};
  std::optional<ApiError> error;
  auto omitted = Read(nlohmann::json::object(), Endpoint::kChat, &error, limits);
  ASSERT_TRUE(omitted) << error->message;
  EXPECT_FLOAT_EQ(omitted->params.temperature, 0.7f);
  EXPECT_FLOAT_EQ(omitted->params.top_p, 0.8f);
  EXPECT_EQ(omitted->params.top_k, 20);
  EXPECT_FLOAT_EQ(omitted->params.repetition_penalty, 1.05f);
  EXPECT_EQ(omitted->max_tokens, 12);
  auto own = Read({{"temperature", 0.0}, {"top_k", 3}, {"max_tokens", 50}}, Endpoint::kCompletions, &error, limits);
  ASSERT_TRUE(own) << error->message;
  EXPECT_FLOAT_EQ(own->params.temperature, 0.0f);
  EXPECT_EQ(own->params.top_k, 3);
  EXPECT_FLOAT_EQ(own->params.top_p, 0.8f);
  EXPECT_EQ(own->max_tokens, 12);  // capped
  auto fewer = Read({{"max_tokens", 5}}, Endpoint::kCompletions, &error, limits);
  ASSERT_TRUE(fewer) << error->message;
  EXPECT_EQ(fewer->max_tokens, 5);
  // Without defaults, vLLM's own.
  auto plain = Read(nlohmann::json::object(), Endpoint::kCompletions, &error);
  ASSERT_TRUE(plain) << error->message;
  EXPECT_FLOAT_EQ(plain->params.temperature, SamplingParams{}.temperature);
  EXPECT_EQ(plain->max_tokens, 16);
}

TEST(SamplingRequestTest, ReadsOpenAIAndVllmFields) {
  std::optional<ApiError> error;
  auto req = Read({{"n", 2},
                   {"temperature", 0.5},
                   {"top_p", 0.9},
                   {"top_k", 5},
                   {"seed", 7},
                   {"stop", "END"},
                   {"stop_token_ids", {3, 4}},
                   {"logit_bias", {{"12", 150.0}}},
                   {"max_tokens", 30},
                   {"logprobs", 2},
                   {"ignore_eos", true},
                   {"min_tokens", 2},
                   {"priority", -1}},
                  Endpoint::kCompletions, &error);
  ASSERT_TRUE(req) << error->message;
  const SamplingParams& p = req->params;
  EXPECT_EQ(p.n, 2);
  EXPECT_FLOAT_EQ(p.temperature, 0.5f);
  EXPECT_EQ(p.top_k, 5);
  EXPECT_EQ(p.seed, 7);
  EXPECT_EQ(p.stop, std::vector<std::string>{"END"});
  EXPECT_EQ(p.stop_token_ids, (std::vector<int32_t>{3, 4}));
  EXPECT_FLOAT_EQ(p.logit_bias.at(12), 100.0f);  // clamped as vLLM does
  EXPECT_EQ(req->max_tokens, 30);
  EXPECT_EQ(p.logprobs, 2);
  EXPECT_TRUE(p.ignore_eos);
  EXPECT_EQ(req->priority, -1);
}

TEST(SamplingRequestTest, DefaultsDifferByEndpoint) {
  std::optional<ApiError> error;
  EXPECT_EQ(Read(nlohmann::json::object(), Endpoint::kCompletions, &error)->max_tokens, 16);
  EXPECT_EQ(Read(nlohmann::json::object(), Endpoint::kChat, &error)->max_tokens, std::nullopt);
  auto chat = Read({{"max_tokens", 5}, {"max_completion_tokens", 9}, {"logprobs", true}, {"top_logprobs", 3}},
                   Endpoint::kChat, &error);
  ASSERT_TRUE(chat);
  EXPECT_EQ(chat->max_tokens, 9);
  EXPECT_EQ(chat->params.logprobs, 3);
  auto beams = Read({{"use_beam_search", true}, {"n", 3}}, Endpoint::kCompletions, &error);
  ASSERT_TRUE(beams) << error->message;
  EXPECT_EQ(beams->params.beam_width, 3);
  EXPECT_FLOAT_EQ(beams->params.temperature, 0.0f);
}

TEST(SamplingRequestTest, ErrorsNameTheField) {
  struct Case {
    nlohmann::json body;
    Endpoint endpoint;
    std::string field;
  };
  const std::vector<Case> cases = {
      {{{"n", "two"}}, Endpoint::kCompletions, "n"},
      {{{"temperature", "hot"}}, Endpoint::kCompletions, "temperature"},
      {{{"stop", {1}}}, Endpoint::kCompletions, "stop"},
      {{{"logit_bias", {{"x", 1}}}}, Endpoint::kCompletions, "logit_bias"},
      {{{"logprobs", 6}}, Endpoint::kCompletions, "logprobs"},
      {{{"top_logprobs", 2}}, Endpoint::kChat, "top_logprobs"},
      {{{"max_tokens", 0}}, Endpoint::kCompletions, "max_tokens"},
      {{{"stop_token_ids", {-1}}}, Endpoint::kCompletions, "stop_token_ids"},
      {{{"seed", 18446744073709551615ull}}, Endpoint::kCompletions, "seed"},  // not wrapped to -1
      // Ids at or past the vocabulary's size, and 64-bit ones that would
      // truncate to a valid 32-bit id (4294967297 = 2^32 + 1).
      {{{"stop_token_ids", {999, 1000}}}, Endpoint::kCompletions, "stop_token_ids"},
      {{{"stop_token_ids", {4294967297}}}, Endpoint::kCompletions, "stop_token_ids"},
      {{{"stop_token_ids", {18446744073709551615ull}}}, Endpoint::kCompletions, "stop_token_ids"},
      {{{"allowed_token_ids", {1000}}}, Endpoint::kChat, "allowed_token_ids"},
      {{{"logit_bias", {{"1000", 1}}}}, Endpoint::kCompletions, "logit_bias"},
      {{{"logit_bias", {{"4294967297", 1}}}}, Endpoint::kChat, "logit_bias"},
  };
  for (const Case& c : cases) {
    std::optional<ApiError> error;
    EXPECT_FALSE(Read(c.body, c.endpoint, &error)) << c.body.dump();
    ASSERT_TRUE(error) << c.body.dump();
    EXPECT_EQ(error->status, 400);
    EXPECT_EQ(error->param, c.field) << error->message;
  }
  // Range checks come from SamplingParams::Validate, whose message names it.
  std::optional<ApiError> error;
  EXPECT_FALSE(Read({{"top_p", 1.5}}, Endpoint::kCompletions, &error));
  EXPECT_NE(error->message.find("top_p"), std::string::npos);
}

TEST(SamplingRequestTest, FitToContextUsesOpenAIsWording) {
  std::optional<ApiError> error;
  SamplingRequest chat = *Read(nlohmann::json::object(), Endpoint::kChat, &error);
  EXPECT_FALSE(FitToContext(chat, 40, kLimits));
  EXPECT_EQ(chat.params.max_tokens, 60);  // the room left
  SamplingRequest big = *Read({{"max_tokens", 61}}, Endpoint::kCompletions, &error);
  std::optional<ApiError> e = FitToContext(big, 40, kLimits);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->message,
            "This model's maximum context length is 100 tokens. However, you requested 101 tokens (40 in the "
            "messages, 61 in the completion). Please reduce the length of the messages or completion.");
  SamplingRequest full = *Read(nlohmann::json::object(), Endpoint::kChat, &error);
  EXPECT_TRUE(FitToContext(full, 100, kLimits));
}

}  // namespace
}  // namespace pagoda::server
