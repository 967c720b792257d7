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

void Decoder::AddResidual(kernels::ComputeContext& ctx, float* x, float* out, const float* post_norm, int64_t begin,
                          int64_t end) {
  const int64_t d = config_.hidden_size;
  float* o = out + begin * d;
  if (post_norm != nullptr) kernels::RmsNorm(ctx, o, post_norm, end - begin, d, config_.rms_norm_eps, o);
  kernels::AddInPlace(ctx, x + begin * d, o, (end - begin) * d);
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
  // Each sublayer's residual add and the next one's norm run per row as
  // the rows of that sublayer's first MatMuls (kernels::RowStage): on a
  // prompt, each worker adds, norms and quantizes the rows it multiplies,
  // in one job. A layer's attention input takes in the layer before's FFN
  // output; the last layer's is added after the loop.
  for (int64_t il = 0; il < c.num_layers; ++il) {
    const DecoderLayer& l = layers_[il];
    const DecoderLayer* previous = il > 0 ? &layers_[il - 1] : nullptr;
    auto attention_input = [&](int64_t begin, int64_t end) {
      if (previous != nullptr) AddResidual(ctx, x, out, previous->ffn_post_norm, begin, end);
      kernels::RmsNorm(ctx, x + begin * d, l.attn_norm, end - begin, d, c.rms_norm_eps, n + begin * d);
    };
    attention_.Run(step, il, spec_.shape, l.attn, l.settings, attention_input, n, attn);
    if (il == c.num_layers - 1) step.NarrowToLogitRows({{attn, q_dim}, {x, d}});
    const int64_t rows = step.rows();
    kernels::MatMul(ctx, attn, rows, l.attn.o, out);

    auto ffn_input = [&](int64_t begin, int64_t end) {
      AddResidual(ctx, x, out, l.attn_post_norm, begin, end);
      kernels::RmsNorm(ctx, x + begin * d, l.ffn_norm, end - begin, d, c.rms_norm_eps, n + begin * d);
    };
    if (l.mlp) {
      mlp_.Run(ctx, *l.mlp, l.activation, ffn_input, n, rows, out);
    } else {
      kernels::RunOnRows(ctx, rows, ffn_input);
      moe_.Run(ctx, *l.moe, n, rows, d, out);
    }
  }
  if (!layers_.empty()) AddResidual(ctx, x, out, layers_.back().ffn_post_norm, 0, step.rows());
  head_.Logits(step, x, c.rms_norm_eps, logits);
  if (spec_.final_softcap > 0.0f) {
    kernels::Softcap(ctx, logits, step.logit_rows() * c.vocab_size, spec_.final_softcap);
  }
}

}  // namespace pagoda::layers
