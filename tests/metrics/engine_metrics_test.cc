#include "pagoda/metrics/engine_metrics.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "pagoda/metrics/vllm_buckets.h"

namespace pagoda::metrics {
namespace {

struct Exposition {
  std::map<std::string, std::string> types;  // exposed family name -> TYPE
  std::vector<std::string> family_order;
  std::vector<std::string> samples;
};

Exposition Parse(const std::string& text) {
  Exposition e;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("# TYPE ")) {
      std::istringstream fields(line.substr(7));
      std::string name, type;
      fields >> name >> type;
      e.types[name] = type;
      e.family_order.push_back(name);
    } else if (!line.starts_with("#")) {
      e.samples.push_back(line);
    }
  }
  return e;
}

bool HasSample(const Exposition& e, const std::string& line) {
  for (const auto& s : e.samples) {
    if (s == line) return true;
  }
  return false;
}

EngineMetricsConfig Config() { return {.model_name = "SmolLM2", .max_model_len = 2048, .engine_index = 0}; }

TEST(EngineMetricsTest, ExposesVllmFamiliesWithTheirTypes) {
  EngineMetrics metrics(Config());
  const Exposition e = Parse(metrics.Render());
  const std::map<std::string, std::string> expected = {
      {"vllm:num_requests_running", "gauge"},
      {"vllm:num_requests_waiting", "gauge"},
      {"vllm:num_requests_waiting_by_reason", "gauge"},
      {"vllm:engine_sleep_state", "gauge"},
      {"vllm:kv_cache_usage_perc", "gauge"},
      {"vllm:gpu_cache_usage_perc", "gauge"},
      {"vllm:estimated_flops_per_gpu_total", "counter"},
      {"vllm:estimated_read_bytes_per_gpu_total", "counter"},
      {"vllm:estimated_write_bytes_per_gpu_total", "counter"},
      {"vllm:prefix_cache_queries_total", "counter"},
      {"vllm:prefix_cache_hits_total", "counter"},
      {"vllm:external_prefix_cache_queries_total", "counter"},
      {"vllm:external_prefix_cache_hits_total", "counter"},
      {"vllm:mm_cache_queries_total", "counter"},
      {"vllm:mm_cache_hits_total", "counter"},
      {"vllm:num_preemptions_total", "counter"},
      {"vllm:prompt_tokens_total", "counter"},
      {"vllm:prompt_tokens_by_source_total", "counter"},
      {"vllm:prompt_tokens_cached_total", "counter"},
      {"vllm:prompt_tokens_cached_by_source_total", "counter"},
      {"vllm:generation_tokens_total", "counter"},
      {"vllm:request_success_total", "counter"},
      {"vllm:admission_rejections_total", "counter"},
      {"vllm:request_prompt_tokens", "histogram"},
      {"vllm:request_generation_tokens", "histogram"},
      {"vllm:iteration_tokens_total", "histogram"},
      {"vllm:request_max_num_generation_tokens", "histogram"},
      {"vllm:request_params_n", "histogram"},
      {"vllm:request_params_max_tokens", "histogram"},
      {"vllm:time_to_first_token_seconds", "histogram"},
      {"vllm:inter_token_latency_seconds", "histogram"},
      {"vllm:request_time_per_output_token_seconds", "histogram"},
      {"vllm:e2e_request_latency_seconds", "histogram"},
      {"vllm:request_queue_time_seconds", "histogram"},
      {"vllm:request_inference_time_seconds", "histogram"},
      {"vllm:request_prefill_time_seconds", "histogram"},
      {"vllm:request_decode_time_seconds", "histogram"},
      {"vllm:request_num_preemptions", "histogram"},
      {"vllm:request_prefill_kv_computed_tokens", "histogram"},
      {"pagoda:num_requests_rejected_total", "counter"},
  };
  EXPECT_EQ(e.types, expected);
  // vLLM's registration order: the MFU counters first, histograms last;
  // then Pagoda's own.
  EXPECT_EQ(e.family_order.front(), "vllm:estimated_flops_per_gpu_total");
  ASSERT_GE(e.family_order.size(), 2u);
  EXPECT_EQ(e.family_order[e.family_order.size() - 2], "vllm:request_prefill_kv_computed_tokens");
  EXPECT_EQ(e.family_order.back(), "pagoda:num_requests_rejected_total");
}

TEST(EngineMetricsTest, CountsRequestsRejectedByAFullWaitingQueue) {
  EngineMetrics metrics(Config());
  const std::string sample = "pagoda:num_requests_rejected_total{engine=\"0\",model_name=\"SmolLM2\"} ";
  EXPECT_TRUE(HasSample(Parse(metrics.Render()), sample + "0.0"));
  metrics.OnRequestRejected();
  metrics.OnRequestRejected();
  EXPECT_TRUE(HasSample(Parse(metrics.Render()), sample + "2.0"));
}

