#include "pagoda/threading/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "pagoda/base/check.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace pagoda {
namespace {

// How long an idle thread polls before sleeping. Model steps issue jobs
// back to back, microseconds apart, so a short spin saves a futex round trip
// per job without burning a core when the engine is idle. The window also
// spans the engine's work between two steps (sampling, scheduling: 40-160
// us at batch 1): with 50 us the helpers slept there at nearly every step,
// and the next step's first MatMul paid two futex wake-ups on this VM
// (40-160 us instead of 10; docs/performance.md, "The pool across the step
// boundary").
constexpr auto kSpin = std::chrono::microseconds(200);

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins until pred() holds or kSpin passes; returns whether it holds.
template <typename Pred>
bool SpinUntil(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (pred()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return pred();
  }
}

// Chunk c of [0, n) split into `chunks` contiguous ranges whose sizes differ by at most one.
void ChunkRange(int64_t n, int64_t chunks, int64_t c, int64_t* begin, int64_t* end) {
  const int64_t base = n / chunks;
  const int64_t rem = n % chunks;
  *begin = c * base + std::min(c, rem);
  *end = *begin + base + (c < rem ? 1 : 0);
}

// The worker index of the job this thread is running, or -1 outside any
// pool's job.
thread_local int t_job_worker = -1;

// Marks the calling thread as running worker `worker`'s part of a job.
class InsideJob {
 public:
  explicit InsideJob(int worker) : saved_(t_job_worker) { t_job_worker = worker; }
  ~InsideJob() { t_job_worker = saved_; }
  InsideJob(const InsideJob&) = delete;
  InsideJob& operator=(const InsideJob&) = delete;

 private:
  int saved_;
};

// The job word packs a generation counter with the number of chunks in the
// job, so an idle helper learns whether it has work from one atomic load and
// never reads the job fields of a job it takes no part in.
constexpr int kChunkBits = 16;
constexpr uint64_t kChunkMask = (uint64_t{1} << kChunkBits) - 1;

}  // namespace

struct ThreadPool::Impl {
  int num_threads = 1;
  std::vector<std::thread> helpers;

  // The caller writes the job (its word, function and size) and helpers
  // write pending: on lines of their own, so that a helper learns of a job
  // and reads it in one line transfer, and its decrement does not take that
  // line away from other helpers polling it.
  alignas(64) std::atomic<uint64_t> job_word{0};
  // Valid for helpers with work while pending > 0.
  const std::function<void(int, int64_t, int64_t)>* fn = nullptr;
  int64_t n = 0;
  alignas(64) std::atomic<int> pending{0};  // helpers still running the current job
  // Helpers asleep (or about to sleep) on wake_cv, and whether the caller
  // is on done_cv: the other side takes the lock and signals only then, so
  // a job between spinning threads touches no mutex. (seq_cst on both sides:
  // either the sleeper's predicate sees the other's store, or the other sees
  // the sleeper's mark and signals.)
  alignas(64) std::atomic<int> sleepers{0};
  std::atomic<bool> caller_asleep{false};
  std::atomic<bool> stop{false};
  std::atomic<bool> busy{false};  // a ParallelFor is in progress

  std::mutex mu;
  std::condition_variable wake_cv;
  std::condition_variable done_cv;
  std::exception_ptr error;  // first exception thrown by a helper, guarded by mu

  void HelperLoop(int index);
  void RunChunk(int64_t chunks, int64_t c);
};

void ThreadPool::Impl::RunChunk(int64_t chunks, int64_t c) {
  int64_t begin = 0;
  int64_t end = 0;
  ChunkRange(n, chunks, c, &begin, &end);
  const InsideJob inside(static_cast<int>(c));
  (*fn)(static_cast<int>(c), begin, end);
}

