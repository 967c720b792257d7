#include "pagoda/metrics/engine_metrics.h"

#include <algorithm>
#include <initializer_list>
#include <type_traits>
#include <variant>

#include "pagoda/metrics/vllm_buckets.h"

namespace pagoda::metrics {
namespace {

// vLLM's FinishReason values, in its enum's order (request_success has a
// series for each from the start).
constexpr std::initializer_list<const char*> kFinishReasons = {"stop", "length", "abort", "error", "repetition"};

}  // namespace

// One metric family of the table below: its kind, name and help; the label
// it has besides model_name and engine, if any, with the series created up
// front; its buckets; and where the engine keeps the series it records into.
struct EngineMetrics::FamilySpec {
  enum class Kind { kCounter, kGauge, kHistogram };
  enum class Buckets { kNone, kTokens, kIterationTokens, kRequestParamsN, kTimeToFirstToken, kInterTokenLatency,
                       kRequestLatency, kRequestNumPreemptions };
  using SuccessMap = std::map<std::string, Counter*, std::less<>>;
  // A member that gets the series, or nothing for a series nobody records.
  using Slot = std::variant<std::monostate, Counter* EngineMetrics::*, Gauge* EngineMetrics::*,
                            Histogram* EngineMetrics::*, SuccessMap EngineMetrics::*>;
  struct Series {
    const char* label_value = nullptr;
    Slot slot{};
    double initial = 0;  // gauges
  };