TEST(EngineMetricsTest, EverySeriesHasModelNameAndEngineLabels) {
  EngineMetrics metrics(Config());
  const Exposition e = Parse(metrics.Render());
  ASSERT_FALSE(e.samples.empty());
  for (const std::string& sample : e.samples) {
    EXPECT_NE(sample.find("model_name=\"SmolLM2\""), std::string::npos) << sample;
    // vLLM counts admission rejections in the frontend, without `engine`.
    if (!sample.starts_with("vllm:admission_rejections_total")) {
      EXPECT_NE(sample.find("engine=\"0\""), std::string::npos) << sample;
    }
  }
}

TEST(EngineMetricsTest, IdleValuesAndPreMadeSeries) {
  EngineMetrics metrics(Config());
  const Exposition e = Parse(metrics.Render());
  for (const char* line : {
           "vllm:num_requests_running{engine=\"0\",model_name=\"SmolLM2\"} 0.0",
           "vllm:num_requests_waiting_by_reason{engine=\"0\",model_name=\"SmolLM2\",reason=\"deferred\"} 0.0",
           "vllm:engine_sleep_state{engine=\"0\",model_name=\"SmolLM2\",sleep_state=\"awake\"} 1.0",
           "vllm:engine_sleep_state{engine=\"0\",model_name=\"SmolLM2\",sleep_state=\"discard_all\"} 0.0",
           "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\",model_name=\"SmolLM2\"} 0.0",
           "vllm:request_success_total{engine=\"0\",finished_reason=\"length\",model_name=\"SmolLM2\"} 0.0",
           "vllm:request_success_total{engine=\"0\",finished_reason=\"abort\",model_name=\"SmolLM2\"} 0.0",
           "vllm:request_success_total{engine=\"0\",finished_reason=\"error\",model_name=\"SmolLM2\"} 0.0",
           "vllm:request_success_total{engine=\"0\",finished_reason=\"repetition\",model_name=\"SmolLM2\"} 0.0",
           "vllm:prompt_tokens_by_source_total{engine=\"0\",model_name=\"SmolLM2\",source=\"external_kv_transfer\"} "
           "0.0",
           "vllm:prompt_tokens_cached_by_source_total{engine=\"0\",model_name=\"SmolLM2\",source=\"p2p\"} 0.0",
           "vllm:admission_rejections_total{model_name=\"SmolLM2\",reason=\"max_num_queued_reqs\"} 0.0",
       }) {
    EXPECT_TRUE(HasSample(e, line)) << line;
  }
}

TEST(EngineMetricsTest, BucketsAreVllms) {
  EngineMetrics metrics(Config());
  const std::string text = metrics.Render();
  auto les = [&](const std::string& family) {
    std::vector<std::string> out;
    const std::string prefix = family + "_bucket{engine=\"0\",le=\"";
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with(prefix))
        out.push_back(line.substr(prefix.size(), line.find('"', prefix.size()) - prefix.size()));
    }
    return out;
  };
  using V = std::vector<std::string>;
  // build_1_2_5_buckets(2048).
  const V tokens = {"1.0", "2.0", "5.0", "10.0", "20.0", "50.0", "100.0", "200.0", "500.0", "1000.0", "2000.0", "+Inf"};
  EXPECT_EQ(les("vllm:request_prompt_tokens"), tokens);
  EXPECT_EQ(les("vllm:request_generation_tokens"), tokens);
  EXPECT_EQ(les("vllm:request_max_num_generation_tokens"), tokens);
  EXPECT_EQ(les("vllm:request_params_max_tokens"), tokens);
  EXPECT_EQ(les("vllm:request_prefill_kv_computed_tokens"), tokens);
  EXPECT_EQ(les("vllm:iteration_tokens_total"), (V{"1.0", "8.0", "16.0", "32.0", "64.0", "128.0", "256.0", "512.0",
                                                   "1024.0", "2048.0", "4096.0", "8192.0", "16384.0", "+Inf"}));
  EXPECT_EQ(les("vllm:request_params_n"), (V{"1.0", "2.0", "5.0", "10.0", "20.0", "+Inf"}));
  EXPECT_EQ(les("vllm:request_num_preemptions"), (V{"1.0", "2.0", "3.0", "4.0", "5.0", "10.0", "20.0", "+Inf"}));
  const V ttft = {"0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1",   "0.25",  "0.5",    "0.75", "1.0",
                  "2.5",   "5.0",   "7.5",  "10.0", "20.0", "40.0", "80.0", "160.0", "640.0", "2560.0", "+Inf"};
  EXPECT_EQ(les("vllm:time_to_first_token_seconds"), ttft);
  const V itl = {"0.01", "0.025", "0.05", "0.075", "0.1", "0.15", "0.2",  "0.3",  "0.4",  "0.5",
                 "0.75", "1.0",   "2.5",  "5.0",   "7.5", "10.0", "20.0", "40.0", "80.0", "+Inf"};
  EXPECT_EQ(les("vllm:inter_token_latency_seconds"), itl);
  EXPECT_EQ(les("vllm:request_time_per_output_token_seconds"), itl);
  const V latency = {"0.3",  "0.5",  "0.8",  "1.0",  "1.5",   "2.0",   "2.5",   "5.0",   "10.0",   "15.0",   "20.0",
                     "30.0", "40.0", "50.0", "60.0", "120.0", "240.0", "480.0", "960.0", "1920.0", "7680.0", "+Inf"};
  for (const char* family :
       {"vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds", "vllm:request_inference_time_seconds",
        "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds"}) {
    EXPECT_EQ(les(family), latency) << family;
  }
}

