// Gemma 2 (Gemma Team 2024) and Gemma 3 (2025). Both wrap each sublayer in
// RMSNorms on both sides ("sandwich" norms), use a GeGLU MLP (GELU, tanh
// approximation), NeoX-style RoPE, and scale the embeddings by sqrt(hidden):
//
//   h = x + RMSNorm_post(W_o Attention(RMSNorm(x)))
//   y = h + RMSNorm_post(W_down (gelu(W_gate m) * W_up m))     m = RMSNorm(h)
//
// (GGUF stores Gemma's norm weights with the 1 of its (1 + w) already added.)
// Layers alternate between local attention through a sliding window and
// global attention: in each period of attention.sliding_window_pattern
// layers, all but the last are local (Gemma 2: 1 local : 1 global; Gemma 3:
// 5 : 1).
//
// Gemma 2 soft-caps the attention scores (50 * tanh(s / 50)) and the final
// logits (30 * tanh(l / 30)). Gemma 3 drops the attention cap for QK-norm and
// gives local layers their own RoPE base (rope.freq_base_swa, 10000 by
// default) without the global layers' linear position scaling.
//
// Queries are scaled by 1/sqrt(head_dim), except in the 27B models, whose
// query_pre_attn_scalar is hidden / heads; GGUF does not record it, so the
// layer count tells, as in llama.cpp.
#include <fmt/format.h>

#include <cmath>

#include "pagoda/model/architectures/architectures.h"
#include "pagoda/model/hparams.h"
#include "pagoda/model/layers/decoder.h"
#include "pagoda/model/layers/load.h"

namespace pagoda {
namespace {

enum class GemmaVersion { k2, k3 };

struct GemmaSettings {
  int64_t window = 0;
  int64_t pattern = 0;
  float local_rope_base = 10000.0f;
  float attn_softcap = 0.0f;
  float final_softcap = 0.0f;
  float attention_scale = 1.0f;
};

StatusOr<GemmaSettings> ReadGemmaSettings(const Hparams& h, const ModelConfig& c, GemmaVersion v) {
  GemmaSettings s;
  const bool gemma2 = v == GemmaVersion::k2;
  PAGODA_ASSIGN_OR_RETURN(s.window, h.NonNegativeInt("attention.sliding_window", gemma2 ? 4096 : 0));
  PAGODA_ASSIGN_OR_RETURN(s.pattern, h.PositiveInt("attention.sliding_window_pattern", gemma2 ? 2 : 6));
  PAGODA_ASSIGN_OR_RETURN(s.local_rope_base, h.Float("rope.freq_base_swa", gemma2 ? c.rope_freq_base : 10000.0f));
  if (gemma2) {
    PAGODA_ASSIGN_OR_RETURN(s.attn_softcap, h.Float("attn_logit_softcapping", 50.0f));
    PAGODA_ASSIGN_OR_RETURN(s.final_softcap, h.Float("final_logit_softcapping", 30.0f));
  } else {
    PAGODA_ASSIGN_OR_RETURN(s.final_softcap, h.Float("final_logit_softcapping", 0.0f));
  }
  if (s.attn_softcap < 0.0f || s.final_softcap < 0.0f) return InvalidArgumentError("soft-capping must not be negative");
  const bool is_27b = c.num_layers == (gemma2 ? 46 : 62);
  const float query_scalar = is_27b ? static_cast<float>(c.hidden_size / c.num_heads) : static_cast<float>(c.head_dim);
  s.attention_scale = 1.0f / std::sqrt(query_scalar);
  return s;
}

StatusOr<std::unique_ptr<Model>> LoadGemma(std::shared_ptr<const gguf::GgufFile> file, ModelConfig c, GemmaVersion v) {
  if (c.rope_scaling == "longrope") {
    return UnimplementedError(fmt::format("{}: RoPE scaling 'longrope' is not supported", c.architecture));
  }
  const Hparams h(*file, c.architecture);
  PAGODA_ASSIGN_OR_RETURN(const GemmaSettings g, ReadGemmaSettings(h, c, v));
  const WeightLoader w(*file);
  layers::DecoderSpec spec{.shape = {c.num_heads, c.num_kv_heads, c.head_dim},
                           .embedding_scale = std::sqrt(static_cast<float>(c.hidden_size)),
                           .final_softcap = g.final_softcap};
  layers::DecoderHead head;
  PAGODA_RETURN_IF_ERROR(head.Load(w, c));

  std::vector<layers::DecoderLayer> blocks;
  for (int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = fmt::format("blk.{}.", i);
    const bool local = g.window > 0 && i % g.pattern < g.pattern - 1;
    c.layer_sliding_window[i] = local ? g.window : 0;
    layers::DecoderLayer l;
    l.settings.rope = {.style = kernels::RopeStyle::kNeox,
                       .freq_base = local ? g.local_rope_base : c.rope_freq_base,
                       .freq_scale = local ? 1.0f : c.rope_freq_scale};
    l.settings.attention = {.scale = g.attention_scale, .sliding_window = c.layer_sliding_window[i],
                            .softcap = g.attn_softcap};
    l.settings.qk_norm_eps = c.rms_norm_eps;
    l.activation = layers::Activation::kGelu;
    PAGODA_ASSIGN_OR_RETURN(l.attn_norm, w.F32Vector(p + "attn_norm.weight", c.hidden_size));
    PAGODA_ASSIGN_OR_RETURN(l.attn, layers::LoadAttention(w, p, c.hidden_size, spec.shape,
                                                          {.qk_norm = v == GemmaVersion::k3}));
    PAGODA_ASSIGN_OR_RETURN(l.attn_post_norm, w.F32Vector(p + "post_attention_norm.weight", c.hidden_size));
    PAGODA_ASSIGN_OR_RETURN(l.ffn_norm, w.F32Vector(p + "ffn_norm.weight", c.hidden_size));
    PAGODA_ASSIGN_OR_RETURN(l.mlp, layers::LoadMlp(w, p, c.hidden_size, c.intermediate_size));
    PAGODA_ASSIGN_OR_RETURN(l.ffn_post_norm, w.F32Vector(p + "post_ffw_norm.weight", c.hidden_size));
    blocks.push_back(std::move(l));
  }
  return std::unique_ptr<Model>(
      std::make_unique<layers::Decoder>(std::move(file), std::move(c), spec, std::move(head), std::move(blocks)));
}

}  // namespace

StatusOr<std::unique_ptr<Model>> LoadGemma2(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config) {
  return LoadGemma(std::move(file), std::move(config), GemmaVersion::k2);
}
StatusOr<std::unique_ptr<Model>> LoadGemma3(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config) {
  return LoadGemma(std::move(file), std::move(config), GemmaVersion::k3);
}

}  // namespace pagoda
