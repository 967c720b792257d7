#include "pagoda/kernels/cpu/simd_matmul.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/reference/matmul_rows.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/threading/thread_pool.h"

namespace pagoda::kernels::cpu {
namespace {

template <typename T>
T* Carve(std::byte*& cursor, int64_t count) {
  T* p = reinterpret_cast<T*>(cursor);
  cursor += (static_cast<size_t>(count) * sizeof(T) + 63) / 64 * 64;
  return p;
}

QuantPanelFn QuantPanel(const SimdMatMulOps& ops, DType t) {
  switch (t) {
    case DType::kQ4_0: return ops.q4_0;
    case DType::kQ4_1: return ops.q4_1;
    case DType::kQ8_0: return ops.q8_0;
    case DType::kQ5_0: return ops.q5_0;
    case DType::kQ5_1: return ops.q5_1;
    case DType::kIQ4_NL: return ops.iq4_nl;
    default: return nullptr;
  }
}

FloatPanelFn FloatPanel(const SimdMatMulOps& ops, DType t) {
  switch (t) {
    case DType::kF32: return ops.f32;
    case DType::kF16: return ops.f16;
    case DType::kBF16: return ops.bf16;
    default: return nullptr;
  }
}

// Each x row quantized to Q8_K once, then panels of weight rows as for the
// 32-element types.
void SuperBlockMatMul(const SimdMatMulOps& ops, const float* x, int64_t m, const MatrixView& w, float* y,
                      ComputeContext& ctx) {
  PAGODA_CHECK_MSG(w.cols % kSuperBlock == 0, "MatMul: super-block rows need a multiple of 256 columns");
  const int64_t nb = w.cols / kSuperBlock;
  auto* xq = static_cast<BlockQ8_K*>(ctx.caller_scratch().Get(static_cast<size_t>(m * nb) * sizeof(BlockQ8_K)));
  ThreadPool& pool = ctx.pool();
  pool.ParallelFor(m, [&](int64_t begin, int64_t end) { ops.quantize_k(x, w.cols, begin, end, xq); });
  const int64_t panels = (w.rows + ops.panel_rows - 1) / ops.panel_rows;
  pool.ParallelForWorkers(panels, [&](int worker, int64_t pb, int64_t pe) {
    const int64_t begin = pb * ops.panel_rows;
    const int64_t end = std::min(w.rows, pe * ops.panel_rows);
    void* scratch = ctx.worker_scratch(worker).Get(static_cast<size_t>(nb * ops.k_scratch_bytes_per_super_block));
    ops.k(xq, m, w, begin, end, scratch, y);
  });
}

}  // namespace

void SimdMatMul(const SimdMatMulOps& ops, const float* x, int64_t m, const MatrixView& w, float* y,
                ComputeContext& ctx) {
  ThreadPool& pool = ctx.pool();
  if (m <= 0 || w.rows <= 0) return;
  const int64_t panels = (w.rows + ops.panel_rows - 1) / ops.panel_rows;
  auto rows_of = [&](int64_t panel_begin, int64_t panel_end, int64_t* begin, int64_t* end) {
    *begin = panel_begin * ops.panel_rows;
    *end = std::min(w.rows, panel_end * ops.panel_rows);
  };

  if (const FloatPanelFn float_panel = FloatPanel(ops, w.dtype)) {
    pool.ParallelFor(panels, [&](int64_t pb, int64_t pe) {
      int64_t begin = 0;
      int64_t end = 0;
      rows_of(pb, pe, &begin, &end);
      float_panel(x, m, w, begin, end, y);
    });
    return;
  }

  if (reference::ActivationType(w.dtype) == DType::kQ8_K) {
    SuperBlockMatMul(ops, x, m, w, y, ctx);
    return;
  }
  const QuantPanelFn quant_panel = QuantPanel(ops, w.dtype);
  PAGODA_CHECK_MSG(quant_panel != nullptr, "MatMul: no SIMD kernel for this weight type");
  PAGODA_CHECK_MSG(w.cols % kQuantBlock == 0, "MatMul: quantized rows need a multiple of 32 columns");
  const int64_t nb = w.cols / kQuantBlock;

  std::byte* cursor = static_cast<std::byte*>(
      ctx.caller_scratch().Get(static_cast<size_t>(m * w.cols + 3 * m * nb * 4 + 4 * 64)));
  QuantizedRows xq;
  xq.m = m;
  xq.k = w.cols;
  xq.qs = Carve<int8_t>(cursor, m * w.cols);
  xq.d = Carve<float>(cursor, m * nb);
  xq.s = Carve<float>(cursor, m * nb);
  xq.sum = Carve<int32_t>(cursor, m * nb);
  pool.ParallelFor(m, [&](int64_t begin, int64_t end) { ops.quantize(x, begin, end, xq); });

  pool.ParallelForWorkers(panels, [&](int worker, int64_t pb, int64_t pe) {
    Scratch& packed = ctx.worker_scratch(worker);
    int64_t begin = 0;
    int64_t end = 0;
    rows_of(pb, pe, &begin, &end);
    quant_panel(xq, w, begin, end, packed.Get(static_cast<size_t>(nb * ops.scratch_bytes_per_block)),
                y);
  });
}

}  // namespace pagoda::kernels::cpu
