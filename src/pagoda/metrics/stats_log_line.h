// The periodic one-line engine summary of vLLM's LoggingStatLogger, which
// the server logs every 10 s:
//   Engine 000: Avg prompt throughput: 12.3 tokens/s, Avg generation
//   throughput: 45.6 tokens/s, Running: 2 reqs, Waiting: 0 reqs, CPU KV
//   cache usage: 3.1%, Prefix cache hit rate: 50.0%
// Throughputs are counter deltas since the previous line over the time
// between the two. As in vLLM, "Preemptions: N" appears only for an interval
// that had some, and the hit rate only once a request has been admitted.
// The device is "CPU" because vLLM names the KV cache's device, and
// Pagoda's is always the CPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace pagoda::metrics {

// What the line is computed from: cumulative counts and the current state
// (EngineMetrics::LogTotals gives them).
struct StatsLogTotals {
  int64_t computed_prompt_tokens = 0;  // prompt tokens computed, not read from the prefix cache
  int64_t generation_tokens = 0;
  int64_t preemptions = 0;
  int64_t num_running = 0;
  int64_t num_waiting = 0;
  double kv_cache_usage = 0;                      // fraction, 0..1
  std::optional<double> prefix_cache_hit_rate{};  // fraction; nullopt before the first admission
};

struct StatsLogEntry {
  std::string line;
  // Nothing was prompted or generated in this interval nor the one before:
  // vLLM then logs the line at debug level instead of info, so that an idle
  // server's log stays quiet.
  bool idle = false;
};

class StatsLogLine {
 public:
  // `start_totals` are the counts at `start_seconds`, which the first line
  // measures from.
  explicit StatsLogLine(double start_seconds, const StatsLogTotals& start_totals = {}, int engine_index = 0);

  StatsLogEntry Next(double now_seconds, const StatsLogTotals& totals);

 private:
  int engine_index_;
  double last_time_;
  StatsLogTotals last_totals_;
  double last_prompt_throughput_ = 0;
  double last_generation_throughput_ = 0;
};

}  // namespace pagoda::metrics
