// ComputeMetrics against tests/fixtures/bench_serve/metrics_reference.json,
// whose summaries NumPy computed as vLLM's bench serve does
// (make_metrics_reference.py beside it).
#include "pagoda/apps/bench_serve/metrics.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace pagoda::apps::bench_serve {
namespace {

nlohmann::json LoadCases() {
  std::ifstream in(std::string(PAGODA_FIXTURES_DIR) + "/bench_serve/metrics_reference.json");
  return nlohmann::json::parse(in)["cases"];
}

RequestResult FromJson(const nlohmann::json& j) {
  RequestResult r;
  r.success = j["success"];
  r.ttft = j["ttft"];
  r.latency = j["latency"];
  r.itl = j["itl"].get<std::vector<double>>();
  r.output_tokens = j["output_tokens"];
  r.prompt_len = j["prompt_len"];
  r.error = j["error"];
  return r;
}

void ExpectDistribution(const Distribution& got, const nlohmann::json& want, const std::string& name) {
  EXPECT_NEAR(got.mean, want["mean"].get<double>(), 1e-9) << name;
  EXPECT_NEAR(got.median, want["median"].get<double>(), 1e-9) << name;
  EXPECT_NEAR(got.std, want["std"].get<double>(), 1e-9) << name;
  ASSERT_EQ(got.percentiles.size(), want["percentiles"].size()) << name;
  for (size_t i = 0; i < got.percentiles.size(); ++i) {
    EXPECT_EQ(got.percentiles[i].first, want["percentiles"][i][0].get<double>()) << name;
    EXPECT_NEAR(got.percentiles[i].second, want["percentiles"][i][1].get<double>(), 1e-9) << name << " p" << i;
  }
}

TEST(MetricsTest, MatchesNumpyReference) {
  const nlohmann::json cases = LoadCases();
  ASSERT_EQ(cases.size(), 4u);
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    std::vector<RequestResult> results;
    for (const auto& r : cases[c]["requests"]) results.push_back(FromJson(r));
    const BenchmarkMetrics m =
        ComputeMetrics(results, cases[c]["duration"], cases[c]["percentiles"].get<std::vector<double>>());
    const nlohmann::json& want = cases[c]["expected"];
    EXPECT_EQ(m.completed, want["completed"].get<int>());
    EXPECT_EQ(m.failed, want["failed"].get<int>());
    EXPECT_EQ(m.total_input, want["total_input"].get<int64_t>());
    EXPECT_EQ(m.total_output, want["total_output"].get<int64_t>());
    EXPECT_NEAR(m.request_throughput, want["request_throughput"].get<double>(), 1e-9);
    EXPECT_NEAR(m.output_throughput, want["output_throughput"].get<double>(), 1e-9);
    EXPECT_NEAR(m.total_token_throughput, want["total_token_throughput"].get<double>(), 1e-9);
    EXPECT_EQ(m.first_error, want["first_error"].get<std::string>());
    ExpectDistribution(m.ttft, want["ttft"], "ttft");
    ExpectDistribution(m.tpot, want["tpot"], "tpot");
    ExpectDistribution(m.itl, want["itl"], "itl");
    ExpectDistribution(m.e2el, want["e2el"], "e2el");
  }
}

// The same definitions worked by hand on two requests, apart from NumPy.
TEST(MetricsTest, TpotIsTheDecodeTimeOverTheTokensAfterTheFirst) {
  RequestResult a{.success = true, .ttft = 0.1, .latency = 0.4, .itl = {0.1, 0.2}, .output_tokens = 4, .prompt_len = 10};
  RequestResult b{.success = true, .ttft = 0.3, .latency = 0.3, .itl = {}, .output_tokens = 1, .prompt_len = 6};
  const BenchmarkMetrics m = ComputeMetrics({a, b}, 2.0, {50});
  EXPECT_NEAR(m.tpot.mean, 1e3 * 0.3 / 3, 1e-9);  // b has one token: no TPOT
  EXPECT_NEAR(m.ttft.mean, 200, 1e-9);
  EXPECT_NEAR(m.ttft.std, 100, 1e-9);
  EXPECT_NEAR(m.itl.median, 150, 1e-9);
  EXPECT_NEAR(m.e2el.percentiles[0].second, 350, 1e-9);
  EXPECT_EQ(m.total_input, 16);
  EXPECT_EQ(m.total_output, 5);
  EXPECT_NEAR(m.total_token_throughput, 21 / 2.0, 1e-12);
}

}  // namespace
}  // namespace pagoda::apps::bench_serve
