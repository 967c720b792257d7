// Hyper-parameters of a decoder-only transformer, read from checkpoint metadata.
#pragma once

#include <cstdint>
#include <string>

#include "pagoda/base/status.h"

namespace pagoda::gguf {
class GgufFile;
}

namespace pagoda {

struct ModelConfig {
  std::string architecture;  // "llama"
  std::string name;          // general.name, for logs
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t intermediate_size = 0;
  int64_t max_context = 0;  // the context length the model was trained for
  float rope_freq_base = 10000.0f;
  float rms_norm_eps = 1e-5f;
};

// Reads and validates the `<arch>.*` keys of a GGUF file.
StatusOr<ModelConfig> ModelConfigFromGguf(const gguf::GgufFile& file);

}  // namespace pagoda
