#include "pagoda/metrics/engine_metrics.h"

#include <algorithm>
#include <initializer_list>

#include "pagoda/metrics/vllm_buckets.h"

namespace pagoda::metrics {
namespace {

std::vector<std::string> EngineLabelNames() { return {"model_name", "engine"}; }

std::vector<std::string> EngineLabelNamesAnd(const char* extra) { return {"model_name", "engine", extra}; }

// vLLM's FinishReason values, in its enum's order (request_success has a
// series for each from the start).
constexpr std::initializer_list<const char*> kFinishReasons = {"stop", "length", "abort", "error", "repetition"};

}  // namespace

CounterFamily& EngineMetrics::AddEngineCounter(const char* name, const char* help) {
  return registry_.AddCounter(name, help, EngineLabelNames());
}

GaugeFamily& EngineMetrics::AddEngineGauge(const char* name, const char* help) {
  return registry_.AddGauge(name, help, EngineLabelNames());
}

HistogramFamily& EngineMetrics::AddEngineHistogram(const char* name, const char* help, std::vector<double> buckets) {
  return registry_.AddHistogram(name, help, EngineLabelNames(), std::move(buckets));
}

// Families are added in the order vLLM registers them, which is the order
// /metrics lists them in.
EngineMetrics::EngineMetrics(const EngineMetricsConfig& config)
    : model_name_(config.model_name), engine_(std::to_string(config.engine_index)) {
  const std::vector<std::string> labels = EngineLabels();

  // Model FLOPs utilization estimates (vLLM's PerfMetricsProm): only fed
  // with --enable-mfu-metrics, which Pagoda has no counterpart of.
  AddEngineCounter("vllm:estimated_flops_per_gpu_total",
                   "Estimated number of floating point operations per GPU "
                   "(for Model Flops Utilization calculations).")
      .Labels(labels);
  AddEngineCounter("vllm:estimated_read_bytes_per_gpu_total",
                   "Estimated number of bytes read from memory per GPU "
                   "(for Model Flops Utilization calculations).")
      .Labels(labels);
  AddEngineCounter("vllm:estimated_write_bytes_per_gpu_total",
                   "Estimated number of bytes written to memory per GPU "
                   "(for Model Flops Utilization calculations).")
      .Labels(labels);

  running_ =
      &AddEngineGauge("vllm:num_requests_running", "Number of requests in model execution batches.").Labels(labels);
  waiting_ = &AddEngineGauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.").Labels(labels);
  // Pagoda never defers a waiting request (vLLM does for LoRA budgets and
  // KV transfers), so every waiting request waits for capacity.
  GaugeFamily& waiting_by_reason = registry_.AddGauge(
      "vllm:num_requests_waiting_by_reason",
      "Number of waiting requests by reason. Reason labels: 'capacity' = waiting for scheduling capacity; "
      "'deferred' = deferred by transient constraints (LoRA budget, KV transfer, blocked status). "
      "Sum of all reasons equals vllm:num_requests_waiting.",
      EngineLabelNamesAnd("reason"));
  waiting_for_capacity_ = &waiting_by_reason.Labels(EngineLabels("capacity"));
  waiting_by_reason.Labels(EngineLabels("deferred"));

  // Pagoda has no sleep mode: always awake.
  GaugeFamily& sleep_state =
      registry_.AddGauge("vllm:engine_sleep_state",
                         "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; "
                         "weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.",
                         EngineLabelNamesAnd("sleep_state"));
  sleep_state.Labels(EngineLabels("awake")).Set(1);
  sleep_state.Labels(EngineLabels("weights_offloaded"));
  sleep_state.Labels(EngineLabels("discard_all"));

  kv_cache_usage_ =
      &AddEngineGauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.").Labels(labels);

  prefix_cache_queries_ =
      &AddEngineCounter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.")
           .Labels(labels);
  prefix_cache_hits_ =
      &AddEngineCounter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.")
           .Labels(labels);
  // No KV connector shares a cache across instances, and prompts are text.
  AddEngineCounter("vllm:external_prefix_cache_queries",
                   "External prefix cache queries from KV connector cross-instance cache sharing, "
                   "in terms of number of queried tokens.")
      .Labels(labels);
  AddEngineCounter("vllm:external_prefix_cache_hits",
                   "External prefix cache hits from KV connector cross-instance cache sharing, "
                   "in terms of number of cached tokens.")
      .Labels(labels);
  AddEngineCounter("vllm:mm_cache_queries", "Multi-modal cache queries, in terms of number of queried items.")
      .Labels(labels);
  AddEngineCounter("vllm:mm_cache_hits", "Multi-modal cache hits, in terms of number of cached items.").Labels(labels);

  preemptions_ =
      &AddEngineCounter("vllm:num_preemptions", "Cumulative number of preemption from the engine.").Labels(labels);
  prompt_tokens_ = &AddEngineCounter("vllm:prompt_tokens", "Number of prefill tokens processed.").Labels(labels);
  CounterFamily& by_source = registry_.AddCounter("vllm:prompt_tokens_by_source", "Number of prompt tokens by source.",
                                                  EngineLabelNamesAnd("source"));
  prompt_tokens_computed_ = &by_source.Labels(EngineLabels("local_compute"));
  prompt_tokens_local_cache_hit_ = &by_source.Labels(EngineLabels("local_cache_hit"));
  by_source.Labels(EngineLabels("external_kv_transfer"));
  prompt_tokens_cached_ =
      &AddEngineCounter("vllm:prompt_tokens_cached", "Number of cached prompt tokens (local + external).")
           .Labels(labels);
  // The prefix cache lives in the engine's own memory: vLLM's "device" tier.
  CounterFamily& cached_by_source = registry_.AddCounter(
      "vllm:prompt_tokens_cached_by_source",
      "Prefix-cache hit tokens by the cache tier that supplied them: device (local HBM), host (offloaded to DRAM), "
      "disk, p2p (transferred from another vLLM instance) or external_unspecified. Counted at admission; sums to "
      "vllm:prefix_cache_hits + vllm:external_prefix_cache_hits.",
      EngineLabelNamesAnd("source"));
  prompt_tokens_cached_on_device_ = &cached_by_source.Labels(EngineLabels("device"));
  for (const char* source : {"host", "p2p", "disk", "external_unspecified"}) {
    cached_by_source.Labels(EngineLabels(source));
  }
  generation_tokens_ =
      &AddEngineCounter("vllm:generation_tokens", "Number of generation tokens processed.").Labels(labels);
  CounterFamily& success = registry_.AddCounter("vllm:request_success", "Count of successfully processed requests.",
                                                EngineLabelNamesAnd("finished_reason"));
  for (const char* reason : kFinishReasons) request_success_[reason] = &success.Labels(EngineLabels(reason));
  // The API server's queue limits; Pagoda has none. vLLM labels this one
  // without `engine`: the frontend counts it.
  CounterFamily& admission = registry_.AddCounter("vllm:admission_rejections",
                                                  "Number of admission attempts rejected by a queue limit, by reason.",
                                                  {"model_name", "reason"});
  for (const char* reason : {"max_num_queued_reqs", "max_num_queued_tokens"}) admission.Labels({model_name_, reason});

  const std::vector<double> token_buckets = Build125Buckets(config.max_model_len);
  request_prompt_tokens_ =
      &AddEngineHistogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.", token_buckets)
           .Labels(labels);
  request_generation_tokens_ =
      &AddEngineHistogram("vllm:request_generation_tokens", "Number of generation tokens processed.", token_buckets)
           .Labels(labels);
  iteration_tokens_ = &AddEngineHistogram("vllm:iteration_tokens_total",
                                          "Histogram of number of tokens per engine_step.", IterationTokensBuckets())
                           .Labels(labels);
  request_max_num_generation_tokens_ =
      &AddEngineHistogram("vllm:request_max_num_generation_tokens",
                          "Histogram of maximum number of requested generation tokens.", token_buckets)
           .Labels(labels);
  request_params_n_ =
      &AddEngineHistogram("vllm:request_params_n", "Histogram of the n request parameter.", RequestParamsNBuckets())
           .Labels(labels);
  request_params_max_tokens_ = &AddEngineHistogram("vllm:request_params_max_tokens",
                                                   "Histogram of the max_tokens request parameter.", token_buckets)
                                    .Labels(labels);
  time_to_first_token_ = &AddEngineHistogram("vllm:time_to_first_token_seconds",
                                             "Histogram of time to first token in seconds.", TimeToFirstTokenBuckets())
                              .Labels(labels);
  inter_token_latency_ = &AddEngineHistogram("vllm:inter_token_latency_seconds",
                                             "Histogram of inter-token latency in seconds.", InterTokenLatencyBuckets())
                              .Labels(labels);
  request_time_per_output_token_ =
      &AddEngineHistogram("vllm:request_time_per_output_token_seconds",
                          "Histogram of time_per_output_token_seconds per request.", InterTokenLatencyBuckets())
           .Labels(labels);
  e2e_request_latency_ = &AddEngineHistogram("vllm:e2e_request_latency_seconds",
                                             "Histogram of e2e request latency in seconds.", RequestLatencyBuckets())
                              .Labels(labels);
  request_queue_time_ =
      &AddEngineHistogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
                          RequestLatencyBuckets())
           .Labels(labels);
  request_inference_time_ =
      &AddEngineHistogram("vllm:request_inference_time_seconds",
                          "Histogram of time spent in RUNNING phase for request.", RequestLatencyBuckets())
           .Labels(labels);
  request_prefill_time_ =
      &AddEngineHistogram("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.",
                          RequestLatencyBuckets())
           .Labels(labels);
  request_decode_time_ =
      &AddEngineHistogram("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.",
                          RequestLatencyBuckets())
           .Labels(labels);
  request_num_preemptions_ =
      &AddEngineHistogram("vllm:request_num_preemptions", "Histogram of the number of times a request was preempted.",
                          RequestNumPreemptionsBuckets())
           .Labels(labels);
  request_prefill_kv_computed_tokens_ =
      &AddEngineHistogram("vllm:request_prefill_kv_computed_tokens",
                          "Histogram of new KV tokens computed during prefill (excluding cached tokens).",
                          token_buckets)
           .Labels(labels);

