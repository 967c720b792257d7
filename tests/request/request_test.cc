#include "pagoda/request/request.h"

#include <gtest/gtest.h>

namespace pagoda {
namespace {

std::vector<int32_t> V(std::span<const int32_t> s) { return {s.begin(), s.end()}; }

SamplingParams WithN(int32_t n) {
  SamplingParams p;
  p.n = n;
  return p;
}

TEST(RequestTest, StartsWithOneWaitingSequenceHoldingThePrompt) {
  Request r("a", {5, 6, 7}, SamplingParams{}, 12.5, 3);
  EXPECT_EQ(r.id(), "a");
  EXPECT_EQ(r.priority(), 3);
  EXPECT_EQ(r.timing().arrival, 12.5);
  EXPECT_FALSE(r.timing().first_scheduled.has_value());
  ASSERT_EQ(r.num_sequences(), 1);
  const Sequence& s = r.sequence(0);
  EXPECT_EQ(&s.request(), &r);
  EXPECT_EQ(V(s.token_ids()), (std::vector<int32_t>{5, 6, 7}));
  EXPECT_EQ(s.num_output_tokens(), 0);
  EXPECT_EQ(s.num_computed_tokens(), 0);
  EXPECT_EQ(r.status(), RequestStatus::kWaiting);
  EXPECT_FALSE(r.finished());
}

TEST(SequenceTest, OutputsFollowThePrompt) {
  Request r("a", {1, 2}, SamplingParams{}, 0);
  Sequence& s = r.sequence(0);
  s.AppendToken(9);
  s.AppendToken(8);
  EXPECT_EQ(V(s.prompt_token_ids()), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(V(s.output_token_ids()), (std::vector<int32_t>{9, 8}));
  EXPECT_EQ(s.num_tokens(), 4);
}

TEST(SequenceTest, PreemptionKeepsTokensAndForgetsTheComputedPrefix) {
  Request r("a", {1, 2, 3}, SamplingParams{}, 0);
  Sequence& s = r.sequence(0);
  s.set_status(RequestStatus::kRunning);
  s.set_num_computed_tokens(3);
  s.AppendToken(4);
  s.Preempt();
  EXPECT_EQ(s.status(), RequestStatus::kPreempted);
  EXPECT_EQ(s.num_computed_tokens(), 0);
  EXPECT_EQ(s.num_preemptions(), 1);
  EXPECT_EQ(V(s.output_token_ids()), (std::vector<int32_t>{4}));
  EXPECT_EQ(r.status(), RequestStatus::kPreempted);
}

TEST(RequestTest, ForksOnceForParallelSampling) {
  Request r("a", {1, 2, 3}, WithN(3), 0);
  EXPECT_TRUE(r.needs_fork());
  Sequence& parent = r.sequence(0);
  parent.set_status(RequestStatus::kRunning);
  parent.set_num_computed_tokens(3);
  EXPECT_EQ(parent.id(), kNoSeqId);  // until a scheduler takes the request
  parent.assign_id(40);
  Sequence& child = r.Fork(parent, 41);
  EXPECT_FALSE(r.needs_fork());
  EXPECT_EQ(child.index(), 1);
  EXPECT_EQ(parent.id(), 40);
  EXPECT_EQ(child.id(), 41);
  EXPECT_EQ(V(child.token_ids()), V(parent.token_ids()));
  EXPECT_EQ(child.num_computed_tokens(), 3);
  EXPECT_EQ(child.status(), RequestStatus::kRunning);
  child.AppendToken(7);
  EXPECT_EQ(parent.num_output_tokens(), 0);  // nothing shared after the fork
}

TEST(RequestTest, NeedsNoForkForOneSequenceOrOnceSampled) {
  Request one("a", {1}, SamplingParams{}, 0);
  EXPECT_FALSE(one.needs_fork());
  Request many("b", {1}, WithN(2), 0);
  many.sequence(0).AppendToken(5);  // e.g. resumed after a preemption
  EXPECT_FALSE(many.needs_fork());
}

TEST(RequestTest, StatusSummarisesTheSequences) {
  Request r("a", {1}, WithN(2), 0);
  Sequence& a = r.sequence(0);
  a.set_status(RequestStatus::kRunning);
  Sequence& b = r.Fork(a, 1);
  a.Finish(RequestStatus::kFinishedStopped, StopReason(int32_t{42}));
  EXPECT_EQ(r.status(), RequestStatus::kRunning);
  EXPECT_FALSE(r.finished());
  b.Finish(RequestStatus::kFinishedLength);
  EXPECT_TRUE(r.finished());
  EXPECT_EQ(r.status(), RequestStatus::kFinishedStopped);
  ASSERT_TRUE(a.stop_reason().has_value());
  EXPECT_EQ(std::get<int32_t>(*a.stop_reason()), 42);
  EXPECT_FALSE(b.stop_reason().has_value());
}

TEST(RequestStatusTest, FinishReasonsUseOpenAiNames) {
  EXPECT_STREQ(FinishReasonName(FinishReasonOf(RequestStatus::kFinishedStopped)), "stop");
  EXPECT_STREQ(FinishReasonName(FinishReasonOf(RequestStatus::kFinishedLength)), "length");
  EXPECT_STREQ(FinishReasonName(FinishReasonOf(RequestStatus::kFinishedAborted)), "abort");
  EXPECT_FALSE(IsFinished(RequestStatus::kPreempted));
  EXPECT_TRUE(IsFinished(RequestStatus::kFinishedAborted));
}

TEST(SequenceDeathTest, ComputedTokensCannotPassTheEnd) {
  Request r("a", {1, 2}, SamplingParams{}, 0);
  EXPECT_DEATH(r.sequence(0).set_num_computed_tokens(3), "computed tokens beyond the sequence");
}

}  // namespace
}  // namespace pagoda
