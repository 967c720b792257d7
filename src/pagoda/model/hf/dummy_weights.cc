#include "pagoda/model/hf/dummy_weights.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>

#include "pagoda/model/hf/config_reader.h"
#include "pagoda/tensor/half.h"

namespace pagoda::hf {
namespace {

constexpr const char* kArchitectures[] = {"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM",
                                          "Qwen3ForCausalLM"};

bool IsNormOrBias(const std::string& name) {
  return name.ends_with("norm.weight") || name.ends_with(".bias");
}

safetensors::Dtype SafetensorsDtype(DType dtype) {
  switch (dtype) {
    case DType::kF16: return safetensors::Dtype::kF16;
    case DType::kBF16: return safetensors::Dtype::kBF16;
    default: return safetensors::Dtype::kF32;
  }
}

}  // namespace

StatusOr<std::vector<DummyTensorShape>> DummyTensorShapes(const nlohmann::json& config) {
  const ConfigReader c(config, "config.json");
  PAGODA_ASSIGN_OR_RETURN(const std::vector<std::string> architectures, c.Strings("architectures"));
  const std::string arch = architectures.empty() ? "" : architectures.front();
  if (std::find(std::begin(kArchitectures), std::end(kArchitectures), arch) == std::end(kArchitectures)) {
    return UnimplementedError(fmt::format(
        "--load-format dummy builds {}; config.json's architecture '{}' is not among them",
        fmt::join(kArchitectures, ", "), arch));
  }
  PAGODA_ASSIGN_OR_RETURN(const int64_t hidden, c.PositiveInt("hidden_size"));
  PAGODA_ASSIGN_OR_RETURN(const int64_t ff, c.PositiveInt("intermediate_size"));
  PAGODA_ASSIGN_OR_RETURN(const int64_t layers, c.PositiveInt("num_hidden_layers"));
  PAGODA_ASSIGN_OR_RETURN(const int64_t heads, c.PositiveInt("num_attention_heads"));
  PAGODA_ASSIGN_OR_RETURN(const int64_t kv_heads, c.PositiveInt("num_key_value_heads", heads));
  PAGODA_ASSIGN_OR_RETURN(const int64_t head_dim, c.PositiveInt("head_dim", hidden / heads));
  PAGODA_ASSIGN_OR_RETURN(const int64_t vocab, c.PositiveInt("vocab_size"));
  PAGODA_ASSIGN_OR_RETURN(const bool tied, c.Bool("tie_word_embeddings", false));
  const bool qwen2 = arch == "Qwen2ForCausalLM";
  const bool qwen3 = arch == "Qwen3ForCausalLM";
  PAGODA_ASSIGN_OR_RETURN(const bool attention_bias, c.Bool("attention_bias", qwen2));

  std::vector<DummyTensorShape> tensors = {{"model.embed_tokens.weight", {vocab, hidden}},
                                           {"model.norm.weight", {hidden}}};
  if (!tied) tensors.push_back({"lm_head.weight", {vocab, hidden}});
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    tensors.push_back({p + "input_layernorm.weight", {hidden}});
    tensors.push_back({p + "post_attention_layernorm.weight", {hidden}});
    tensors.push_back({p + "self_attn.q_proj.weight", {heads * head_dim, hidden}});
    tensors.push_back({p + "self_attn.k_proj.weight", {kv_heads * head_dim, hidden}});
    tensors.push_back({p + "self_attn.v_proj.weight", {kv_heads * head_dim, hidden}});
    tensors.push_back({p + "self_attn.o_proj.weight", {hidden, heads * head_dim}});
    if (attention_bias) {
      tensors.push_back({p + "self_attn.q_proj.bias", {heads * head_dim}});
      tensors.push_back({p + "self_attn.k_proj.bias", {kv_heads * head_dim}});
      tensors.push_back({p + "self_attn.v_proj.bias", {kv_heads * head_dim}});
    }
    if (qwen3) {
      tensors.push_back({p + "self_attn.q_norm.weight", {head_dim}});
      tensors.push_back({p + "self_attn.k_norm.weight", {head_dim}});
    }
    tensors.push_back({p + "mlp.gate_proj.weight", {ff, hidden}});
    tensors.push_back({p + "mlp.up_proj.weight", {ff, hidden}});
    tensors.push_back({p + "mlp.down_proj.weight", {hidden, ff}});
  }
  return tensors;
}

safetensors::SafetensorsTensor DummyTensor(const DummyTensorShape& t, DType dtype, std::vector<uint8_t>& bytes) {
  int64_t count = 1;
  for (int64_t d : t.shape) count *= d;
  const size_t width = dtype == DType::kF32 ? 4 : 2;
  bytes.assign(static_cast<size_t>(count) * width, 0);
  auto store = [&](int64_t i, float value) {
    if (dtype == DType::kF32) {
      std::memcpy(bytes.data() + i * 4, &value, 4);
    } else {
      const uint16_t h = dtype == DType::kBF16 ? F32ToBF16(value) : F32ToF16(value);
      std::memcpy(bytes.data() + i * 2, &h, 2);
    }
  };
  if (t.name.ends_with("norm.weight")) {
    for (int64_t i = 0; i < count; ++i) store(i, 1.0f);
  } else if (!IsNormOrBias(t.name)) {
    // Seeded by the name (FNV-1a: std::hash may differ between libraries),
    // and drawn from 32-bit words with a fixed conversion.
    uint32_t seed = 2166136261u;
    for (const char ch : t.name) seed = (seed ^ static_cast<uint8_t>(ch)) * 16777619u;
    std::mt19937 rng(seed);
    const float bound = 1.0f / std::sqrt(static_cast<float>(t.shape.back()));
    for (int64_t i = 0; i < count; ++i) {
      const float unit = static_cast<float>(rng() >> 8) * (1.0f / 16777216.0f);  // [0, 1)
      store(i, (2.0f * unit - 1.0f) * bound);
    }
  }
  safetensors::SafetensorsTensor tensor;
  tensor.name = t.name;
  tensor.dtype = SafetensorsDtype(dtype);
  tensor.shape = t.shape;
  tensor.data = std::span<const uint8_t>(bytes.data(), bytes.size());
  return tensor;
}

}  // namespace pagoda::hf
