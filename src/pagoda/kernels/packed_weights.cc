#include "pagoda/kernels/packed_weights.h"

#include <cstdlib>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "pagoda/base/check.h"
#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/threading/thread_pool.h"

namespace pagoda::kernels {
namespace {

// Decode streams every packed weight from the last-level cache once per
// step, in runs of a few hundred KB that start wherever the previous MatMul
// did not. On 4 KiB pages each run crosses a page (a TLB miss, and a fresh
// start for the hardware prefetcher) every 4 KiB; on 2 MiB pages the
// default model's decode MatMuls ran 13-20% faster (docs/performance.md,
// "Decode's bytes, the pool, huge pages and sampling"). So the copy is
// 2 MiB aligned and sized, and asks for transparent huge pages; where the
// kernel gives none (THP off), it is ordinary memory.
constexpr size_t kHugePage = size_t{2} << 20;

void* AllocateForHugePages(size_t bytes) {
  const size_t size = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* memory = std::aligned_alloc(kHugePage, size);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (memory != nullptr) (void)::madvise(memory, size, MADV_HUGEPAGE);
#endif
  return memory;
}

}  // namespace

PackedWeights PackedWeights::Pack(ComputeContext& ctx, std::span<MatrixView* const> views) {
  PackedWeights packed;
  const cpu::SimdMatMulOps* ops = ctx.kernels().simd;
  if (ops == nullptr || ops->pack == nullptr) return packed;
  // One allocation (on huge pages where the OS gives them); each copy
  // starts on a cache line.
  std::vector<int64_t> sizes, offsets;
  for (const MatrixView* w : views) {
    sizes.push_back(ops->packed_bytes(*w));
    offsets.push_back(packed.bytes_);
    packed.bytes_ += (sizes.back() + 63) / 64 * 64;
  }
  if (packed.bytes_ == 0) return packed;
  packed.memory_.reset(AllocateForHugePages(static_cast<size_t>(packed.bytes_)));
  PAGODA_CHECK_MSG(packed.memory_ != nullptr, "out of memory for the repacked weights");
  auto* base = static_cast<uint8_t*>(packed.memory_.get());
  for (size_t i = 0; i < views.size(); ++i) {
    MatrixView& w = *views[i];
    if (sizes[i] == 0) continue;
    void* out = base + offsets[i];
    const int64_t panels = (w.rows + ops->panel_rows - 1) / ops->panel_rows;
    ctx.pool().ParallelFor(panels, [&](int64_t begin, int64_t end) { ops->pack(w, begin, end, out); });
    w.panels = out;
    w.panels_layout = reinterpret_cast<const void*>(ops->pack);
    ++packed.num_packed_;
  }
  return packed;
}

}  // namespace pagoda::kernels
