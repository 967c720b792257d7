// A snapshot of the engine's gauges and counters, for /metrics.
#pragma once

#include <cstdint>

#include "pagoda/scheduler/scheduler.h"

namespace pagoda {

struct EngineStats : SchedulerStats {
  int64_t num_kv_blocks = 0;
  int64_t num_steps = 0;
  int64_t num_finished_requests = 0;  // including aborted ones
};

}  // namespace pagoda
