// The result of a `bench serve` run as vLLM's bench serve gives it: the
// "Serving Benchmark Result" table and the JSON of --save-result, with the
// same labels and keys, so scripts written for one read the other.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "pagoda/apps/bench_serve/metrics.h"
#include "pagoda/apps/bench_serve/request_result.h"

namespace pagoda::apps::bench_serve {

struct ReportSettings {
  std::optional<int> max_concurrency;
  double request_rate = 0;  // +infinity: all at once
  double burstiness = 1;
  // Which of ttft, tpot, itl, e2el get a section (vLLM's --percentile-metrics).
  std::vector<std::string> percentile_metrics;
};

// "P99", "P99.9": how vLLM names a percentile.
std::string PercentileName(double p);

// The table, from its "====... Serving Benchmark Result ...====" line to the closing rule.
std::string FormatReport(const BenchmarkMetrics& m, const ReportSettings& settings);

// vLLM's result keys: counts, throughputs, max_concurrency, request_rate
// ("inf" when infinite), burstiness, and mean/median/std/pNN _ms for each
// selected metric. With `detailed`, the per-request arrays too (seconds):
// input_lens, output_lens, ttfts, itls, e2els, generated_texts, errors.
nlohmann::json ResultJson(const BenchmarkMetrics& m, const ReportSettings& settings,
                          const std::vector<RequestResult>& requests, bool detailed);

}  // namespace pagoda::apps::bench_serve
