#include "pagoda/metrics/stats_log_line.h"

#include <gtest/gtest.h>

namespace pagoda::metrics {
namespace {

TEST(StatsLogLineTest, ThroughputsAreDeltasOverTheInterval) {
  StatsLogLine log(100.0);
  StatsLogTotals totals{.computed_prompt_tokens = 1234,
                        .generation_tokens = 567,
                        .preemptions = 0,
                        .num_running = 3,
                        .num_waiting = 1,
                        .kv_cache_usage = 0.1234,
                        .prefix_cache_hit_rate = 0.5};
  StatsLogEntry entry = log.Next(110.0, totals);
  EXPECT_EQ(entry.line,
            "Engine 000: Avg prompt throughput: 123.4 tokens/s, Avg generation throughput: 56.7 tokens/s, "
            "Running: 3 reqs, Waiting: 1 reqs, CPU KV cache usage: 12.3%, Prefix cache hit rate: 50.0%");
  EXPECT_FALSE(entry.idle);

  totals.generation_tokens += 100;
  totals.preemptions = 2;
  entry = log.Next(120.0, totals);
  EXPECT_EQ(entry.line,
            "Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 10.0 tokens/s, "
            "Running: 3 reqs, Waiting: 1 reqs, Preemptions: 2, CPU KV cache usage: 12.3%, "
            "Prefix cache hit rate: 50.0%");
}

TEST(StatsLogLineTest, IdleOnlyAfterTwoQuietIntervals) {
  StatsLogTotals totals{.generation_tokens = 10};
  StatsLogLine log(0.0, totals, /*engine_index=*/2);
  StatsLogEntry entry = log.Next(10.0, totals);
  EXPECT_TRUE(entry.idle);
  // No admission yet: no hit rate.
  EXPECT_EQ(entry.line,
            "Engine 002: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, "
            "Running: 0 reqs, Waiting: 0 reqs, CPU KV cache usage: 0.0%");
  totals.generation_tokens += 5;
  EXPECT_FALSE(log.Next(20.0, totals).idle);
  EXPECT_FALSE(log.Next(30.0, totals).idle);  // the interval before had tokens
  EXPECT_TRUE(log.Next(40.0, totals).idle);
}

TEST(StatsLogLineTest, NoElapsedTimeMeansZeroThroughput) {
  StatsLogLine log(5.0);
  const StatsLogEntry entry = log.Next(5.0, {.computed_prompt_tokens = 10});
  EXPECT_TRUE(entry.idle);
  EXPECT_NE(entry.line.find("Avg prompt throughput: 0.0 tokens/s"), std::string::npos);
}

}  // namespace
}  // namespace pagoda::metrics
