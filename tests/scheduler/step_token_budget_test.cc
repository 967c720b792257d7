// The step token budget against synthetic step times drawn from a known
// cost model: the budget each test expects is that model's own answer,
// (target - fixed) / per_token, within the one token that the fit's
// rounding may move it across an integer.
#include "pagoda/scheduler/step_token_budget.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pagoda {
namespace {

struct CostModel {
  double fixed;
  double per_token;
  double operator()(int64_t tokens) const { return fixed + per_token * static_cast<double>(tokens); }
  int32_t BudgetFor(double target) const { return static_cast<int32_t>(std::floor((target - fixed) / per_token)); }
};

TEST(StepTokenBudgetTest, StartsAtTheInitialBudget) {
  const StepTokenBudget budget({.initial_tokens = 300});
  EXPECT_EQ(budget.Budget(), 300);
}

TEST(StepTokenBudgetTest, FitsFixedAndPerTokenCostFromStepsOfDifferentSizes) {
  const CostModel cost{.fixed = 0.005, .per_token = 0.001};
  StepTokenBudget budget({.target_seconds = 0.2});
  for (int64_t tokens : {1, 64, 1, 32, 128, 1, 1, 64}) budget.Observe(tokens, cost(tokens));
  EXPECT_NEAR(budget.per_token_seconds(), cost.per_token, 1e-9);
  EXPECT_NEAR(budget.fixed_seconds(), cost.fixed, 1e-9);
  EXPECT_NEAR(budget.Budget(), cost.BudgetFor(0.2), 1);
}

TEST(StepTokenBudgetTest, BeforeASlopeIsKnownAllTimeCountsPerToken) {
  // Only decode steps of one token so far: 6 ms per token, no fixed part.
  StepTokenBudget budget({.target_seconds = 0.2});
  for (int i = 0; i < 5; ++i) budget.Observe(1, 0.006);
  EXPECT_EQ(budget.fixed_seconds(), 0.0);
  EXPECT_EQ(budget.Budget(), static_cast<int32_t>(std::floor(0.2 / 0.006)));
}

TEST(StepTokenBudgetTest, ARunOfDecodesKeepsASlopeAndMovesTheFixedPart) {
  const CostModel before{.fixed = 0.005, .per_token = 0.001};
  StepTokenBudget budget({.target_seconds = 0.2});
  for (int64_t tokens : {16, 200, 16, 200}) budget.Observe(tokens, before(tokens));
  // Then only decode steps of 8 sequences, which now take longer (longer
  // contexts). Steps of one size cannot refit the slope: the model keeps
  // one learned while sizes still differed (it moves while the old steps
  // still weigh) and its fixed part absorbs the rest, so it predicts the
  // decode steps and a prompt chunk still gets a budget from the slope,
  // not from the decodes' time per token.
  const double decode_seconds = 0.03;
  for (int i = 0; i < 200; ++i) budget.Observe(8, decode_seconds);
  EXPECT_NEAR(budget.fixed_seconds() + 8 * budget.per_token_seconds(), decode_seconds, 1e-9);
  EXPECT_NEAR(budget.per_token_seconds(), before.per_token, 0.2 * before.per_token);
  const CostModel fitted{.fixed = budget.fixed_seconds(), .per_token = budget.per_token_seconds()};
  EXPECT_NEAR(budget.Budget(), fitted.BudgetFor(0.2), 1);
  EXPECT_GT(budget.Budget(), 2 * static_cast<int32_t>(0.2 / (decode_seconds / 8)));
}

TEST(StepTokenBudgetTest, FollowsAChangeInPerTokenCost) {
  StepTokenBudget budget({.target_seconds = 0.2});
  const CostModel cheap{.fixed = 0.004, .per_token = 0.0005};
  for (int i = 0; i < 20; ++i) budget.Observe(i % 2 ? 32 : 256, cheap(i % 2 ? 32 : 256));
  EXPECT_NEAR(budget.Budget(), cheap.BudgetFor(0.2), 1);
  const CostModel dear{.fixed = 0.004, .per_token = 0.002};
  for (int i = 0; i < 200; ++i) budget.Observe(i % 2 ? 32 : 96, dear(i % 2 ? 32 : 96));
  EXPECT_NEAR(budget.per_token_seconds(), dear.per_token, 1e-6);
  EXPECT_NEAR(budget.Budget(), dear.BudgetFor(0.2), 1);
}

// A slow first step (weights paged in, caches cold) followed by steps of
// the size the budget itself chose, as a long prompt alone runs: the
// budget recovers to the cost model's answer instead of staying pinned by
// the slope the outlier implied.
TEST(StepTokenBudgetTest, ASlowFirstStepDoesNotPinTheBudget) {
  const CostModel cost{.fixed = 0.005, .per_token = 0.001};
  StepTokenBudget budget({.target_seconds = 0.2});
  budget.Observe(budget.Budget(), 2.0);
  ASSERT_LT(budget.Budget(), cost.BudgetFor(0.2) / 2);
  for (int i = 0; i < 200; ++i) budget.Observe(budget.Budget(), cost(budget.Budget()));
  EXPECT_NEAR(budget.Budget(), cost.BudgetFor(0.2), 0.1 * cost.BudgetFor(0.2));
}

TEST(StepTokenBudgetTest, ClampsToItsBounds) {
  StepTokenBudget fast({.target_seconds = 0.2, .min_tokens = 8, .max_tokens = 512});
  for (int64_t tokens : {1, 100}) fast.Observe(tokens, 1e-6 * static_cast<double>(tokens));
  EXPECT_EQ(fast.Budget(), 512);
  // A fixed cost above the target leaves only the minimum.
  StepTokenBudget slow({.target_seconds = 0.2, .min_tokens = 8, .max_tokens = 512});
  for (int64_t tokens : {1, 100}) slow.Observe(tokens, 0.3 + 0.001 * static_cast<double>(tokens));
  EXPECT_EQ(slow.Budget(), 8);
}

TEST(StepTokenBudgetTest, IgnoresEmptyAndUnmeasurableSteps) {
  StepTokenBudget budget({.initial_tokens = 100});
  budget.Observe(0, 0.5);
  budget.Observe(10, -1.0);
  budget.Observe(10, NAN);
  budget.Observe(10, INFINITY);
  EXPECT_EQ(budget.Budget(), 100);
  EXPECT_EQ(budget.per_token_seconds(), 0.0);
}

}  // namespace
}  // namespace pagoda
