// Picks the next token of every sequence in a batch from its row of logits,
// with vLLM's processors in vLLM's order:
//   0. the structured-output grammar's bitmask (logprobs see it too);
//   1. allowed_token_ids mask, bad words mask;
//   2. logit_bias, then min_tokens (EOS and stop_token_ids banned until
//      min_tokens tokens are out);
//   3. repetition penalty (prompt + output), frequency and presence
//      penalties (output only);
//   4. greedy (temperature 0): argmax, lowest id on ties; otherwise
//      temperature, min_p, top-k, top-p and a draw from the sequence's own
//      RandomStream.
// Logprobs come from the raw logits, before step 1 (after step 0). Rows are independent:
// nothing one row sees depends on the others, so a seeded sequence gets the
// same tokens in any batch.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "pagoda/request/sampling_params.h"
#include "pagoda/sampler/random_stream.h"
#include "pagoda/sampler/raw_logprobs.h"
#include "pagoda/sampler/token_set.h"
#include "pagoda/sampler/top_k_top_p.h"

namespace pagoda {

// One row's sequence, borrowed for the call.
struct SamplingSequence {
  const SamplingParams* params;  // validated and normalized
  std::span<const int32_t> prompt_token_ids;
  std::span<const int32_t> output_token_ids;  // generated so far by this sequence
  // params.bad_words, tokenized by the caller as vLLM does (each word with
  // and without a leading space); ids must be in the vocabulary.
  std::span<const std::vector<int32_t>> bad_words_token_ids;
  RandomStream random;  // RandomStream::For(params->seed, child index), kept for the sequence's life
  // The structured-output constraint's allowed tokens, one bit per token id
  // (bit i of word i / 64); empty: no constraint. Applied to the logits
  // before everything else, logprobs included, as vLLM applies its grammar
  // bitmask to the logits before its sampler.
  std::span<const uint64_t> grammar_bitmask = {};
};

// A chosen (or, for prompt logprobs, given) token and its raw log probability.
// The logprob and rank take two more passes over the vocabulary (a
// log-sum-exp and a count), so a sampled token has them only where its
// request reads them: it asked for logprobs, or it draws more samples than
// it returns (best_of > n) and ranks them by cumulative logprob. Prompt
// logprobs always have them.
struct SampledToken {
  int32_t token_id = -1;
  std::optional<float> logprob;  // raw log-softmax; a sequence's cumulative_logprob is the sum
  std::optional<int32_t> rank;   // tokens with a raw logprob >= this one's (1 = most likely)
  std::vector<TokenLogprob> top_logprobs;  // the `logprobs` most likely, best first
};

class Sampler {
 public:
  // eos_token_ids: the model's EOS ids (generation_config's too), which
  // min_tokens bans besides stop_token_ids, whatever ignore_eos says.
  // rows: the row reductions of the engine's kernel set.
  Sampler(int32_t vocab_size, std::vector<int32_t> eos_token_ids, const kernels::cpu::RowOps& rows);

  int32_t vocab_size() const { return vocab_size_; }

  // logits: sequences.size() rows of vocab_size. out[i] receives row i's
  // token; reusing `out` across calls reuses its vectors' memory. If every
  // token of a row is masked, the row gets the lowest id (argmax of all -inf).
  void Sample(std::span<const float> logits, std::span<const SamplingSequence> sequences, std::span<SampledToken> out);

  // Beam search: the `k` most likely next tokens of one sequence, best
  // first (lower id on ties), with their log probabilities after the logits
  // processors (steps 1 to 3; temperature is 0 with beams), as vLLM's
  // engine-internal beam search ranked them. Tokens the processors masked
  // are left out, so `out` may hold fewer than k.
  void BeamCandidates(std::span<const float> logits, const SamplingSequence& sequence, int32_t k,
                      std::vector<TokenLogprob>& out);

  // Prompt logprobs: logits row i predicted next_token_ids[i], the prompt
  // token that actually followed; out[i] gets its logprob, rank and top-N.
  void ScorePromptTokens(std::span<const float> logits, std::span<const int32_t> next_token_ids, int32_t num_logprobs,
                         std::span<SampledToken> out);

 private:
  // `raw`, or with a grammar bitmask, a copy in masked_ with the tokens it
  // refuses at -inf.
  std::span<const float> ApplyGrammarBitmask(std::span<const float> raw, const SamplingSequence& sequence);
  // Copies a raw row into row_ and applies processors 1 to 3.
  void ProcessRow(std::span<const float> raw, const SamplingSequence& sequence);
  int32_t SampleRow(std::span<const float> raw, const SamplingSequence& sequence);
  void Score(std::span<const float> raw, int32_t token_id, int32_t num_logprobs, SampledToken& out);

  int32_t vocab_size_;
  std::vector<int32_t> eos_token_ids_;
  const kernels::cpu::RowOps& rows_;
  // Per-row scratch, sized once.
  std::vector<float> row_;
  std::vector<float> masked_;
  std::vector<int32_t> counts_;
  TokenSet token_set_;
  TopKTopPSampler top_k_top_p_;
  RawLogprobs raw_logprobs_;
  RawLogprobs beam_logprobs_;  // over row_, the processed logits
};

}  // namespace pagoda
