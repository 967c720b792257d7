// The sampler's steady state allocates nothing: this executable replaces the
// global operator new to count allocations while a test asks it to.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include "pagoda/sampler/sampler.h"
#include "test_row_ops.h"

namespace {
bool counting = false;
int allocations = 0;
}  // namespace

void* operator new(size_t size) {
  if (counting) ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace pagoda {
namespace {

TEST(SamplerAllocationTest, SteadyStateSamplingDoesNotAllocate) {
  const int32_t vocab = 2000;
  const int rows = 4;
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0.0f, 2.0f);
  std::vector<float> logits(static_cast<size_t>(vocab) * rows);
  for (float& x : logits) x = dist(rng);

  // One row per path: greedy, whole-row draw, top-k with top-p, top-p alone,
  // all with penalties, masks and logprobs.
  std::vector<SamplingParams> params(rows);
  params[0].temperature = 0.0f;
  params[1].temperature = 0.9f;
  params[2].top_k = 20;
  params[2].top_p = 0.8f;
  params[3].top_p = 0.5f;
  params[3].min_p = 0.05f;
  for (SamplingParams& p : params) {
    p.logprobs = 5;
    p.repetition_penalty = 1.3f;
    p.frequency_penalty = 0.5f;
    p.min_tokens = 10;
    p.stop_token_ids = {7};
    p.logit_bias = {{3, 1.0f}};
    p.allowed_token_ids = std::vector<int32_t>(1000);
    for (int32_t i = 0; i < 1000; ++i) (*p.allowed_token_ids)[i] = 2 * i;
  }
  const std::vector<int32_t> prompt = {1, 2, 3, 4};
  const std::vector<int32_t> output = {5, 6, 5};
  const std::vector<std::vector<int32_t>> bad_words = {{6, 8}, {10}};
  std::vector<SamplingSequence> sequences;
  for (int i = 0; i < rows; ++i) {
    sequences.push_back({&params[i], prompt, output, bad_words, RandomStream::Seeded(i, 0)});
  }
  Sampler sampler(vocab, {0}, testing::TestRowOps());
  std::vector<SampledToken> out(rows);
  const std::vector<int32_t> next_prompt_tokens(rows, 9);
  sampler.Sample(logits, sequences, out);  // warm-up: scratch reaches its size
  sampler.ScorePromptTokens(logits, next_prompt_tokens, 5, out);

  counting = true;
  allocations = 0;
  for (int i = 0; i < 5; ++i) {
    sampler.Sample(logits, sequences, out);
    sampler.ScorePromptTokens(logits, next_prompt_tokens, 5, out);
  }
  counting = false;
  EXPECT_EQ(allocations, 0);

  // The counter works: fresh outputs need their top-N vectors allocated.
  counting = true;
  std::vector<SampledToken> fresh(rows);
  sampler.Sample(logits, sequences, fresh);
  counting = false;
  EXPECT_GE(allocations, rows);
  for (const SampledToken& t : out) EXPECT_EQ(t.top_logprobs.size(), 5u);
}

}  // namespace
}  // namespace pagoda
