// Each logits processor alone, against values worked out by hand.
#include "pagoda/sampler/logits_processors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>
#include "test_row_ops.h"

namespace pagoda::logits {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(LogitsProcessorsTest, KeepAllowedMasksEverythingElse) {
  TokenSet scratch(5);
  std::vector<float> row = {1, 2, 3, 4, 5};
  const std::vector<int32_t> allowed = {3, 1, 3};
  KeepAllowed(row, allowed, scratch);
  EXPECT_EQ(row, (std::vector<float>{-kInf, 2, -kInf, 4, -kInf}));
  // The scratch set is cleared per call: a second call with other ids works.
  std::vector<float> again = {1, 2, 3, 4, 5};
  const std::vector<int32_t> only_zero = {0};
  KeepAllowed(again, only_zero, scratch);
  EXPECT_EQ(again, (std::vector<float>{1, -kInf, -kInf, -kInf, -kInf}));
}

TEST(LogitsProcessorsTest, BadWordsBanTheLastTokenWhenThePrefixEndsTheOutput) {
  const std::vector<std::vector<int32_t>> bad_words = {
      {4},        // one token: always banned
      {1, 2},     // banned after ... 1
      {0, 1, 3},  // banned after ... 0 1
      {2, 0, 0, 0, 0, 0},  // longer than output + 1: never applies
  };
  std::vector<float> row(6, 0.0f);
  const std::vector<int32_t> output = {5, 0, 1};
  BanBadWords(row, bad_words, output);
  // Tail "0 1" matches {0,1,3}; tail "1" matches {1,2}.
  EXPECT_EQ(row, (std::vector<float>{0, 0, -kInf, -kInf, -kInf, 0}));

  std::vector<float> other(6, 0.0f);
  const std::vector<int32_t> output2 = {1, 0};
  BanBadWords(other, bad_words, output2);
  EXPECT_EQ(other, (std::vector<float>{0, 0, 0, 0, -kInf, 0}));

  std::vector<float> empty_output(6, 0.0f);
  BanBadWords(empty_output, bad_words, {});
  EXPECT_EQ(empty_output, (std::vector<float>{0, 0, 0, 0, -kInf, 0}));
}

TEST(LogitsProcessorsTest, BanAndLogitBias) {
  std::vector<float> row = {1, 2, 3};
  const std::vector<int32_t> banned = {2};
  Ban(row, banned);
  AddLogitBias(row, {{0, -0.5f}, {1, 100.0f}, {2, 100.0f}});
  // A bias never lifts a banned token.
  EXPECT_EQ(row, (std::vector<float>{0.5f, 102.0f, -kInf}));
}

TEST(LogitsProcessorsTest, RepetitionPenaltyDividesPositiveAndMultipliesNegativeOncePerToken) {
  TokenSet seen(5);
  std::vector<int32_t> counts(5, 0);
  std::vector<float> row = {2.0f, -1.0f, 3.0f, 0.0f, 4.0f};
  const std::vector<int32_t> prompt = {0, 1, 0, 3};
  const std::vector<int32_t> output = {1, 1, 2};
  ApplyPenalties(row, prompt, output, Penalties{2.0f, 0.0f, 0.0f}, seen, counts);
  // 0: 2/2; 1: -1*2 (once, though seen three times); 2: 3/2; 3: 0 stays; 4 unseen.
  EXPECT_EQ(row, (std::vector<float>{1.0f, -2.0f, 1.5f, 0.0f, 4.0f}));
  EXPECT_EQ(counts, std::vector<int32_t>(5, 0));
}

TEST(LogitsProcessorsTest, FrequencyAndPresenceCountOutputTokensOnly) {
  TokenSet seen(4);
  std::vector<int32_t> counts(4, 0);
  std::vector<float> row = {1.0f, 1.0f, 1.0f, 1.0f};
  const std::vector<int32_t> prompt = {0, 0, 0};  // prompt tokens are not penalized here
  const std::vector<int32_t> output = {1, 2, 1, 1};
  ApplyPenalties(row, prompt, output, Penalties{1.0f, 0.5f, 0.25f}, seen, counts);
  // 1: 1 - 0.5*3 - 0.25 = -0.75; 2: 1 - 0.5 - 0.25 = 0.25.
  EXPECT_EQ(row, (std::vector<float>{1.0f, -0.75f, 0.25f, 1.0f}));
  EXPECT_EQ(counts, std::vector<int32_t>(4, 0));
}

TEST(LogitsProcessorsTest, RepetitionComesBeforeFrequencyAndPresence) {
  TokenSet seen(2);
  std::vector<int32_t> counts(2, 0);
  std::vector<float> row = {2.0f, 2.0f};
  const std::vector<int32_t> output = {0};
  ApplyPenalties(row, {}, output, Penalties{2.0f, 1.0f, 0.5f}, seen, counts);
  // 2/2 - 1 - 0.5 = -0.5 (the other order would give (2-1.5)/2 = 0.25).
  EXPECT_EQ(row, (std::vector<float>{-0.5f, 2.0f}));
}

TEST(LogitsProcessorsTest, TemperatureDivides) {
  std::vector<float> row = {1.0f, -2.0f, -kInf};
  ApplyTemperature(row, 0.5f);
  EXPECT_EQ(row, (std::vector<float>{2.0f, -4.0f, -kInf}));
}

TEST(LogitsProcessorsTest, MinPKeepsTokensAtLeastMinPTimesTheTopProbability) {
  // Probabilities proportional to 1, 0.5, 0.25, 0.1 of the top one.
  std::vector<float> row = {3.0f, 3.0f + std::log(0.5f), 3.0f + std::log(0.25f), 3.0f + std::log(0.1f)};
  const std::vector<float> before = row;
  ApplyMinP(row, 0.2f, testing::TestRowOps());
  EXPECT_EQ(row, (std::vector<float>{before[0], before[1], before[2], -kInf}));
  std::vector<float> off = before;
  ApplyMinP(off, 0.0f, testing::TestRowOps());
  EXPECT_EQ(off, before);
}

TEST(LogitsProcessorsTest, ArgmaxTakesTheLowestIdOnTies) {
  EXPECT_EQ(Argmax(std::vector<float>{0.1f, 2.0f, -1.0f, 2.0f}, testing::TestRowOps()), 1);
  EXPECT_EQ(Argmax(std::vector<float>{-kInf, -kInf}, testing::TestRowOps()), 0);
}

}  // namespace
}  // namespace pagoda::logits