TEST(EngineMetricsTest, Build125BucketsIncludesAnEqualMaximum) {
  EXPECT_EQ(Build125Buckets(1), (std::vector<double>{1}));
  EXPECT_EQ(Build125Buckets(100), (std::vector<double>{1, 2, 5, 10, 20, 50, 100}));
  EXPECT_EQ(Build125Buckets(4999), (std::vector<double>{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000}));
}

TEST(EngineMetricsTest, RecordsStepsAndFinishedRequestsAsVllm) {
  EngineMetrics metrics(Config());
  metrics.SetSchedulerState(3, 2, 0.25);
  metrics.AddPrefixCache(2, 40, 16);
  // Two prompts (24 + 16 tokens, 16 cached) finished prefill; 5 tokens sampled.
  metrics.OnIteration(
      {.num_prompt_tokens = 40, .num_cached_prompt_tokens = 16, .num_generation_tokens = 5, .num_preemptions = 1});
  metrics.OnFirstToken(0.25);
  metrics.OnInterTokenLatency(0.05);
  metrics.OnRequestFinished({.finish_reason = "length",
                             .arrival = 100.0,
                             .first_scheduled = 100.5,
                             .first_token = 101.0,
                             .last_token = 103.0,
                             .finished = 103.25,
                             .num_prompt_tokens = 24,
                             .num_cached_prompt_tokens = 16,
                             .num_generation_tokens = 5,
                             .num_preemptions = 2,
                             .max_tokens = 5});
  metrics.OnParentRequestFinished(1, 5);
  const Exposition e = Parse(metrics.Render());
  const std::string l = "{engine=\"0\",model_name=\"SmolLM2\"}";
  auto le = [](const char* bound) { return std::string("{engine=\"0\",le=\"") + bound + "\",model_name=\"SmolLM2\"}"; };
  for (const std::string& line : std::vector<std::string>{
           "vllm:num_requests_running" + l + " 3.0",
           "vllm:num_requests_waiting" + l + " 2.0",
           "vllm:num_requests_waiting_by_reason{engine=\"0\",model_name=\"SmolLM2\",reason=\"capacity\"} 2.0",
           "vllm:kv_cache_usage_perc" + l + " 0.25",
           "vllm:gpu_cache_usage_perc" + l + " 0.25",
           "vllm:prefix_cache_queries_total" + l + " 40.0",
           "vllm:prefix_cache_hits_total" + l + " 16.0",
           "vllm:prompt_tokens_cached_by_source_total{engine=\"0\",model_name=\"SmolLM2\",source=\"device\"} 16.0",
           "vllm:num_preemptions_total" + l + " 1.0",
           "vllm:prompt_tokens_total" + l + " 40.0",
           "vllm:prompt_tokens_by_source_total{engine=\"0\",model_name=\"SmolLM2\",source=\"local_compute\"} 24.0",
           "vllm:prompt_tokens_by_source_total{engine=\"0\",model_name=\"SmolLM2\",source=\"local_cache_hit\"} 16.0",
           "vllm:prompt_tokens_cached_total" + l + " 16.0",
           "vllm:generation_tokens_total" + l + " 5.0",
           "vllm:request_success_total{engine=\"0\",finished_reason=\"length\",model_name=\"SmolLM2\"} 1.0",
           // 24 computed + 5 generated tokens in the step.
           "vllm:iteration_tokens_total_bucket" + le("16.0") + " 0.0",
           "vllm:iteration_tokens_total_bucket" + le("32.0") + " 1.0",
           "vllm:iteration_tokens_total_sum" + l + " 29.0",
           "vllm:time_to_first_token_seconds_bucket" + le("0.25") + " 1.0",
           "vllm:inter_token_latency_seconds_bucket" + le("0.05") + " 1.0",
           "vllm:inter_token_latency_seconds_bucket" + le("0.025") + " 0.0",
           "vllm:e2e_request_latency_seconds_sum" + l + " 3.25",
           "vllm:request_queue_time_seconds_sum" + l + " 0.5",
           "vllm:request_prefill_time_seconds_sum" + l + " 0.5",
           "vllm:request_decode_time_seconds_sum" + l + " 2.0",
           "vllm:request_inference_time_seconds_sum" + l + " 2.5",
           // 2 s of decode for the 4 tokens after the first.
           "vllm:request_time_per_output_token_seconds_sum" + l + " 0.5",
           "vllm:request_num_preemptions_bucket" + le("1.0") + " 0.0",
           "vllm:request_num_preemptions_bucket" + le("2.0") + " 1.0",
           "vllm:request_prefill_kv_computed_tokens_sum" + l + " 8.0",
           "vllm:request_prompt_tokens_bucket" + le("20.0") + " 0.0",
           "vllm:request_prompt_tokens_bucket" + le("50.0") + " 1.0",
           "vllm:request_generation_tokens_bucket" + le("5.0") + " 1.0",
           "vllm:request_params_max_tokens_sum" + l + " 5.0",
           "vllm:request_params_n_bucket" + le("1.0") + " 1.0",
           "vllm:request_max_num_generation_tokens_sum" + l + " 5.0",
       }) {
    EXPECT_TRUE(HasSample(e, line)) << line;
  }
}

