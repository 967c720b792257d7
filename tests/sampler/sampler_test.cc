// The Sampler end to end: vLLM's processor order, seeds, logprobs.
#include "pagoda/sampler/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <set>
#include <vector>
#include "test_row_ops.h"

namespace pagoda {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

SamplingParams Params(float temperature) {
  SamplingParams p;
  p.temperature = temperature;
  return p;
}

// One sequence with storage for what SamplingSequence borrows.
struct Sequence {
  SamplingParams params;
  std::vector<int32_t> prompt;
  std::vector<int32_t> output;
  std::vector<std::vector<int32_t>> bad_words;
  RandomStream random = RandomStream::Seeded(0, 0);

  SamplingSequence View() const { return {&params, prompt, output, bad_words, random}; }
};

Sequence Seeded(SamplingParams params, int64_t seed, int32_t child = 0) {
  Sequence s;
  s.params = std::move(params);
  s.params.seed = seed;
  s.random = RandomStream::Seeded(seed, child);
  return s;
}

SampledToken SampleOne(Sampler& sampler, const std::vector<float>& logits, const Sequence& seq) {
  const SamplingSequence view = seq.View();
  SampledToken out;
  sampler.Sample(logits, {&view, 1}, {&out, 1});
  return out;
}

// Counts the tokens drawn by `n` sequences with seeds 0..n-1.
std::vector<int> Histogram(const std::vector<float>& logits, const SamplingParams& params, int n) {
  Sampler sampler(static_cast<int32_t>(logits.size()), {}, testing::TestRowOps());
  std::vector<int> counts(logits.size(), 0);
  for (int seed = 0; seed < n; ++seed) ++counts[SampleOne(sampler, logits, Seeded(params, seed)).token_id];
  return counts;
}

double ChiSquare(const std::vector<int>& counts, const std::vector<double>& probs) {
  const double n = std::accumulate(counts.begin(), counts.end(), 0.0);
  double chi2 = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (probs[i] == 0) {
      EXPECT_EQ(counts[i], 0) << "token " << i << " has probability 0";
      continue;
    }
    chi2 += std::pow(counts[i] - n * probs[i], 2) / (n * probs[i]);
  }
  return chi2;
}

std::vector<double> Normalized(std::vector<double> w) {
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  for (double& x : w) x /= total;
  return w;
}

TEST(SamplerTest, GreedyTakesTheArgmaxLowestIdOnTies) {
  Sampler sampler(4, {}, testing::TestRowOps());
  Sequence seq = Seeded(Params(0.0f), 1);
  seq.params.logprobs = 0;  // the sampled token's logprob and rank only
  const SampledToken t = SampleOne(sampler, {0.1f, 2.0f, -1.0f, 2.0f}, seq);
  EXPECT_EQ(t.token_id, 1);
  EXPECT_EQ(t.rank, 2);  // tied with id 3
}

TEST(SamplerTest, AllowedTokensMaskBeforeLogitBias) {
  Sampler sampler(3, {}, testing::TestRowOps());
  Sequence seq = Seeded(Params(0.0f), 1);
  seq.params.allowed_token_ids = std::vector<int32_t>{1, 2};
  seq.params.logit_bias = {{0, 100.0f}, {2, 1.0f}};
  // Masked: [-inf, 1, 0.5]; biased: [-inf, 1, 1.5].
  EXPECT_EQ(SampleOne(sampler, {5.0f, 1.0f, 0.5f}, seq).token_id, 2);
}

TEST(SamplerTest, MinTokensBansEosAndStopTokensUntilReached) {
  Sampler sampler(4, /*eos_token_ids=*/{3}, testing::TestRowOps());
  const std::vector<float> logits = {0.0f, 1.0f, 5.0f, 6.0f};
  Sequence seq = Seeded(Params(0.0f), 1);
  seq.params.stop_token_ids = {2};
  seq.params.min_tokens = 2;
  seq.output = {0};
  EXPECT_EQ(SampleOne(sampler, logits, seq).token_id, 1);
  seq.output = {0, 0};
  EXPECT_EQ(SampleOne(sampler, logits, seq).token_id, 3);
  // As in vLLM, ignore_eos does not lift the ban: EOS stays in its
  // all_stop_token_ids.
  seq.output = {0};
  seq.params.ignore_eos = true;
  EXPECT_EQ(SampleOne(sampler, logits, seq).token_id, 1);
}

