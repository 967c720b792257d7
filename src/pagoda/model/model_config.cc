#include "pagoda/model/model_config.h"

#include <fmt/format.h>

#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda {
namespace {

StatusOr<int64_t> PositiveInt(const gguf::GgufFile& file, const std::string& key) {
  PAGODA_ASSIGN_OR_RETURN(int64_t v, file.GetInt(key));
  if (v <= 0 || v > (int64_t{1} << 31)) {
    return InvalidArgumentError(fmt::format("metadata '{}' = {} is out of range", key, v));
  }
  return v;
}

}  // namespace

StatusOr<ModelConfig> ModelConfigFromGguf(const gguf::GgufFile& file) {
  ModelConfig c;
  PAGODA_ASSIGN_OR_RETURN(c.architecture, file.GetString("general.architecture"));
  if (c.architecture != "llama") {
    return UnimplementedError(fmt::format("model architecture '{}' is not supported (supported: llama)",
                                          c.architecture));
  }
  if (auto name = file.GetString("general.name"); name.ok()) c.name = *name;
  const std::string a = c.architecture + ".";
  PAGODA_ASSIGN_OR_RETURN(c.hidden_size, PositiveInt(file, a + "embedding_length"));
  PAGODA_ASSIGN_OR_RETURN(c.num_layers, PositiveInt(file, a + "block_count"));
  PAGODA_ASSIGN_OR_RETURN(c.num_heads, PositiveInt(file, a + "attention.head_count"));
  PAGODA_ASSIGN_OR_RETURN(c.intermediate_size, PositiveInt(file, a + "feed_forward_length"));
  PAGODA_ASSIGN_OR_RETURN(c.max_context, PositiveInt(file, a + "context_length"));
  c.num_kv_heads = c.num_heads;
  if (file.Find(a + "attention.head_count_kv") != nullptr) {
    PAGODA_ASSIGN_OR_RETURN(c.num_kv_heads, PositiveInt(file, a + "attention.head_count_kv"));
  }
  if (c.hidden_size % c.num_heads != 0 || c.num_heads % c.num_kv_heads != 0) {
    return InvalidArgumentError(fmt::format("inconsistent attention shape: {} dims, {} heads, {} kv heads",
                                            c.hidden_size, c.num_heads, c.num_kv_heads));
  }
  c.head_dim = c.hidden_size / c.num_heads;
  if (file.Find(a + "rope.dimension_count") != nullptr) {
    PAGODA_ASSIGN_OR_RETURN(int64_t rope_dims, PositiveInt(file, a + "rope.dimension_count"));
    if (rope_dims != c.head_dim) {
      return UnimplementedError(fmt::format("partial RoPE ({} of {} dims) is not supported", rope_dims, c.head_dim));
    }
  }
  if (c.head_dim % 2 != 0) return InvalidArgumentError("head dimension must be even for RoPE");
  if (file.Find(a + "rope.freq_base") != nullptr) {
    PAGODA_ASSIGN_OR_RETURN(double base, file.GetFloat(a + "rope.freq_base"));
    c.rope_freq_base = static_cast<float>(base);
  }
  if (file.Find(a + "rope.scaling.type") != nullptr) {
    PAGODA_ASSIGN_OR_RETURN(std::string scaling, file.GetString(a + "rope.scaling.type"));
    if (scaling != "none") return UnimplementedError(fmt::format("RoPE scaling '{}' is not supported yet", scaling));
  }
  PAGODA_ASSIGN_OR_RETURN(double eps, file.GetFloat(a + "attention.layer_norm_rms_epsilon"));
  c.rms_norm_eps = static_cast<float>(eps);
  // The embedding table fixes the vocabulary size; `<arch>.vocab_size` is optional in GGUF.
  const gguf::TensorInfo* embd = file.FindTensor("token_embd.weight");
  if (embd == nullptr || embd->shape.size() != 2) {
    return InvalidArgumentError("tensor 'token_embd.weight' is missing or not 2-D");
  }
  c.vocab_size = embd->shape[1];
  return c;
}

}  // namespace pagoda
