#include "pagoda/model/architectures/llama.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/model/weight_loader.h"
#include "pagoda/kernels/compute_context.h"

namespace pagoda {
namespace {

using kernels::MatrixView;

struct LayerWeights {
  const float* attn_norm;
  MatrixView wq, wk, wv, wo;
  const float* ffn_norm;
  MatrixView w_gate, w_up, w_down;
};

class LlamaModel final : public Model {
 public:
  LlamaModel(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config)
      : file_(std::move(file)), config_(std::move(config)) {}

  Status LoadWeights() {
    const ModelConfig& c = config_;
    const int64_t d = c.hidden_size;
    const int64_t kv_dim = c.num_kv_heads * c.head_dim;
    WeightLoader w(*file_);
    PAGODA_ASSIGN_OR_RETURN(token_embd_, w.Matrix("token_embd.weight", c.vocab_size, d));
    PAGODA_ASSIGN_OR_RETURN(output_norm_, w.F32Vector("output_norm.weight", d));
    // Llama 3.1+ stores its RoPE scaling as one factor per rotated pair.
    if (w.Has("rope_freqs.weight")) {
      PAGODA_ASSIGN_OR_RETURN(rope_freqs_, w.F32Vector("rope_freqs.weight", c.head_dim / 2));
    }
    // Models with tied embeddings (SmolLM2) have no separate output matrix.
    if (w.Has("output.weight")) {
      PAGODA_ASSIGN_OR_RETURN(output_, w.Matrix("output.weight", c.vocab_size, d));
    } else {
      output_ = token_embd_;
    }
    layers_.resize(c.num_layers);
    for (int64_t i = 0; i < c.num_layers; ++i) {
      LayerWeights& l = layers_[i];
      const std::string p = fmt::format("blk.{}.", i);
      PAGODA_ASSIGN_OR_RETURN(l.attn_norm, w.F32Vector(p + "attn_norm.weight", d));
      PAGODA_ASSIGN_OR_RETURN(l.wq, w.Matrix(p + "attn_q.weight", d, d));
      PAGODA_ASSIGN_OR_RETURN(l.wk, w.Matrix(p + "attn_k.weight", kv_dim, d));
      PAGODA_ASSIGN_OR_RETURN(l.wv, w.Matrix(p + "attn_v.weight", kv_dim, d));
      PAGODA_ASSIGN_OR_RETURN(l.wo, w.Matrix(p + "attn_output.weight", d, d));
      PAGODA_ASSIGN_OR_RETURN(l.ffn_norm, w.F32Vector(p + "ffn_norm.weight", d));
      PAGODA_ASSIGN_OR_RETURN(l.w_gate, w.Matrix(p + "ffn_gate.weight", c.intermediate_size, d));
      PAGODA_ASSIGN_OR_RETURN(l.w_up, w.Matrix(p + "ffn_up.weight", c.intermediate_size, d));
      PAGODA_ASSIGN_OR_RETURN(l.w_down, w.Matrix(p + "ffn_down.weight", d, c.intermediate_size));
    }
    return Status::Ok();
  }

  const ModelConfig& config() const override { return config_; }

  void Forward(const ForwardBatch& batch, std::span<const kernels::KvCacheLayer> kv_cache,
               kernels::ComputeContext& ctx, float* logits) override {
    const ModelConfig& c = config_;
    const int64_t T = static_cast<int64_t>(batch.token_ids.size());
    const int64_t R = static_cast<int64_t>(batch.logits_rows.size());
    const int64_t d = c.hidden_size;
    const int64_t kv_dim = c.num_kv_heads * c.head_dim;
    PAGODA_CHECK(static_cast<int64_t>(kv_cache.size()) == c.num_layers);
    PAGODA_CHECK(batch.positions.size() == batch.token_ids.size());
    PAGODA_CHECK(batch.slot_mapping.size() == batch.token_ids.size());
    if (T == 0) return;

    x_.resize(T * d);
    xn_.resize(T * d);
    q_.resize(T * d);
    k_.resize(T * kv_dim);
    v_.resize(T * kv_dim);
    attn_.resize(T * d);
    proj_.resize(T * d);
    gate_.resize(T * c.intermediate_size);
    up_.resize(T * c.intermediate_size);

    const kernels::AttentionBatch attn_batch{
        static_cast<int64_t>(batch.seq_lens.size()), batch.query_start_loc.data(), batch.seq_lens.data(),
        batch.block_tables.data(), batch.max_blocks_per_seq};
    const float attn_scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));

