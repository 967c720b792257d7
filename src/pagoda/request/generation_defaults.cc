#include "pagoda/request/generation_defaults.h"

#include <fmt/format.h>

namespace pagoda {

void GenerationDefaults::ApplyTo(SamplingParams& params) const {
  if (temperature) params.temperature = *temperature;
  if (top_p) params.top_p = *top_p;
  // transformers' 0 turns top-k off, as vLLM's -1 does.
  if (top_k) params.top_k = *top_k >= 1 ? *top_k : -1;
  if (min_p) params.min_p = *min_p;
  if (repetition_penalty) params.repetition_penalty = *repetition_penalty;
  if (max_tokens) params.max_tokens = *max_tokens;
}

std::string GenerationDefaults::Describe() const {
  std::string out;
  const auto add = [&out](const char* name, const std::string& value) {
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", name, value);
  };
  if (temperature) add("temperature", fmt::format("{}", *temperature));
  if (top_p) add("top_p", fmt::format("{}", *top_p));
  if (top_k) add("top_k", fmt::format("{}", *top_k));
  if (min_p) add("min_p", fmt::format("{}", *min_p));
  if (repetition_penalty) add("repetition_penalty", fmt::format("{}", *repetition_penalty));
  if (max_tokens) add("max_tokens", fmt::format("{}", *max_tokens));
  return out;
}

}  // namespace pagoda
