// Perplexity on GPL-3 (the fixture's 4,096 llama.cpp tokens in 512-token
// windows, and 6,144 in 2,048-token windows, where attention runs in bf16
// past position 512 on the avx512bf16 set and past 256 on the amx set), run
// through the engine as prompt-logprob requests, within 1% of llama.cpp's
// value on the same windows.
#include "pagoda/engine/perplexity.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "engine_test_util.h"

namespace pagoda {
namespace {

// Room for `windows` windows of `ctx` tokens at a time, with an F32 cache
// as llama.cpp's reference run used.
EngineConfig WindowEngineConfig(int64_t ctx, int64_t windows) {
  EngineConfig config = testing::TestEngineConfig(1);
  config.kv_cache_dtype = DType::kF32;
  config.max_model_len = ctx + 1;
  config.max_num_seqs = static_cast<int32_t>(windows);
  config.kv_cache_memory = windows * ((ctx + 16) / 16) * 2 * testing::TestModelBytesPerBlock();  // F32: twice F16
  return config;
}

TEST(PerplexityTest, MatchesLlamaCppWithinOnePercent) {
  std::ifstream in(std::string(PAGODA_FIXTURES_DIR) + "/llama_cpp/perplexity.json");
  ASSERT_TRUE(in.good());
  const auto ref = nlohmann::json::parse(in);
  const auto tokens = ref["token_ids"].get<std::vector<int32_t>>();
  const int64_t ctx = ref["metadata"]["n_ctx"].get<int64_t>();
  const double want = ref["ppl"].get<double>();
  ASSERT_EQ(tokens.size(), 4096u);

  auto engine = testing::MakeEngine(WindowEngineConfig(ctx, 4));
  ASSERT_NE(engine, nullptr);
  PerplexityOptions options;
  options.ctx = ctx;
  std::vector<int64_t> reported;
  options.on_window = [&](int64_t window, double) { reported.push_back(window); };
  auto result = ComputePerplexity(*engine, tokens, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::printf("perplexity: pagoda %.4f, llama.cpp %.4f\n", result->perplexity, want);
  EXPECT_NEAR(result->perplexity, want, 0.01 * want);
  EXPECT_EQ(result->window_nll.size(), 8u);
  EXPECT_EQ(reported, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  const EngineStats stats = testing::WaitForStats(*engine, [](const EngineStats& s) {
    return s.num_finished_requests == 8 && s.kv_cache_usage == 0;
  });
  EXPECT_EQ(stats.kv_cache_usage, 0);
}

TEST(PerplexityTest, LongWindowsMatchLlamaCppWithinOnePercent) {
  std::ifstream in(std::string(PAGODA_FIXTURES_DIR) + "/llama_cpp/perplexity_2048.json");
  ASSERT_TRUE(in.good());
  const auto ref = nlohmann::json::parse(in);
  const auto tokens = ref["token_ids"].get<std::vector<int32_t>>();
  const int64_t ctx = ref["metadata"]["n_ctx"].get<int64_t>();
  const int64_t windows = ref["metadata"]["n_windows"].get<int64_t>();
  const double want = ref["ppl"].get<double>();
  ASSERT_EQ(ctx, 2048);
  ASSERT_EQ(static_cast<int64_t>(tokens.size()), windows * ctx);

  auto engine = testing::MakeEngine(WindowEngineConfig(ctx, 1));
  ASSERT_NE(engine, nullptr);
  PerplexityOptions options;
  options.ctx = ctx;
  auto result = ComputePerplexity(*engine, tokens, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::printf("perplexity, %lld-token windows: pagoda %.4f, llama.cpp %.4f\n", static_cast<long long>(ctx),
              result->perplexity, want);
  EXPECT_NEAR(result->perplexity, want, 0.01 * want);
  EXPECT_EQ(static_cast<int64_t>(result->window_nll.size()), windows);
}

TEST(PerplexityTest, TooFewTokensIsAnError) {
  auto engine = testing::MakeEngine(WindowEngineConfig(512, 1));
  ASSERT_NE(engine, nullptr);
  std::vector<int32_t> tokens(100, 1);
  PerplexityOptions options;
  auto result = ComputePerplexity(*engine, tokens, options);
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pagoda
