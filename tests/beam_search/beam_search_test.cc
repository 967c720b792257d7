// BeamSearch's selection rules on hand-made candidates, each expected value
// worked out by hand in the comments (scores: cumulative logprob divided by
// the length, prompt included, to the length_penalty; EOS not counted).
#include "pagoda/beam_search/beam_search.h"

#include <gtest/gtest.h>

namespace pagoda {
namespace {

constexpr int32_t kEos = 2;

BeamSearchConfig Config(int32_t width, int64_t prompt, int64_t max_output, float length_penalty = 1.0f) {
  return BeamSearchConfig{.beam_width = width,
                          .length_penalty = length_penalty,
                          .num_prompt_tokens = prompt,
                          .max_output_tokens = max_output,
                          .eos_token_id = kEos,
                          .ignore_eos = false,
                          .stop_token_ids = {}};
}

std::vector<ParkedSuccessor> Children(const BeamSearch::Round& r) { return r.children; }

TEST(BeamSearchTest, FullSearchByHand) {
  BeamSearch search(Config(/*width=*/2, /*prompt=*/3, /*max_output=*/4));
  ASSERT_EQ(search.num_live(), 1);
  EXPECT_FALSE(search.round_ready());

  // Round 1, from the prompt: EOS (-0.5) finishes with score -0.5/(3+1-1);
  // the best two others become the beams.
  search.SetCandidates(0, {{10, -0.1f}, {kEos, -0.5f}, {11, -1.0f}, {12, -2.0f}});
  ASSERT_TRUE(search.round_ready());
  BeamSearch::Round r = search.Advance();
  EXPECT_EQ(Children(r), (std::vector<ParkedSuccessor>{{0, 10}, {0, 11}}));
  EXPECT_EQ(r.num_generated, 3);
  ASSERT_EQ(search.num_live(), 2);

  // Round 2: totals 20:-0.3, 21:-0.4 (beam 0), EOS:-1.05, 22:-1.1 (beam 1),
  // EOS:-3.1 (beam 0, cut: only 2W = 4 children). [11, EOS] finishes with
  // -1.05/4 = -0.2625. Two hypotheses now, but the best beam's score
  // -0.3/5 = -0.06 beats the worst, so the search goes on, both beams from
  // beam 0 (a fork).
  EXPECT_FALSE(search.round_ready());
  search.SetCandidates(1, {{kEos, -0.05f}, {22, -0.1f}});
  EXPECT_FALSE(search.round_ready());
  search.SetCandidates(0, {{20, -0.2f}, {21, -0.3f}, {kEos, -3.0f}});
  r = search.Advance();
  EXPECT_EQ(Children(r), (std::vector<ParkedSuccessor>{{0, 20}, {0, 21}}));
  EXPECT_EQ(r.num_generated, 3);

  // Round 3: beam 1 (cumulative -0.4) takes 31 for -0.5, beam 0 (-0.3)
  // takes 30 for -1.3: the order of the beams follows the totals.
  search.SetCandidates(0, {{30, -1.0f}});
  search.SetCandidates(1, {{31, -0.1f}});
  r = search.Advance();
  EXPECT_EQ(Children(r), (std::vector<ParkedSuccessor>{{1, 31}, {0, 30}}));

  // Round 4 reaches max_output: both finish by length, [10,21,31,40] with
  // -0.6/7 = -0.0857 and [10,20,30,41] with -1.5/7 = -0.2143. The best two
  // of all four hypotheses are kept.
  search.SetCandidates(0, {{40, -0.1f}});
  search.SetCandidates(1, {{41, -0.2f}});
  r = search.Advance();
  EXPECT_TRUE(r.children.empty());
  EXPECT_EQ(search.num_live(), 0);
  const std::vector<BeamHypothesis> results = search.Results();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].output_token_ids, (std::vector<int32_t>{10, 21, 31, 40}));
  EXPECT_NEAR(results[0].cumulative_logprob, -0.6, 1e-6);
  EXPECT_NEAR(results[0].score, -0.6 / 7, 1e-6);
  EXPECT_EQ(results[0].finish_reason, FinishReason::kLength);
  EXPECT_EQ(results[1].output_token_ids, (std::vector<int32_t>{kEos}));
  EXPECT_NEAR(results[1].score, -0.5 / 3, 1e-6);
  EXPECT_EQ(results[1].finish_reason, FinishReason::kStop);
  EXPECT_EQ(results[1].stop_reason, std::nullopt);
}

TEST(BeamSearchTest, EarlyStoppingDependsOnTheLengthPenalty) {
  // EOS finishes at -0.1 with score -0.1/(1+1-1) = -0.1. The remaining beam
  // (-0.25, length 2) scores -0.125 with penalty 1: it cannot win, stop.
  // With penalty 2 it scores -0.0625, better than -0.1: go on.
  for (const float penalty : {1.0f, 2.0f}) {
    BeamSearch search(Config(/*width=*/1, /*prompt=*/1, /*max_output=*/10, penalty));
    search.SetCandidates(0, {{kEos, -0.1f}, {5, -0.25f}});
    const BeamSearch::Round r = search.Advance();
    if (penalty == 1.0f) {
      EXPECT_TRUE(r.children.empty());
      ASSERT_EQ(search.Results().size(), 1u);
      EXPECT_EQ(search.Results()[0].output_token_ids, (std::vector<int32_t>{kEos}));
    } else {
      EXPECT_EQ(Children(r), (std::vector<ParkedSuccessor>{{0, 5}}));
    }
  }
}

TEST(BeamSearchTest, StopTokensAndIgnoreEos) {
  BeamSearchConfig config = Config(/*width=*/2, /*prompt=*/4, /*max_output=*/10);
  config.ignore_eos = true;
  config.stop_token_ids = {7};
  BeamSearch search(config);
  // EOS is just a token with ignore_eos; 7 stops with stop_reason 7.
  search.SetCandidates(0, {{kEos, -0.1f}, {7, -0.2f}, {8, -0.3f}});
  const BeamSearch::Round r = search.Advance();
  EXPECT_EQ(Children(r), (std::vector<ParkedSuccessor>{{0, kEos}, {0, 8}}));
  // Every token masked for both beams: nothing continues.
  search.SetCandidates(0, {});
  search.SetCandidates(1, {});
  EXPECT_TRUE(search.Advance().children.empty());
  const std::vector<BeamHypothesis> results = search.Results();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].output_token_ids, (std::vector<int32_t>{7}));
  EXPECT_EQ(results[0].finish_reason, FinishReason::kStop);
  EXPECT_EQ(results[0].stop_reason, StopReason(7));
  EXPECT_NEAR(results[0].score, -0.2 / 5, 1e-6);
}

TEST(BeamSearchTest, ACutSearchReportsItsLiveBeamsAsAborted) {
  BeamSearch search(Config(/*width=*/2, /*prompt=*/2, /*max_output=*/10));
  search.SetCandidates(0, {{kEos, -0.1f}, {5, -0.2f}, {6, -0.9f}});
  search.Advance();
  // Aborted now: the finished hypothesis first, then the live beams by score.
  const std::vector<BeamHypothesis> results = search.Results();
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].finish_reason, FinishReason::kStop);
  EXPECT_EQ(results[1].output_token_ids, (std::vector<int32_t>{5}));
  EXPECT_EQ(results[1].finish_reason, FinishReason::kAbort);
  EXPECT_EQ(results[2].output_token_ids, (std::vector<int32_t>{6}));
}

}  // namespace
}  // namespace pagoda
