#include "pagoda/model/hf/rope_config.h"

#include <cmath>
#include <numbers>

namespace pagoda::hf {
namespace {

Status ReadScaling(const ConfigReader& r, RopeConfig& rope) {
  // transformers 5 writes rope_type; older configs wrote type.
  if (r.Has("rope_type")) {
    PAGODA_ASSIGN_OR_RETURN(rope.type, r.String("rope_type"));
  } else {
    PAGODA_ASSIGN_OR_RETURN(rope.type, r.String("type", "default"));
  }
  PAGODA_ASSIGN_OR_RETURN(rope.factor, r.Number("factor", 1.0));
  if (rope.factor <= 0.0) return InvalidArgumentError(r.Name("factor") + " must be positive");
  PAGODA_ASSIGN_OR_RETURN(rope.low_freq_factor, r.Number("low_freq_factor", 1.0));
  PAGODA_ASSIGN_OR_RETURN(rope.high_freq_factor, r.Number("high_freq_factor", 4.0));
  if (r.Has("original_max_position_embeddings")) {
    PAGODA_ASSIGN_OR_RETURN(rope.original_max_position_embeddings, r.PositiveInt("original_max_position_embeddings"));
  }
  if (r.Has("short_factor")) {
    PAGODA_ASSIGN_OR_RETURN(rope.short_factor, r.Numbers("short_factor"));
  }
  if (r.Has("long_factor")) {
    PAGODA_ASSIGN_OR_RETURN(rope.long_factor, r.Numbers("long_factor"));
  }
  if (r.Has("attention_factor")) {
    PAGODA_ASSIGN_OR_RETURN(rope.attention_factor, r.Number("attention_factor"));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<RopeConfig> ReadRopeConfig(const ConfigReader& config, double default_theta,
                                    const std::optional<std::string>& layer_type) {
  RopeConfig rope;
  PAGODA_ASSIGN_OR_RETURN(rope.theta, config.Number("rope_theta", default_theta));
  if (config.Has("rope_parameters")) {
    PAGODA_ASSIGN_OR_RETURN(ConfigReader params, config.Object("rope_parameters"));
    const bool per_layer_type = params.Has("full_attention") || params.Has("sliding_attention");
    if (per_layer_type) {
      if (!layer_type) return UnimplementedError(config.Name("rope_parameters") + " is given per layer type");
      PAGODA_ASSIGN_OR_RETURN(params, params.Object(*layer_type));
    }
    PAGODA_ASSIGN_OR_RETURN(rope.theta, params.Number("rope_theta", rope.theta));
    PAGODA_RETURN_IF_ERROR(ReadScaling(params, rope));
  } else if (config.Has("rope_scaling")) {
    PAGODA_ASSIGN_OR_RETURN(ConfigReader scaling, config.Object("rope_scaling"));
    PAGODA_RETURN_IF_ERROR(ReadScaling(scaling, rope));
  }
  if (rope.theta <= 0.0) return InvalidArgumentError(config.Name("rope_theta") + " must be positive");
  if (!rope.original_max_position_embeddings && config.Has("original_max_position_embeddings")) {
    PAGODA_ASSIGN_OR_RETURN(rope.original_max_position_embeddings,
                            config.PositiveInt("original_max_position_embeddings"));
  }
  return rope;
}

// As transformers' _compute_llama3_parameters: wavelengths shorter than
// original / high_freq_factor keep their frequency, longer than original /
// low_freq_factor are slowed by `factor`, and those between are blended.
std::vector<float> Llama3FrequencyFactors(const RopeConfig& rope, int64_t head_dim) {
  const double original = static_cast<double>(rope.original_max_position_embeddings.value_or(8192));
  const double low_wavelen = original / rope.low_freq_factor;
  const double high_wavelen = original / rope.high_freq_factor;
  std::vector<float> factors;
  for (int64_t i = 0; i < head_dim; i += 2) {
    const double freq = 1.0 / std::pow(rope.theta, static_cast<double>(i) / static_cast<double>(head_dim));
    const double wavelen = 2.0 * std::numbers::pi / freq;
    if (wavelen < high_wavelen) {
      factors.push_back(1.0f);
    } else if (wavelen > low_wavelen) {
      factors.push_back(static_cast<float>(rope.factor));
    } else {
      const double smooth = (original / wavelen - rope.low_freq_factor) / (rope.high_freq_factor - rope.low_freq_factor);
      factors.push_back(static_cast<float>(1.0 / ((1.0 - smooth) / rope.factor + smooth)));
    }
  }
  return factors;
}

}  // namespace pagoda::hf