TEST(SamplerTest, LogitBiasCannotReviveATokenBannedByMinTokens) {
  Sampler sampler(3, /*eos_token_ids=*/{2}, testing::TestRowOps());
  Sequence seq = Seeded(Params(0.0f), 1);
  seq.params.min_tokens = 1;
  seq.params.logit_bias = {{2, 100.0f}};
  EXPECT_EQ(SampleOne(sampler, {0.0f, 1.0f, 0.0f}, seq).token_id, 1);
}

TEST(SamplerTest, BadWordsBanTheirLastTokenAfterTheirPrefix) {
  Sampler sampler(4, {}, testing::TestRowOps());
  const std::vector<float> logits = {0.0f, 1.0f, 5.0f, 4.0f};
  Sequence seq = Seeded(Params(0.0f), 1);
  seq.bad_words = {{1, 2}};
  seq.output = {0};
  EXPECT_EQ(SampleOne(sampler, logits, seq).token_id, 2);
  seq.output = {0, 1};
  EXPECT_EQ(SampleOne(sampler, logits, seq).token_id, 3);
}

TEST(SamplerTest, RepetitionPenaltyCoversThePromptAndFrequencyOnlyTheOutput) {
  Sampler sampler(3, {}, testing::TestRowOps());
  const std::vector<float> logits = {3.0f, 2.0f, 1.0f};
  Sequence seq = Seeded(Params(0.0f), 1);
  seq.prompt = {0};
  seq.params.repetition_penalty = 2.0f;  // 3 -> 1.5: id 1 wins
  EXPECT_EQ(SampleOne(sampler, logits, seq).token_id, 1);
  seq.params.repetition_penalty = 1.0f;
  seq.params.frequency_penalty = 2.0f;  // prompt tokens do not count
  EXPECT_EQ(SampleOne(sampler, logits, seq).token_id, 0);
  seq.output = {0};  // 3 - 2 = 1: id 1 wins
  EXPECT_EQ(SampleOne(sampler, logits, seq).token_id, 1);
}

TEST(SamplerTest, PenaltiesComeBeforeTemperature) {
  // logits [2, 1], presence 1 on id 0 -> [1, 1] -> /0.5 -> [2, 2]: even odds.
  // Temperature first would give [4, 2] - 1 = [3, 2]: 73% for id 0.
  SamplingParams p = Params(0.5f);
  p.presence_penalty = 1.0f;
  Sampler sampler(2, {}, testing::TestRowOps());
  int zeros = 0;
  const int n = 4000;
  for (int seed = 0; seed < n; ++seed) {
    Sequence seq = Seeded(p, seed);
    seq.output = {0};
    zeros += SampleOne(sampler, {2.0f, 1.0f}, seq).token_id == 0;
  }
  EXPECT_NEAR(zeros / double(n), 0.5, 0.03);
}

TEST(SamplerTest, MinPComesAfterTemperature) {
  // At temperature 2, id 1 has e^-0.5 = 0.61 of id 0's probability, above
  // min_p 0.5, so it survives (at temperature 1 it would be e^-1 = 0.37).
  SamplingParams p = Params(2.0f);
  p.min_p = 0.5f;
  const std::vector<int> counts = Histogram({0.0f, -1.0f, -10.0f}, p, 20000);
  const double q = std::exp(-0.5);
  EXPECT_LT(ChiSquare(counts, {1 / (1 + q), q / (1 + q), 0.0}), 10.83);  // 1 dof, p = 0.001
}

TEST(SamplerTest, TopKComesBeforeTopP) {
  // Probabilities 0.4, 0.3, 0.2, 0.1: top_k 2 then top_p 0.5 leaves only id 0.
  const std::vector<float> logits = {std::log(0.4f), std::log(0.3f), std::log(0.2f), std::log(0.1f)};
  SamplingParams p = Params(1.0f);
  p.top_k = 2;
  p.top_p = 0.5f;
  EXPECT_EQ(Histogram(logits, p, 500)[0], 500);
  p.top_k = 0;  // top_p alone keeps ids 0 and 1 (0.4 < 0.5)
  const std::vector<int> counts = Histogram(logits, p, 20000);
  EXPECT_LT(ChiSquare(counts, {4.0 / 7, 3.0 / 7, 0, 0}), 10.83);
}

