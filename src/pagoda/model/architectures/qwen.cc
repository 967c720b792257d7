// Qwen2 (Yang et al. 2024; Qwen2.5, DeepSeek-R1's Qwen distills) and Qwen3
// (2025): Llama's pre-norm SwiGLU decoder with NeoX-style RoPE (half-split
// pairs, as their checkpoints are not permuted). Qwen2 adds biases to the
// Q, K and V projections; Qwen3 drops them and instead RMS-normalizes each
// query and key head before RoPE (QK-norm).
//
//   q = RoPE(QkNorm(W_q n + b_q)),  k = RoPE(QkNorm(W_k n + b_k)),  v = W_v n + b_v
//
// Their mixture-of-experts forms (Qwen2-MoE, Qwen3-MoE) replace the MLP with
// routed experts: softmax over the router's logits, the top k experts per
// token. Qwen3-MoE renormalizes the chosen k probabilities; Qwen2-MoE keeps
// them as they are and adds a shared expert gated by sigmoid(w . x).
#include <fmt/format.h>

#include <cmath>

#include "pagoda/model/architectures/architectures.h"
#include "pagoda/model/hparams.h"
#include "pagoda/model/layers/decoder.h"
#include "pagoda/model/layers/load.h"

namespace pagoda {
namespace {

enum class QwenVariant { kQwen2, kQwen3 };

struct QwenOptions {
  QwenVariant variant;
  bool moe;
};

// The expert sizes default as llama.cpp's: feed_forward_length split over the
// chosen experts, and the whole of it for the shared expert.
StatusOr<layers::MoeShape> ReadMoeShape(const Hparams& h, const ModelConfig& c, QwenOptions o) {
  layers::MoeShape m;
  PAGODA_ASSIGN_OR_RETURN(m.num_experts, h.PositiveInt("expert_count"));
  PAGODA_ASSIGN_OR_RETURN(m.experts_per_token, h.PositiveInt("expert_used_count"));
  if (m.experts_per_token > m.num_experts) return InvalidArgumentError("expert_used_count exceeds expert_count");
  PAGODA_ASSIGN_OR_RETURN(m.expert_ff,
                          h.PositiveInt("expert_feed_forward_length", c.intermediate_size / m.experts_per_token));
  if (o.variant == QwenVariant::kQwen2) {
    PAGODA_ASSIGN_OR_RETURN(m.shared_ff, h.PositiveInt("expert_shared_feed_forward_length", c.intermediate_size));
  }
  m.normalize = o.variant == QwenVariant::kQwen3;
  return m;
}

StatusOr<std::unique_ptr<Model>> LoadQwen(std::shared_ptr<const gguf::GgufFile> file, ModelConfig c, QwenOptions o) {
  if (c.rope_scaling == "longrope") {
    return UnimplementedError(fmt::format("{}: RoPE scaling 'longrope' is not supported", c.architecture));
  }
  const Hparams h(*file, c.architecture);
  layers::MoeShape moe;
  if (o.moe) {
    PAGODA_ASSIGN_OR_RETURN(moe, ReadMoeShape(h, c, o));
  }
  const WeightLoader w(*file);
  layers::DecoderSpec spec{.shape = {c.num_heads, c.num_kv_heads, c.head_dim}};
  layers::DecoderHead head;
  PAGODA_RETURN_IF_ERROR(head.Load(w, c));

  layers::AttentionLayer settings;
  settings.rope = {.style = kernels::RopeStyle::kNeox, .freq_base = c.rope_freq_base, .freq_scale = c.rope_freq_scale};
  settings.attention = {.scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim))};
  settings.qk_norm_eps = c.rms_norm_eps;
  const layers::AttentionExtras extras{.qkv_bias = o.variant == QwenVariant::kQwen2,
                                       .qk_norm = o.variant == QwenVariant::kQwen3};

  std::vector<layers::DecoderLayer> blocks;
  for (int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = fmt::format("blk.{}.", i);
    layers::DecoderLayer l;
    l.settings = settings;
    PAGODA_ASSIGN_OR_RETURN(l.attn_norm, w.F32Vector(p + "attn_norm.weight", c.hidden_size));
    PAGODA_ASSIGN_OR_RETURN(l.attn, layers::LoadAttention(w, p, c.hidden_size, spec.shape, extras));
    PAGODA_ASSIGN_OR_RETURN(l.ffn_norm, w.F32Vector(p + "ffn_norm.weight", c.hidden_size));
    if (o.moe) {
      PAGODA_ASSIGN_OR_RETURN(l.moe, layers::LoadMoe(w, p, c.hidden_size, moe));
    } else {
      PAGODA_ASSIGN_OR_RETURN(l.mlp, layers::LoadMlp(w, p, c.hidden_size, c.intermediate_size));
    }
    blocks.push_back(std::move(l));
  }
  return std::unique_ptr<Model>(
      std::make_unique<layers::Decoder>(std::move(file), std::move(c), spec, std::move(head), std::move(blocks)));
}

}  // namespace

StatusOr<std::unique_ptr<Model>> LoadQwen2(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config) {
  return LoadQwen(std::move(file), std::move(config), {QwenVariant::kQwen2, false});
}
StatusOr<std::unique_ptr<Model>> LoadQwen3(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config) {
  return LoadQwen(std::move(file), std::move(config), {QwenVariant::kQwen3, false});
}
StatusOr<std::unique_ptr<Model>> LoadQwen2Moe(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config) {
  return LoadQwen(std::move(file), std::move(config), {QwenVariant::kQwen2, true});
}
StatusOr<std::unique_ptr<Model>> LoadQwen3Moe(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config) {
  return LoadQwen(std::move(file), std::move(config), {QwenVariant::kQwen3, true});
}

}  // namespace pagoda
