#include "pagoda/sampler/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

namespace pagoda {
namespace {

SamplingOptions Options(float temperature, float top_p = 1.0f, int32_t top_k = 0,
                        std::optional<uint64_t> seed = std::nullopt) {
  SamplingOptions o;
  o.temperature = temperature;
  o.top_p = top_p;
  o.top_k = top_k;
  o.seed = seed;
  return o;
}

TEST(SamplerTest, GreedyTakesArgmaxAndLowestIdOnTies) {
  Sampler s(Options(0.0f));
  std::vector<float> logits = {0.1f, 2.0f, -1.0f, 2.0f};
  EXPECT_EQ(s.Sample(logits), 1);
}

TEST(SamplerTest, SameSeedSameTokens) {
  std::vector<float> logits(100);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(static_cast<float>(i));
  Sampler a(Options(1.0f, 1.0f, 0, 42));
  Sampler b(Options(1.0f, 1.0f, 0, 42));
  Sampler c(Options(1.0f, 1.0f, 0, 43));
  int differ = 0;
  for (int i = 0; i < 50; ++i) {
    const int32_t ta = a.Sample(logits);
    EXPECT_EQ(ta, b.Sample(logits));
    differ += ta != c.Sample(logits);
  }
  EXPECT_GT(differ, 0);
}

TEST(SamplerTest, TopKOneIsGreedy) {
  std::vector<float> logits = {1.0f, 3.0f, 2.9f};
  Sampler s(Options(5.0f, 1.0f, 1, 1));
  for (int i = 0; i < 20; ++i) EXPECT_EQ(s.Sample(logits), 1);
}

TEST(SamplerTest, FrequenciesFollowSoftmaxAndTopPCutsTheTail) {
  // Probabilities 0.5, 0.25, 0.125, 0.125 at temperature 1.
  const std::vector<float> logits = {std::log(4.0f), std::log(2.0f), 0.0f, 0.0f};
  Sampler s(Options(1.0f, 1.0f, 0, 7));
  std::map<int32_t, int> counts;
  const int n = 40000;
  for (int i = 0; i < n; ++i) ++counts[s.Sample(logits)];
  EXPECT_NEAR(counts[0] / double(n), 0.5, 0.02);
  EXPECT_NEAR(counts[1] / double(n), 0.25, 0.02);
  EXPECT_NEAR(counts[2] / double(n), 0.125, 0.02);

  // top_p 0.7: tokens 0 and 1 (cumulative 0.75) survive, renormalized to 2/3 and 1/3.
  Sampler p(Options(1.0f, 0.7f, 0, 7));
  counts.clear();
  for (int i = 0; i < n; ++i) ++counts[p.Sample(logits)];
  EXPECT_EQ(counts[2] + counts[3], 0);
  EXPECT_NEAR(counts[0] / double(n), 2.0 / 3, 0.02);
}

TEST(SamplerTest, ValidateRejectsBadValues) {
  EXPECT_FALSE(Options(-1.0f).Validate().ok());
  EXPECT_FALSE(Options(1.0f, 0.0f).Validate().ok());
  EXPECT_FALSE(Options(1.0f, 1.0f, -2).Validate().ok());
  EXPECT_TRUE(SamplingOptions{}.Validate().ok());
}

}  // namespace
}  // namespace pagoda
