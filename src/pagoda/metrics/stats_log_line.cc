#include "pagoda/metrics/stats_log_line.h"

#include <fmt/format.h>

#include <iterator>

namespace pagoda::metrics {

StatsLogLine::StatsLogLine(double start_seconds, const StatsLogTotals& start_totals, int engine_index)
    : engine_index_(engine_index), last_time_(start_seconds), last_totals_(start_totals) {}

StatsLogEntry StatsLogLine::Next(double now_seconds, const StatsLogTotals& totals) {
  const double elapsed = now_seconds - last_time_;
  auto throughput = [elapsed](int64_t tokens) { return elapsed > 0 ? static_cast<double>(tokens) / elapsed : 0.0; };
  const double prompt_throughput = throughput(totals.computed_prompt_tokens - last_totals_.computed_prompt_tokens);
  const double generation_throughput = throughput(totals.generation_tokens - last_totals_.generation_tokens);
  const int64_t preemptions = totals.preemptions - last_totals_.preemptions;

  StatsLogEntry entry;
  entry.idle = prompt_throughput == 0 && generation_throughput == 0 && last_prompt_throughput_ == 0 &&
               last_generation_throughput_ == 0;
  auto out = std::back_inserter(entry.line);
  fmt::format_to(out,
                 "Engine {:03d}: Avg prompt throughput: {:.1f} tokens/s, Avg generation throughput: {:.1f} tokens/s, "
                 "Running: {} reqs, Waiting: {} reqs",
                 engine_index_, prompt_throughput, generation_throughput, totals.num_running, totals.num_waiting);
  if (preemptions > 0) fmt::format_to(out, ", Preemptions: {}", preemptions);
  fmt::format_to(out, ", CPU KV cache usage: {:.1f}%", totals.kv_cache_usage * 100);
  if (totals.prefix_cache_hit_rate)
    fmt::format_to(out, ", Prefix cache hit rate: {:.1f}%", *totals.prefix_cache_hit_rate * 100);

  last_time_ = now_seconds;
  last_totals_ = totals;
  last_prompt_throughput_ = prompt_throughput;
  last_generation_throughput_ = generation_throughput;
  return entry;
}

}  // namespace pagoda::metrics
