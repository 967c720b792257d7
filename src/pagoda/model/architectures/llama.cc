// Llama (Touvron et al. 2023; Llama 3 2024) and the models built on it
// (SmolLM2, TinyLlama, Mistral, DeepSeek-R1's Llama distills): a pre-norm
// decoder with RMSNorm, rotary position embeddings, grouped-query attention
// and a SwiGLU MLP.
//
//   h = x + W_o Attention(RoPE(W_q n), RoPE(W_k n), W_v n)   n = RMSNorm(x)
//   y = h + W_down (silu(W_gate m) * W_up m)                 m = RMSNorm(h)
//
// GGUF's converter permutes W_q and W_k so that RoPE turns adjacent pairs
// (GGML's "normal" style); a Hugging Face checkpoint keeps them as trained,
// and RoPE turns the halves of each head (NeoX style), which is the same map. Llama 3.1 slows RoPE's low frequencies by the
// factors in rope_freqs.weight. Mistral-style files that set
// llama.attention.sliding_window attend through that window in every layer.
// Mixtral (Jiang et al. 2024) is this with a mixture of experts in place of
// the MLP: llama.expert_count experts, the top expert_used_count of them per
// token, weighted by their renormalized router probabilities.
#include <fmt/format.h>

#include <cmath>

#include "pagoda/model/architectures/architectures.h"
#include "pagoda/model/hparams.h"
#include "pagoda/model/layers/decoder.h"
#include "pagoda/model/layers/load.h"

namespace pagoda {

StatusOr<std::unique_ptr<Model>> LoadLlama(std::shared_ptr<const gguf::GgufFile> file, ModelConfig c) {
  if (c.rope_scaling == "longrope") return UnimplementedError("llama: RoPE scaling 'longrope' is not supported");
  const Hparams h(*file, c.architecture);
  PAGODA_ASSIGN_OR_RETURN(int64_t window, h.NonNegativeInt("attention.sliding_window", 0));
  c.layer_sliding_window.assign(c.num_layers, window);
  const WeightLoader w(*file);
  layers::DecoderSpec spec{.shape = {c.num_heads, c.num_kv_heads, c.head_dim}};
  layers::DecoderHead head;
  PAGODA_RETURN_IF_ERROR(head.Load(w, c));

  layers::AttentionLayer settings;
  settings.rope = {.style = c.hf_checkpoint ? kernels::RopeStyle::kNeox : kernels::RopeStyle::kNorm, .freq_base = c.rope_freq_base, .freq_scale = c.rope_freq_scale};
  if (w.Has("rope_freqs.weight")) {
    PAGODA_ASSIGN_OR_RETURN(settings.rope.freq_factors, w.F32Vector("rope_freqs.weight", c.head_dim / 2));
  }
  settings.attention = {.scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim)), .sliding_window = window};

  layers::MoeShape moe{.expert_ff = c.intermediate_size, .normalize = true};
  PAGODA_ASSIGN_OR_RETURN(moe.num_experts, h.NonNegativeInt("expert_count", 0));
  if (moe.num_experts > 0) {
    PAGODA_ASSIGN_OR_RETURN(moe.experts_per_token, h.PositiveInt("expert_used_count"));
  }

  std::vector<layers::DecoderLayer> blocks;
  for (int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = fmt::format("blk.{}.", i);
    layers::DecoderLayer l;
    l.settings = settings;
    PAGODA_ASSIGN_OR_RETURN(l.attn_norm, w.F32Vector(p + "attn_norm.weight", c.hidden_size));
    PAGODA_ASSIGN_OR_RETURN(l.attn, layers::LoadAttention(w, p, c.hidden_size, spec.shape));
    PAGODA_ASSIGN_OR_RETURN(l.ffn_norm, w.F32Vector(p + "ffn_norm.weight", c.hidden_size));
    if (moe.num_experts > 0) {
      PAGODA_ASSIGN_OR_RETURN(l.moe, layers::LoadMoe(w, p, c.hidden_size, moe));
    } else {
      PAGODA_ASSIGN_OR_RETURN(l.mlp, layers::LoadMlp(w, p, c.hidden_size, c.intermediate_size));
    }
    blocks.push_back(std::move(l));
  }
  return std::unique_ptr<Model>(
      std::make_unique<layers::Decoder>(std::move(file), std::move(c), spec, std::move(head), std::move(blocks)));
}

}  // namespace pagoda
