#include "pagoda/model/layers/attention.h"

namespace pagoda::layers {

void SelfAttention::Reserve(int64_t tokens, const AttentionShape& shape) {
  ReserveRows(q_, tokens, shape.q_dim());
  ReserveRows(k_, tokens, shape.kv_dim());
  ReserveRows(v_, tokens, shape.kv_dim());
}

void SelfAttention::Run(const Step& step, int64_t layer, const AttentionShape& shape, const AttentionWeights& w,
                        const AttentionLayer& settings, const kernels::RowStage& prepare_x, const float* x,
                        float* out) {
  kernels::ComputeContext& ctx = step.ctx();
  const int64_t t = step.tokens();
  float* q = Rows(q_, t, shape.q_dim());
  float* k = Rows(k_, t, shape.kv_dim());
  float* v = Rows(v_, t, shape.kv_dim());
  const kernels::MatMulTarget qkv[] = {{&w.q, q}, {&w.k, k}, {&w.v, v}};
  const int32_t* positions = step.batch().positions.data();
  kernels::PrepareRope(ctx, positions, t, shape.head_dim, settings.rope);
  const kernels::KvCacheLayer& cache = step.kv(layer);
  const int64_t q_dim = shape.q_dim();
  const int64_t kv_dim = shape.kv_dim();
  // Each row's Q, K and V, once its products are done (in the MatMuls' job
  // where that splits rows): biases, QK norms, RoPE and the KV write.
  auto finish_rows = [&](int64_t begin, int64_t end) {
    const int64_t n = end - begin;
    float* qr = q + begin * q_dim;
    float* kr = k + begin * kv_dim;
    float* vr = v + begin * kv_dim;
    if (w.q_bias != nullptr) kernels::AddBias(ctx, qr, w.q_bias, n, q_dim);
    if (w.k_bias != nullptr) kernels::AddBias(ctx, kr, w.k_bias, n, kv_dim);
    if (w.v_bias != nullptr) kernels::AddBias(ctx, vr, w.v_bias, n, kv_dim);
    if (w.q_norm != nullptr) {
      kernels::RmsNorm(ctx, qr, w.q_norm, n * shape.num_heads, shape.head_dim, settings.qk_norm_eps, qr);
    }
    if (w.k_norm != nullptr) {
      kernels::RmsNorm(ctx, kr, w.k_norm, n * shape.num_kv_heads, shape.head_dim, settings.qk_norm_eps, kr);
    }
    kernels::RopeRows(ctx, q, positions, t, shape.num_heads, shape.head_dim, settings.rope, begin, end);
    kernels::RopeRows(ctx, k, positions, t, shape.num_kv_heads, shape.head_dim, settings.rope, begin, end);
    kernels::WriteKv(ctx, kr, vr, step.slot_mapping(layer) + begin, n, cache);
  };
  kernels::MatMuls(ctx, x, t, qkv, prepare_x, finish_rows);
  kernels::PagedAttention(ctx, q, shape.num_heads, cache, step.attention(layer), settings.attention, out);
}

}  // namespace pagoda::layers