  // Pagoda's own, after vLLM's.
  requests_rejected_ = &AddEngineCounter("pagoda:num_requests_rejected",
                                         "Number of requests refused because the waiting queue was full "
                                         "(max_num_waiting_requests).")
                            .Labels(labels);
}

void EngineMetrics::SetSchedulerState(int64_t num_running, int64_t num_waiting, double kv_cache_usage) {
  running_->Set(static_cast<double>(num_running));
  waiting_->Set(static_cast<double>(num_waiting));
  waiting_for_capacity_->Set(static_cast<double>(num_waiting));
  kv_cache_usage_->Set(kv_cache_usage);
}

void EngineMetrics::AddPrefixCache(int64_t num_requests, int64_t queried_tokens, int64_t hit_tokens) {
  prefix_cache_queries_->Inc(static_cast<double>(queried_tokens));
  prefix_cache_hits_->Inc(static_cast<double>(hit_tokens));
  prompt_tokens_cached_on_device_->Inc(static_cast<double>(hit_tokens));
  std::lock_guard lock(window_mu_);
  prefix_cache_window_.Observe(num_requests, queried_tokens, hit_tokens);
}

void EngineMetrics::OnIteration(const IterationCounts& counts) {
  const int64_t computed = counts.num_prompt_tokens - counts.num_cached_prompt_tokens;
  preemptions_->Inc(static_cast<double>(counts.num_preemptions));
  prompt_tokens_->Inc(static_cast<double>(counts.num_prompt_tokens));
  prompt_tokens_computed_->Inc(static_cast<double>(computed));
  prompt_tokens_local_cache_hit_->Inc(static_cast<double>(counts.num_cached_prompt_tokens));
  prompt_tokens_cached_->Inc(static_cast<double>(counts.num_cached_prompt_tokens));
  generation_tokens_->Inc(static_cast<double>(counts.num_generation_tokens));
  // The tokens the step computed: cached prompt tokens cost nothing.
  iteration_tokens_->Observe(static_cast<double>(computed + counts.num_generation_tokens));
}

