// What a request's outputs say: text, finish and stop reasons, stop strings
// and tokens, logprobs, streaming kinds, and the requests refused up front.
#include <gtest/gtest.h>

#include <numeric>

#include "engine_test_util.h"
#include "pagoda/tokenizer/tokenizer.h"

namespace pagoda {
namespace {

using namespace pagoda::testing;

class EngineOutputsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { engine_ = MakeEngine(TestEngineConfig(128)).release(); }
  static void TearDownTestSuite() {
    delete engine_;
    engine_ = nullptr;
  }

  RequestOutput Run(const std::string& prompt, const SamplingParams& params) {
    auto stream = engine_->AddRequest("r" + std::to_string(next_id_++), prompt, params);
    EXPECT_TRUE(stream.ok()) << stream.status().ToString();
    return stream.ok() ? WaitFinal(**stream) : RequestOutput{};
  }
  RequestOutput Run(const std::vector<int32_t>& prompt, const SamplingParams& params) {
    auto stream = engine_->AddRequest("r" + std::to_string(next_id_++), prompt, params);
    EXPECT_TRUE(stream.ok()) << stream.status().ToString();
    return stream.ok() ? WaitFinal(**stream) : RequestOutput{};
  }
  std::string Decode(std::span<const int32_t> ids) {
    auto text = engine_->tokenizer().Decode(ids, /*skip_special_tokens=*/true);
    EXPECT_TRUE(text.ok());
    return text.ok() ? *text : "";
  }

