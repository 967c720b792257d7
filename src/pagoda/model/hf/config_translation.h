// config.json -> GGUF metadata, per architecture, as llama.cpp's
// convert_hf_to_gguf.py writes it, so that one architecture file reads both
// formats. Features an architecture file does not implement are refused by
// the config key that asks for them, never ignored.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pagoda/base/status.h"
#include "pagoda/formats/gguf/metadata_builder.h"

namespace pagoda::hf {

// How the checkpoint's tensors are named and stored (tensor_names.h).
enum class TensorFamily {
  kLlama,  // Llama, Mistral, Qwen, Phi-3 and their MoE forms
  kGemma,  // sandwich norms; norm weights stored as w for (1 + w)
};

struct ConfigTranslation {
  std::string hf_architecture;  // "LlamaForCausalLM"
  std::string gguf_architecture;  // "llama"
  gguf::MetadataBuilder metadata;
  // Tensors the converter computes from the config (rope_freqs.weight,
  // rope_factors_long.weight, ...): GGUF name -> F32 vector.
  std::vector<std::pair<std::string, std::vector<float>>> computed_tensors;
  TensorFamily family = TensorFamily::kLlama;
  bool tied_embeddings = false;
};

// `name` is general.name (the directory's name).
StatusOr<ConfigTranslation> TranslateConfig(const nlohmann::json& config, const std::string& name);

// The architectures (config.json "architectures") Pagoda reads, sorted.
std::vector<std::string> SupportedHfArchitectures();

}  // namespace pagoda::hf
