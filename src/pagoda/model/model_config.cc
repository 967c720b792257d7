#include "pagoda/model/model_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/model/architectures/architectures.h"
#include "pagoda/model/hparams.h"

namespace pagoda {

bool ModelConfig::HasSlidingWindow() const {
  return std::any_of(layer_sliding_window.begin(), layer_sliding_window.end(), [](int64_t w) { return w > 0; });
}

namespace {

Status ReadAttentionShape(const Hparams& h, ModelConfig& c) {
  PAGODA_ASSIGN_OR_RETURN(c.num_heads, h.PositiveInt("attention.head_count"));
  PAGODA_ASSIGN_OR_RETURN(c.num_kv_heads, h.PositiveInt("attention.head_count_kv", c.num_heads));
  if (c.num_heads % c.num_kv_heads != 0) {
    return InvalidArgumentError(
        fmt::format("inconsistent attention shape: {} heads, {} kv heads", c.num_heads, c.num_kv_heads));
  }
  if (h.Has("attention.key_length")) {
    PAGODA_ASSIGN_OR_RETURN(c.head_dim, h.PositiveInt("attention.key_length"));
  } else if (c.hidden_size % c.num_heads == 0) {
    c.head_dim = c.hidden_size / c.num_heads;
  } else {
    return InvalidArgumentError(fmt::format("inconsistent attention shape: {} dims, {} heads and no key_length",
                                            c.hidden_size, c.num_heads));
  }
  PAGODA_ASSIGN_OR_RETURN(int64_t value_length, h.PositiveInt("attention.value_length", c.head_dim));
  if (value_length != c.head_dim) {
    return UnimplementedError(
        fmt::format("key length {} differs from value length {}; not supported", c.head_dim, value_length));
  }
  if (c.head_dim % 2 != 0) return InvalidArgumentError("head dimension must be even for RoPE");
  PAGODA_ASSIGN_OR_RETURN(int64_t rope_dims, h.PositiveInt("rope.dimension_count", c.head_dim));
  if (rope_dims != c.head_dim) {
    return UnimplementedError(fmt::format("partial RoPE ({} of {} dims) is not supported", rope_dims, c.head_dim));
  }
  return Status::Ok();
}

Status ReadRope(const Hparams& h, ModelConfig& c) {
  PAGODA_ASSIGN_OR_RETURN(c.rope_freq_base, h.Float("rope.freq_base", 10000.0f));
  PAGODA_ASSIGN_OR_RETURN(c.rope_scaling, h.String("rope.scaling.type", "none"));
  if (c.rope_scaling == "linear") {
    PAGODA_ASSIGN_OR_RETURN(float factor, h.Float("rope.scaling.factor", 1.0f));
    if (factor <= 0.0f) return InvalidArgumentError("rope.scaling.factor must be positive");
    c.rope_freq_scale = 1.0f / factor;
  } else if (c.rope_scaling != "none" && c.rope_scaling != "longrope") {
    return UnimplementedError(
        fmt::format("RoPE scaling '{}' is not supported (supported: none, linear, longrope)", c.rope_scaling));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ModelConfig> ModelConfigFromGguf(const gguf::GgufFile& file) {
  ModelConfig c;
  PAGODA_ASSIGN_OR_RETURN(c.architecture, file.GetString("general.architecture"));
  if (FindArchitecture(c.architecture) == nullptr) {
    return UnimplementedError(fmt::format("model architecture '{}' is not supported (supported: {})",
                                          c.architecture, fmt::join(ArchitectureNames(), ", ")));
  }
  if (auto name = file.GetString("general.name"); name.ok()) c.name = *name;
  if (file.Find(kHfCheckpointKey) != nullptr) {
    PAGODA_ASSIGN_OR_RETURN(c.hf_checkpoint, file.GetBool(kHfCheckpointKey));
  }
  const Hparams h(file, c.architecture);
  PAGODA_ASSIGN_OR_RETURN(c.hidden_size, h.PositiveInt("embedding_length"));
  PAGODA_ASSIGN_OR_RETURN(c.num_layers, h.PositiveInt("block_count"));
  PAGODA_ASSIGN_OR_RETURN(c.intermediate_size, h.PositiveInt("feed_forward_length"));
  PAGODA_ASSIGN_OR_RETURN(c.max_context, h.PositiveInt("context_length"));
  PAGODA_RETURN_IF_ERROR(ReadAttentionShape(h, c));
  PAGODA_RETURN_IF_ERROR(ReadRope(h, c));
  PAGODA_ASSIGN_OR_RETURN(c.rms_norm_eps, h.Float("attention.layer_norm_rms_epsilon"));
  c.layer_sliding_window.assign(static_cast<size_t>(c.num_layers), 0);
  // The embedding table fixes the vocabulary size; `<arch>.vocab_size` is optional in GGUF.
  const gguf::TensorInfo* embd = file.FindTensor("token_embd.weight");
  if (embd == nullptr || embd->shape.size() != 2) {
    return InvalidArgumentError("tensor 'token_embd.weight' is missing or not 2-D");
  }
  c.vocab_size = embd->shape[1];
  return c;
}

}  // namespace pagoda
