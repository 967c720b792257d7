// vLLM's logits processors, each in place on one row of logits. The Sampler
// runs them in vLLM's order (sampler.h); each is separate so it can be tested
// alone. Token ids must be inside the row: callers validate requests first.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <vector>

#include "pagoda/kernels/cpu/row_ops.h"
#include "pagoda/sampler/token_set.h"

namespace pagoda::logits {

inline constexpr float kMasked = -std::numeric_limits<float>::infinity();

// Every token not in `allowed` becomes -inf.
void KeepAllowed(std::span<float> row, std::span<const int32_t> allowed, TokenSet& scratch);

// A bad word is a token sequence. Its last token is banned when the output
// so far ends with the rest of it (a one-token bad word is always banned),
// as vLLM's apply_bad_words does over the generated tokens.
void BanBadWords(std::span<float> row, std::span<const std::vector<int32_t>> bad_words,
                 std::span<const int32_t> output_tokens);

// The listed tokens become -inf (min_tokens bans EOS and stop tokens so).
void Ban(std::span<float> row, std::span<const int32_t> tokens);

void AddLogitBias(std::span<float> row, const std::map<int32_t, float>& bias);

struct Penalties {
  float repetition = 1.0f;  // 1 = off
  float frequency = 0.0f;   // 0 = off
  float presence = 0.0f;    // 0 = off
};

// vLLM's apply_penalties. Repetition, over tokens seen in the prompt or the
// output: positive logits are divided by it, the others multiplied (the
// Hugging Face formula). Then, over output tokens only, OpenAI's definition:
// logit -= frequency * count, then logit -= presence if count > 0.
// `counts` is vocab-sized, all zero, and is left all zero.
void ApplyPenalties(std::span<float> row, std::span<const int32_t> prompt_tokens,
                    std::span<const int32_t> output_tokens, const Penalties& penalties, TokenSet& seen,
                    std::vector<int32_t>& counts);

void ApplyTemperature(std::span<float> row, float temperature);

// Bans tokens whose probability is below min_p times the top token's:
// p_i < min_p * p_max, i.e. logit_i - logit_max < log(min_p).
void ApplyMinP(std::span<float> row, float min_p, const kernels::cpu::RowOps& rows);

// The largest logit's id, the lowest one on ties (torch.argmax's rule).
int32_t Argmax(std::span<const float> row, const kernels::cpu::RowOps& rows);

}  // namespace pagoda::logits
