#include "pagoda/kernels/compute_context.h"

#include <cstdint>

#include "pagoda/threading/thread_pool.h"

namespace pagoda::kernels {

void* Scratch::Get(size_t bytes) {
  if (buffer_.size() < bytes + 64) buffer_.resize(bytes + 64);
  const auto address = reinterpret_cast<uintptr_t>(buffer_.data());
  return buffer_.data() + ((64 - address % 64) % 64);
}

ComputeContext::ComputeContext(const cpu::KernelSet& kernels, ThreadPool& pool)
    : kernels_(kernels), pool_(pool), workers_(static_cast<size_t>(pool.num_threads())) {}

}  // namespace pagoda::kernels
