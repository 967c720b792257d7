#include "pagoda/model/hf/config_translation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "pagoda/model/hf/config_reader.h"
#include "pagoda/model/hf/rope_config.h"
#include "pagoda/model/model_config.h"

namespace pagoda::hf {
namespace {

using nlohmann::json;

enum class Family { kLlama, kMistral, kMixtral, kQwen2, kQwen3, kQwen2Moe, kQwen3Moe, kGemma2, kGemma3, kPhi3 };

struct Architecture {
  std::string_view hf;
  std::string_view gguf;
  Family family;
};

constexpr Architecture kArchitectures[] = {
    {"Gemma2ForCausalLM", "gemma2", Family::kGemma2},     {"Gemma3ForCausalLM", "gemma3", Family::kGemma3},
    {"LlamaForCausalLM", "llama", Family::kLlama},        {"MistralForCausalLM", "llama", Family::kMistral},
    {"MixtralForCausalLM", "llama", Family::kMixtral},    {"Phi3ForCausalLM", "phi3", Family::kPhi3},
    {"Qwen2ForCausalLM", "qwen2", Family::kQwen2},        {"Qwen2MoeForCausalLM", "qwen2moe", Family::kQwen2Moe},
    {"Qwen3ForCausalLM", "qwen3", Family::kQwen3},        {"Qwen3MoeForCausalLM", "qwen3moe", Family::kQwen3Moe},
};

bool IsGemma(Family f) { return f == Family::kGemma2 || f == Family::kGemma3; }

// A boolean the architecture file does not implement when it differs from `supported`.
Status Require(const ConfigReader& c, const std::string& key, bool supported, bool fallback) {
  PAGODA_ASSIGN_OR_RETURN(bool value, c.Bool(key, fallback));
  if (value != supported) {
    return UnimplementedError(fmt::format("{} = {} is not supported", c.Name(key), value));
  }
  return Status::Ok();
}

class Translator {
 public:
  Translator(const ConfigReader& c, const Architecture& arch, ConfigTranslation& t)
      : c_(c), arch_(arch), t_(t), a_(std::string(arch.gguf) + ".") {}

  Status Run(const std::string& name) {
    t_.hf_architecture = std::string(arch_.hf);
    t_.gguf_architecture = std::string(arch_.gguf);
    t_.family = IsGemma(arch_.family) ? TensorFamily::kGemma : TensorFamily::kLlama;
    auto& m = t_.metadata;
    m.SetString("general.architecture", arch_.gguf);
    m.SetString("general.name", name);
    m.SetBool(std::string(kHfCheckpointKey), true);
    PAGODA_RETURN_IF_ERROR(Shape());
    PAGODA_RETURN_IF_ERROR(Activation());
    PAGODA_ASSIGN_OR_RETURN(t_.tied_embeddings, c_.Bool("tie_word_embeddings", IsGemma(arch_.family)));
    switch (arch_.family) {
      case Family::kLlama:
      case Family::kMistral:
      case Family::kMixtral: return Llama();
      case Family::kQwen2:
      case Family::kQwen3:
      case Family::kQwen2Moe:
      case Family::kQwen3Moe: return Qwen();
      case Family::kGemma2: return Gemma2();
      case Family::kGemma3: return Gemma3();
      case Family::kPhi3: return Phi3();
    }
    return InternalError("unknown architecture family");
  }

 private:
  Status SetPositive(const std::string& gguf_key, const std::string& key) {
    PAGODA_ASSIGN_OR_RETURN(int64_t v, c_.PositiveInt(key));
    t_.metadata.SetUint32(a_ + gguf_key, static_cast<uint32_t>(v));
    return Status::Ok();
  }

  Status Shape() {
    PAGODA_ASSIGN_OR_RETURN(hidden_, c_.PositiveInt("hidden_size"));
    PAGODA_ASSIGN_OR_RETURN(layers_, c_.PositiveInt("num_hidden_layers"));
    PAGODA_ASSIGN_OR_RETURN(heads_, c_.PositiveInt("num_attention_heads"));
    PAGODA_ASSIGN_OR_RETURN(int64_t kv_heads, c_.PositiveInt("num_key_value_heads", heads_));
    auto& m = t_.metadata;
    m.SetUint32(a_ + "embedding_length", static_cast<uint32_t>(hidden_));
    m.SetUint32(a_ + "block_count", static_cast<uint32_t>(layers_));
    m.SetUint32(a_ + "attention.head_count", static_cast<uint32_t>(heads_));
    m.SetUint32(a_ + "attention.head_count_kv", static_cast<uint32_t>(kv_heads));
    PAGODA_RETURN_IF_ERROR(SetPositive("feed_forward_length", "intermediate_size"));
    PAGODA_RETURN_IF_ERROR(SetPositive("context_length", "max_position_embeddings"));
    PAGODA_ASSIGN_OR_RETURN(max_position_, c_.PositiveInt("max_position_embeddings"));
    head_dim_ = hidden_ / heads_;
    if (c_.Has("head_dim")) {
      PAGODA_ASSIGN_OR_RETURN(head_dim_, c_.PositiveInt("head_dim"));
      m.SetUint32(a_ + "attention.key_length", static_cast<uint32_t>(head_dim_));
      m.SetUint32(a_ + "attention.value_length", static_cast<uint32_t>(head_dim_));
    }
    PAGODA_ASSIGN_OR_RETURN(double eps, c_.Number("rms_norm_eps"));
    m.SetFloat32(a_ + "attention.layer_norm_rms_epsilon", static_cast<float>(eps));
    PAGODA_ASSIGN_OR_RETURN(double partial, c_.Number("partial_rotary_factor", 1.0));
    if (partial != 1.0) return UnimplementedError(fmt::format("{} = {} is not supported", c_.Name("partial_rotary_factor"), partial));
    return Require(c_, "mlp_bias", false, false);
  }