  Kind kind;
  const char* name;
  const char* help;
  Slot slot{};                       // the one series of a family without an extra label
  const char* extra_label = nullptr;
  std::vector<Series> series{};      // the extra label's values, in creation order
  Buckets buckets = Buckets::kNone;  // histograms
  bool frontend = false;             // counted by vLLM's API server: no engine label
};

namespace {

using Spec = EngineMetrics::FamilySpec;
using Kind = Spec::Kind;
using Buckets = Spec::Buckets;

std::vector<double> BucketsOf(Buckets buckets, int64_t max_model_len) {
  switch (buckets) {
    case Buckets::kNone: break;
    case Buckets::kTokens: return Build125Buckets(max_model_len);
    case Buckets::kIterationTokens: return IterationTokensBuckets();
    case Buckets::kRequestParamsN: return RequestParamsNBuckets();
    case Buckets::kTimeToFirstToken: return TimeToFirstTokenBuckets();
    case Buckets::kInterTokenLatency: return InterTokenLatencyBuckets();
    case Buckets::kRequestLatency: return RequestLatencyBuckets();
    case Buckets::kRequestNumPreemptions: return RequestNumPreemptionsBuckets();
  }
  return {};
}

// Points the slot's member of `metrics` at a new series (applying a
// member pointer needs no access to the member).
template <typename Child>
void Bind(EngineMetrics& metrics, const Spec::Slot& slot, const char* label_value, Child& child) {
  std::visit(
      [&](auto member) {
        using Member = decltype(member);
        if constexpr (std::is_same_v<Member, Child* EngineMetrics::*>) {
          metrics.*member = &child;
        } else if constexpr (std::is_same_v<Member, Spec::SuccessMap EngineMetrics::*> &&
                             std::is_same_v<Child, Counter>) {
          (metrics.*member)[label_value] = &child;
        } else {
          PAGODA_CHECK_MSG((std::is_same_v<Member, std::monostate>), "a metric slot of another kind");
        }
      },
      slot);
}

// Creates the family's series in order, each labelled model_name, engine
// (unless a frontend metric) and its extra label's value.
template <typename FamilyT>
void AddSeries(EngineMetrics& metrics, const Spec& spec, FamilyT& family, const std::string& model_name,
               const std::string& engine) {
  const std::vector<Spec::Series> one = {{nullptr, spec.slot}};
  for (const Spec::Series& series : spec.extra_label != nullptr ? spec.series : one) {
    std::vector<std::string> values = {model_name};
    if (!spec.frontend) values.push_back(engine);
    if (series.label_value != nullptr) values.push_back(series.label_value);
    auto& child = family.Labels(values);
    if constexpr (std::is_same_v<FamilyT, GaugeFamily>) {
      if (series.initial != 0) child.Set(series.initial);
    }
    Bind(metrics, series.slot, series.label_value, child);
  }
}

std::vector<Spec::Series> Unrecorded(std::initializer_list<const char*> label_values) {
  std::vector<Spec::Series> series;
  for (const char* value : label_values) series.push_back({value});
  return series;
}

}  // namespace

// The families in the order vLLM registers them, which is the order /metrics
// lists them in; Pagoda's own come last.
const std::vector<EngineMetrics::FamilySpec> EngineMetrics::kFamilies = {
    // Model FLOPs utilization estimates (vLLM's PerfMetricsProm): only fed
    // with --enable-mfu-metrics, which Pagoda has no counterpart of.
    {Kind::kCounter, "vllm:estimated_flops_per_gpu_total",
     "Estimated number of floating point operations per GPU (for Model Flops Utilization calculations)."},
    {Kind::kCounter, "vllm:estimated_read_bytes_per_gpu_total",
     "Estimated number of bytes read from memory per GPU (for Model Flops Utilization calculations)."},
    {Kind::kCounter, "vllm:estimated_write_bytes_per_gpu_total",
     "Estimated number of bytes written to memory per GPU (for Model Flops Utilization calculations)."},
    {Kind::kGauge, "vllm:num_requests_running", "Number of requests in model execution batches.",
     &EngineMetrics::running_},
    {Kind::kGauge, "vllm:num_requests_waiting", "Number of requests waiting to be processed.",
     &EngineMetrics::waiting_},
    // Pagoda never defers a waiting request (vLLM does for LoRA budgets and
    // KV transfers), so every waiting request waits for capacity.
    {Kind::kGauge, "vllm:num_requests_waiting_by_reason",
     "Number of waiting requests by reason. Reason labels: 'capacity' = waiting for scheduling capacity; "
     "'deferred' = deferred by transient constraints (LoRA budget, KV transfer, blocked status). "
     "Sum of all reasons equals vllm:num_requests_waiting.",
     {}, "reason", {{"capacity", &EngineMetrics::waiting_for_capacity_}, {"deferred"}}},
    // Pagoda has no sleep mode: always awake.
    {Kind::kGauge, "vllm:engine_sleep_state",
     "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine is awake; "
     "weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.",
     {}, "sleep_state", {{"awake", {}, 1}, {"weights_offloaded"}, {"discard_all"}}},
    {Kind::kGauge, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.",
     &EngineMetrics::kv_cache_usage_},
    // The same value under the name older vLLM releases export, which vLLM's
    // guide and many Grafana dashboards still watch.
    {Kind::kGauge, "vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.",
     &EngineMetrics::gpu_cache_usage_},
    {Kind::kCounter, "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
     &EngineMetrics::prefix_cache_queries_},
    {Kind::kCounter, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
     &EngineMetrics::prefix_cache_hits_},
    // No KV connector shares a cache across instances, and prompts are text.
    {Kind::kCounter, "vllm:external_prefix_cache_queries",
     "External prefix cache queries from KV connector cross-instance cache sharing, "
     "in terms of number of queried tokens."},
    {Kind::kCounter, "vllm:external_prefix_cache_hits",
     "External prefix cache hits from KV connector cross-instance cache sharing, "
     "in terms of number of cached tokens."},
    {Kind::kCounter, "vllm:mm_cache_queries", "Multi-modal cache queries, in terms of number of queried items."},
    {Kind::kCounter, "vllm:mm_cache_hits", "Multi-modal cache hits, in terms of number of cached items."},
    {Kind::kCounter, "vllm:num_preemptions", "Cumulative number of preemption from the engine.",
     &EngineMetrics::preemptions_},
    {Kind::kCounter, "vllm:prompt_tokens", "Number of prefill tokens processed.", &EngineMetrics::prompt_tokens_},
    {Kind::kCounter, "vllm:prompt_tokens_by_source", "Number of prompt tokens by source.", {}, "source",
     {{"local_compute", &EngineMetrics::prompt_tokens_computed_},
      {"local_cache_hit", &EngineMetrics::prompt_tokens_local_cache_hit_},
      {"external_kv_transfer"}}},
    {Kind::kCounter, "vllm:prompt_tokens_cached", "Number of cached prompt tokens (local + external).",
     &EngineMetrics::prompt_tokens_cached_},
    // The prefix cache lives in the engine's own memory: vLLM's "device" tier.
    {Kind::kCounter, "vllm:prompt_tokens_cached_by_source",
     "Prefix-cache hit tokens by the cache tier that supplied them: device (local HBM), host (offloaded to DRAM), "
     "disk, p2p (transferred from another vLLM instance) or external_unspecified. Counted at admission; sums to "
     "vllm:prefix_cache_hits + vllm:external_prefix_cache_hits.",
     {}, "source",
     {{"device", &EngineMetrics::prompt_tokens_cached_on_device_}, {"host"}, {"p2p"}, {"disk"},
      {"external_unspecified"}}},
    {Kind::kCounter, "vllm:generation_tokens", "Number of generation tokens processed.",
     &EngineMetrics::generation_tokens_},
    {Kind::kCounter, "vllm:request_success", "Count of successfully processed requests.", {}, "finished_reason",
     [] {
       std::vector<FamilySpec::Series> series;
       for (const char* reason : kFinishReasons) series.push_back({reason, &EngineMetrics::request_success_});
       return series;
     }()},
    // The API server's queue limits; Pagoda's own waiting-queue limit counts
    // in pagoda:num_requests_rejected. vLLM's frontend counts this one.
    {Kind::kCounter, "vllm:admission_rejections", "Number of admission attempts rejected by a queue limit, by reason.",
     {}, "reason", Unrecorded({"max_num_queued_reqs", "max_num_queued_tokens"}), Buckets::kNone, true},
    {Kind::kHistogram, "vllm:request_prompt_tokens", "Number of prefill tokens processed.",
     &EngineMetrics::request_prompt_tokens_, nullptr, {}, Buckets::kTokens},
    {Kind::kHistogram, "vllm:request_generation_tokens", "Number of generation tokens processed.",
     &EngineMetrics::request_generation_tokens_, nullptr, {}, Buckets::kTokens},
    {Kind::kHistogram, "vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.",
     &EngineMetrics::iteration_tokens_, nullptr, {}, Buckets::kIterationTokens},
    {Kind::kHistogram, "vllm:request_max_num_generation_tokens",
     "Histogram of maximum number of requested generation tokens.",
     &EngineMetrics::request_max_num_generation_tokens_, nullptr, {}, Buckets::kTokens},
    {Kind::kHistogram, "vllm:request_params_n", "Histogram of the n request parameter.",
     &EngineMetrics::request_params_n_, nullptr, {}, Buckets::kRequestParamsN},
    {Kind::kHistogram, "vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.",
     &EngineMetrics::request_params_max_tokens_, nullptr, {}, Buckets::kTokens},
    {Kind::kHistogram, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
     &EngineMetrics::time_to_first_token_, nullptr, {}, Buckets::kTimeToFirstToken},
    {Kind::kHistogram, "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
     &EngineMetrics::inter_token_latency_, nullptr, {}, Buckets::kInterTokenLatency},
    {Kind::kHistogram, "vllm:request_time_per_output_token_seconds",
     "Histogram of time_per_output_token_seconds per request.", &EngineMetrics::request_time_per_output_token_,
     nullptr, {}, Buckets::kInterTokenLatency},
    {Kind::kHistogram, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
     &EngineMetrics::e2e_request_latency_, nullptr, {}, Buckets::kRequestLatency},
    {Kind::kHistogram, "vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
     &EngineMetrics::request_queue_time_, nullptr, {}, Buckets::kRequestLatency},
    {Kind::kHistogram, "vllm:request_inference_time_seconds",
     "Histogram of time spent in RUNNING phase for request.", &EngineMetrics::request_inference_time_, nullptr, {},
     Buckets::kRequestLatency},
    {Kind::kHistogram, "vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.",
     &EngineMetrics::request_prefill_time_, nullptr, {}, Buckets::kRequestLatency},
    {Kind::kHistogram, "vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.",
     &EngineMetrics::request_decode_time_, nullptr, {}, Buckets::kRequestLatency},
    {Kind::kHistogram, "vllm:request_num_preemptions", "Histogram of the number of times a request was preempted.",
     &EngineMetrics::request_num_preemptions_, nullptr, {}, Buckets::kRequestNumPreemptions},
    {Kind::kHistogram, "vllm:request_prefill_kv_computed_tokens",
     "Histogram of new KV tokens computed during prefill (excluding cached tokens).",
     &EngineMetrics::request_prefill_kv_computed_tokens_, nullptr, {}, Buckets::kTokens},
    // Pagoda's own, after vLLM's.
    {Kind::kCounter, "pagoda:num_requests_rejected",
     "Number of requests refused because the waiting queue was full (max_num_waiting_requests).",
     &EngineMetrics::requests_rejected_},
};

EngineMetrics::EngineMetrics(const EngineMetricsConfig& config)
    : model_name_(config.model_name), engine_(std::to_string(config.engine_index)) {
  for (const FamilySpec& family : kFamilies) AddFamily(family, config.max_model_len);
}

void EngineMetrics::AddFamily(const FamilySpec& spec, int64_t max_model_len) {
  std::vector<std::string> label_names = {"model_name"};
  if (!spec.frontend) label_names.push_back("engine");
  if (spec.extra_label != nullptr) label_names.push_back(spec.extra_label);
  switch (spec.kind) {
    case Kind::kCounter:
      return AddSeries(*this, spec, registry_.AddCounter(spec.name, spec.help, label_names), model_name_, engine_);
    case Kind::kGauge:
      return AddSeries(*this, spec, registry_.AddGauge(spec.name, spec.help, label_names), model_name_, engine_);
    case Kind::kHistogram:
      return AddSeries(*this, spec,
                       registry_.AddHistogram(spec.name, spec.help, label_names, BucketsOf(spec.buckets, max_model_len)),
                       model_name_, engine_);
  }
}

void EngineMetrics::SetSchedulerState(int64_t num_running, int64_t num_waiting, double kv_cache_usage) {
  running_->Set(static_cast<double>(num_running));
  waiting_->Set(static_cast<double>(num_waiting));
  waiting_for_capacity_->Set(static_cast<double>(num_waiting));
  kv_cache_usage_->Set(kv_cache_usage);
  gpu_cache_usage_->Set(kv_cache_usage);
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
