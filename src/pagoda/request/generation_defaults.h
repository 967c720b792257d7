// The sampling values a model's makers recommend (a Hugging Face
// checkpoint's generation_config.json), as vLLM applies them under
// --generation-config auto: a request's own value wins, and max_tokens caps
// what a request may generate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pagoda/request/sampling_params.h"

namespace pagoda {

struct GenerationDefaults {
  std::optional<float> temperature;
  std::optional<float> top_p;
  std::optional<int32_t> top_k;
  std::optional<float> min_p;
  std::optional<float> repetition_penalty;
  std::optional<int32_t> max_tokens;

  bool empty() const { return !temperature && !top_p && !top_k && !min_p && !repetition_penalty && !max_tokens; }
  // Sets each value this holds on `params` (vLLM's defaults elsewhere):
  // what a request that sets none of them gets, as vLLM's
  // LLM.get_default_sampling_params().
  void ApplyTo(SamplingParams& params) const;
  // "temperature=0.7, top_p=0.8, ..." for the start-up log.
  std::string Describe() const;
};

}  // namespace pagoda
