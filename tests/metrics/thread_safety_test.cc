// Recording happens on the engine thread while server threads render: every
// render must be a consistent text, and nothing recorded may be lost.
#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pagoda/metrics/registry.h"

namespace pagoda::metrics {
namespace {

// The value of the first sample line that starts with `prefix`.
double SampleValue(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(prefix)) return std::stod(line.substr(line.rfind(' ') + 1));
  }
  ADD_FAILURE() << "no sample " << prefix;
  return -1;
}

TEST(ThreadSafetyTest, ConcurrentRecordingAndRendering) {
  constexpr int kWriters = 4;
  constexpr int kIterations = 20000;
  Registry registry;
  CounterFamily& counter = registry.AddCounter("c", "C.", {"w"});
  GaugeFamily& gauge = registry.AddGauge("g", "G.", {"w"});
  HistogramFamily& histogram = registry.AddHistogram("h", "H.", {"w"}, {1, 10, 100});
  Histogram& shared = histogram.Labels({"shared"});

  std::atomic<bool> done{false};
  std::atomic<int> renders{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      while (!done.load()) {
        const std::string text = registry.Render();
        // One consistent histogram: the buckets only grow and end at _count.
        double previous = 0;
        for (const char* le : {"1.0", "10.0", "100.0", "+Inf"}) {
          const double bucket = SampleValue(text, std::string("h_bucket{le=\"") + le + "\",w=\"shared\"}");
          EXPECT_GE(bucket, previous);
          previous = bucket;
        }
        EXPECT_EQ(previous, SampleValue(text, "h_count{w=\"shared\"}"));
        renders.fetch_add(1);
      }
    });
  }
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      const std::string own = std::to_string(w);
      for (int i = 0; i < kIterations; ++i) {
        counter.Labels({"all"}).Inc();
        counter.Labels({own}).Inc(0.5);
        gauge.Labels({own}).Set(i);
        shared.Observe(i % 200);
        // New children appear while readers render.
        if (i % 1000 == 0) histogram.Labels({own + "-" + std::to_string(i)}).Observe(i);
      }
    });
  }
  for (auto& t : writers) t.join();
  done = true;
  for (auto& t : readers) t.join();

  EXPECT_GT(renders.load(), 0);
  EXPECT_EQ(counter.Labels({"all"}).Value(), kWriters * kIterations);
  const std::string text = registry.Render();
  EXPECT_EQ(SampleValue(text, "c_total{w=\"all\"}"), kWriters * kIterations);
  for (int w = 0; w < kWriters; ++w) {
    EXPECT_EQ(SampleValue(text, "c_total{w=\"" + std::to_string(w) + "\"}"), kIterations * 0.5);
    EXPECT_EQ(SampleValue(text, "g{w=\"" + std::to_string(w) + "\"}"), kIterations - 1);
  }
  EXPECT_EQ(SampleValue(text, "h_count{w=\"shared\"}"), kWriters * kIterations);
  // i % 200 <= 1 twice in every 200 values.
  EXPECT_EQ(SampleValue(text, "h_bucket{le=\"1.0\",w=\"shared\"}"), kWriters * kIterations / 100);
  double expected_sum = 0;
  for (int i = 0; i < kIterations; ++i) expected_sum += i % 200;
  EXPECT_EQ(SampleValue(text, "h_sum{w=\"shared\"}"), kWriters * expected_sum);
}

}  // namespace
}  // namespace pagoda::metrics
