// The compute thread pool. The calling thread is one of the workers, so a
// pool of N threads starts N-1 helpers. Helpers sleep on a condition variable
// between jobs (after a short spin), so nothing burns a core while idle.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace pagoda {

class ThreadPool {
 public:
  // num_threads <= 0 means one per physical core.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const;

  // Splits [0, n) into at most num_threads() contiguous ranges and runs
  // fn(begin, end) on each, the caller taking the first. Returns when all are
  // done. A call from inside a job (of any pool) runs fn(0, n) on the
  // calling thread: a job's part can use ops that split their own work,
  // on the rows it owns. Calls from two threads outside jobs must not
  // overlap.
  void ParallelFor(int64_t n, const std::function<void(int64_t begin, int64_t end)>& fn);
  // The same, also passing the index of the worker that runs each range
  // (0 is the caller; each index runs at most one range per call), so that
  // callers can give each worker its own scratch memory. A call from inside
  // a job passes that job's worker index.
  void ParallelForWorkers(int64_t n, const std::function<void(int worker, int64_t begin, int64_t end)>& fn);

  // Whether the calling thread is running a part of a job.
  static bool InJob();

  // Physical cores of this machine (not hyper-threads), at least 1.
  static int PhysicalCores();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pagoda
