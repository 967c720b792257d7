// SamplingParams: how one request samples and when it stops, with vLLM's
// field names, defaults and meaning. Plain data shared by the scheduler
// (stop conditions, n, max_tokens), the sampler (logits processing) and the
// engine (detokenization, stop strings, logprobs).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/request/structured_outputs_params.h"

namespace pagoda {

// What the output stream carries at each step (vLLM's RequestOutputKind).
enum class OutputKind {
  kCumulative,  // everything so far
  kDelta,       // only what is new since the last output
  kFinalOnly,   // one output, when the request finishes
};

struct SamplingParams {
  // How many completions to return, and how many to generate to pick them from.
  int32_t n = 1;
  std::optional<int32_t> best_of;  // default: n

  // Penalties, applied to the logits before temperature.
  float presence_penalty = 0.0f;    // [-2, 2]
  float frequency_penalty = 0.0f;   // [-2, 2]
  float repetition_penalty = 1.0f;  // > 0; 1 = off

  // The distribution to sample from. temperature 0 = greedy.
  float temperature = 1.0f;
  float top_p = 1.0f;   // (0, 1]
  int32_t top_k = 0;    // 0 or -1 = all tokens
  float min_p = 0.0f;   // [0, 1]
  std::optional<int64_t> seed;

  // Beam search (inside the engine, on the fork/copy-on-write mechanism).
  bool use_beam_search = false;
  int32_t beam_width = 1;
  float length_penalty = 1.0f;

  // Stopping.
  std::vector<std::string> stop;         // strings, matched across token boundaries
  std::vector<int32_t> stop_token_ids;
  bool include_stop_str_in_output = false;
  bool ignore_eos = false;
  std::optional<int32_t> max_tokens = 16;  // nullopt = up to max_model_len
  int32_t min_tokens = 0;

  // Token masks and biases.
  std::vector<std::string> bad_words;
  std::map<int32_t, float> logit_bias;  // token id -> bias added to its logit
  std::optional<std::vector<int32_t>> allowed_token_ids;
  // A grammar the output must follow; applied before every other processor.
  std::optional<StructuredOutputsParams> structured_outputs;

  // Log probabilities: the top-N per generated token (plus the sampled one),
  // and per prompt token; computed from the raw logits.
  std::optional<int32_t> logprobs;
  std::optional<int32_t> prompt_logprobs;

  // Detokenization. spaces_between_special_tokens is vLLM's: false removes
  // spaces a decoder puts between two added tokens. Pagoda's decoders (as
  // Hugging Face's fast tokenizers for these models) never put any, so the
  // text is the same either way, as vLLM's with a fast tokenizer is.
  bool skip_special_tokens = true;
  bool spaces_between_special_tokens = true;
  OutputKind output_kind = OutputKind::kCumulative;

  // vLLM's cache_salt: blocks cached under one salt are found only by
  // requests with the same salt, so tenants cannot probe each other's
  // prompts through the prefix cache's timing. vLLM carries it with the
  // prompt; here it travels with the request's parameters. Non-empty.
  std::optional<std::string> cache_salt;

  // The number of sequences generated in parallel for this request.
  int32_t num_sequences() const { return use_beam_search ? beam_width : best_of.value_or(n); }

  // Checks ranges and combinations as vLLM does; the message names the field.
  // Greedy (temperature 0) with n > 1 or best_of > 1 is refused, as vLLM's
  // _verify_greedy_sampling does: every child would be the same sequence.
  Status Validate() const;

  // Checks the token ids in logit_bias, allowed_token_ids and stop_token_ids
  // against the model's vocabulary (vLLM checks the first two when the
  // request reaches the engine; the sampler indexes by all three).
  Status ValidateTokenIds(int32_t vocab_size) const;

  // vLLM's normalization after validation: a temperature in (0, 0.01) is
  // raised to 0.01 (lower ones overflow), seed -1 means no seed, top_k -1
  // becomes 0 (both mean off), and greedy switches off top_p, top_k and min_p,
  // which cannot change an argmax.
  void Normalize();

  // Temperatures below this are greedy (vLLM's _SAMPLING_EPS).
  static constexpr float kGreedyEpsilon = 1e-5f;
  bool IsGreedy() const { return temperature < kGreedyEpsilon; }
};

}  // namespace pagoda