  Status Activation() {
    const bool gemma = IsGemma(arch_.family);
    const std::string key = gemma && c_.Has("hidden_activation") ? "hidden_activation" : "hidden_act";
    PAGODA_ASSIGN_OR_RETURN(std::string act, c_.String(key, gemma ? "gelu_pytorch_tanh" : "silu"));
    // Gemma's GELU is the tanh approximation; the others gate with SiLU.
    const bool ok = gemma ? (act == "gelu_pytorch_tanh" || act == "gelu_new") : act == "silu";
    if (!ok) return UnimplementedError(fmt::format("{} = '{}' is not supported for {}", c_.Name(key), act, arch_.hf));
    return Status::Ok();
  }

  // The global RoPE: theta, and linear scaling, Llama 3.1's frequency factors
  // or Phi-3's LongRoPE where the architecture has them.
  Status Rope(double default_theta, const std::optional<std::string>& layer_type = std::nullopt) {
    PAGODA_ASSIGN_OR_RETURN(const RopeConfig rope, ReadRopeConfig(c_, default_theta, layer_type));
    auto& m = t_.metadata;
    m.SetFloat32(a_ + "rope.freq_base", static_cast<float>(rope.theta));
    if (rope.type == "default") return Status::Ok();
    if (rope.type == "linear") {
      m.SetString(a_ + "rope.scaling.type", "linear");
      m.SetFloat32(a_ + "rope.scaling.factor", static_cast<float>(rope.factor));
      return Status::Ok();
    }
    if (rope.type == "llama3" && arch_.family == Family::kLlama) {
      t_.computed_tensors.emplace_back("rope_freqs.weight", Llama3FrequencyFactors(rope, head_dim_));
      return Status::Ok();
    }
    if ((rope.type == "longrope" || rope.type == "su") && arch_.family == Family::kPhi3) return LongRope(rope);
    return UnimplementedError(fmt::format("{}: RoPE type '{}' is not supported for {}", c_.where(), rope.type, arch_.hf));
  }

  // Phi-3's LongRoPE: per-pair factors for short and long contexts, and the
  // attention factor transformers computes when the config gives none.
  Status LongRope(const RopeConfig& rope) {
    const size_t pairs = static_cast<size_t>(head_dim_ / 2);
    if (rope.short_factor.size() != pairs || rope.long_factor.size() != pairs) {
      return InvalidArgumentError(fmt::format("{}: LongRoPE needs {} short and long factors (has {} and {})",
                                              c_.where(), pairs, rope.short_factor.size(), rope.long_factor.size()));
    }
    const int64_t original = rope.original_max_position_embeddings.value_or(max_position_);
    const double scale = static_cast<double>(max_position_) / static_cast<double>(original);
    const double attn_factor =
        rope.attention_factor.value_or(scale <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(scale) / std::log(original)));
    auto& m = t_.metadata;
    m.SetString(a_ + "rope.scaling.type", "longrope");
    m.SetFloat32(a_ + "rope.scaling.attn_factor", static_cast<float>(attn_factor));
    m.SetUint32(a_ + "rope.scaling.original_context_length", static_cast<uint32_t>(original));
    const auto as_float = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
    t_.computed_tensors.emplace_back("rope_factors_long.weight", as_float(rope.long_factor));
    t_.computed_tensors.emplace_back("rope_factors_short.weight", as_float(rope.short_factor));
    return Status::Ok();
  }

