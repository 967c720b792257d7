#include "pagoda/sampler/top_k_top_p.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "pagoda/kernels/fast_exp.h"
#include "test_row_ops.h"

namespace pagoda {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<int32_t> Ids(std::span<const Candidate> kept) {
  std::vector<int32_t> ids;
  for (const Candidate& c : kept) ids.push_back(c.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

// Logits whose softmax is exactly `probs` (up to float rounding).
std::vector<float> LogitsOf(const std::vector<double>& probs) {
  std::vector<float> row;
  for (double p : probs) row.push_back(static_cast<float>(std::log(p)));
  return row;
}

TEST(TopKTopPTest, OffKeepsEveryUnmaskedToken) {
  TopKTopPSampler s(4, testing::TestRowOps());
  const std::vector<float> row = {0.0f, -kInf, 1.0f, 2.0f};
  EXPECT_EQ(Ids(s.Truncate(row, 0, 1.0f)), (std::vector<int32_t>{0, 2, 3}));
  EXPECT_EQ(Ids(s.Truncate(row, -1, 1.0f)), (std::vector<int32_t>{0, 2, 3}));
  EXPECT_EQ(Ids(s.Truncate(row, 10, 1.0f)), (std::vector<int32_t>{0, 2, 3}));
}

TEST(TopKTopPTest, TopKKeepsTiesWithTheKthLogit) {
  TopKTopPSampler s(6, testing::TestRowOps());
  const std::vector<float> row = {1.0f, 5.0f, 3.0f, 3.0f, 0.0f, 3.0f};
  EXPECT_EQ(Ids(s.Truncate(row, 1, 1.0f)), (std::vector<int32_t>{1}));
  // The 2nd largest is 3, shared by ids 2, 3 and 5: vLLM masks only logits below it.
  EXPECT_EQ(Ids(s.Truncate(row, 2, 1.0f)), (std::vector<int32_t>{1, 2, 3, 5}));
  EXPECT_EQ(Ids(s.Truncate(row, 5, 1.0f)), (std::vector<int32_t>{0, 1, 2, 3, 5}));
  EXPECT_EQ(Ids(s.Truncate(row, 6, 1.0f)), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(TopKTopPTest, TopPKeepsTheSmallestPrefixReachingP) {
  TopKTopPSampler s(4, testing::TestRowOps());
  const std::vector<float> row = LogitsOf({0.1, 0.4, 0.2, 0.3});
  // Sorted: 0.4 (id 1), 0.3 (id 3), 0.2 (id 2), 0.1 (id 0).
  EXPECT_EQ(Ids(s.Truncate(row, 0, 0.3f)), (std::vector<int32_t>{1}));
  EXPECT_EQ(Ids(s.Truncate(row, 0, 0.5f)), (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(Ids(s.Truncate(row, 0, 0.75f)), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(Ids(s.Truncate(row, 0, 0.95f)), (std::vector<int32_t>{0, 1, 2, 3}));
}

TEST(TopKTopPTest, TopKComesBeforeTopPAndTopPRenormalizes) {
  TopKTopPSampler s(4, testing::TestRowOps());
  const std::vector<float> row = LogitsOf({0.4, 0.3, 0.2, 0.1});
  // top_k 2 leaves 0.4 and 0.3, i.e. 4/7 and 3/7; top_p 0.5 then keeps only
  // id 0. Top-p first would keep ids 0 and 1 (0.4 < 0.5).
  EXPECT_EQ(Ids(s.Truncate(row, 2, 0.5f)), (std::vector<int32_t>{0}));
  EXPECT_EQ(Ids(s.Truncate(row, 0, 0.5f)), (std::vector<int32_t>{0, 1}));
}

TEST(TopKTopPTest, TopPOverAFlatVocabularyKeepsExactlyItsShare) {
  // 10000 equal tokens: top_p 0.5 keeps exactly 5000, found by many rounds
  // of the weighted selection; ties go to the lower ids.
  const int32_t vocab = 10000;
  TopKTopPSampler s(vocab, testing::TestRowOps());
  const std::vector<float> row(vocab, 1.0f);
  const std::vector<int32_t> ids = Ids(s.Truncate(row, 0, 0.5f));
  ASSERT_EQ(ids.size(), 5000u);
  EXPECT_EQ(ids.front(), 0);
  EXPECT_EQ(ids.back(), 4999);
}

TEST(TopKTopPTest, SampleMapsTheUniformThroughTheKeptWeights) {
  TopKTopPSampler s(3, testing::TestRowOps());
  const std::vector<float> row = LogitsOf({0.5, 0.25, 0.25});
  // With top-k and top-p off the draw walks the row in id order: cumulative
  // 0.5, 0.75, 1.
  EXPECT_EQ(s.Sample(row, 0, 1.0f, 0.0), 0);
  EXPECT_EQ(s.Sample(row, 0, 1.0f, 0.49), 0);
  EXPECT_EQ(s.Sample(row, 0, 1.0f, 0.51), 1);
  EXPECT_EQ(s.Sample(row, 0, 1.0f, 0.76), 2);
  EXPECT_EQ(s.Sample(row, 0, 1.0f, 0.999999), 2);
  const std::vector<float> masked = {-kInf, -kInf};
  EXPECT_EQ(s.Sample(masked, 0, 1.0f, 0.5), -1);
}

TEST(TopKTopPTest, SampleFrequenciesFollowTheTruncatedDistribution) {
  TopKTopPSampler s(4, testing::TestRowOps());
  const std::vector<float> row = LogitsOf({0.5, 0.25, 0.125, 0.125});
  // A regular grid of uniforms gives the exact frequencies, no randomness.
  const int n = 10000;
  std::vector<int> counts(4, 0);
  for (int i = 0; i < n; ++i) ++counts[s.Sample(row, 0, 0.7f, (i + 0.5) / n)];
  // top_p 0.7 keeps ids 0 and 1 (0.5 < 0.7, then 0.75), renormalized to 2/3 and 1/3.
  EXPECT_NEAR(counts[0], n * 2.0 / 3, 2);
  EXPECT_NEAR(counts[1], n * 1.0 / 3, 2);
  EXPECT_EQ(counts[2] + counts[3], 0);
}

TEST(TopKTopPTest, TopPSelectionMatchesASortedScanOnRandomRows) {
  // The weighted selection against the definition: sort, keep while the mass
  // before the token is below top_p of the total.
  std::mt19937 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    const int32_t vocab = 50 + static_cast<int32_t>(rng() % 3000);
    std::normal_distribution<float> dist(0.0f, 0.5f + trial * 0.1f);
    std::vector<float> row(vocab);
    // Few distinct values, so ties are common.
    for (float& x : row) x = std::round(dist(rng) * 4.0f) / 4.0f;
    const float top_p = 0.05f + 0.9f * static_cast<float>(rng() % 1000) / 1000.0f;

    std::vector<int32_t> order(vocab);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return row[a] > row[b] || (row[a] == row[b] && a < b); });
    const float max = row[order[0]];
    double total = 0;
    for (float x : row) total += kernels::FastExp(x - max);
    std::vector<int32_t> expected;
    double mass = 0;
    for (int32_t id : order) {
      if (mass >= top_p * total) break;
      expected.push_back(id);
      mass += kernels::FastExp(row[id] - max);
    }
    std::sort(expected.begin(), expected.end());
    TopKTopPSampler s(vocab, testing::TestRowOps());
    EXPECT_EQ(Ids(s.Truncate(row, 0, top_p)), expected) << "trial " << trial;
  }
}

}  // namespace
}  // namespace pagoda
