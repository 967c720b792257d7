#include "pagoda/runner/kv_cache_arena.h"

#include <fmt/format.h>

#include <sys/mman.h>
#include <unistd.h>

#include "pagoda/kernels/cpu/kv_pairs_layout.h"

namespace pagoda {
namespace {

constexpr int64_t kAlignment = 64;  // a cache line, and what AVX-512 loads like

int64_t RoundUp(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

int64_t LayerArenaBytes(const KvCacheShape& s, int64_t num_blocks) {
  return RoundUp(num_blocks * s.block_size * s.num_kv_heads * s.head_dim * DTypeBlockBytes(s.dtype), kAlignment);
}

}  // namespace

int64_t KvCacheShape::BytesPerBlock() const {
  return 2 * num_slots * block_size * num_kv_heads * head_dim * DTypeBlockBytes(dtype);
}

void KvCacheArena::Unmap::operator()(void* p) const { munmap(p, static_cast<size_t>(bytes)); }

StatusOr<std::unique_ptr<KvCacheArena>> KvCacheArena::Create(const KvCacheShape& shape, int64_t memory_bytes) {
  return Create(shape, KvCacheLayout::Uniform(shape.num_slots), memory_bytes);
}

StatusOr<std::unique_ptr<KvCacheArena>> KvCacheArena::Create(const KvCacheShape& shape, KvCacheLayout layout,
                                                             int64_t memory_bytes) {
  if (shape.dtype != DType::kF32 && shape.dtype != DType::kF16 && shape.dtype != DType::kBF16) {
    return InvalidArgumentError(
        fmt::format("KV cache dtype {} is not supported (F32, F16 or BF16)", DTypeName(shape.dtype)));
  }
  if (shape.dtype == DType::kBF16 && !kernels::cpu::KvPairsShapeOk(shape.head_dim, shape.block_size)) {
    return InvalidArgumentError(fmt::format(
        "a BF16 KV cache needs a head size that is a multiple of 32 and a block size that is a multiple of 16 "
        "(head size {}, block size {})",
        shape.head_dim, shape.block_size));
  }
  if (shape.block_size <= 0 || shape.num_slots <= 0 || shape.num_kv_heads <= 0 || shape.head_dim <= 0) {
    return InvalidArgumentError("KV cache shape has a non-positive dimension");
  }
  if (layout.num_slots != shape.num_slots) {
    return InvalidArgumentError(
        fmt::format("KV cache layout has {} slots, the shape {}", layout.num_slots, shape.num_slots));
  }
  const int64_t num_blocks = memory_bytes / shape.BytesPerBlock();
  if (num_blocks < 1) {
    return ResourceExhaustedError(fmt::format("KV cache memory {} bytes holds no block ({} bytes each)",
                                              memory_bytes, shape.BytesPerBlock()));
  }
  auto arena = std::unique_ptr<KvCacheArena>(new KvCacheArena(shape, std::move(layout), num_blocks));
  if (arena->memory_ == nullptr) {
    return ResourceExhaustedError(fmt::format("could not allocate {} bytes for the KV cache", memory_bytes));
  }
  return arena;
}

KvCacheArena::KvCacheArena(const KvCacheShape& shape, KvCacheLayout layout, int64_t num_blocks)
    : shape_(shape), layout_(std::move(layout)), num_blocks_(num_blocks) {
  const int64_t per_arena = LayerArenaBytes(shape, num_blocks);
  const int64_t total = 2 * shape.num_slots * per_arena;
  // Anonymous pages read as zeros and are only backed when first written,
  // by whichever thread writes a block's K/V, so a 4 GiB cache costs no
  // start-up time and an idle one no memory. The kernel's overcommit check
  // still refuses a size beyond RAM and swap here; the size itself comes
  // from --kv-cache-memory or MemAvailable (--gpu-memory-utilization).
  // An inaccessible page on each side keeps the arena one mapping of its
  // own (never merged with a neighbour, so tools can find it in
  // /proc/PID/smaps by its size) and faults a stray access past either end.
  const int64_t page = sysconf(_SC_PAGESIZE);
  const int64_t mapped = RoundUp(total, page) + 2 * page;
  void* p = mmap(nullptr, static_cast<size_t>(mapped), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;
  memory_ = std::unique_ptr<void, Unmap>(p, Unmap{mapped});
  if (mprotect(static_cast<uint8_t*>(p) + page, static_cast<size_t>(total), PROT_READ | PROT_WRITE) != 0) {
    memory_.reset();
    return;
  }
  auto* base = static_cast<uint8_t*>(memory_.get()) + page;
  for (int64_t s = 0; s < shape.num_slots; ++s) {
    slots_.push_back(kernels::KvCacheLayer{shape.dtype, base + (2 * s) * per_arena, base + (2 * s + 1) * per_arena,
                                           num_blocks, shape.block_size, shape.num_kv_heads, shape.head_dim});
  }
  for (int32_t slot : layout_.layer_slot) layers_.push_back(slots_[slot]);
}

}  // namespace pagoda
