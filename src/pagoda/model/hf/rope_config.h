// RoPE settings from a Hugging Face config: transformers 5's
// `rope_parameters` (one object, or one per layer type as Gemma 3 has), or
// the older top-level `rope_theta` with a `rope_scaling` object.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/model/hf/config_reader.h"

namespace pagoda::hf {

struct RopeConfig {
  double theta = 10000.0;
  std::string type = "default";  // rope_type: default, linear, llama3, longrope, yarn, dynamic, ...
  double factor = 1.0;
  // llama3
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  std::optional<int64_t> original_max_position_embeddings;
  // longrope
  std::vector<double> short_factor;
  std::vector<double> long_factor;
  std::optional<double> attention_factor;
};

// `layer_type` picks the entry of a per-layer-type `rope_parameters`
// ("full_attention", "sliding_attention"); without one, such a config is an
// error. `default_theta` is the architecture's when the config names none.
StatusOr<RopeConfig> ReadRopeConfig(const ConfigReader& config, double default_theta,
                                    const std::optional<std::string>& layer_type = std::nullopt);

// Llama 3.1's per-pair frequency divisors (what llama.cpp's converter writes
// as rope_freqs.weight), for head dimension `head_dim`.
std::vector<float> Llama3FrequencyFactors(const RopeConfig& rope, int64_t head_dim);

}  // namespace pagoda::hf
