#include "pagoda/scheduler/stop_checker.h"

#include <gtest/gtest.h>

#include "pagoda/request/request.h"

namespace pagoda {
namespace {

constexpr int32_t kEos = 2;

// A request whose single sequence has received `outputs`.
std::unique_ptr<Request> WithOutputs(SamplingParams p, std::vector<int32_t> outputs) {
  auto r = std::make_unique<Request>("r", std::vector<int32_t>{10, 11, 12}, std::move(p), 0);
  for (int32_t t : outputs) r->sequence(0).AppendToken(t);
  return r;
}

std::optional<StopDecision> Check(const std::unique_ptr<Request>& r, int64_t max_model_len = 100) {
  return CheckStop(r->sequence(0), kEos, max_model_len);
}

TEST(StopCheckerTest, EosStopsUnlessIgnored) {
  auto r = WithOutputs({}, {5, kEos});
  ASSERT_TRUE(Check(r).has_value());
  EXPECT_EQ(Check(r)->status, RequestStatus::kFinishedStopped);
  EXPECT_FALSE(Check(r)->stop_reason.has_value());

  SamplingParams ignore;
  ignore.ignore_eos = true;
  EXPECT_FALSE(Check(WithOutputs(ignore, {5, kEos})).has_value());
}

TEST(StopCheckerTest, StopTokenStopsAndIsTheStopReason) {
  SamplingParams p;
  p.stop_token_ids = {7, 9};
  auto r = WithOutputs(p, {9});
  ASSERT_TRUE(Check(r).has_value());
  EXPECT_EQ(Check(r)->status, RequestStatus::kFinishedStopped);
  EXPECT_EQ(std::get<int32_t>(*Check(r)->stop_reason), 9);
  EXPECT_FALSE(Check(WithOutputs(p, {8})).has_value());
}

TEST(StopCheckerTest, MinTokensHoldsBackEosAndStopTokens) {
  SamplingParams p;
  p.min_tokens = 3;
  p.stop_token_ids = {7};
  EXPECT_FALSE(Check(WithOutputs(p, {kEos})).has_value());
  EXPECT_FALSE(Check(WithOutputs(p, {1, 7})).has_value());
  EXPECT_TRUE(Check(WithOutputs(p, {1, 1, 7})).has_value());
}

TEST(StopCheckerTest, LengthLimits) {
  SamplingParams p;
  p.max_tokens = 2;
  EXPECT_FALSE(Check(WithOutputs(p, {1})).has_value());
  auto r = WithOutputs(p, {1, 1});
  ASSERT_TRUE(Check(r).has_value());
  EXPECT_EQ(Check(r)->status, RequestStatus::kFinishedLength);

  p.max_tokens = std::nullopt;  // only max_model_len bounds it
  auto unbounded = WithOutputs(p, {1, 1});
  EXPECT_FALSE(Check(unbounded, 6).has_value());
  EXPECT_EQ(Check(unbounded, 5)->status, RequestStatus::kFinishedLength);
}

TEST(StopCheckerTest, AStopTokenOnTheLastAllowedTokenIsAStop) {
  SamplingParams p;
  p.max_tokens = 1;
  EXPECT_EQ(Check(WithOutputs(p, {kEos}))->status, RequestStatus::kFinishedStopped);
}

}  // namespace
}  // namespace pagoda