TEST(SamplerTest, TemperatureScalesTheDistribution) {
  SamplingParams p = Params(2.0f);
  const std::vector<int> counts = Histogram({0.0f, 1.0f, 2.0f}, p, 20000);
  EXPECT_LT(ChiSquare(counts, Normalized({1.0, std::exp(0.5), std::exp(1.0)})), 13.82);  // 2 dof
}

TEST(SamplerTest, MinPDropsTheTailAndRenormalizes) {
  SamplingParams p = Params(1.0f);
  p.min_p = 0.2f;  // the cut is at 0.2 * 0.5 = 0.1
  const std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};
  const std::vector<int> counts = Histogram(logits, p, 20000);
  EXPECT_LT(ChiSquare(counts, Normalized({0.5, 0.3, 0.15, 0.0})), 13.82);
}

TEST(SamplerTest, TopPDistribution) {
  SamplingParams p = Params(1.0f);
  p.top_p = 0.8f;  // 0.5, 0.25 (mass before 0.5), 0.15 (before 0.75): cut before 0.1
  const std::vector<float> logits = {std::log(0.5f), std::log(0.25f), std::log(0.15f), std::log(0.1f)};
  const std::vector<int> counts = Histogram(logits, p, 20000);
  EXPECT_LT(ChiSquare(counts, Normalized({0.5, 0.25, 0.15, 0.0})), 13.82);
}

// Logits for one step of a synthetic "model": fixed per (row tag, step).
std::vector<float> SyntheticLogits(int32_t vocab, uint32_t tag, int step) {
  std::mt19937 rng(tag * 1000003u + static_cast<uint32_t>(step));
  std::normal_distribution<float> dist(0.0f, 2.0f);
  std::vector<float> row(vocab);
  for (float& x : row) x = dist(rng);
  return row;
}

TEST(SamplerTest, ASeededSequenceGetsTheSameTokensInAnyBatch) {
  const int32_t vocab = 1000;
  const int steps = 30;
  SamplingParams p = Params(0.8f);
  p.top_p = 0.9f;
  p.top_k = 50;
  p.min_p = 0.01f;
  p.repetition_penalty = 1.2f;
  p.presence_penalty = 0.5f;
  p.logprobs = 3;

  auto run = [&](int batch_size, int target_row) {
    Sampler sampler(vocab, {}, testing::TestRowOps());
    std::vector<Sequence> seqs(batch_size);
    std::mt19937 rng(99);
    for (int i = 0; i < batch_size; ++i) {
      if (i == target_row) {
        seqs[i] = Seeded(p, 1234);
      } else {
        SamplingParams other = Params(static_cast<float>(rng() % 3) * 0.7f);
        other.top_k = static_cast<int32_t>(rng() % 20);
        other.frequency_penalty = 0.3f;
        seqs[i] = Seeded(other, static_cast<int64_t>(rng()));
      }
      seqs[i].prompt = {1, 2, 3};
    }
    std::vector<SampledToken> out(batch_size);
    std::vector<float> logits;
    for (int step = 0; step < steps; ++step) {
      logits.clear();
      std::vector<SamplingSequence> views;
      for (int i = 0; i < batch_size; ++i) {
        const std::vector<float> row = SyntheticLogits(vocab, i == target_row ? 7 : 100 + i, step);
        logits.insert(logits.end(), row.begin(), row.end());
        views.push_back(seqs[i].View());
      }
      sampler.Sample(logits, views, out);
      for (int i = 0; i < batch_size; ++i) seqs[i].output.push_back(out[i].token_id);
    }
    return seqs[target_row].output;
  };
  const std::vector<int32_t> alone = run(1, 0);
  EXPECT_EQ(run(64, 37), alone);
  EXPECT_EQ(run(64, 0), alone);
  EXPECT_EQ(run(2, 1), alone);
  // Not a degenerate stream: the tokens vary.
  EXPECT_GT(std::set<int32_t>(alone.begin(), alone.end()).size(), 10u);
}

TEST(SamplerTest, ChildrenOfOneSeedDrawDifferentTokens) {
  const int32_t vocab = 1000;
  const std::vector<float> logits(vocab, 0.0f);  // uniform: any repeat is chance
  Sampler sampler(vocab, {}, testing::TestRowOps());
  std::vector<std::vector<int32_t>> tokens(4);
  for (int child = 0; child < 4; ++child) {
    Sequence seq = Seeded(Params(1.0f), 5, child);
    for (int step = 0; step < 20; ++step) seq.output.push_back(SampleOne(sampler, logits, seq).token_id);
    tokens[child] = seq.output;
    // And each child reproduces itself.
    Sequence again = Seeded(Params(1.0f), 5, child);
    for (int step = 0; step < 20; ++step) again.output.push_back(SampleOne(sampler, logits, again).token_id);
    EXPECT_EQ(again.output, seq.output);
  }
  for (int a = 0; a < 4; ++a) {
    for (int b = a + 1; b < 4; ++b) EXPECT_NE(tokens[a], tokens[b]) << a << " vs " << b;
  }
}