TEST(EngineMetricsTest, PhasesThatNeverBeganLastZeroSeconds) {
  EngineMetrics metrics(Config());
  // Aborted by the engine while waiting, without a max_tokens parameter.
  metrics.OnRequestFinished({.finish_reason = "abort", .arrival = 10.0, .finished = 12.0, .num_prompt_tokens = 7});
  const Exposition e = Parse(metrics.Render());
  const std::string l = "{engine=\"0\",model_name=\"SmolLM2\"}";
  for (const std::string& line : std::vector<std::string>{
           "vllm:request_success_total{engine=\"0\",finished_reason=\"abort\",model_name=\"SmolLM2\"} 1.0",
           "vllm:e2e_request_latency_seconds_sum" + l + " 2.0",
           "vllm:request_queue_time_seconds_sum" + l + " 2.0",
           "vllm:request_prefill_time_seconds_sum" + l + " 0.0",
           "vllm:request_decode_time_seconds_sum" + l + " 0.0",
           "vllm:request_inference_time_seconds_count" + l + " 1.0",
           "vllm:request_inference_time_seconds_sum" + l + " 0.0",
           "vllm:request_time_per_output_token_seconds_sum" + l + " 0.0",
           "vllm:request_params_max_tokens_count" + l + " 0.0",
       }) {
    EXPECT_TRUE(HasSample(e, line)) << line;
  }
}

TEST(EngineMetricsTest, CacheConfigInfoIsAGaugeOfOneWithTheConfigAsLabels) {
  EngineMetrics metrics(Config());
  metrics.SetCacheConfigInfo({{"block_size", "16"},
                              {"cache_dtype", "auto"},
                              {"enable_prefix_caching", "True"},
                              {"num_gpu_blocks", "8192"},
                              {"sliding_window", "None"}});
  const std::string text = metrics.Render();
  EXPECT_NE(text.find("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n"
                      "# TYPE vllm:cache_config_info gauge\n"
                      "vllm:cache_config_info{block_size=\"16\",cache_dtype=\"auto\",enable_prefix_caching=\"True\","
                      "engine=\"0\",num_gpu_blocks=\"8192\",sliding_window=\"None\"} 1.0\n"),
            std::string::npos);
}

TEST(EngineMetricsTest, LogTotals) {
  EngineMetrics metrics(Config());
  EXPECT_FALSE(metrics.LogTotals().prefix_cache_hit_rate.has_value());
  metrics.SetSchedulerState(4, 1, 0.5);
  metrics.AddPrefixCache(1, 32, 8);
  metrics.OnIteration(
      {.num_prompt_tokens = 32, .num_cached_prompt_tokens = 8, .num_generation_tokens = 3, .num_preemptions = 2});
  const StatsLogTotals totals = metrics.LogTotals();
  EXPECT_EQ(totals.computed_prompt_tokens, 24);
  EXPECT_EQ(totals.generation_tokens, 3);
  EXPECT_EQ(totals.preemptions, 2);
  EXPECT_EQ(totals.num_running, 4);
  EXPECT_EQ(totals.num_waiting, 1);
  EXPECT_EQ(totals.kv_cache_usage, 0.5);
  EXPECT_EQ(totals.prefix_cache_hit_rate, 0.25);
}

TEST(EngineMetricsDeathTest, RejectsUnknownFinishReason) {
  EngineMetrics metrics(Config());
  EXPECT_DEATH(metrics.OnRequestFinished({.finish_reason = "stopped"}), "unknown finish reason");
}

}  // namespace
}  // namespace pagoda::metrics
