// Phi-3 (Abdin et al. 2024) and Phi-4: Llama's pre-norm SwiGLU decoder with
// NeoX-style RoPE and fused weights, read here as views of their rows:
// attn_qkv holds W_q, W_k and W_v one after another, and ffn_up holds W_gate
// then W_up.
//
// The long-context models use LongRoPE (Ding et al. 2024): per-pair factors
// divide RoPE's angles (rope_factors_long / rope_factors_short), and the
// cosine and sine are scaled by rope.scaling.attn_factor. As in llama.cpp,
// the long factors apply when the model runs with a context longer than
// rope.scaling.original_context_length; Pagoda serves a model's whole trained
// context (context_length), so that is whenever the two differ.
//
// Phi-3's GGUF files may name a sliding window; llama.cpp disables it for
// this architecture (its converters do not record which layers use it), and
// so does Pagoda, to give the same results.
#include <fmt/format.h>

#include <cmath>

#include "pagoda/model/architectures/architectures.h"
#include "pagoda/model/hparams.h"
#include "pagoda/model/layers/decoder.h"
#include "pagoda/model/layers/load.h"

namespace pagoda {

StatusOr<std::unique_ptr<Model>> LoadPhi3(std::shared_ptr<const gguf::GgufFile> file, ModelConfig c) {
  const Hparams h(*file, c.architecture);
  const WeightLoader w(*file);
  layers::DecoderSpec spec{.shape = {c.num_heads, c.num_kv_heads, c.head_dim}};
  layers::DecoderHead head;
  PAGODA_RETURN_IF_ERROR(head.Load(w, c));

  layers::AttentionLayer settings;
  settings.rope = {.style = kernels::RopeStyle::kNeox, .freq_base = c.rope_freq_base, .freq_scale = c.rope_freq_scale};
  settings.attention = {.scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim))};
  if (w.Has("rope_factors_long.weight")) {
    PAGODA_ASSIGN_OR_RETURN(int64_t original, h.PositiveInt("rope.scaling.original_context_length", c.max_context));
    const std::string factors = c.max_context > original ? "rope_factors_long.weight" : "rope_factors_short.weight";
    PAGODA_ASSIGN_OR_RETURN(settings.rope.freq_factors, w.F32Vector(factors, c.head_dim / 2));
    PAGODA_ASSIGN_OR_RETURN(settings.rope.attn_factor, h.Float("rope.scaling.attn_factor", 1.0f));
  } else if (c.rope_scaling == "longrope") {
    return InvalidArgumentError("phi3: RoPE scaling 'longrope' without rope_factors_long.weight");
  }

  std::vector<layers::DecoderLayer> blocks;
  for (int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = fmt::format("blk.{}.", i);
    layers::DecoderLayer l;
    l.settings = settings;
    PAGODA_ASSIGN_OR_RETURN(l.attn_norm, w.F32Vector(p + "attn_norm.weight", c.hidden_size));
    PAGODA_ASSIGN_OR_RETURN(l.attn, layers::LoadAttention(w, p, c.hidden_size, spec.shape));
    PAGODA_ASSIGN_OR_RETURN(l.ffn_norm, w.F32Vector(p + "ffn_norm.weight", c.hidden_size));
    PAGODA_ASSIGN_OR_RETURN(l.mlp, layers::LoadMlp(w, p, c.hidden_size, c.intermediate_size));
    blocks.push_back(std::move(l));
  }
  return std::unique_ptr<Model>(
      std::make_unique<layers::Decoder>(std::move(file), std::move(c), spec, std::move(head), std::move(blocks)));
}

}  // namespace pagoda