TEST(SamplerTest, LogprobsComeFromTheRawLogits) {
  const std::vector<float> logits = {1.0f, 3.0f, 2.0f, 0.5f, -1.0f};
  double sum = 0;
  for (float x : logits) sum += std::exp(static_cast<double>(x));
  auto raw = [&](int32_t id) { return logits[id] - std::log(sum); };

  Sampler sampler(5, {}, testing::TestRowOps());
  Sequence seq = Seeded(Params(0.0f), 1);
  seq.params.logprobs = 2;
  seq.params.logit_bias = {{4, 10.0f}};  // processing picks id 4; logprobs ignore it
  seq.params.repetition_penalty = 1.5f;
  seq.prompt = {1};
  const SampledToken t = SampleOne(sampler, logits, seq);
  EXPECT_EQ(t.token_id, 4);
  EXPECT_NEAR(t.logprob.value(), raw(4), 1e-6);
  EXPECT_EQ(t.rank, 5);
  ASSERT_EQ(t.top_logprobs.size(), 2u);
  EXPECT_EQ(t.top_logprobs[0].token_id, 1);
  EXPECT_NEAR(t.top_logprobs[0].logprob, raw(1), 1e-6);
  EXPECT_EQ(t.top_logprobs[1].token_id, 2);
  EXPECT_NEAR(t.top_logprobs[1].logprob, raw(2), 1e-6);

  // Without logprobs the sampled token is not scored (two passes saved)...
  seq.params.logprobs.reset();
  const SampledToken bare = SampleOne(sampler, logits, seq);
  EXPECT_EQ(bare.token_id, 4);
  EXPECT_FALSE(bare.logprob.has_value());
  EXPECT_FALSE(bare.rank.has_value());
  EXPECT_TRUE(bare.top_logprobs.empty());
  // ...unless its request ranks its samples by cumulative logprob.
  seq.params.n = 1;
  seq.params.best_of = 2;
  const SampledToken ranked = SampleOne(sampler, logits, seq);
  EXPECT_NEAR(ranked.logprob.value(), raw(4), 1e-6);
  EXPECT_TRUE(ranked.top_logprobs.empty());
}

TEST(SamplerTest, PromptLogprobsScoreTheActualNextTokens) {
  // Two prompt positions' rows; the prompt continued with ids 2 then 0.
  const std::vector<float> logits = {0.0f, 1.0f, 2.0f,  //
                                     3.0f, 0.0f, 0.0f};
  const std::vector<int32_t> next = {2, 0};
  Sampler sampler(3, {}, testing::TestRowOps());
  std::vector<SampledToken> out(2);
  sampler.ScorePromptTokens(logits, next, 1, out);
  const double lse0 = std::log(1 + std::exp(1.0) + std::exp(2.0));
  const double lse1 = std::log(std::exp(3.0) + 2);
  EXPECT_EQ(out[0].token_id, 2);
  EXPECT_NEAR(out[0].logprob.value(), 2 - lse0, 1e-6);
  EXPECT_EQ(out[0].rank, 1);
  ASSERT_EQ(out[0].top_logprobs.size(), 1u);
  EXPECT_EQ(out[0].top_logprobs[0].token_id, 2);
  EXPECT_EQ(out[1].token_id, 0);
  EXPECT_NEAR(out[1].logprob.value(), 3 - lse1, 1e-6);
}

TEST(SamplerTest, ReusedOutputsKeepTheirMemory) {
  const int32_t vocab = 100;
  Sampler sampler(vocab, {}, testing::TestRowOps());
  Sequence seq = Seeded(Params(1.0f), 3);
  seq.params.logprobs = 5;
  const std::vector<float> logits = SyntheticLogits(vocab, 1, 0);
  const SamplingSequence view = seq.View();
  SampledToken out;
  sampler.Sample(logits, {&view, 1}, {&out, 1});
  const TokenLogprob* data = out.top_logprobs.data();
  for (int i = 0; i < 10; ++i) sampler.Sample(logits, {&view, 1}, {&out, 1});
  EXPECT_EQ(out.top_logprobs.data(), data);
}

