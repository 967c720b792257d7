#include "pagoda/sampler/raw_logprobs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>
#include "test_row_ops.h"

namespace pagoda {
namespace {

// The textbook log_softmax in double, as the oracle.
std::vector<double> LogSoftmax(const std::vector<float>& row) {
  double max = -INFINITY;
  for (float x : row) max = std::max(max, static_cast<double>(x));
  double sum = 0;
  for (float x : row) sum += std::exp(x - max);
  std::vector<double> out;
  for (float x : row) out.push_back(x - max - std::log(sum));
  return out;
}

TEST(RawLogprobsTest, MatchesDoubleLogSoftmaxOnALargeRow) {
  std::mt19937 rng(3);
  std::normal_distribution<float> dist(0.0f, 4.0f);
  std::vector<float> row(49152);
  for (float& x : row) x = dist(rng);
  const std::vector<double> expected = LogSoftmax(row);
  RawLogprobs lp(testing::TestRowOps());
  lp.Reset(row);
  for (int32_t id : {0, 1, 777, 49151}) EXPECT_NEAR(lp.Logprob(id), expected[id], 1e-4) << id;

  std::vector<int32_t> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return row[a] > row[b]; });
  std::vector<TokenLogprob> top;
  lp.TopN(5, top);
  ASSERT_EQ(top.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(top[i].token_id, order[i]);
    EXPECT_NEAR(top[i].logprob, expected[order[i]], 1e-4);
    EXPECT_EQ(lp.Rank(order[i]), i + 1);
  }
}

TEST(RawLogprobsTest, SmallRowByHand) {
  // Softmax of log(1), log(2), log(1): 1/4, 1/2, 1/4.
  const std::vector<float> row = {0.0f, std::log(2.0f), 0.0f};
  RawLogprobs lp(testing::TestRowOps());
  lp.Reset(row);
  EXPECT_NEAR(lp.Logprob(1), std::log(0.5), 1e-6);
  EXPECT_NEAR(lp.Logprob(2), std::log(0.25), 1e-6);
  // vLLM's rank counts tokens with logprob >= the token's: ids 0 and 2 tie.
  EXPECT_EQ(lp.Rank(1), 1);
  EXPECT_EQ(lp.Rank(0), 3);
  EXPECT_EQ(lp.Rank(2), 3);
  std::vector<TokenLogprob> top;
  lp.TopN(2, top);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].token_id, 1);
  EXPECT_EQ(top[1].token_id, 0);  // lower id first on a tie
  lp.TopN(0, top);
  EXPECT_TRUE(top.empty());
  lp.TopN(10, top);
  EXPECT_EQ(top.size(), 3u);
}

}  // namespace
}  // namespace pagoda
