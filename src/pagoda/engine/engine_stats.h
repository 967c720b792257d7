// A snapshot of the engine's gauges and counters, for /metrics.
#pragma once

#include <cstdint>

#include "pagoda/scheduler/scheduler_stats.h"

namespace pagoda {

struct EngineStats : SchedulerStats {
  int64_t num_kv_blocks = 0;
  int64_t num_steps = 0;
  int64_t num_finished_requests = 0;  // including aborted ones
  // Wall time of all steps, and of the model forward within them: their
  // difference is the engine's own overhead (scheduling, sampling, outputs).
  double step_seconds = 0;
  double forward_seconds = 0;
};

}  // namespace pagoda
