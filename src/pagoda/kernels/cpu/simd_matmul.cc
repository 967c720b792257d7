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

// From this many rows per worker, a batch's rows are split over the
// workers instead of the panels: each worker quantizes its own rows and runs
// them past every panel, in one job. Split by panels, every worker read
// every x row, and the ops before and after (norms, residual adds, SiLU,
// attention's output), which split rows, found half of their rows in the
// other core's cache; a 512-token prompt ran 3-18% faster split by rows. Each
// worker then packs every panel for its rows, which 64 rows per worker
// (four tiles of AMX rows) still repay: at 32 per worker prompts ran 3-13%
// slower (docs/performance.md, "Prompt rows split over the workers").
constexpr int64_t kRowSplitRowsPerWorker = 64;

// Worker w's rows of m: whole 16-row tiles (the AMX panels' unit), shared
// as evenly as they go.
struct RowRange {
  int64_t begin;
  int64_t end;
};
RowRange WorkerRows(int64_t m, int64_t workers, int64_t w) {
  const int64_t tiles = (m + 15) / 16;
  return {std::min(m, tiles * w / workers * 16), std::min(m, tiles * (w + 1) / workers * 16)};
}

// before (where set) writes x rows [begin, end), quantize(begin, end)
// quantizes them; run(worker, r0, r1, pb, pe) runs x rows [r0, r1) past
// panels [pb, pe). Either split computes every output the same way, so the
// split changes no bit. Returns whether the rows were split, each worker
// then running `after` (where set) on its rows.
template <typename Quantize, typename Run>
bool QuantizedMatMuls(ThreadPool& pool, int64_t m, int64_t panels, const RowStage& before, const RowStage& after,
                      const Quantize& quantize, const Run& run) {
  auto before_and_quantize = [&](int64_t begin, int64_t end) {
    if (before) before(begin, end);
    quantize(begin, end);
  };
  const int threads = pool.num_threads();
  if (threads > 1 && m >= kRowSplitRowsPerWorker * threads) {
    pool.ParallelForWorkers(threads, [&](int worker, int64_t, int64_t) {
      const RowRange rows = WorkerRows(m, threads, worker);
      before_and_quantize(rows.begin, rows.end);
      run(worker, rows.begin, rows.end, 0, panels);
      if (after) after(rows.begin, rows.end);
    });
    return true;
  }
  pool.ParallelFor(m, before_and_quantize);
  pool.ParallelForWorkers(panels, [&](int worker, int64_t pb, int64_t pe) { run(worker, 0, m, pb, pe); });
  return false;
}

// Rows [r0, r1) of xq as a batch of their own.
QuantizedRows RowsOf(const QuantizedRows& xq, int64_t r0, int64_t r1) {
  const int64_t nb = xq.k / kQuantBlock;
  return {.m = r1 - r0, .k = xq.k, .qs = xq.qs + r0 * xq.k, .d = xq.d + r0 * nb, .s = xq.s + r0 * nb,
          .sum = xq.sum + r0 * nb};
}

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

bool SimdMatMuls(const SimdMatMulOps& ops, const float* x, int64_t m, std::span<const MatMulTarget> targets,
                 ComputeContext& ctx, const RowStage& before, const RowStage& after) {
  PAGODA_CHECK(CanShareInput(ops, targets));
  if (m <= 0) return false;
  ThreadPool& pool = ctx.pool();
  const PanelSpace space(targets, ops.panel_rows);
  const int64_t cols = targets[0].w->cols;
  switch (PathOf(ops, targets[0].w->dtype)) {
    case Path::kFloat:
      if (before) pool.ParallelFor(m, before);
      pool.ParallelFor(space.size(), [&](int64_t pb, int64_t pe) {
        space.Run(pb, pe, [&](const MatMulTarget& t, int64_t begin, int64_t end) {
          FloatPanel(ops, t.w->dtype)(x, m, *t.w, begin, end, t.y);
        });
      });
      return false;
    case Path::kSuperBlock: {
      // Each x row quantized to Q8_K once, then panels of weight rows as for
      // the 32-element types.
      PAGODA_CHECK_MSG(cols % kSuperBlock == 0, "MatMul: super-block rows need a multiple of 256 columns");
      const int64_t nb = cols / kSuperBlock;
      auto* xq = static_cast<BlockQ8_K*>(ctx.caller_scratch().Get(static_cast<size_t>(m * nb) * sizeof(BlockQ8_K)));
      return QuantizedMatMuls(
          pool, m, space.size(), before, after,
          [&](int64_t begin, int64_t end) { ops.quantize_k(x, cols, begin, end, xq); },
          [&](int worker, int64_t r0, int64_t r1, int64_t pb, int64_t pe) {
            void* scratch =
                ctx.worker_scratch(worker).Get(static_cast<size_t>(nb * ops.k_scratch_bytes_per_super_block));
            space.Run(pb, pe, [&](const MatMulTarget& t, int64_t begin, int64_t end) {
              ops.k(xq + r0 * nb, r1 - r0, *t.w, begin, end, scratch, t.y + r0 * t.w->rows);
            });
          });
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
      return QuantizedMatMuls(
          pool, m, space.size(), before, after, [&](int64_t begin, int64_t end) { ops.quantize(x, begin, end, xq); },
          [&](int worker, int64_t r0, int64_t r1, int64_t pb, int64_t pe) {
            void* scratch = ctx.worker_scratch(worker).Get(static_cast<size_t>(nb * ops.scratch_bytes_per_block));
            const QuantizedRows rows = RowsOf(xq, r0, r1);
            space.Run(pb, pe, [&](const MatMulTarget& t, int64_t begin, int64_t end) {
              QuantPanel(ops, t.w->dtype)(rows, OwnPanelsOnly(ops, *t.w), begin, end, scratch, t.y + r0 * t.w->rows);
            });
          });
    }
  }
  return false;
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