TEST(SamplerTest, EveryTokenMaskedFallsBackToTheLowestId) {
  Sampler sampler(3, {}, testing::TestRowOps());
  Sequence seq = Seeded(Params(1.0f), 3);
  seq.params.allowed_token_ids = std::vector<int32_t>{2};
  seq.bad_words = {{2}};
  EXPECT_EQ(SampleOne(sampler, {1.0f, 2.0f, 3.0f}, seq).token_id, 0);
}

TEST(SamplerTest, UnseededSequencesStillSample) {
  Sampler sampler(3, {}, testing::TestRowOps());
  Sequence seq;
  seq.params = Params(1.0f);
  seq.random = RandomStream::Unseeded();
  const int32_t t = SampleOne(sampler, {1.0f, -kInf, 3.0f}, seq).token_id;
  EXPECT_TRUE(t == 0 || t == 2);
}

TEST(SamplerTest, BeamCandidatesAreProcessedLogprobsBestFirst) {
  // EOS (id 2) is banned by min_tokens and token 0 gets a +1 bias, so the
  // row the candidates come from is {2, 2, -inf, 0.5, 1}: log-softmax over
  // the four finite logits, ties to the lower id, the masked token left out.
  const std::vector<float> logits = {1.0f, 2.0f, 3.0f, 0.5f, 1.0f};
  Sampler sampler(5, {2}, testing::TestRowOps());
  Sequence seq;
  seq.params = Params(0.0f);
  seq.params.min_tokens = 1;
  seq.params.logit_bias = {{0, 1.0f}};
  std::vector<TokenLogprob> out;
  sampler.BeamCandidates(logits, seq.View(), 10, out);
  const double norm = std::log(2 * std::exp(2.0) + std::exp(0.5) + std::exp(1.0));
  ASSERT_EQ(out.size(), 4u);
  const std::vector<std::pair<int32_t, double>> want = {{0, 2.0}, {1, 2.0}, {4, 1.0}, {3, 0.5}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(out[i].token_id, want[i].first) << i;
    EXPECT_NEAR(out[i].logprob, want[i].second - norm, 1e-5) << i;
  }
  sampler.BeamCandidates(logits, seq.View(), 2, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].token_id, 1);
}

// The grammar bitmask comes first: a masked token is never drawn, and the
// logprobs are those of the masked logits (vLLM masks the logits before its
// sampler), so the allowed tokens' probabilities sum to one.
TEST(SamplerTest, GrammarBitmaskLimitsDrawsAndLogprobs) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> logits(200);
  for (float& x : logits) x = normal(rng);
  std::vector<uint64_t> bits((logits.size() + 63) / 64, 0);
  const std::set<int32_t> allowed = {3, 64, 65, 150, 199};
  for (int32_t id : allowed) bits[id >> 6] |= uint64_t{1} << (id & 63);
  Sampler sampler(static_cast<int32_t>(logits.size()), {}, testing::TestRowOps());
  double total = 0;
  for (int32_t id : allowed) total += std::exp(logits[id]);
  for (int seed = 0; seed < 200; ++seed) {
    Sequence seq = Seeded(Params(1.0f), seed);
    seq.params.logprobs = 3;
    SamplingSequence view = seq.View();
    view.grammar_bitmask = bits;
    SampledToken out;
    sampler.Sample(logits, {&view, 1}, {&out, 1});
    ASSERT_TRUE(allowed.count(out.token_id)) << out.token_id;
    EXPECT_NEAR(out.logprob.value(), logits[out.token_id] - std::log(total), 1e-4);
    ASSERT_EQ(out.top_logprobs.size(), 3u);
    for (const TokenLogprob& top : out.top_logprobs) EXPECT_TRUE(allowed.count(top.token_id)) << top.token_id;
  }
  // Greedy takes the best allowed token, not the best token.
  Sequence greedy = Seeded(Params(0.0f), 0);
  SamplingSequence view = greedy.View();
  view.grammar_bitmask = bits;
  SampledToken out;
  sampler.Sample(logits, {&view, 1}, {&out, 1});
  const int32_t best = *std::max_element(allowed.begin(), allowed.end(),
                                         [&](int32_t a, int32_t b) { return logits[a] < logits[b]; });
  EXPECT_EQ(out.token_id, best);
}

}  // namespace
}  // namespace pagoda