  static Engine* engine_;
  static inline int next_id_ = 0;
};

Engine* EngineOutputsTest::engine_ = nullptr;

constexpr const char* kPrompt = "The capital of France is Paris. The capital of Germany is";

TEST_F(EngineOutputsTest, LengthStopStringAndStopToken) {
  ASSERT_NE(engine_, nullptr);
  const RequestOutput base = Run(kPrompt, Greedy(14));
  ASSERT_EQ(base.outputs.size(), 1u);
  const CompletionOutput& full = base.outputs[0];
  ASSERT_EQ(full.token_ids.size(), 14u);
  EXPECT_EQ(full.finish_reason, FinishReason::kLength);
  EXPECT_FALSE(full.stop_reason.has_value());
  EXPECT_EQ(full.text, Decode(full.token_ids));
  EXPECT_EQ(base.prompt, kPrompt);
  EXPECT_EQ(base.prompt_token_ids, engine_->tokenizer().Encode(kPrompt));
  const RequestMetrics& m = base.metrics;
  ASSERT_TRUE(m.first_scheduled_time && m.first_token_time && m.last_token_time && m.finished_time);
  EXPECT_LE(m.arrival_time, *m.first_scheduled_time);
  EXPECT_LE(*m.first_scheduled_time, *m.first_token_time);
  EXPECT_LT(*m.first_token_time, *m.last_token_time);
  EXPECT_LE(*m.last_token_time, *m.finished_time);

  // A stop string from the middle of that text ends the text just before it.
  ASSERT_GT(full.text.size(), 12u);
  const std::string stop = full.text.substr(full.text.size() / 2, 3);
  const size_t at = full.text.find(stop);
  SamplingParams with_stop = Greedy(14);
  with_stop.stop = {"never appears \x01", stop};
  const CompletionOutput stopped = Run(kPrompt, with_stop).outputs.at(0);
  EXPECT_EQ(stopped.text, full.text.substr(0, at));
  EXPECT_EQ(stopped.finish_reason, FinishReason::kStop);
  EXPECT_EQ(stopped.stop_reason, StopReason(stop));
  // Generation stops at the token that completed the stop string.
  ASSERT_LE(stopped.token_ids.size(), full.token_ids.size());
  EXPECT_TRUE(std::equal(stopped.token_ids.begin(), stopped.token_ids.end(), full.token_ids.begin()));
  const std::string stopped_tokens_text = Decode(stopped.token_ids);
  EXPECT_NE(stopped_tokens_text.find(stop), std::string::npos);
  const std::vector<int32_t> one_less(stopped.token_ids.begin(), stopped.token_ids.end() - 1);
  EXPECT_EQ(Decode(one_less).find(stop), std::string::npos);

  with_stop.include_stop_str_in_output = true;
  EXPECT_EQ(Run(kPrompt, with_stop).outputs.at(0).text, full.text.substr(0, at + stop.size()));

  // A stop token is kept in token_ids, not in the text.
  SamplingParams with_stop_token = Greedy(14);
  const int32_t stop_token = full.token_ids[4];
  with_stop_token.stop_token_ids = {stop_token};
  const size_t first = std::find(full.token_ids.begin(), full.token_ids.end(), stop_token) - full.token_ids.begin();
  const CompletionOutput by_token = Run(kPrompt, with_stop_token).outputs.at(0);
  EXPECT_EQ(by_token.token_ids, std::vector<int32_t>(full.token_ids.begin(), full.token_ids.begin() + first + 1));
  EXPECT_EQ(by_token.text, Decode(std::span(full.token_ids).first(first)));
  EXPECT_EQ(by_token.finish_reason, FinishReason::kStop);
  EXPECT_EQ(by_token.stop_reason, StopReason(stop_token));
}

TEST_F(EngineOutputsTest, DeltasAddUpToTheCumulativeOutput) {
  ASSERT_NE(engine_, nullptr);
  SamplingParams params;
  params.n = 2;
  params.temperature = 0.8f;
  params.seed = 11;
  params.max_tokens = 10;
  params.ignore_eos = true;
  params.stop = {"\n\n"};
  const RequestOutput cumulative = Run(kPrompt, params);
  params.output_kind = OutputKind::kDelta;
  auto stream = engine_->AddRequest("delta", kPrompt, params);
  ASSERT_TRUE(stream.ok());
  std::vector<std::string> text(2);
  std::vector<std::vector<int32_t>> tokens(2);
  int num_outputs = 0;
  bool finished = false;
  while (std::optional<RequestOutput> out = (*stream)->Next()) {
    ++num_outputs;
    finished = out->finished;
    for (const CompletionOutput& c : out->outputs) {
      text.at(c.index) += c.text;
      tokens.at(c.index).insert(tokens[c.index].end(), c.token_ids.begin(), c.token_ids.end());
    }
  }
  EXPECT_TRUE(finished);
  EXPECT_GT(num_outputs, 2);
  ASSERT_EQ(cumulative.outputs.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(text[i], cumulative.outputs[i].text);
    EXPECT_EQ(tokens[i], cumulative.outputs[i].token_ids);
  }
}

TEST_F(EngineOutputsTest, CacheSaltsShareBlocksOnlyWithTheSameSalt) {
  ASSERT_NE(engine_, nullptr);
  // Two whole blocks and a bit, of tokens no other test sends.
  std::vector<int32_t> prompt(40);
  std::iota(prompt.begin(), prompt.end(), 1000);
  auto salted = [](std::optional<std::string> salt) {
    SamplingParams p = Greedy(1);
    p.cache_salt = std::move(salt);
    return p;
  };
  EXPECT_EQ(Run(prompt, salted("tenant-a")).num_cached_tokens, 0);
  EXPECT_EQ(Run(prompt, salted("tenant-a")).num_cached_tokens, 32);
  EXPECT_EQ(Run(prompt, salted("tenant-b")).num_cached_tokens, 0);
  EXPECT_EQ(Run(prompt, salted(std::nullopt)).num_cached_tokens, 0);
  EXPECT_EQ(Run(prompt, salted(std::nullopt)).num_cached_tokens, 32);
  EXPECT_EQ(Run(prompt, salted("tenant-b")).num_cached_tokens, 32);

  // A client cannot name the salt the engine gives a prompt-logprobs
  // request: that request still reads no cached block.
  for (int i = 0; i < 16; ++i) Run(prompt, salted("prompt-logprobs-" + std::to_string(i)));
  SamplingParams logprobs = Greedy(1);
  logprobs.prompt_logprobs = 1;
  const RequestOutput out = Run(prompt, logprobs);
  EXPECT_EQ(out.num_cached_tokens, 0);
  ASSERT_TRUE(out.prompt_logprobs);
  EXPECT_EQ(out.prompt_logprobs->size(), prompt.size());
}

TEST_F(EngineOutputsTest, LogprobsComeFromTheRawLogits) {
  ASSERT_NE(engine_, nullptr);
  const std::vector<int32_t> prompt =
      engine_->tokenizer().Encode(std::string(kPrompt) + " Berlin. The capital of Italy is Rome. The capital of Spain is");
  // Cached first: prompt logprobs must still see every prompt row. (The
  // first run may itself hit blocks that an earlier test of this process
  // cached; the second hits the prompt's one full block in any case.)
  ASSERT_GT(prompt.size(), 16u);
  ASSERT_LT(prompt.size(), 33u);
  Run(prompt, Greedy(1));
  EXPECT_EQ(Run(prompt, Greedy(1)).num_cached_tokens, 16);
  SamplingParams params = Greedy(5);
  params.logprobs = 3;
  params.prompt_logprobs = 2;
  const RequestOutput out = Run(prompt, params);
  EXPECT_EQ(out.num_cached_tokens, 0);
  const CompletionOutput& c = out.outputs.at(0);
  ASSERT_TRUE(c.logprobs && c.cumulative_logprob);
  ASSERT_EQ(c.logprobs->size(), c.token_ids.size());
  double sum = 0;
  for (size_t i = 0; i < c.token_ids.size(); ++i) {
    const PositionLogprobs& p = (*c.logprobs)[i];
    ASSERT_EQ(p.size(), 3u);  // greedy: the sampled token is the top one
    EXPECT_EQ(p[0].token_id, c.token_ids[i]);
    EXPECT_EQ(p[0].rank, 1);
    EXPECT_GE(p[0].logprob, p[1].logprob);
    EXPECT_GE(p[1].logprob, p[2].logprob);
    sum += p[0].logprob;
  }
  EXPECT_DOUBLE_EQ(*c.cumulative_logprob, sum);

  ASSERT_TRUE(out.prompt_logprobs);
  ASSERT_EQ(out.prompt_logprobs->size(), prompt.size());
  EXPECT_FALSE((*out.prompt_logprobs)[0].has_value());
  // Each prompt token's logprob is what the model gives it after the tokens
  // before it: force that token as a one-token generation (logprobs are
  // taken before the allowed-token mask) and compare.
  for (size_t i : {size_t{1}, size_t{4}, prompt.size() - 1}) {
    const auto& entry = (*out.prompt_logprobs)[i];
    ASSERT_TRUE(entry.has_value());
    EXPECT_EQ((*entry)[0].token_id, prompt[i]);
    SamplingParams forced = Greedy(1);
    forced.allowed_token_ids = std::vector<int32_t>{prompt[i]};
    forced.logprobs = 0;
    const RequestOutput one = Run(std::vector<int32_t>(prompt.begin(), prompt.begin() + i), forced);
    const CompletionOutput& f = one.outputs.at(0);
    ASSERT_EQ(f.token_ids, std::vector<int32_t>{prompt[i]});
    EXPECT_EQ((*entry)[0].logprob, f.logprobs->at(0).at(0).logprob) << "position " << i;
    EXPECT_EQ((*entry)[0].rank, f.logprobs->at(0).at(0).rank) << "position " << i;
  }
}

TEST(EngineLifetimeTest, UnseededRequestsRepeatWithTheEngineSeedAndEndAsAbortedOnShutdown) {
  EngineConfig config = TestEngineConfig(64);
  config.seed = 3;
  SamplingParams params;
  params.temperature = 1.0f;
  params.max_tokens = 6;
  params.ignore_eos = true;
  std::vector<std::vector<int32_t>> runs;
  for (int i = 0; i < 2; ++i) {
    auto engine = MakeEngine(config);
    ASSERT_TRUE(engine);
    runs.push_back(RunConcurrently(*engine, {{TestPrompt(12, 8), params}}, "u").at(0).outputs.at(0).token_ids);
  }
  EXPECT_EQ(runs[0], runs[1]);

  // Destroying an engine ends what still runs, and what was never taken in.
  std::shared_ptr<OutputStream> running, queued;
  {
    auto engine = MakeEngine(TestEngineConfig(64));
    ASSERT_TRUE(engine);
    SamplingParams long_run = Greedy(1000);
    running = *engine->AddRequest("running", TestPrompt(20, 1), long_run);
    ASSERT_TRUE(running->Next().has_value());
    queued = *engine->AddRequest("queued", TestPrompt(20, 2), long_run);
  }
  for (const auto& stream : {running, queued}) {
    const RequestOutput final_output = WaitFinal(*stream);
    EXPECT_EQ(final_output.outputs.at(0).finish_reason, FinishReason::kAbort);
    EXPECT_LT(final_output.outputs.at(0).token_ids.size(), 1000u);
  }
}

TEST(EngineRefusalTest, RefusesWhatCanNeverRun) {
  EngineConfig config = TestEngineConfig(8);  // 128 tokens of KV cache
  config.max_model_len = 64;
  auto engine = MakeEngine(config);
  ASSERT_TRUE(engine);
  auto code = [&](std::vector<int32_t> prompt, SamplingParams params) {
    static int id = 0;
    return engine->AddRequest("x" + std::to_string(id++), std::move(prompt), std::move(params)).status().code();
  };
  EXPECT_EQ(code(TestPrompt(64, 1), Greedy(1)), StatusCode::kInvalidArgument);  // prompt >= max_model_len
  EXPECT_EQ(code({}, Greedy(1)), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({5, 1 << 30}, Greedy(1)), StatusCode::kInvalidArgument);  // outside the vocabulary
  SamplingParams bias = Greedy(1);
  bias.logit_bias = {{1 << 30, 1.0f}};
  EXPECT_EQ(code({5, 6}, bias), StatusCode::kInvalidArgument);
  SamplingParams negative = Greedy(1);
  negative.temperature = -1;
  EXPECT_EQ(code({5, 6}, negative), StatusCode::kInvalidArgument);
  SamplingParams beams = Greedy(4);
  beams.use_beam_search = true;
  beams.beam_width = 2;
  beams.stop = {"."};  // beams are ranked by tokens only
  EXPECT_EQ(code({5, 6}, beams), StatusCode::kInvalidArgument);

  // No request can outgrow the whole cache: one too small for a request of
  // max_model_len (1024 > 128 tokens) is refused at start-up
  // (engine_limits_test checks the message).
  EngineConfig long_config = TestEngineConfig(8);
  long_config.max_model_len = 1024;
  EXPECT_EQ(Engine::Create(long_config).status().code(), StatusCode::kInvalidArgument);

  // An id in use is refused; the engine serves what fits meanwhile.
  auto first = engine->AddRequest("same", TestPrompt(10, 3), Greedy(3));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(engine->AddRequest("same", TestPrompt(10, 3), Greedy(3)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(WaitFinal(**first).outputs.at(0).token_ids.size(), 3u);
}

}  // namespace
}  // namespace pagoda
