// Opens a Hugging Face model directory (config.json and safetensors weights)
// as a GGUF view: the hyper-parameters under the keys llama.cpp's converter
// writes and the tensors under GGUF's names and shapes, so that every
// architecture file serves both formats (docs/architecture.md, "Hugging Face
// checkpoints"). Matrices stay in place in the mapping when they already have
// the weight dtype asked for and are converted once at load otherwise; norm
// weights and biases become F32, as GGUF stores them. Quantized layers
// (GPTQ, compressed-tensors) are repacked into GGML blocks
// (quantized_weights.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "pagoda/base/status.h"
#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda::hf {

// vLLM's --dtype. auto keeps a 16-bit checkpoint's type and stores a float32
// checkpoint in bfloat16, as vLLM's CPU backend does. Activations are float32
// whatever the weights.
enum class WeightDtype { kAuto, kBFloat16, kFloat16, kFloat32 };

// vLLM's spellings: auto, bfloat16, float16 or half, float32 or float.
StatusOr<WeightDtype> ParseWeightDtype(std::string_view name);

struct HfOpenOptions {
  WeightDtype dtype = WeightDtype::kAuto;
  // vLLM's --quantization: empty takes what config.json's
  // quantization_config says; otherwise it must name that method.
  std::string quantization = {};
  // vLLM's --load-format dummy: random weights of config.json's shapes
  // (dummy_weights.h) instead of the directory's safetensors, which need not
  // exist.
  bool random_weights = false;
};

struct HfCheckpoint {
  std::shared_ptr<const gguf::GgufFile> file;
  // For the start-up log: the architecture, the weights' dtype, and what was
  // converted at load ("Qwen2ForCausalLM, BF16 matrices (as stored)").
  std::string description;
};

// Whether `path` is a directory holding config.json.
bool IsHfDirectory(const std::string& path);

StatusOr<HfCheckpoint> OpenHfCheckpoint(const std::string& directory, const HfOpenOptions& options = {});

}  // namespace pagoda::hf
