// The engine's recording into vLLM's metrics on the real model: what the
// rendered counters and histograms say after known requests.
#include <gtest/gtest.h>

#include <regex>

#include "engine_test_util.h"
#include "pagoda/metrics/engine_metrics.h"

namespace pagoda {
namespace {

using namespace pagoda::testing;

// The value of the sample `name{...labels containing `label`...}`.
double Sample(const std::string& text, const std::string& name, const std::string& label = "") {
  std::regex line("(^|\n)" + std::regex_replace(name, std::regex(R"([:.])"), R"(\$&)") + R"(\{([^}]*)\} ([^\n]+))");
  for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end; ++it) {
    if ((*it)[2].str().find(label) != std::string::npos) return std::stod((*it)[3].str());
  }
  ADD_FAILURE() << "no sample " << name << " with " << label;
  return -1;
}

TEST(EngineMetricsTest, CountsTokensRequestsAndLatencies) {
  EngineConfig config = TestEngineConfig(64);
  config.served_model_name = "smol";
  auto engine = MakeEngine(config);
  ASSERT_TRUE(engine);
  const std::vector<int32_t> prompt = TestPrompt(40, 3);
  RunConcurrently(*engine, {{prompt, Greedy(8)}, {prompt, Greedy(1)}}, "m");
  WaitForStats(*engine, [](const EngineStats& s) { return s.num_finished_requests == 2; });
  const std::string text = engine->metrics().Render();
  EXPECT_NE(text.find(R"(model_name="smol")"), std::string::npos);
  EXPECT_EQ(Sample(text, "vllm:prompt_tokens_total"), 80);
  EXPECT_EQ(Sample(text, "vllm:generation_tokens_total"), 9);
  EXPECT_EQ(Sample(text, "vllm:request_success_total", R"(finished_reason="length")"), 2);
  EXPECT_EQ(Sample(text, "vllm:e2e_request_latency_seconds_count"), 2);
  EXPECT_EQ(Sample(text, "vllm:time_to_first_token_seconds_count"), 2);
  EXPECT_EQ(Sample(text, "vllm:inter_token_latency_seconds_count"), 7);  // tokens after the first
  EXPECT_EQ(Sample(text, "vllm:request_generation_tokens_sum"), 9);
  EXPECT_EQ(Sample(text, "vllm:prefix_cache_queries_total"), 80);
  EXPECT_EQ(Sample(text, "vllm:num_requests_running"), 0);
  EXPECT_EQ(Sample(text, "vllm:kv_cache_usage_perc"), 0);
  EXPECT_EQ(Sample(text, "vllm:cache_config_info", R"(block_size="16")"), 1);
}

TEST(EngineMetricsTest, ClientAbortsAreLeftOutOfTheRequestMetrics) {
  auto engine = MakeEngine(TestEngineConfig(64));
  ASSERT_TRUE(engine);
  SamplingParams long_run = Greedy(500);
  long_run.output_kind = OutputKind::kDelta;
  auto stream = engine->AddRequest("a", TestPrompt(20, 4), long_run);
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE((*stream)->Next().has_value());
  engine->Abort("a");
  WaitFinal(**stream);
  WaitForStats(*engine, [](const EngineStats& s) { return s.num_finished_requests == 1; });
  const std::string text = engine->metrics().Render();
  EXPECT_EQ(Sample(text, "vllm:e2e_request_latency_seconds_count"), 0);
  EXPECT_GT(Sample(text, "vllm:generation_tokens_total"), 0);
  // The engine went idle after the abort; the gauges still show it.
  EXPECT_EQ(Sample(text, "vllm:kv_cache_usage_perc"), 0);
  EXPECT_EQ(Sample(text, "vllm:num_requests_running"), 0);
}

}  // namespace
}  // namespace pagoda
