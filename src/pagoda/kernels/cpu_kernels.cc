// pagoda::kernels: each call goes to the kernel set of the context it is given.
#include "pagoda/kernels/cpu_kernels.h"

#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/kernel_set.h"

namespace pagoda::kernels {

void MatMul(ComputeContext& ctx, const float* x, int64_t m, const MatrixView& w, float* y) {
  ctx.kernels().matmul(x, m, w, y, ctx);
}

void EmbeddingLookup(ComputeContext& ctx, const MatrixView& table, const int32_t* ids, int64_t n, float* out) {
  ctx.kernels().embedding_lookup(table, ids, n, out);
}

void RmsNorm(ComputeContext& ctx, const float* x, const float* weight, int64_t rows, int64_t dim, float eps,
             float* y) {
  ctx.kernels().rms_norm(x, weight, rows, dim, eps, y);
}

void RopeNorm(ComputeContext& ctx, float* x, const int32_t* positions, int64_t tokens, int64_t heads,
              int64_t head_dim, float freq_base, const float* freq_factors) {
  ctx.kernels().rope_norm(x, positions, tokens, heads, head_dim, freq_base, freq_factors);
}

void SiluMul(ComputeContext& ctx, const float* gate, const float* up, int64_t n, float* out) {
  ctx.kernels().silu_mul(gate, up, n, out);
}

void AddInPlace(ComputeContext& ctx, float* y, const float* x, int64_t n) { ctx.kernels().add_in_place(y, x, n); }

void WriteKv(ComputeContext& ctx, const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens,
             const KvCacheLayer& cache) {
  ctx.kernels().write_kv(k, v, slot_mapping, tokens, cache);
}

void PagedAttention(ComputeContext& ctx, const float* q, int64_t num_heads, const KvCacheLayer& cache,
                    const AttentionBatch& batch, float scale, float* out) {
  ctx.kernels().paged_attention(q, num_heads, cache, batch, scale, out, ctx);
}

}  // namespace pagoda::kernels
