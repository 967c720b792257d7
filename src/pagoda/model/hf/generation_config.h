// A Hugging Face checkpoint's generation_config.json: the sampling values
// its makers recommend, which vLLM (--generation-config auto) applies to
// requests that do not set them, and its end-of-sequence ids, which vLLM
// adds to every request's stop tokens. Only the keys vLLM reads are kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda::hf {

struct GenerationConfig {
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<int32_t> top_k;
  std::optional<double> min_p;
  std::optional<double> repetition_penalty;
  std::optional<int32_t> max_new_tokens;  // vLLM's max_tokens
  std::vector<int32_t> eos_token_ids;     // eos_token_id: one id or a list

  bool HasSamplingValues() const {
    return temperature || top_p || top_k || min_p || repetition_penalty || max_new_tokens;
  }
};

// generation_config.json in `directory`; an empty config when there is none.
StatusOr<GenerationConfig> ReadGenerationConfig(const std::string& directory);

}  // namespace pagoda::hf
