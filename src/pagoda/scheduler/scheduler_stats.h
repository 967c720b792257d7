// The scheduler's gauges and totals, apart from the scheduler so that the
// engine's stats can carry them without its interface.
#pragma once

#include <cstdint>

namespace pagoda {

// Gauges and totals for the engine's metrics.
struct SchedulerStats {
  int32_t num_running_requests = 0;  // with at least one running sequence
  int32_t num_waiting_requests = 0;  // unfinished, none running
  int32_t num_queued_requests = 0;   // of those, never scheduled yet (preempted ones are not)
  int32_t num_running_seqs = 0;
  int32_t num_waiting_seqs = 0;
  double kv_cache_usage = 0;
  int64_t num_preemptions = 0;
  int64_t prompt_tokens = 0;      // prompts whose first token was sampled
  int64_t generation_tokens = 0;  // tokens sampled
  int64_t prefix_cache_queries = 0;
  int64_t prefix_cache_hits = 0;
};

}  // namespace pagoda
