#include "pagoda/model/layers/decoder.h"

#include "pagoda/base/check.h"

namespace pagoda::layers {

Decoder::Decoder(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config, DecoderSpec spec, DecoderHead head,
                 std::vector<DecoderLayer> layers)
    : file_(std::move(file)),
      config_(std::move(config)),
      spec_(spec),
      head_(std::move(head)),
      layers_(std::move(layers)) {
  PAGODA_CHECK(static_cast<int64_t>(layers_.size()) == config_.num_layers);
  for (const DecoderLayer& l : layers_) PAGODA_CHECK(l.mlp.has_value() != l.moe.has_value());
}

void Decoder::AddResidual(kernels::ComputeContext& ctx, float* x, float* out, const float* post_norm, int64_t rows) {
  const int64_t d = config_.hidden_size;
  if (post_norm != nullptr) kernels::RmsNorm(ctx, out, post_norm, rows, d, config_.rms_norm_eps, out);
  kernels::AddInPlace(ctx, x, out, rows * d);
}

// A mixture-of-experts layer's buffers (per expert and choice) are not
// reserved: they grow on demand.
int64_t Decoder::PackWeights(kernels::ComputeContext& ctx) {
  std::vector<kernels::MatrixView*> views{&head_.output()};
  auto add_mlp = [&](MlpWeights& m) {
    views.insert(views.end(), {&m.gate, &m.up, &m.down});
  };
  for (DecoderLayer& l : layers_) {
    views.insert(views.end(), {&l.attn.q, &l.attn.k, &l.attn.v, &l.attn.o});
    if (l.mlp) add_mlp(*l.mlp);
    if (l.moe) {
      views.push_back(&l.moe->router);
      for (MlpWeights& e : l.moe->experts) add_mlp(e);
      if (l.moe->shared) {
        add_mlp(l.moe->shared->mlp);
        views.push_back(&l.moe->shared->gate);
      }
    }
  }
  packed_ = kernels::PackedWeights::Pack(ctx, views);
  return packed_.bytes();
}

void Decoder::ReserveActivations(int64_t max_tokens, int64_t max_logit_rows) {
  const int64_t d = config_.hidden_size;
  ReserveRows(x_, max_tokens, d);
  ReserveRows(n_, max_tokens, d);
  ReserveRows(attn_, max_tokens, spec_.shape.q_dim());
  ReserveRows(out_, max_tokens, d);
  attention_.Reserve(max_tokens, spec_.shape);
  for (const DecoderLayer& l : layers_) {
    if (l.mlp) mlp_.Reserve(max_tokens, l.mlp->gate.rows);
  }
  head_.Reserve(max_logit_rows);
}

void Decoder::Forward(const ForwardBatch& batch, std::span<const kernels::KvCacheLayer> kv_cache,
                      kernels::ComputeContext& ctx, float* logits) {
  const ModelConfig& c = config_;
  Step step(batch, kv_cache, c.num_layers, ctx);
  const int64_t t = step.tokens();
  if (t == 0) return;
  const int64_t d = c.hidden_size;
  const int64_t q_dim = spec_.shape.q_dim();
  float* x = Rows(x_, t, d);
  float* n = Rows(n_, t, d);
  float* attn = Rows(attn_, t, q_dim);
  float* out = Rows(out_, t, d);
  head_.Embed(step, x);
  if (spec_.embedding_scale != 1.0f) kernels::Scale(ctx, x, t * d, spec_.embedding_scale);
  for (int64_t il = 0; il < c.num_layers; ++il) {
    const DecoderLayer& l = layers_[il];
    kernels::RmsNorm(ctx, x, l.attn_norm, t, d, c.rms_norm_eps, n);
    attention_.Run(step, il, spec_.shape, l.attn, l.settings, n, attn);
    if (il == c.num_layers - 1) step.NarrowToLogitRows({{attn, q_dim}, {x, d}});
    const int64_t rows = step.rows();
    kernels::MatMul(ctx, attn, rows, l.attn.o, out);
    AddResidual(ctx, x, out, l.attn_post_norm, rows);

    kernels::RmsNorm(ctx, x, l.ffn_norm, rows, d, c.rms_norm_eps, n);
    if (l.mlp) {
      mlp_.Run(ctx, *l.mlp, l.activation, n, rows, out);
    } else {
      moe_.Run(ctx, *l.moe, n, rows, d, out);
    }
    AddResidual(ctx, x, out, l.ffn_post_norm, rows);
  }
  head_.Logits(step, x, c.rms_norm_eps, logits);
  if (spec_.final_softcap > 0.0f) {
    kernels::Softcap(ctx, logits, step.logit_rows() * c.vocab_size, spec_.final_softcap);
  }
}

}  // namespace pagoda::layers
