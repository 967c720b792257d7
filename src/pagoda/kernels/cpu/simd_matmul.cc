#include "pagoda/kernels/cpu/simd_matmul.h"

#include <algorithm>
#include <cstddef>

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

// How a weight type meets x: f32 against float weights, x quantized to
// Q8_0/Q8_1 for the 32-element block types, or to Q8_K for the super-blocks.
enum class Path { kFloat, kQuant, kSuperBlock };

Path PathOf(const SimdMatMulOps& ops, DType t) {
  if (FloatPanel(ops, t) != nullptr) return Path::kFloat;
  if (reference::ActivationType(t) == DType::kQ8_K) return Path::kSuperBlock;
  return Path::kQuant;
}

// w as the panels see it: its packed copy only where this set wrote it.
MatrixView OwnPanelsOnly(const SimdMatMulOps& ops, const MatrixView& w) {
  MatrixView view = w;
  if (w.panels_layout == nullptr || w.panels_layout != reinterpret_cast<const void*>(ops.pack)) {
    view.panels = nullptr;
  }
  return view;
}

// Every target's panels numbered one after another; Run(worker, pb, pe)
// calls panel(target, row_begin, row_end) for the rows of panels [pb, pe).
class PanelSpace {
 public:
  PanelSpace(std::span<const MatMulTarget> targets, int64_t panel_rows)
      : targets_(targets), panel_rows_(panel_rows) {
    for (const MatMulTarget& t : targets) size_ += Panels(t);
  }
  int64_t size() const { return size_; }

  template <typename Panel>
  void Run(int64_t pb, int64_t pe, const Panel& panel) const {
    int64_t first = 0;  // the target's first panel in the numbering
    for (const MatMulTarget& t : targets_) {
      if (first >= pe) return;
      const int64_t next = first + Panels(t);
      const int64_t lo = std::max(pb, first);
      const int64_t hi = std::min(pe, next);
      if (lo < hi) panel(t, (lo - first) * panel_rows_, std::min(t.w->rows, (hi - first) * panel_rows_));
      first = next;
    }
  }

 private:
  int64_t Panels(const MatMulTarget& t) const { return (t.w->rows + panel_rows_ - 1) / panel_rows_; }

  std::span<const MatMulTarget> targets_;
  int64_t panel_rows_;
  int64_t size_ = 0;
};

}  // namespace

bool CanShareInput(const SimdMatMulOps& ops, std::span<const MatMulTarget> targets) {
  if (targets.empty()) return false;
  const MatrixView& first = *targets[0].w;
  for (const MatMulTarget& t : targets) {
    if (t.w->cols != first.cols || t.w->input_order != nullptr) return false;
    if (PathOf(ops, t.w->dtype) != PathOf(ops, first.dtype)) return false;
    if (PathOf(ops, t.w->dtype) == Path::kQuant && QuantPanel(ops, t.w->dtype) == nullptr) return false;
  }
  return true;
}

void SimdMatMuls(const SimdMatMulOps& ops, const float* x, int64_t m, std::span<const MatMulTarget> targets,
                 ComputeContext& ctx) {
  PAGODA_CHECK(CanShareInput(ops, targets));
  if (m <= 0) return;
  ThreadPool& pool = ctx.pool();
  const PanelSpace space(targets, ops.panel_rows);
  const int64_t cols = targets[0].w->cols;
  switch (PathOf(ops, targets[0].w->dtype)) {
    case Path::kFloat:
      pool.ParallelFor(space.size(), [&](int64_t pb, int64_t pe) {
        space.Run(pb, pe, [&](const MatMulTarget& t, int64_t begin, int64_t end) {
          FloatPanel(ops, t.w->dtype)(x, m, *t.w, begin, end, t.y);
        });
      });
      return;
    case Path::kSuperBlock: {
      // Each x row quantized to Q8_K once, then panels of weight rows as for
      // the 32-element types.
      PAGODA_CHECK_MSG(cols % kSuperBlock == 0, "MatMul: super-block rows need a multiple of 256 columns");
      const int64_t nb = cols / kSuperBlock;
      auto* xq = static_cast<BlockQ8_K*>(ctx.caller_scratch().Get(static_cast<size_t>(m * nb) * sizeof(BlockQ8_K)));
      pool.ParallelFor(m, [&](int64_t begin, int64_t end) { ops.quantize_k(x, cols, begin, end, xq); });
      pool.ParallelForWorkers(space.size(), [&](int worker, int64_t pb, int64_t pe) {
        void* scratch = ctx.worker_scratch(worker).Get(static_cast<size_t>(nb * ops.k_scratch_bytes_per_super_block));
        space.Run(pb, pe, [&](const MatMulTarget& t, int64_t begin, int64_t end) {
          ops.k(xq, m, *t.w, begin, end, scratch, t.y);
        });
      });
      return;
    }
    case Path::kQuant: {
      PAGODA_CHECK_MSG(cols % kQuantBlock == 0, "MatMul: quantized rows need a multiple of 32 columns");
      const int64_t nb = cols / kQuantBlock;
      std::byte* cursor = static_cast<std::byte*>(
          ctx.caller_scratch().Get(static_cast<size_t>(m * cols + 3 * m * nb * 4 + 4 * 64)));
      QuantizedRows xq;
      xq.m = m;
      xq.k = cols;
      xq.qs = Carve<int8_t>(cursor, m * cols);
      xq.d = Carve<float>(cursor, m * nb);
      xq.s = Carve<float>(cursor, m * nb);
      xq.sum = Carve<int32_t>(cursor, m * nb);
      pool.ParallelFor(m, [&](int64_t begin, int64_t end) { ops.quantize(x, begin, end, xq); });
      pool.ParallelForWorkers(space.size(), [&](int worker, int64_t pb, int64_t pe) {
        void* scratch = ctx.worker_scratch(worker).Get(static_cast<size_t>(nb * ops.scratch_bytes_per_block));
        space.Run(pb, pe, [&](const MatMulTarget& t, int64_t begin, int64_t end) {
          QuantPanel(ops, t.w->dtype)(xq, OwnPanelsOnly(ops, *t.w), begin, end, scratch, t.y);
        });
      });
      return;
    }
  }
}

void SimdMatMul(const SimdMatMulOps& ops, const float* x, int64_t m, const MatrixView& w, float* y,
                ComputeContext& ctx) {
  if (m <= 0 || w.rows <= 0) return;
  const MatMulTarget target{&w, y};
  if (PathOf(ops, w.dtype) == Path::kQuant) {
    PAGODA_CHECK_MSG(QuantPanel(ops, w.dtype) != nullptr, "MatMul: no SIMD kernel for this weight type");
  }
  SimdMatMuls(ops, x, m, std::span(&target, 1), ctx);
}

}  // namespace pagoda::kernels::cpu
