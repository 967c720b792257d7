#include "pagoda/apps/bench_serve/report.h"

#include <gtest/gtest.h>

#include <limits>

namespace pagoda::apps::bench_serve {
namespace {

BenchmarkMetrics Sample() {
  BenchmarkMetrics m;
  m.completed = 7;
  m.failed = 1;
  m.total_input = 224;
  m.total_output = 56;
  m.duration = 2.5;
  m.request_throughput = 2.8;
  m.output_throughput = 22.4;
  m.total_token_throughput = 112;
  m.ttft = {.mean = 12.3456, .median = 11, .std = 1.5, .percentiles = {{99, 20.5}, {99.9, 21}}};
  m.e2el = {.mean = 100, .median = 90, .std = 3, .percentiles = {{99, 150}, {99.9, 151}}};
  return m;
}

TEST(ReportTest, TableHasVllmLabelsAndLayout) {
  const ReportSettings settings{4, std::numeric_limits<double>::infinity(), 1.0, {"ttft", "e2el"}};
  const std::string table = FormatReport(Sample(), settings);
  EXPECT_EQ(table.substr(0, 51), "============ Serving Benchmark Result ============\n");
  // Python's "{:<40} {:<10}": label padded to 40, a space, value padded to 10.
  EXPECT_NE(table.find("Successful requests:                     7         \n"), std::string::npos) << table;
  EXPECT_NE(table.find("Failed requests:                         1         \n"), std::string::npos);
  EXPECT_NE(table.find("Maximum request concurrency:             4         \n"), std::string::npos);
  EXPECT_EQ(table.find("Request rate configured"), std::string::npos);  // infinite: not shown
  EXPECT_NE(table.find("Benchmark duration (s):                  2.50      \n"), std::string::npos);
  EXPECT_NE(table.find("Total Token throughput (tok/s):          112.00    \n"), std::string::npos);
  EXPECT_NE(table.find("---------------Time to First Token----------------\n"), std::string::npos);
  EXPECT_NE(table.find("Mean TTFT (ms):                          12.35     \n"), std::string::npos);
  EXPECT_NE(table.find("P99.9 TTFT (ms):"), std::string::npos);
  EXPECT_NE(table.find("----------------End-to-end Latency----------------\n"), std::string::npos);
  EXPECT_EQ(table.find("TPOT"), std::string::npos);  // not selected
  EXPECT_EQ(table.substr(table.size() - 51), std::string(50, '=') + "\n");
}

TEST(ReportTest, JsonHasVllmKeysAndDetailedArrays) {
  const ReportSettings settings{std::nullopt, 2.0, 0.5, {"ttft", "e2el"}};
  const std::vector<RequestResult> requests = {
      {.success = true, .ttft = 0.1, .latency = 0.3, .itl = {0.2}, .output_tokens = 2, .prompt_len = 5,
       .generated_text = "ab"},
      {.success = false, .prompt_len = 6, .error = "HTTP 500: x"},
  };
  const nlohmann::json brief = ResultJson(Sample(), settings, requests, false);
  EXPECT_EQ(brief["completed"], 7);
  EXPECT_EQ(brief["failed"], 1);
  EXPECT_EQ(brief["total_output_tokens"], 56);
  EXPECT_EQ(brief["request_rate"], 2.0);
  EXPECT_TRUE(brief["max_concurrency"].is_null());
  EXPECT_EQ(brief["burstiness"], 0.5);
  EXPECT_EQ(brief["mean_ttft_ms"], 12.3456);
  EXPECT_EQ(brief["p99_ttft_ms"], 20.5);
  EXPECT_EQ(brief["p99.9_e2el_ms"], 151);
  EXPECT_EQ(brief["std_e2el_ms"], 3);
  EXPECT_FALSE(brief.contains("mean_tpot_ms"));
  EXPECT_FALSE(brief.contains("ttfts"));

  const nlohmann::json detailed = ResultJson(Sample(), {4, std::numeric_limits<double>::infinity(), 1, {}}, requests, true);
  EXPECT_EQ(detailed["request_rate"], "inf");
  EXPECT_EQ(detailed["max_concurrency"], 4);
  EXPECT_EQ(detailed["input_lens"], nlohmann::json({5, 6}));
  EXPECT_EQ(detailed["output_lens"], nlohmann::json({2, 0}));
  EXPECT_EQ(detailed["ttfts"], nlohmann::json({0.1, 0.0}));
  EXPECT_EQ(detailed["itls"], nlohmann::json({{0.2}, nlohmann::json::array()}));
  EXPECT_EQ(detailed["e2els"], nlohmann::json({0.3, 0.0}));
  EXPECT_EQ(detailed["errors"], nlohmann::json({"", "HTTP 500: x"}));
  EXPECT_EQ(detailed["generated_texts"], nlohmann::json({"ab", ""}));
}

}  // namespace
}  // namespace pagoda::apps::bench_serve
