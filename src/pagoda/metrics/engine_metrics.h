// The engine's metrics, with vLLM's names, types, labels, buckets and
// meanings (PrometheusStatLogger in vllm/v1/metrics/loggers.py, vLLM 0.33),
// so that dashboards built for vLLM read Pagoda unchanged. Every series has
// the labels model_name (the served model name) and engine (the engine's
// index, "0"), as vLLM's.
//
// The engine records into one EngineMetrics from its step loop with plain
// numbers; the server renders it for /metrics and reads LogTotals for its
// periodic stats line. All methods are thread-safe.
//
// The set of families is the one vLLM registers for one engine without
// speculative decoding, LoRA, KV connectors or optional metrics, followed by
// Pagoda's own (prefix "pagoda:") for what vLLM does not measure. Those that
// belong to features Pagoda lacks (MFU estimates, external and multi-modal
// caches, sleep mode, admission queue limits) are there at the values an
// idle vLLM feature shows, so that the series a dashboard finds are the same.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pagoda/metrics/caching_window.h"
#include "pagoda/metrics/registry.h"
#include "pagoda/metrics/stats_log_line.h"

namespace pagoda::metrics {

struct EngineMetricsConfig {
  std::string model_name;     // label model_name
  int64_t max_model_len = 0;  // caps the token-count histograms' 1-2-5 buckets
  int engine_index = 0;       // label engine
};

// One engine step's counts (vLLM's IterationStats).
struct IterationCounts {
  // The whole prompts of the requests whose first token was sampled in this
  // step: vLLM counts a prompt once, when its prefill completes, however
  // many chunks it took, and not again when a preempted request recomputes.
  int64_t num_prompt_tokens = 0;
  // Of those, the tokens read from the prefix cache rather than computed.
  int64_t num_cached_prompt_tokens = 0;
  // Tokens sampled in this step, first tokens included.
  int64_t num_generation_tokens = 0;
  // Requests preempted in this step.
  int64_t num_preemptions = 0;
};

// One finished completion: with n > 1 each of the n is one, as each is a
// request of its own in vLLM. Times are seconds on one clock.
struct FinishedRequest {
  // One of vLLM's finish reasons: "stop", "length", "abort", "error",
  // "repetition". vLLM records requests that the engine finished, aborts by
  // the engine included, but not those a client aborted (disconnects and
  // cancellations skip its statistics), and Pagoda's engine should match.
  std::string finish_reason{};
  double arrival = 0;
  // A phase that never began (a request aborted while waiting, or before its
  // first token) is taken to begin when the request finished, so that it
  // lasts 0 s and the phase before it runs to the end.
  std::optional<double> first_scheduled{};
  std::optional<double> first_token{};
  std::optional<double> last_token{};
  double finished = 0;
  int64_t num_prompt_tokens = 0;
  int64_t num_cached_prompt_tokens = 0;  // read from the prefix cache at admission
  int64_t num_generation_tokens = 0;
  int64_t num_preemptions = 0;
  std::optional<int64_t> max_tokens{};  // the max_tokens parameter, when there was one
};

class EngineMetrics {
 public:
  struct FamilySpec;  // one row of the table of families
  explicit EngineMetrics(const EngineMetricsConfig& config);
  EngineMetrics(const EngineMetrics&) = delete;
  EngineMetrics& operator=(const EngineMetrics&) = delete;

  // The scheduler's state after a step; kv_cache_usage is a fraction, 0..1.
  void SetSchedulerState(int64_t num_running, int64_t num_waiting, double kv_cache_usage);
  // The prefix-cache lookups of the requests newly admitted in a step, in
  // tokens (a preempted request coming back is not counted again).
  void AddPrefixCache(int64_t num_requests, int64_t queried_tokens, int64_t hit_tokens);
  // Once per engine step.
  void OnIteration(const IterationCounts& counts);
  // Per request, in the step that sampled its first token: seconds since
  // its arrival.
  void OnFirstToken(double time_to_first_token);
  // Per request and step that sampled a token after the first: seconds
  // since the request's previous token.
  void OnInterTokenLatency(double seconds);
  void OnRequestFinished(const FinishedRequest& request);
  // Once per client request, when the last of its n completions finished
  // (vLLM's parent request; n = 1 too): n and the most tokens any of its
  // completions generated.
  void OnParentRequestFinished(int64_t n, int64_t max_num_generation_tokens);
  // A request refused because the waiting queue was full
  // (max_num_waiting_requests), on the refusing thread.
  void OnRequestRejected();
  // vllm:cache_config_info: a gauge set to 1 whose labels are the cache
  // configuration, set once the KV cache is sized. vLLM labels it with every
  // field of its CacheConfig (block_size, cache_dtype, enable_prefix_caching,
  // num_gpu_blocks, ...), values as Python's str() writes them ("16",
  // "True", "None"); `engine` is added. Call at most once.
  void SetCacheConfigInfo(const std::map<std::string, std::string>& info);

  // The text exposition (format 0.0.4) of every metric.
  std::string Render() const;
  // What the periodic stats line needs.
  StatsLogTotals LogTotals() const;

 private:
  // The table of families (engine_metrics.cc), and what builds each one.
  static const std::vector<FamilySpec> kFamilies;
  void AddFamily(const FamilySpec& spec, int64_t max_model_len);

  std::string model_name_;
  std::string engine_;
  Registry registry_;

  Gauge* running_ = nullptr;
  Gauge* waiting_ = nullptr;
  Gauge* waiting_for_capacity_ = nullptr;
  Gauge* kv_cache_usage_ = nullptr;
  Gauge* gpu_cache_usage_ = nullptr;  // the same value under older vLLM's name
  Counter* prefix_cache_queries_ = nullptr;
  Counter* prefix_cache_hits_ = nullptr;
  Counter* preemptions_ = nullptr;
  Counter* prompt_tokens_ = nullptr;
  Counter* prompt_tokens_computed_ = nullptr;
  Counter* prompt_tokens_local_cache_hit_ = nullptr;
  Counter* prompt_tokens_cached_ = nullptr;
  Counter* prompt_tokens_cached_on_device_ = nullptr;
  Counter* generation_tokens_ = nullptr;
  std::map<std::string, Counter*, std::less<>> request_success_;  // by finish reason
  Histogram* request_prompt_tokens_ = nullptr;
  Histogram* request_generation_tokens_ = nullptr;
  Histogram* iteration_tokens_ = nullptr;
  Histogram* request_max_num_generation_tokens_ = nullptr;
  Histogram* request_params_n_ = nullptr;
  Histogram* request_params_max_tokens_ = nullptr;
  Histogram* time_to_first_token_ = nullptr;
  Histogram* inter_token_latency_ = nullptr;
  Histogram* request_time_per_output_token_ = nullptr;
  Histogram* e2e_request_latency_ = nullptr;
  Histogram* request_queue_time_ = nullptr;
  Histogram* request_inference_time_ = nullptr;
  Histogram* request_prefill_time_ = nullptr;
  Histogram* request_decode_time_ = nullptr;
  Histogram* request_num_preemptions_ = nullptr;
  Histogram* request_prefill_kv_computed_tokens_ = nullptr;
  Counter* requests_rejected_ = nullptr;

  mutable std::mutex window_mu_;
  CachingWindow prefix_cache_window_;  // for the stats line's hit rate
};

}  // namespace pagoda::metrics