    kernels::EmbeddingLookup(ctx, token_embd_, batch.token_ids.data(), T, x_.data());
    for (int64_t il = 0; il < c.num_layers; ++il) {
      const LayerWeights& l = layers_[il];
      kernels::RmsNorm(ctx, x_.data(), l.attn_norm, T, d, c.rms_norm_eps, xn_.data());
      kernels::MatMul(ctx, xn_.data(), T, l.wq, q_.data());
      kernels::MatMul(ctx, xn_.data(), T, l.wk, k_.data());
      kernels::MatMul(ctx, xn_.data(), T, l.wv, v_.data());
      kernels::RopeNorm(ctx, q_.data(), batch.positions.data(), T, c.num_heads, c.head_dim, c.rope_freq_base,
                        rope_freqs_);
      kernels::RopeNorm(ctx, k_.data(), batch.positions.data(), T, c.num_kv_heads, c.head_dim, c.rope_freq_base,
                        rope_freqs_);
      kernels::WriteKv(ctx, k_.data(), v_.data(), batch.slot_mapping.data(), T, kv_cache[il]);
      kernels::PagedAttention(ctx, q_.data(), c.num_heads, kv_cache[il], attn_batch, attn_scale, attn_.data());

      // After the last attention only the rows that need logits matter, so
      // the last MLP runs on those alone (as llama.cpp does).
      int64_t rows = T;
      if (il == c.num_layers - 1) {
        GatherRows(batch.logits_rows, d, attn_);
        GatherRows(batch.logits_rows, d, x_);
        rows = R;
      }
      kernels::MatMul(ctx, attn_.data(), rows, l.wo, proj_.data());
      kernels::AddInPlace(ctx, x_.data(), proj_.data(), rows * d);

      kernels::RmsNorm(ctx, x_.data(), l.ffn_norm, rows, d, c.rms_norm_eps, xn_.data());
      kernels::MatMul(ctx, xn_.data(), rows, l.w_gate, gate_.data());
      kernels::MatMul(ctx, xn_.data(), rows, l.w_up, up_.data());
      kernels::SiluMul(ctx, gate_.data(), up_.data(), rows * c.intermediate_size, gate_.data());
      kernels::MatMul(ctx, gate_.data(), rows, l.w_down, proj_.data());
      kernels::AddInPlace(ctx, x_.data(), proj_.data(), rows * d);
    }
    if (R == 0) return;
    kernels::RmsNorm(ctx, x_.data(), output_norm_, R, d, c.rms_norm_eps, xn_.data());
    kernels::MatMul(ctx, xn_.data(), R, output_, logits);
  }

 private:
  // Moves the listed rows of a [T][width] buffer to its front, in list order.
  static void GatherRows(std::span<const int32_t> rows, int64_t width, std::vector<float>& buf) {
    for (size_t i = 0; i < rows.size(); ++i) {
      const int64_t from = rows[i];
      PAGODA_CHECK(from >= static_cast<int64_t>(i));  // rows are strictly increasing
      if (from != static_cast<int64_t>(i)) {
        std::memcpy(buf.data() + i * width, buf.data() + from * width, width * sizeof(float));
      }
    }
  }

  std::shared_ptr<const gguf::GgufFile> file_;
  ModelConfig config_;
  MatrixView token_embd_{};
  MatrixView output_{};
  const float* output_norm_ = nullptr;
  const float* rope_freqs_ = nullptr;  // null: no RoPE scaling
  std::vector<LayerWeights> layers_;
  // Activations, reused across steps.
  std::vector<float> x_, xn_, q_, k_, v_, attn_, proj_, gate_, up_;
};

}  // namespace

StatusOr<std::unique_ptr<Model>> LoadLlama(std::shared_ptr<const gguf::GgufFile> file, ModelConfig config) {
  auto model = std::make_unique<LlamaModel>(std::move(file), std::move(config));
  PAGODA_RETURN_IF_ERROR(model->LoadWeights());
  return std::unique_ptr<Model>(std::move(model));
}

}  // namespace pagoda