  // The expert count is num_local_experts in Mixtral's configs and in
  // transformers 5's Qwen3-MoE, num_experts in Qwen's own.
  Status Experts() {
    const std::string count_key = c_.Has("num_local_experts") ? "num_local_experts" : "num_experts";
    PAGODA_ASSIGN_OR_RETURN(int64_t experts, c_.PositiveInt(count_key));
    PAGODA_ASSIGN_OR_RETURN(int64_t used, c_.PositiveInt("num_experts_per_tok"));
    t_.metadata.SetUint32(a_ + "expert_count", static_cast<uint32_t>(experts));
    t_.metadata.SetUint32(a_ + "expert_used_count", static_cast<uint32_t>(used));
    return Status::Ok();
  }

  Status Llama() {
    PAGODA_RETURN_IF_ERROR(Require(c_, "attention_bias", false, false));
    PAGODA_RETURN_IF_ERROR(Rope(10000.0));
    if (arch_.family != Family::kLlama && c_.Has("sliding_window")) {
      PAGODA_RETURN_IF_ERROR(SetPositive("attention.sliding_window", "sliding_window"));
    }
    if (arch_.family == Family::kMixtral) return Experts();
    return Status::Ok();
  }

  Status Qwen() {
    const bool qwen2 = arch_.family == Family::kQwen2 || arch_.family == Family::kQwen2Moe;
    // Qwen2 always has Q/K/V biases; Qwen3 has none unless attention_bias says so.
    if (!qwen2) PAGODA_RETURN_IF_ERROR(Require(c_, "attention_bias", false, false));
    PAGODA_RETURN_IF_ERROR(Require(c_, "use_sliding_window", false, false));
    PAGODA_RETURN_IF_ERROR(Rope(10000.0));
    if (arch_.family != Family::kQwen2Moe && arch_.family != Family::kQwen3Moe) return Status::Ok();
    PAGODA_RETURN_IF_ERROR(Experts());
    PAGODA_RETURN_IF_ERROR(SetPositive("expert_feed_forward_length", "moe_intermediate_size"));
    if (qwen2) PAGODA_RETURN_IF_ERROR(SetPositive("expert_shared_feed_forward_length", "shared_expert_intermediate_size"));
    // Qwen2-MoE keeps the chosen experts' probabilities; Qwen3-MoE renormalizes them.
    PAGODA_RETURN_IF_ERROR(Require(c_, "norm_topk_prob", !qwen2, !qwen2));
    PAGODA_ASSIGN_OR_RETURN(int64_t step, c_.PositiveInt("decoder_sparse_step", 1));
    if (step != 1) return UnimplementedError(fmt::format("{} = {} is not supported (every layer must be sparse)", c_.Name("decoder_sparse_step"), step));
    if (c_.Has("mlp_only_layers")) {
      PAGODA_ASSIGN_OR_RETURN(std::vector<double> dense, c_.Numbers("mlp_only_layers"));
      if (!dense.empty()) return UnimplementedError(c_.Name("mlp_only_layers") + " is not supported (every layer must be sparse)");
    }
    return Status::Ok();
  }

  // Gemma's query scale is 1/sqrt(query_pre_attn_scalar). GGUF does not record
  // it and the gemma architecture file derives it as llama.cpp does; refuse a
  // config whose scalar differs from that.
  Status QueryScalar(int64_t layers_27b) {
    PAGODA_ASSIGN_OR_RETURN(double scalar, c_.Number("query_pre_attn_scalar", static_cast<double>(head_dim_)));
    const double derived = static_cast<double>(layers_ == layers_27b ? hidden_ / heads_ : head_dim_);
    if (scalar != derived) {
      return UnimplementedError(fmt::format("{} = {} is not supported (Pagoda uses {} for {} layers)",
                                            c_.Name("query_pre_attn_scalar"), scalar, derived, layers_));
    }
    return Status::Ok();
  }

  Status SoftCap(const std::string& key, const std::string& gguf_key) {
    PAGODA_ASSIGN_OR_RETURN(double cap, c_.Number(key, 0.0));
    t_.metadata.SetFloat32(a_ + gguf_key, static_cast<float>(cap));
    return Status::Ok();
  }

  // The period of local:global layers: layer_types when the config lists
  // them (every period all local but the last), else sliding_window_pattern.
  StatusOr<int64_t> SlidingPattern(int64_t fallback) {
    PAGODA_ASSIGN_OR_RETURN(int64_t pattern, c_.PositiveInt("sliding_window_pattern", fallback));
    if (!c_.Has("layer_types")) return pattern;
    PAGODA_ASSIGN_OR_RETURN(std::vector<std::string> types, c_.Strings("layer_types"));
    const auto full = std::find(types.begin(), types.end(), "full_attention");
    if (full != types.end()) pattern = (full - types.begin()) + 1;
    for (size_t i = 0; i < types.size(); ++i) {
      const bool local = static_cast<int64_t>(i) % pattern < pattern - 1;
      if (types[i] != (local ? "sliding_attention" : "full_attention") || types.size() != static_cast<size_t>(layers_)) {
        return UnimplementedError(fmt::format("{} [{}] is not supported (needs {} sliding layers per full one)",
                                              c_.Name("layer_types"), fmt::join(types, ", "), pattern - 1));
      }
    }
    return pattern;
  }

