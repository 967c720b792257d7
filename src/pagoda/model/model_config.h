// Hyper-parameters of a decoder-only transformer, read from checkpoint metadata.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda::gguf {
class GgufFile;
}

namespace pagoda {

// Set (true) in the GGUF view of a Hugging Face checkpoint (model/hf): its
// Llama W_q and W_k rows are as trained, not permuted as GGUF's converter
// permutes them, so RoPE must turn the halves of each head (NeoX style).
inline constexpr std::string_view kHfCheckpointKey = "pagoda.hf_checkpoint";

struct ModelConfig {
  std::string architecture;  // general.architecture: "llama", "qwen2", "gemma2", ...
  std::string name;          // general.name, for logs
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  // Per head, for queries, keys and values alike: attention.key_length, or
  // hidden_size / num_heads where the file does not say.
  int64_t head_dim = 0;
  int64_t intermediate_size = 0;
  int64_t max_context = 0;  // the context length the model was trained for
  float rope_freq_base = 10000.0f;
  // rope.scaling.type: "none", "linear" (positions scaled by
  // rope_freq_scale) or "longrope" (Phi-3's factors).
  std::string rope_scaling = "none";
  float rope_freq_scale = 1.0f;
  float rms_norm_eps = 1e-5f;
  // The sliding window of each layer, [num_layers]: 0 where the layer attends
  // to the whole context. Set by the architecture (Gemma alternates local and
  // global layers; Mistral-style files window every layer).
  std::vector<int64_t> layer_sliding_window;
  // Read from a Hugging Face checkpoint (kHfCheckpointKey) rather than a GGUF file.
  bool hf_checkpoint = false;

  int64_t q_dim() const { return num_heads * head_dim; }
  int64_t kv_dim() const { return num_kv_heads * head_dim; }
  // Whether some layer attends through a sliding window.
  bool HasSlidingWindow() const;
};

// Reads and validates the `<arch>.*` keys every architecture shares. The
// architecture must be one Pagoda implements; its own loader reads the rest.
StatusOr<ModelConfig> ModelConfigFromGguf(const gguf::GgufFile& file);

}  // namespace pagoda
