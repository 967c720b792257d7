// pagoda::kernels: each call goes to the kernel set chosen once for this CPU.
#include "pagoda/kernels/cpu_kernels.h"

#include "pagoda/kernels/cpu/kernel_set.h"

namespace pagoda::kernels {

void MatMul(const float* x, int64_t m, const MatrixView& w, float* y, ThreadPool& pool) {
  cpu::ActiveKernelSet().matmul(x, m, w, y, pool);
}

void EmbeddingLookup(const MatrixView& table, const int32_t* ids, int64_t n, float* out) {
  cpu::ActiveKernelSet().embedding_lookup(table, ids, n, out);
}

void RmsNorm(const float* x, const float* weight, int64_t rows, int64_t dim, float eps, float* y) {
  cpu::ActiveKernelSet().rms_norm(x, weight, rows, dim, eps, y);
}

void RopeNorm(float* x, const int32_t* positions, int64_t tokens, int64_t heads, int64_t head_dim,
              float freq_base) {
  cpu::ActiveKernelSet().rope_norm(x, positions, tokens, heads, head_dim, freq_base);
}

void SiluMul(const float* gate, const float* up, int64_t n, float* out) {
  cpu::ActiveKernelSet().silu_mul(gate, up, n, out);
}

void AddInPlace(float* y, const float* x, int64_t n) { cpu::ActiveKernelSet().add_in_place(y, x, n); }

void WriteKv(const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens,
             const KvCacheLayer& cache) {
  cpu::ActiveKernelSet().write_kv(k, v, slot_mapping, tokens, cache);
}

void PagedAttention(const float* q, int64_t num_heads, const KvCacheLayer& cache,
                    const AttentionBatch& batch, float scale, float* out, ThreadPool& pool) {
  cpu::ActiveKernelSet().paged_attention(q, num_heads, cache, batch, scale, out, pool);
}

}  // namespace pagoda::kernels