  Status Gemma2() {
    PAGODA_RETURN_IF_ERROR(Require(c_, "attention_bias", false, false));
    PAGODA_RETURN_IF_ERROR(Rope(10000.0));
    PAGODA_RETURN_IF_ERROR(QueryScalar(46));
    PAGODA_ASSIGN_OR_RETURN(int64_t window, c_.PositiveInt("sliding_window", 4096));
    t_.metadata.SetUint32(a_ + "attention.sliding_window", static_cast<uint32_t>(window));
    PAGODA_ASSIGN_OR_RETURN(int64_t pattern, SlidingPattern(2));
    if (pattern != 2) return UnimplementedError(c_.Name("layer_types") + ": Gemma 2 alternates local and global layers");
    PAGODA_RETURN_IF_ERROR(SoftCap("attn_logit_softcapping", "attn_logit_softcapping"));
    return SoftCap("final_logit_softcapping", "final_logit_softcapping");
  }

  Status Gemma3() {
    PAGODA_RETURN_IF_ERROR(Require(c_, "attention_bias", false, false));
    if (c_.Has("attn_logit_softcapping")) {
      return UnimplementedError(c_.Name("attn_logit_softcapping") + " is not supported for Gemma 3");
    }
    PAGODA_RETURN_IF_ERROR(QueryScalar(62));
    const bool per_type = c_.Has("rope_parameters") && !c_.Has("rope_local_base_freq");
    PAGODA_RETURN_IF_ERROR(Rope(1000000.0, per_type ? std::optional<std::string>("full_attention") : std::nullopt));
    double local_theta = 10000.0;
    if (per_type) {
      PAGODA_ASSIGN_OR_RETURN(const RopeConfig local, ReadRopeConfig(c_, 10000.0, "sliding_attention"));
      if (local.type != "default") {
        return UnimplementedError(fmt::format("{}: RoPE type '{}' on sliding layers is not supported", c_.where(), local.type));
      }
      local_theta = local.theta;
    } else {
      PAGODA_ASSIGN_OR_RETURN(local_theta, c_.Number("rope_local_base_freq", 10000.0));
    }
    t_.metadata.SetFloat32(a_ + "rope.freq_base_swa", static_cast<float>(local_theta));
    PAGODA_ASSIGN_OR_RETURN(int64_t window, c_.PositiveInt("sliding_window", 4096));
    t_.metadata.SetUint32(a_ + "attention.sliding_window", static_cast<uint32_t>(window));
    PAGODA_ASSIGN_OR_RETURN(int64_t pattern, SlidingPattern(6));
    t_.metadata.SetUint32(a_ + "attention.sliding_window_pattern", static_cast<uint32_t>(pattern));
    return SoftCap("final_logit_softcapping", "final_logit_softcapping");
  }

  Status Phi3() {
    PAGODA_RETURN_IF_ERROR(Rope(10000.0));
    // Recorded as llama.cpp's converter records it; the phi3 architecture
    // file explains why neither llama.cpp nor Pagoda applies it.
    if (c_.Has("sliding_window")) PAGODA_RETURN_IF_ERROR(SetPositive("attention.sliding_window", "sliding_window"));
    return Status::Ok();
  }

  const ConfigReader& c_;
  const Architecture& arch_;
  ConfigTranslation& t_;
  const std::string a_;
  int64_t hidden_ = 0, layers_ = 0, heads_ = 0, head_dim_ = 0, max_position_ = 0;
};

}  // namespace

std::vector<std::string> SupportedHfArchitectures() {
  std::vector<std::string> names;
  for (const Architecture& a : kArchitectures) names.emplace_back(a.hf);
  return names;
}

StatusOr<ConfigTranslation> TranslateConfig(const json& config, const std::string& name) {
  const ConfigReader c(config, "config.json");
  PAGODA_ASSIGN_OR_RETURN(std::vector<std::string> names, c.Strings("architectures"));
  if (names.size() != 1) {
    return InvalidArgumentError(fmt::format("{} must name one architecture, names [{}]", c.Name("architectures"),
                                            fmt::join(names, ", ")));
  }
  const auto* arch = std::find_if(std::begin(kArchitectures), std::end(kArchitectures),
                                  [&](const Architecture& a) { return a.hf == names[0]; });
  if (arch == std::end(kArchitectures)) {
    return UnimplementedError(fmt::format("model architecture '{}' is not supported (supported: {})", names[0],
                                          fmt::join(SupportedHfArchitectures(), ", ")));
  }
  ConfigTranslation t;
  Translator translator(c, *arch, t);
  PAGODA_RETURN_IF_ERROR(translator.Run(name));
  return t;
}

}  // namespace pagoda::hf
