#include "pagoda/apps/bench_serve/report.h"

#include <fmt/format.h>

#include <cmath>

namespace pagoda::apps::bench_serve {
namespace {

struct MetricSection {
  const char* key;     // ttft
  const char* name;    // TTFT
  const char* header;  // Time to First Token
  const Distribution BenchmarkMetrics::*values;
};

constexpr MetricSection kSections[] = {
    {"ttft", "TTFT", "Time to First Token", &BenchmarkMetrics::ttft},
    {"tpot", "TPOT", "Time per Output Token (excl. 1st token)", &BenchmarkMetrics::tpot},
    {"itl", "ITL", "Inter-token Latency", &BenchmarkMetrics::itl},
    {"e2el", "E2EL", "End-to-end Latency", &BenchmarkMetrics::e2el},
};

bool Selected(const ReportSettings& settings, const char* key) {
  for (const std::string& k : settings.percentile_metrics) {
    if (k == key) return true;
  }
  return false;
}

// Python's "{:<40} {:<10}" and "{:<40} {:<10.2f}".
std::string Row(const std::string& label, const std::string& value) { return fmt::format("{:<40} {:<10}\n", label, value); }
std::string Row(const std::string& label, double value) { return fmt::format("{:<40} {:<10.2f}\n", label, value); }

}  // namespace

std::string PercentileName(double p) {
  return p == std::floor(p) ? fmt::format("{}", static_cast<long long>(p)) : fmt::format("{}", p);
}

std::string FormatReport(const BenchmarkMetrics& m, const ReportSettings& settings) {
  std::string out = fmt::format("{:=^50}\n", " Serving Benchmark Result ");
  out += Row("Successful requests:", std::to_string(m.completed));
  out += Row("Failed requests:", std::to_string(m.failed));
  if (settings.max_concurrency) out += Row("Maximum request concurrency:", std::to_string(*settings.max_concurrency));
  if (!std::isinf(settings.request_rate)) out += Row("Request rate configured (RPS):", settings.request_rate);
  out += Row("Benchmark duration (s):", m.duration);
  out += Row("Total input tokens:", std::to_string(m.total_input));
  out += Row("Total generated tokens:", std::to_string(m.total_output));
  out += Row("Request throughput (req/s):", m.request_throughput);
  out += Row("Output token throughput (tok/s):", m.output_throughput);
  out += Row("Total Token throughput (tok/s):", m.total_token_throughput);
  for (const MetricSection& s : kSections) {
    if (!Selected(settings, s.key)) continue;
    const Distribution& d = m.*s.values;
    out += fmt::format("{:-^50}\n", s.header);
    out += Row(fmt::format("Mean {} (ms):", s.name), d.mean);
    out += Row(fmt::format("Median {} (ms):", s.name), d.median);
    for (const auto& [p, value] : d.percentiles) out += Row(fmt::format("P{} {} (ms):", PercentileName(p), s.name), value);
  }
  out += std::string(50, '=') + "\n";
  return out;
}

nlohmann::json ResultJson(const BenchmarkMetrics& m, const ReportSettings& settings,
                          const std::vector<RequestResult>& requests, bool detailed) {
  nlohmann::json j = {
      {"duration", m.duration},
      {"completed", m.completed},
      {"failed", m.failed},
      {"total_input_tokens", m.total_input},
      {"total_output_tokens", m.total_output},
      {"request_throughput", m.request_throughput},
      {"output_throughput", m.output_throughput},
      {"total_token_throughput", m.total_token_throughput},
      {"max_concurrency", settings.max_concurrency ? nlohmann::json(*settings.max_concurrency) : nlohmann::json()},
      {"request_rate", std::isinf(settings.request_rate) ? nlohmann::json("inf") : nlohmann::json(settings.request_rate)},
      {"burstiness", settings.burstiness},
  };
  for (const MetricSection& s : kSections) {
    if (!Selected(settings, s.key)) continue;
    const Distribution& d = m.*s.values;
    j[fmt::format("mean_{}_ms", s.key)] = d.mean;
    j[fmt::format("median_{}_ms", s.key)] = d.median;
    j[fmt::format("std_{}_ms", s.key)] = d.std;
    for (const auto& [p, value] : d.percentiles) j[fmt::format("p{}_{}_ms", PercentileName(p), s.key)] = value;
  }
  if (!detailed) return j;
  for (const char* key : {"input_lens", "output_lens", "ttfts", "itls", "e2els", "generated_texts", "errors"}) {
    j[key] = nlohmann::json::array();
  }
  for (const RequestResult& r : requests) {
    j["input_lens"].push_back(r.prompt_len);
    j["output_lens"].push_back(r.success ? r.output_tokens : 0);
    j["ttfts"].push_back(r.ttft);
    j["itls"].push_back(r.itl);
    j["e2els"].push_back(r.latency);
    j["generated_texts"].push_back(r.generated_text);
    j["errors"].push_back(r.error);
  }
  return j;
}

}  // namespace pagoda::apps::bench_serve
