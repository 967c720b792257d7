// pagoda::kernels: each call goes to the kernel set of the context it is given.
#include "pagoda/kernels/cpu_kernels.h"

#include <algorithm>

#include "pagoda/base/check.h"
#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/kernels/cpu/simd_matmul.h"
#include "pagoda/threading/thread_pool.h"

namespace pagoda::kernels {
namespace {

// A prompt's rows (or elements) are split over the pool; a decode step's
// few are not worth waking it. Every op split here computes each row (or
// element) on its own, so the split changes no bit.
constexpr int64_t kParallelRowsFrom = 32;
constexpr int64_t kParallelElementsFrom = 1 << 15;

template <typename Fn>
void OverRows(ComputeContext& ctx, int64_t rows, const Fn& fn) {
  if (rows < kParallelRowsFrom) {
    fn(0, rows);
    return;
  }
  ctx.pool().ParallelFor(rows, [&](int64_t begin, int64_t end) { fn(begin, end); });
}

// fn(first, count) over [0, n) in pieces of whole 16-element vectors.
template <typename Fn>
void OverElements(ComputeContext& ctx, int64_t n, const Fn& fn) {
  if (n < kParallelElementsFrom) {
    fn(0, n);
    return;
  }
  ctx.pool().ParallelFor((n + 15) / 16, [&](int64_t begin, int64_t end) {
    const int64_t first = begin * 16;
    fn(first, std::min(end * 16, n) - first);
  });
}

}  // namespace

void MatMul(ComputeContext& ctx, const float* x, int64_t m, const MatrixView& w, float* y) {
  if (w.input_order == nullptr) {
    ctx.kernels().matmul(x, m, w, y, ctx);
    return;
  }
  // A copy of m rows per act-order matrix: small beside the product itself.
  auto* ordered = static_cast<float*>(ctx.input_scratch().Get(static_cast<size_t>(m * w.cols) * sizeof(float)));
  reference::GatherColumns(x, m, w.cols, w.input_order, ordered);
  MatrixView plain = w;
  plain.input_order = nullptr;
  ctx.kernels().matmul(ordered, m, plain, y, ctx);
}

void MatMuls(ComputeContext& ctx, const float* x, int64_t m, std::span<const MatMulTarget> targets,
             const RowStage& before, const RowStage& after) {
  const cpu::SimdMatMulOps* simd = ctx.kernels().simd;
  bool after_done = false;
  if (simd != nullptr && cpu::CanShareInput(*simd, targets)) {
    after_done = cpu::SimdMatMuls(*simd, x, m, targets, ctx, before, after);
  } else {
    if (before) RunOnRows(ctx, m, before);
    for (const MatMulTarget& t : targets) MatMul(ctx, x, m, *t.w, t.y);
  }
  if (after && !after_done) RunOnRows(ctx, m, after);
}

void RunOnRows(ComputeContext& ctx, int64_t rows, const RowStage& ops) { OverRows(ctx, rows, ops); }

void EmbeddingLookup(ComputeContext& ctx, const MatrixView& table, const int32_t* ids, int64_t n, float* out) {
  OverRows(ctx, n, [&](int64_t begin, int64_t end) {
    ctx.kernels().embedding_lookup(table, ids + begin, end - begin, out + begin * table.cols);
  });
}

void RmsNorm(ComputeContext& ctx, const float* x, const float* weight, int64_t rows, int64_t dim, float eps,
             float* y) {
  OverRows(ctx, rows, [&](int64_t begin, int64_t end) {
    ctx.kernels().rms_norm(x + begin * dim, weight, end - begin, dim, eps, y + begin * dim);
  });
}

void Rope(ComputeContext& ctx, float* x, const int32_t* positions, int64_t tokens, int64_t heads, int64_t head_dim,
          const RopeParams& params) {
  PrepareRope(ctx, positions, tokens, head_dim, params);
  OverRows(ctx, tokens, [&](int64_t begin, int64_t end) {
    RopeRows(ctx, x, positions, tokens, heads, head_dim, params, begin, end);
  });
}

void PrepareRope(ComputeContext& ctx, const int32_t* positions, int64_t tokens, int64_t head_dim,
                 const RopeParams& params) {
  ctx.rope_angles().Get(positions, tokens, head_dim, params);
}

void RopeRows(ComputeContext& ctx, float* x, const int32_t* positions, int64_t tokens, int64_t heads,
              int64_t head_dim, const RopeParams& params, int64_t begin, int64_t end) {
  PAGODA_CHECK_MSG(!ThreadPool::InJob() || ctx.rope_angles().Matches(positions, tokens, head_dim, params),
                   "RopeRows inside a pool job needs PrepareRope of the same positions first");
  const float* cos_sin = ctx.rope_angles().Get(positions, tokens, head_dim, params);
  ctx.kernels().rope(x + begin * heads * head_dim, cos_sin + begin * head_dim, end - begin, heads, head_dim,
                     params.style);
}

void SiluMul(ComputeContext& ctx, const float* gate, const float* up, int64_t n, float* out) {
  OverElements(ctx, n, [&](int64_t first, int64_t count) {
    ctx.kernels().silu_mul(gate + first, up + first, count, out + first);
  });
}

void GeluMul(ComputeContext& ctx, const float* gate, const float* up, int64_t n, float* out) {
  OverElements(ctx, n, [&](int64_t first, int64_t count) {
    ctx.kernels().gelu_mul(gate + first, up + first, count, out + first);
  });
}

void AddInPlace(ComputeContext& ctx, float* y, const float* x, int64_t n) {
  OverElements(ctx, n, [&](int64_t first, int64_t count) { ctx.kernels().add_in_place(y + first, x + first, count); });
}

void AddBias(ComputeContext& ctx, float* y, const float* bias, int64_t rows, int64_t cols) {
  ctx.kernels().add_bias(y, bias, rows, cols);
}

void Scale(ComputeContext& ctx, float* x, int64_t n, float s) { ctx.kernels().scale(x, n, s); }

void Softcap(ComputeContext& ctx, float* x, int64_t n, float cap) { ctx.kernels().softcap(x, n, cap); }

void WriteKv(ComputeContext& ctx, const float* k, const float* v, const int64_t* slot_mapping, int64_t tokens,
             const KvCacheLayer& cache) {
  // Each token has a slot of its own, and no writer rewrites its
  // neighbours' bytes (the BF16 order's V halves go by masked 16-bit
  // stores), so the rows can be split.
  const int64_t width = cache.num_kv_heads * cache.head_dim;
  OverRows(ctx, tokens, [&](int64_t begin, int64_t end) {
    ctx.kernels().write_kv(k + begin * width, v + begin * width, slot_mapping + begin, end - begin, cache);
  });
}

void PagedAttention(ComputeContext& ctx, const float* q, int64_t num_heads, const KvCacheLayer& cache,
                    const AttentionBatch& batch, const AttentionParams& params, float* out) {
  ctx.kernels().paged_attention(q, num_heads, cache, batch, params, out, ctx);
}

void MoeRoute(ComputeContext& ctx, const float* logits, int64_t tokens, int64_t num_experts, int64_t k,
              bool normalize, int32_t* expert_ids, float* weights) {
  ctx.kernels().moe_route(logits, tokens, num_experts, k, normalize, expert_ids, weights);
}

}  // namespace pagoda::kernels
