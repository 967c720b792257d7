#include "pagoda/threading/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace pagoda {
namespace {

// Runs one ParallelFor and returns the ranges it produced, sorted.
std::vector<std::pair<int64_t, int64_t>> Ranges(ThreadPool& pool, int64_t n) {
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  pool.ParallelFor(n, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mu);
    ranges.emplace_back(b, e);
  });
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

TEST(ThreadPoolTest, EveryIndexRunsExactlyOnce) {
  for (int threads : {1, 2, 3, 4, 7}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.num_threads(), threads);
    for (int64_t n : {1, 2, 3, 5, 6, 7, 8, 13, 64, 100, 1000, 4097}) {
      std::vector<std::atomic<int>> hits(n);
      pool.ParallelFor(n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1);
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "threads " << threads << " n " << n;
    }
  }
}

TEST(ThreadPoolTest, RangesAreContiguousBalancedAndAtMostThreads) {
  ThreadPool pool(4);
  for (int64_t n : {1, 3, 4, 5, 10, 1001}) {
    const auto ranges = Ranges(pool, n);
    ASSERT_EQ(static_cast<int64_t>(ranges.size()), std::min<int64_t>(4, n));
    int64_t expect_begin = 0;
    int64_t lo = n;
    int64_t hi = 0;
    for (const auto& [b, e] : ranges) {
      EXPECT_EQ(b, expect_begin);
      EXPECT_LT(b, e);
      lo = std::min(lo, e - b);
      hi = std::max(hi, e - b);
      expect_begin = e;
    }
    EXPECT_EQ(expect_begin, n);
    EXPECT_LE(hi - lo, 1);
  }
}

TEST(ThreadPoolTest, CallerRunsTheFirstRange) {
  ThreadPool pool(3);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> first_on_caller{false};
  std::mutex mu;
  std::set<std::thread::id> ids;
  pool.ParallelFor(300, [&](int64_t b, int64_t) {
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
    if (b == 0) first_on_caller = std::this_thread::get_id() == caller;
  });
  EXPECT_TRUE(first_on_caller.load());
  EXPECT_EQ(ids.size(), 3u);
}

TEST(ThreadPoolTest, ZeroAndNegativeSizesRunNothing) {
  ThreadPool pool(2);
  int calls = 0;
  pool.ParallelFor(0, [&](int64_t, int64_t) { ++calls; });
  pool.ParallelFor(-5, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ThreadPoolTest, FewerItemsThanThreadsThenMore) {
  ThreadPool pool(8);
  // Alternating small and large jobs exercises helpers that sat a job out.
  for (int rep = 0; rep < 200; ++rep) {
    const int64_t n = rep % 2 ? 3 : 50;
    std::atomic<int64_t> sum{0};
    pool.ParallelFor(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) sum.fetch_add(i + 1);
    });
    ASSERT_EQ(sum.load(), n * (n + 1) / 2) << rep;
  }
}

TEST(ThreadPoolTest, ManyRepeatedJobs) {
  ThreadPool pool(3);
  std::vector<int64_t> data(999, 0);
  for (int rep = 0; rep < 5000; ++rep) {
    pool.ParallelFor(static_cast<int64_t>(data.size()), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) data[i] += i;
    });
  }
  for (int64_t i = 0; i < static_cast<int64_t>(data.size()); ++i) ASSERT_EQ(data[i], 5000 * i);
}

TEST(ThreadPoolTest, JobsAfterHelpersFellAsleep) {
  ThreadPool pool(2);
  for (int rep = 0; rep < 3; ++rep) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // past the spin window
    std::atomic<int> count{0};
    pool.ParallelFor(10, [&](int64_t b, int64_t e) { count += static_cast<int>(e - b); });
    EXPECT_EQ(count.load(), 10);
  }
}

// The caller falls asleep waiting on a slow helper, and helpers fall asleep
// between jobs spaced around the spin window: no wake-up may be lost on
// either side (a lost one would hang this test).
TEST(ThreadPoolTest, NoWakeUpIsLostAroundTheSpinWindow) {
  ThreadPool pool(3);
  int64_t expected = 0;
  std::atomic<int64_t> total{0};
  for (int rep = 0; rep < 300; ++rep) {
    if (rep % 3 == 1) std::this_thread::sleep_for(std::chrono::microseconds(20 + rep % 80));
    const bool slow_helper = rep % 3 == 2;
    pool.ParallelForWorkers(9, [&](int worker, int64_t b, int64_t e) {
      if (slow_helper && worker != 0) std::this_thread::sleep_for(std::chrono::microseconds(150));
      total += e - b;
    });
    expected += 9;
    ASSERT_EQ(total.load(), expected);
  }
}

TEST(ThreadPoolTest, ExceptionsReachTheCallerAndThePoolStaysUsable) {
  ThreadPool pool(2);
  EXPECT_THROW(pool.ParallelFor(10,
                                [&](int64_t b, int64_t) {
                                  if (b != 0) throw std::runtime_error("helper");
                                }),
               std::runtime_error);
  EXPECT_THROW(pool.ParallelFor(10,
                                [&](int64_t b, int64_t) {
                                  if (b == 0) throw std::runtime_error("caller");
                                }),
               std::runtime_error);
  std::atomic<int> count{0};
  pool.ParallelFor(10, [&](int64_t b, int64_t e) { count += static_cast<int>(e - b); });
  EXPECT_EQ(count.load(), 10);
}

// A call from inside a job runs on the calling thread, over the whole
// range, with that job's worker index; outside jobs InJob is false again.
TEST(ThreadPoolTest, ACallFromInsideAJobRunsOnTheCallingThread) {
  ThreadPool pool(3);
  std::mutex mu;
  std::vector<std::pair<int, std::pair<int64_t, int64_t>>> inner;  // outer worker, inner range
  std::atomic<int> mismatched{0};
  EXPECT_FALSE(ThreadPool::InJob());
  pool.ParallelForWorkers(3, [&](int worker, int64_t, int64_t) {
    if (!ThreadPool::InJob()) ++mismatched;
    const std::thread::id outer = std::this_thread::get_id();
    pool.ParallelForWorkers(50, [&](int inner_worker, int64_t b, int64_t e) {
      if (inner_worker != worker || std::this_thread::get_id() != outer) ++mismatched;
      std::lock_guard<std::mutex> lock(mu);
      inner.push_back({worker, {b, e}});
    });
  });
  EXPECT_FALSE(ThreadPool::InJob());
  EXPECT_EQ(mismatched.load(), 0);
  std::sort(inner.begin(), inner.end());
  const std::vector<std::pair<int, std::pair<int64_t, int64_t>>> want = {
      {0, {0, 50}}, {1, {0, 50}}, {2, {0, 50}}};
  EXPECT_EQ(inner, want);
  // The pool still splits the next outer call.
  EXPECT_EQ(Ranges(pool, 6).size(), 3u);
}

TEST(ThreadPoolTest, DefaultSizeIsPhysicalCores) {
  const int cores = ThreadPool::PhysicalCores();
  EXPECT_GE(cores, 1);
  EXPECT_LE(cores, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  ThreadPool pool(0);
  EXPECT_EQ(pool.num_threads(), cores);
}

}  // namespace
}  // namespace pagoda