void ThreadPool::Impl::HelperLoop(int index) {
  uint64_t seen = 0;
  for (;;) {
    auto fresh = [&] { return job_word.load(std::memory_order_seq_cst) != seen; };
    if (!SpinUntil(fresh)) {
      std::unique_lock<std::mutex> lock(mu);
      sleepers.fetch_add(1, std::memory_order_seq_cst);
      wake_cv.wait(lock, fresh);
      sleepers.fetch_sub(1, std::memory_order_relaxed);
    }
    seen = job_word.load(std::memory_order_acquire);
    if (stop.load(std::memory_order_relaxed)) return;
    const int64_t chunks = static_cast<int64_t>(seen & kChunkMask);
    if (index >= chunks) continue;
    try {
      RunChunk(chunks, index);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!error) error = std::current_exception();
    }
    if (pending.fetch_sub(1, std::memory_order_seq_cst) == 1 && caller_asleep.load(std::memory_order_seq_cst)) {
      std::lock_guard<std::mutex> lock(mu);
      done_cv.notify_one();
    }
  }
}

ThreadPool::ThreadPool(int num_threads) : impl_(std::make_unique<Impl>()) {
  if (num_threads <= 0) num_threads = PhysicalCores();
  PAGODA_CHECK(static_cast<uint64_t>(num_threads) <= kChunkMask);
  impl_->num_threads = num_threads;
  impl_->helpers.reserve(num_threads - 1);
  for (int i = 1; i < num_threads; ++i) {
    impl_->helpers.emplace_back([impl = impl_.get(), i] { impl->HelperLoop(i); });
  }
}

ThreadPool::~ThreadPool() {
  impl_->stop.store(true, std::memory_order_relaxed);
  const uint64_t word = impl_->job_word.load(std::memory_order_relaxed);
  impl_->job_word.store(word + (uint64_t{1} << kChunkBits), std::memory_order_release);
  { std::lock_guard<std::mutex> lock(impl_->mu); }
  impl_->wake_cv.notify_all();
  for (std::thread& t : impl_->helpers) t.join();
}

int ThreadPool::num_threads() const { return impl_->num_threads; }

bool ThreadPool::InJob() { return t_job_worker >= 0; }

void ThreadPool::ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  ParallelForWorkers(n, [&fn](int, int64_t begin, int64_t end) { fn(begin, end); });
}

void ThreadPool::ParallelForWorkers(int64_t n, const std::function<void(int, int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  if (t_job_worker >= 0) {
    fn(t_job_worker, 0, n);
    return;
  }
  const int64_t chunks = std::min<int64_t>(impl_->num_threads, n);
  if (chunks == 1) {
    fn(0, 0, n);
    return;
  }
  Impl& im = *impl_;
  PAGODA_CHECK_MSG(!im.busy.exchange(true, std::memory_order_acquire),
                   "ParallelFor calls from two threads must not overlap");
  im.fn = &fn;
  im.n = n;
  im.pending.store(static_cast<int>(chunks - 1), std::memory_order_relaxed);
  const uint64_t generation = (im.job_word.load(std::memory_order_relaxed) >> kChunkBits) + 1;
  im.job_word.store((generation << kChunkBits) | static_cast<uint64_t>(chunks), std::memory_order_seq_cst);
  if (im.sleepers.load(std::memory_order_seq_cst) > 0) {
    // Taking the lock orders this wake-up after the sleeping helpers'
    // predicate checks, so a helper about to sleep cannot miss the new job.
    { std::lock_guard<std::mutex> lock(im.mu); }
    im.wake_cv.notify_all();
  }

  std::exception_ptr own_error;
  try {
    im.RunChunk(chunks, 0);
  } catch (...) {
    own_error = std::current_exception();
  }

  auto done = [&] { return im.pending.load(std::memory_order_seq_cst) == 0; };
  if (!SpinUntil(done)) {
    std::unique_lock<std::mutex> lock(im.mu);
    im.caller_asleep.store(true, std::memory_order_seq_cst);
    im.done_cv.wait(lock, done);
    im.caller_asleep.store(false, std::memory_order_relaxed);
  }
  std::exception_ptr helper_error;
  {
    std::lock_guard<std::mutex> lock(im.mu);
    std::swap(helper_error, im.error);
  }
  im.busy.store(false, std::memory_order_release);
  if (own_error) std::rethrow_exception(own_error);
  if (helper_error) std::rethrow_exception(helper_error);
}

}  // namespace pagoda
