// vLLM's histogram bucket families (vllm/v1/metrics/buckets.py), so that a
// quantile a vLLM dashboard computes from Pagoda's histograms is computed
// from the same bucket edges.
#pragma once

#include <cstdint>
#include <vector>

namespace pagoda::metrics {

// Request phase durations in seconds: e2e, queue, inference, prefill, decode.
std::vector<double> RequestLatencyBuckets();
// Time to first token, seconds.
std::vector<double> TimeToFirstTokenBuckets();
// Inter-token latency and a request's mean time per output token, seconds.
std::vector<double> InterTokenLatencyBuckets();
// Tokens per engine step.
std::vector<double> IterationTokensBuckets();
// The n sampling parameter.
std::vector<double> RequestParamsNBuckets();
// Preemptions of one request.
std::vector<double> RequestNumPreemptionsBuckets();
// Token counts of a request (prompt, generation, max_tokens, ...):
// vLLM's build_1_2_5_buckets(max_model_len), 1, 2, 5, 10, 20, 50, ... up to
// and including max_value. max_value must be at least 1.
std::vector<double> Build125Buckets(int64_t max_value);

}  // namespace pagoda::metrics
