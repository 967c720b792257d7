#include "pagoda/kernels/cpu/simd_matmul.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/reference/matmul_rows.h"
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

  const QuantPanelFn quant_panel = QuantPanel(ops, w.dtype);
  if (quant_panel == nullptr) {
    // A block type with no SIMD kernel yet (Q5, IQ4 and the K-quants): the
    // reference dot products, threaded over weight rows.
    const reference::MatMulActivations a = reference::PrepareActivations(x, m, w);
    pool.ParallelFor(w.rows, [&](int64_t begin, int64_t end) { reference::MatMulRows(a, w, begin, end, y); });
    return;
  }
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