void EngineMetrics::OnFirstToken(double time_to_first_token) { time_to_first_token_->Observe(time_to_first_token); }

void EngineMetrics::OnInterTokenLatency(double seconds) { inter_token_latency_->Observe(seconds); }

void EngineMetrics::OnRequestFinished(const FinishedRequest& request) {
  auto success = request_success_.find(request.finish_reason);
  PAGODA_CHECK_MSG(success != request_success_.end(), "unknown finish reason");
  success->second->Inc();

  // vLLM's intervals (IterationStats.update_from_finished_request): queued
  // until first scheduled, prefill until the first token, decode from the
  // first to the last token, inference from first scheduled to the last
  // token; preemptions inside a phase count toward it.
  const double scheduled = request.first_scheduled.value_or(request.finished);
  const double first_token = request.first_token.value_or(request.finished);
  const double last_token = request.last_token.value_or(first_token);
  const double decode_time = last_token - first_token;
  e2e_request_latency_->Observe(request.finished - request.arrival);
  request_queue_time_->Observe(scheduled - request.arrival);
  request_prefill_time_->Observe(first_token - scheduled);
  request_inference_time_->Observe(last_token - scheduled);
  request_decode_time_->Observe(decode_time);
  request_num_preemptions_->Observe(static_cast<double>(request.num_preemptions));
  request_prefill_kv_computed_tokens_->Observe(
      static_cast<double>(request.num_prompt_tokens - std::max<int64_t>(request.num_cached_prompt_tokens, 0)));
  request_prompt_tokens_->Observe(static_cast<double>(request.num_prompt_tokens));
  request_generation_tokens_->Observe(static_cast<double>(request.num_generation_tokens));
  // The first token belongs to prefill, so decode produced the others.
  const int64_t decode_tokens = request.num_generation_tokens - 1;
  request_time_per_output_token_->Observe(decode_tokens > 0 ? decode_time / static_cast<double>(decode_tokens) : 0.0);
  // vLLM skips a max_tokens of None or 0.
  if (request.max_tokens.value_or(0) != 0)
    request_params_max_tokens_->Observe(static_cast<double>(*request.max_tokens));
}

