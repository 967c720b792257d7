#include "pagoda/request/sampling_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pagoda {
namespace {

// vLLM raises temperatures in (0, kMinTemperature) to it: dividing logits by
// less overflows float32.
constexpr float kMinTemperature = 0.01f;

// NaN fails every range check below because each is written as "inside".
bool InClosed(float v, float lo, float hi) { return v >= lo && v <= hi; }

Status Error(std::string message) { return InvalidArgumentError(std::move(message)); }

Status ValidateBeamSearch(const SamplingParams& p) {
  if (p.beam_width < 1) return Error(fmt::format("beam_width must be at least 1, got {}", p.beam_width));
  if (p.n > p.beam_width) {
    return Error(fmt::format("n must be at most beam_width={} with beam search, got {}", p.beam_width, p.n));
  }
  if (p.best_of) return Error("best_of is not used with beam search; set beam_width instead");
  // Beams are ranked by log probability, so sampling knobs would be ignored.
  if (p.temperature != 0.0f) return Error(fmt::format("temperature must be 0 with beam search, got {}", p.temperature));
  if (p.top_p != 1.0f) return Error(fmt::format("top_p must be 1 with beam search, got {}", p.top_p));
  if (p.top_k > 0) return Error(fmt::format("top_k must be 0 or -1 with beam search, got {}", p.top_k));
  if (p.min_p != 0.0f) return Error(fmt::format("min_p must be 0 with beam search, got {}", p.min_p));
  if (!std::isfinite(p.length_penalty)) return Error(fmt::format("length_penalty must be finite, got {}", p.length_penalty));
  // Pagoda ranks beams by tokens only: a stop string would need every
  // beam's text, and per-token top logprobs would have to follow each fork.
  if (!p.stop.empty()) return Error("stop strings are not supported with beam search; use stop_token_ids");
  if (p.logprobs) return Error("logprobs are not supported with beam search");
  return Status::Ok();
}

}  // namespace

Status SamplingParams::Validate() const {
  if (n < 1) return Error(fmt::format("n must be at least 1, got {}", n));
  if (best_of) {
    if (*best_of < 1) return Error(fmt::format("best_of must be at least 1, got {}", *best_of));
    if (*best_of < n) return Error(fmt::format("best_of must be greater than or equal to n, got n={} and best_of={}", n, *best_of));
  }
  if (!InClosed(presence_penalty, -2.0f, 2.0f)) {
    return Error(fmt::format("presence_penalty must be in [-2, 2], got {}", presence_penalty));
  }
  if (!InClosed(frequency_penalty, -2.0f, 2.0f)) {
    return Error(fmt::format("frequency_penalty must be in [-2, 2], got {}", frequency_penalty));
  }
  if (!(repetition_penalty > 0.0f) || !std::isfinite(repetition_penalty)) {
    return Error(fmt::format("repetition_penalty must be greater than zero, got {}", repetition_penalty));
  }
  if (!(temperature >= 0.0f) || !std::isfinite(temperature)) {
    return Error(fmt::format("temperature must be non-negative, got {}", temperature));
  }
  if (!(top_p > 0.0f && top_p <= 1.0f)) return Error(fmt::format("top_p must be in (0, 1], got {}", top_p));
  if (top_k < -1) return Error(fmt::format("top_k must be 0 or -1 (disable), or at least 1, got {}", top_k));
  if (!InClosed(min_p, 0.0f, 1.0f)) return Error(fmt::format("min_p must be in [0, 1], got {}", min_p));
  if (max_tokens && *max_tokens < 1) return Error(fmt::format("max_tokens must be at least 1, got {}", *max_tokens));
  if (min_tokens < 0) return Error(fmt::format("min_tokens must be greater than or equal to 0, got {}", min_tokens));
  if (max_tokens && min_tokens > *max_tokens) {
    return Error(fmt::format("min_tokens must be less than or equal to max_tokens={}, got {}", *max_tokens, min_tokens));
  }
  // The upper bound on logprobs is a server setting (max_logprobs), checked there.
  if (logprobs && *logprobs < 0) return Error(fmt::format("logprobs must be non-negative, got {}", *logprobs));
  if (prompt_logprobs && *prompt_logprobs < 0) {
    return Error(fmt::format("prompt_logprobs must be non-negative, got {}", *prompt_logprobs));
  }
  if (std::any_of(stop.begin(), stop.end(), [](const std::string& s) { return s.empty(); })) {
    return Error("stop cannot contain an empty string");
  }
  if (cache_salt && cache_salt->empty()) return Error("cache_salt must be a non-empty string if provided");
  if (std::any_of(bad_words.begin(), bad_words.end(), [](const std::string& s) { return s.empty(); })) {
    return Error("bad_words cannot contain an empty string");
  }
  for (const auto& [token, bias] : logit_bias) {
    if (!std::isfinite(bias)) return Error(fmt::format("logit_bias for token {} must be finite, got {}", token, bias));
  }
  if (allowed_token_ids && allowed_token_ids->empty()) return Error("allowed_token_ids must not be empty when given");
  if (structured_outputs) {
    PAGODA_RETURN_IF_ERROR(structured_outputs->Validate());
  }
  if (use_beam_search) {
    PAGODA_RETURN_IF_ERROR(ValidateBeamSearch(*this));
  } else {
    if (length_penalty != 1.0f) return Error("length_penalty is only used with beam search; leave it at 1");
    // With best_of, vLLM streams deltas of candidates it may later drop.
    if (best_of && *best_of != n && output_kind == OutputKind::kDelta) {
      return Error("best_of must equal n to use output_kind=DELTA");
    }
    // Exactly 0: Normalize() raises any positive temperature to at least 0.01.
    if (temperature == 0.0f && num_sequences() > 1) {
      return Error(best_of && *best_of > 1
                       ? fmt::format("best_of must be 1 when using greedy sampling, got {}", *best_of)
                       : fmt::format("n must be 1 when using greedy sampling, got {}", n));
    }
  }
  return Status::Ok();
}

Status SamplingParams::ValidateTokenIds(int32_t vocab_size) const {
  auto in_vocab = [vocab_size](int32_t t) { return t >= 0 && t < vocab_size; };
  for (const auto& [token, bias] : logit_bias) {
    if (!in_vocab(token)) {
      return Error(fmt::format("logit_bias has token id {} outside the vocabulary [0, {})", token, vocab_size));
    }
  }
  // vLLM does not check stop_token_ids, but min_tokens bans them by index.
  for (int32_t t : stop_token_ids) {
    if (!in_vocab(t)) {
      return Error(fmt::format("stop_token_ids has token id {} outside the vocabulary [0, {})", t, vocab_size));
    }
  }
  if (allowed_token_ids) {
    for (int32_t t : *allowed_token_ids) {
      if (!in_vocab(t)) {
        return Error(fmt::format("allowed_token_ids has token id {} outside the vocabulary [0, {})", t, vocab_size));
      }
    }
  }
  return Status::Ok();
}

void SamplingParams::Normalize() {
  if (temperature > 0.0f && temperature < kMinTemperature) temperature = kMinTemperature;
  if (seed == -1) seed.reset();
  if (top_k == -1) top_k = 0;
  if (IsGreedy()) {
    top_p = 1.0f;
    top_k = 0;
    min_p = 0.0f;
  }
}

}  // namespace pagoda
