// A long prompt must not stall the engine: with the default chunked-prefill
// limits, a short request that arrives while an 8,000-token prompt
// prefills gets its first token within a small multiple of its time alone,
// and the long prompt still completes. (Before the limits, each 2,048-token
// chunk took the whole step budget and the short request waited for the
// whole prefill.) A timed test, as the issue asks: the margin is generous.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine_test_util.h"

namespace pagoda {
namespace {

using namespace pagoda::testing;

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Seconds from AddRequest to the first output of a one-token request.
double TimeToFirstToken(Engine& engine, const std::string& id, std::vector<int32_t> prompt) {
  const double start = Seconds();
  auto stream = engine.AddRequest(id, std::move(prompt), Greedy(1));
  EXPECT_TRUE(stream.ok()) << stream.status().ToString();
  if (!stream.ok()) return 1e9;
  const std::optional<RequestOutput> first = (*stream)->Next();
  const double elapsed = Seconds() - start;
  EXPECT_TRUE(first && first->finished);  // one token: the first output is the last
  return elapsed;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr int32_t kLongPrompt = 1000;  // the sanitizers run the model several times slower
#else
constexpr int32_t kLongPrompt = 8000;
#endif
constexpr int32_t kShortPrompt = 16;
constexpr double kMaxSlowdown = 150;

TEST(EngineLongPrefillTest, AShortRequestIsNotStuckBehindALongPrompt) {
  EngineConfig config = TestEngineConfig(640);  // 10,240 tokens, with the default scheduling limits
  config.max_model_len = 8192;                  // the model's context
  auto engine = MakeEngine(config);
  ASSERT_TRUE(engine);

  // Alone: the best of two (distinct prompts, so no prefix-cache hit).
  const double alone = std::min(TimeToFirstToken(*engine, "alone0", TestPrompt(kShortPrompt, 10)),
                                TimeToFirstToken(*engine, "alone1", TestPrompt(kShortPrompt, 11)));

  const double long_start = Seconds();
  auto long_stream = engine->AddRequest("long", TestPrompt(kLongPrompt, 7), Greedy(1));
  ASSERT_TRUE(long_stream.ok()) << long_stream.status().ToString();
  // Halfway through its prompt: the blocks of the step in progress count.
  EngineStats stats;
  while (!(*long_stream)->finished()) {
    stats = engine->Stats();
    if (stats.kv_cache_usage * static_cast<double>(stats.num_kv_blocks) >= kLongPrompt / 2 / 16) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_EQ(stats.num_running_requests, 1) << "the long prompt finished before it was seen halfway";
  const double during = TimeToFirstToken(*engine, "short", TestPrompt(kShortPrompt, 12));
  const RequestOutput long_output = WaitFinal(**long_stream);
  const double long_total = Seconds() - long_start;

  std::printf("short request's time to first token: %.3f s alone, %.3f s during the %d-token prefill (%.1fx); "
              "the long prompt took %.1f s\n",
              alone, during, kLongPrompt, during / alone, long_total);
  RecordProperty("ttft_alone_s", std::to_string(alone));
  RecordProperty("ttft_during_long_prefill_s", std::to_string(during));
  RecordProperty("long_prompt_total_s", std::to_string(long_total));
  EXPECT_LT(during, kMaxSlowdown * alone);
  ASSERT_EQ(long_output.outputs.size(), 1u);
  EXPECT_EQ(long_output.outputs[0].token_ids.size(), 1u);
  EXPECT_EQ(long_output.outputs[0].finish_reason, FinishReason::kLength);
}

}  // namespace
}  // namespace pagoda