void EngineMetrics::OnParentRequestFinished(int64_t n, int64_t max_num_generation_tokens) {
  request_max_num_generation_tokens_->Observe(static_cast<double>(max_num_generation_tokens));
  request_params_n_->Observe(static_cast<double>(n));
}

void EngineMetrics::OnRequestRejected() { requests_rejected_->Inc(); }

void EngineMetrics::SetCacheConfigInfo(const std::map<std::string, std::string>& info) {
  PAGODA_CHECK_MSG(!info.contains("engine"), "the engine label is added here");
  std::vector<std::string> label_names;
  std::vector<std::string> label_values;
  for (const auto& [name, value] : info) {
    label_names.push_back(name);
    label_values.push_back(value);
  }
  label_names.push_back("engine");
  label_values.push_back(engine_);
  registry_.AddGauge("vllm:cache_config_info", "Information of the LLMEngine CacheConfig", std::move(label_names))
      .Labels(label_values)
      .Set(1);
}

std::string EngineMetrics::Render() const { return registry_.Render(); }

StatsLogTotals EngineMetrics::LogTotals() const {
  StatsLogTotals totals;
  totals.computed_prompt_tokens = static_cast<int64_t>(prompt_tokens_computed_->Value());
  totals.generation_tokens = static_cast<int64_t>(generation_tokens_->Value());
  totals.preemptions = static_cast<int64_t>(preemptions_->Value());
  totals.num_running = static_cast<int64_t>(running_->Value());
  totals.num_waiting = static_cast<int64_t>(waiting_->Value());
  totals.kv_cache_usage = kv_cache_usage_->Value();
  std::lock_guard lock(window_mu_);
  totals.prefix_cache_hit_rate = prefix_cache_window_.HitRate();
  return totals;
}

}  // namespace pagoda::metrics
