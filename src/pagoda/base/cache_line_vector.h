// A std::vector whose data starts on a 64-byte cache line, and whose
// resize() does not zero what it adds.
//
// The layers' activation buffers are written by several threads at once,
// each taking a run of 16-float columns of every row. With malloc's 16-byte
// alignment each 64-byte run straddled two lines, so neighbouring runs that
// belong to different threads shared a line on every row
// (docs/performance.md, "Activation buffers on cache lines").
#pragma once

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace pagoda {

inline constexpr std::size_t kCacheLine = 64;

template <typename T>
struct CacheLineAllocator {
  using value_type = T;

  CacheLineAllocator() = default;
  template <typename U>
  explicit CacheLineAllocator(const CacheLineAllocator<U>&) {}

  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kCacheLine}));
  }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{kCacheLine}); }
  // Growing by resize() leaves new elements uninitialised, as a kernel
  // writes every element it hands on: value-initialising them zeroed up to
  // 12 MiB of buffers at every prompt after a decode step had shrunk them.
  template <typename U>
  void construct(U* p) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <typename U>
  bool operator==(const CacheLineAllocator<U>&) const {
    return true;
  }
};

template <typename T>
using CacheLineVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace pagoda
