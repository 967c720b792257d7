// What the compute code runs with, passed down explicitly rather than found
// in globals (as gemma.cpp's ThreadingContext is): the kernel set, the
// thread pool, and the scratch memory that kernels reuse from call to call.
// A context serves one caller at a time (the engine thread, a test, a
// benchmark); callers that run models concurrently each have their own.
#pragma once

#include <cstddef>
#include <vector>

#include "pagoda/kernels/rope_angles_cache.h"

namespace pagoda {
class ThreadPool;
}

namespace pagoda::kernels {

namespace cpu {
struct KernelSet;
}

// A grow-only byte buffer handing out 64-byte aligned storage.
class Scratch {
 public:
  // At least `bytes` bytes; the contents are whatever the last user left.
  void* Get(size_t bytes);

 private:
  std::vector<std::byte> buffer_;
};

class ComputeContext {
 public:
  ComputeContext(const cpu::KernelSet& kernels, ThreadPool& pool);

  const cpu::KernelSet& kernels() const { return kernels_; }
  ThreadPool& pool() const { return pool_; }
  // Scratch for the caller's part of a kernel call (such as the quantized
  // activations that every worker then reads).
  Scratch& caller_scratch() { return caller_; }
  // A kernel's input rearranged before the kernel runs (MatMul's input_order),
  // kept apart from the scratch the kernel itself then uses.
  Scratch& input_scratch() { return input_; }
  // Worker w's scratch, for w in [0, pool().num_threads()): the `worker`
  // that ThreadPool::ParallelForWorkers passes.
  Scratch& worker_scratch(int worker) { return workers_.at(static_cast<size_t>(worker)); }
  // RoPE's angles, kept from one call to the next.
  RopeAnglesCache& rope_angles() { return rope_angles_; }

 private:
  const cpu::KernelSet& kernels_;
  ThreadPool& pool_;
  Scratch caller_;
  Scratch input_;
  std::vector<Scratch> workers_;
  RopeAnglesCache rope_angles_;
};

}  // namespace pagoda::kernels
