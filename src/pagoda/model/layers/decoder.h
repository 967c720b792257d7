// A decoder-only transformer assembled from the shared layers. Every family
// Pagoda runs is this residual stream with its own choice of parts per layer:
//
//   a = Attention(RMSNorm(x))          (attn_norm; the family's Q/K/V extras)
//   x = x + PostNorm(W_o a)            (attn_post_norm: Gemma's sandwich norm)
//   f = Mlp(RMSNorm(x))                (ffn_norm; SwiGLU, GeGLU or experts)
//   x = x + PostNorm(f)                (ffn_post_norm: Gemma)
//
// with the embedding optionally scaled on the way in (Gemma) and the logits
// optionally soft-capped on the way out (Gemma 2). The architecture files
// fill in a DecoderLayer per layer and say which paper each choice is from.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "pagoda/base/cache_line_vector.h"
#include "pagoda/kernels/packed_weights.h"
#include "pagoda/model/layers/attention.h"
#include "pagoda/model/layers/decoder_head.h"
#include "pagoda/model/layers/mlp.h"
#include "pagoda/model/model.h"

namespace pagoda::layers {

struct DecoderLayer {
  const float* attn_norm = nullptr;
  AttentionWeights attn;
  AttentionLayer settings;
  const float* attn_post_norm = nullptr;  // null: none
  const float* ffn_norm = nullptr;
  // Exactly one of the dense MLP and the experts.
  std::optional<MlpWeights> mlp;
  std::optional<MoeWeights> moe;
  Activation activation = Activation::kSilu;
  const float* ffn_post_norm = nullptr;  // null: none
};

struct DecoderSpec {
  AttentionShape shape;
  float embedding_scale = 1.0f;  // Gemma: sqrt(hidden)
  float final_softcap = 0.0f;    // Gemma 2: 30; 0: none
};

class Decoder final : public Model {
 public:
  // The file must outlive the model: the layers' weights view its mapping.
  Decoder(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config, DecoderSpec spec, DecoderHead head,
          std::vector<DecoderLayer> layers);

  const ModelConfig& config() const override { return config_; }
  void Forward(const ForwardBatch& batch, std::span<const kernels::KvCacheLayer> kv_cache,
               kernels::ComputeContext& ctx, float* logits) override;
  void ReserveActivations(int64_t max_tokens, int64_t max_logit_rows) override;
  int64_t PackWeights(kernels::ComputeContext& ctx) override;

 private:
  // x += post_norm(out) over rows [begin, end) (out normed in place when
  // there is a post-norm).
  void AddResidual(kernels::ComputeContext& ctx, float* x, float* out, const float* post_norm, int64_t begin,
                   int64_t end);

  std::shared_ptr<const gguf::GgufFile> file_;
  ModelConfig config_;
  DecoderSpec spec_;
  DecoderHead head_;
  std::vector<DecoderLayer> layers_;
  kernels::PackedWeights packed_;
  SelfAttention attention_;
  GatedMlp mlp_;
  MoeMlp moe_;
  CacheLineVector<float> x_, n_, attn_, out_;
};

}  // namespace pagoda::layers
