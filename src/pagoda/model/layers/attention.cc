#include "pagoda/model/layers/attention.h"

namespace pagoda::layers {

void SelfAttention::Reserve(int64_t tokens, const AttentionShape& shape) {
  ReserveRows(q_, tokens, shape.q_dim());
  ReserveRows(k_, tokens, shape.kv_dim());
  ReserveRows(v_, tokens, shape.kv_dim());
}

void SelfAttention::Run(const Step& step, int64_t layer, const AttentionShape& shape, const AttentionWeights& w,
                        const AttentionLayer& settings, const kernels::PrepareRows& prepare_x, const float* x,
                        float* out) {
  kernels::ComputeContext& ctx = step.ctx();
  const int64_t t = step.tokens();
  float* q = Rows(q_, t, shape.q_dim());
  float* k = Rows(k_, t, shape.kv_dim());
  float* v = Rows(v_, t, shape.kv_dim());
  const kernels::MatMulTarget qkv[] = {{&w.q, q}, {&w.k, k}, {&w.v, v}};
  kernels::MatMuls(ctx, x, t, qkv, prepare_x);
  if (w.q_bias != nullptr) kernels::AddBias(ctx, q, w.q_bias, t, shape.q_dim());
  if (w.k_bias != nullptr) kernels::AddBias(ctx, k, w.k_bias, t, shape.kv_dim());
  if (w.v_bias != nullptr) kernels::AddBias(ctx, v, w.v_bias, t, shape.kv_dim());
  if (w.q_norm != nullptr) {
    kernels::RmsNorm(ctx, q, w.q_norm, t * shape.num_heads, shape.head_dim, settings.qk_norm_eps, q);
  }
  if (w.k_norm != nullptr) {
    kernels::RmsNorm(ctx, k, w.k_norm, t * shape.num_kv_heads, shape.head_dim, settings.qk_norm_eps, k);
  }
  const int32_t* positions = step.batch().positions.data();
  kernels::Rope(ctx, q, positions, t, shape.num_heads, shape.head_dim, settings.rope);
  kernels::Rope(ctx, k, positions, t, shape.num_kv_heads, shape.head_dim, settings.rope);
  const kernels::KvCacheLayer& cache = step.kv(layer);
  kernels::WriteKv(ctx, k, v, step.slot_mapping(layer), t, cache);
  kernels::PagedAttention(ctx, q, shape.num_heads, cache, step.attention(layer), settings.attention, out);
}

}  // namespace pagoda::layers
