// The PTX instructions the CUDA kernels use through inline assembly, each
// behind a small device function.
//
// Asynchronous global-to-shared copies (cp.async, sm_80 and later): a thread
// queues 16-byte copies, closes them into a group, and later waits until at
// most N of its groups are still in flight. Only the waiting thread is
// guaranteed to see its own copies landed; another thread needs a barrier
// after that wait as well. The copies take no registers while in flight, so
// a thread block can keep many more bytes of memory reads outstanding than
// its registers would hold.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace pagoda::kernels::cuda {

// Queues a copy of 16 bytes from `global` to `shared` (both 16-byte
// aligned), bypassing L1; with `valid` false, `shared` gets 16 zero bytes
// and `global` is not read.
__device__ __forceinline__ void CopyAsync16(void* shared, const void* global, bool valid) {
  const auto dst = static_cast<uint32_t>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(global), "r"(valid ? 16 : 0)
               : "memory");
}

// Closes the copies this thread queued since the last commit into a group
// (possibly empty).
__device__ __forceinline__ void CommitAsyncCopies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most kPending of this thread's committed groups are still
// in flight: every older group's bytes are then in shared memory.
template <int kPending>
__device__ __forceinline__ void WaitAsyncCopies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// 16 bytes of shared memory that this thread copied there itself and has
// waited for.
__device__ __forceinline__ uint4 LoadShared16(const uint4* shared) { return *shared; }

// 2^x by one special-function-unit instruction (ex2.approx.ftz: relative
// error about 2^-22, results below 2^-126 flushed to zero; 2^-inf = 0),
// where exp2f costs a few more for subnormal results that a softmax
// weight can ignore.
__device__ __forceinline__ float FastExp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace pagoda::kernels::cuda
