// The scheduler's knobs, named after vLLM's engine arguments.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "pagoda/kv_blocks/kv_cache_manager.h"
#include "pagoda/scheduler/scheduling_policy.h"

namespace pagoda {

struct SchedulerConfig {
  int32_t max_num_batched_tokens = 2048;  // tokens computed per step, all sequences together
  // With a target (seconds), a step's token budget is sized from measured
  // step times (StepTokenBudget, fed by ObserveStep) to stay near it, at
  // most max_num_batched_tokens; every running decode keeps its token and
  // prefills get what is left. 0: every step's budget is
  // max_num_batched_tokens (vLLM's fixed budget).
  double step_latency_target = 0;
  int32_t max_num_seqs = 256;             // sequences running at once
  int64_t max_model_len = 2048;           // prompt plus output, per sequence
  // Chunked prefill's fairness knobs, with vLLM's meanings. A sequence with
  // more than long_prefill_token_threshold tokens left to compute is "long",
  // and computes at most that many per step (vLLM V1; 0: no cap, nothing is
  // long). With max_num_partial_prefills > 1 (vLLM V0's concurrent partial
  // prefills) the prefills that can run in a step share the token budget
  // evenly, and at most max_long_partial_prefills of them are long: a long
  // waiting prompt beyond that keeps its place while shorter ones behind it
  // are admitted.
  int32_t long_prefill_token_threshold = 0;
  int32_t max_num_partial_prefills = 1;
  int32_t max_long_partial_prefills = 1;
  SchedulingPolicy policy = SchedulingPolicy::kFcfs;
  std::optional<int32_t> eos_token_id;  // none: only stop tokens and lengths end a sequence
  KvCacheConfig kv;
  // Seconds on a monotonic clock, for request timings; steady_clock when empty.
  std::function<double()> clock;
};

}  // namespace pagoda
