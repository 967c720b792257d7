// Perplexity on GPL-3 (the fixture's 4,096 llama.cpp tokens, 512-token
// windows) within 1% of llama.cpp's value on the same windows.
#include "pagoda/runner/perplexity.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "test_model.h"

namespace pagoda {
namespace {

TEST(PerplexityTest, MatchesLlamaCppWithinOnePercent) {
  PAGODA_ASSERT_TEST_MODEL();
  std::ifstream in(std::string(PAGODA_FIXTURES_DIR) + "/llama_cpp/perplexity.json");
  ASSERT_TRUE(in.good());
  const auto ref = nlohmann::json::parse(in);
  const auto tokens = ref["token_ids"].get<std::vector<int32_t>>();
  const int64_t ctx = ref["metadata"]["n_ctx"].get<int64_t>();
  const double want = ref["ppl"].get<double>();
  ASSERT_EQ(tokens.size(), 4096u);

  auto t = testing::TestRunner::Create(ctx / 16, DType::kF32);
  ASSERT_NE(t, nullptr);
  PerplexityOptions options;
  options.ctx = ctx;
  auto result = ComputePerplexity(*t->runner, *t->blocks, tokens, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::printf("perplexity: pagoda %.4f, llama.cpp %.4f\n", result->perplexity, want);
  EXPECT_NEAR(result->perplexity, want, 0.01 * want);
  EXPECT_EQ(result->window_nll.size(), 8u);
  EXPECT_EQ(t->blocks->num_free(), t->blocks->num_blocks());
}

TEST(PerplexityTest, NegativeLogLikelihoodOfUniformIsLogVocab) {
  std::vector<float> logits(1000, 3.5f);
  EXPECT_NEAR(NegativeLogLikelihood(logits, 17), std::log(1000.0), 1e-9);
}

TEST(PerplexityTest, TooFewTokensIsAnError) {
  PAGODA_ASSERT_TEST_MODEL();
  auto t = testing::TestRunner::Create(64, DType::kF32);
  ASSERT_NE(t, nullptr);
  std::vector<int32_t> tokens(100, 1);
  PerplexityOptions options;
  auto result = ComputePerplexity(*t->runner, *t->blocks, tokens, options);
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pagoda
