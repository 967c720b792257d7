// Golden renders of each family type, written by hand from the text
// exposition format 0.0.4 as prometheus_client writes it: labels sorted by
// name, values as floats, counters with `_total`, histogram buckets
// cumulative with `le` inclusive, then `_count` and `_sum`.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "pagoda/metrics/registry.h"

namespace pagoda::metrics {
namespace {

TEST(CounterTest, RendersTotalSuffixAndSortedLabelsInCreationOrder) {
  Registry registry;
  CounterFamily& requests = registry.AddCounter("http_requests", "Requests served.", {"method", "code"});
  requests.Labels({"post", "500"}).Inc(0.5);
  requests.Labels({"get", "200"}).Inc(3);
  EXPECT_EQ(registry.Render(),
            "# HELP http_requests_total Requests served.\n"
            "# TYPE http_requests_total counter\n"
            "http_requests_total{code=\"500\",method=\"post\"} 0.5\n"
            "http_requests_total{code=\"200\",method=\"get\"} 3.0\n");
}

TEST(CounterTest, NameGivenWithTotalIsExposedOnce) {
  Registry registry;
  registry.AddCounter("vllm:prompt_tokens_total", "Prompt tokens.", {"model_name"}).Labels({"m"}).Inc(7);
  EXPECT_EQ(registry.Render(),
            "# HELP vllm:prompt_tokens_total Prompt tokens.\n"
            "# TYPE vllm:prompt_tokens_total counter\n"
            "vllm:prompt_tokens_total{model_name=\"m\"} 7.0\n");
}

TEST(CounterTest, SameLabelValuesGiveTheSameChild) {
  Registry registry;
  CounterFamily& family = registry.AddCounter("c", "C.", {"a"});
  Counter& first = family.Labels({"x"});
  family.Labels({"x"}).Inc();
  EXPECT_EQ(&first, &family.Labels({"x"}));
  EXPECT_EQ(first.Value(), 1.0);
}

TEST(GaugeTest, EscapesHelpAndLabelValues) {
  Registry registry;
  GaugeFamily& gauge = registry.AddGauge("temp", "Line one\nback\\slash \"quoted\"", {"path"});
  gauge.Labels({"C:\\dir \"x\"\nnext"}).Set(-2.5);
  EXPECT_EQ(registry.Render(),
            "# HELP temp Line one\\nback\\\\slash \"quoted\"\n"
            "# TYPE temp gauge\n"
            "temp{path=\"C:\\\\dir \\\"x\\\"\\nnext\"} -2.5\n");
}

TEST(GaugeTest, SetAndInc) {
  Registry registry;
  Gauge& gauge = registry.AddGauge("g", "G.", {"a"}).Labels({"x"});
  gauge.Set(4);
  gauge.Inc(-1.5);
  EXPECT_EQ(gauge.Value(), 2.5);
}

TEST(GaugeTest, FamilyWithoutChildrenRendersOnlyItsHeader) {
  Registry registry;
  registry.AddGauge("g", "G.", {"a"});
  EXPECT_EQ(registry.Render(), "# HELP g G.\n# TYPE g gauge\n");
}

TEST(HistogramTest, RendersCumulativeBucketsWithLeSortedAmongLabels) {
  Registry registry;
  HistogramFamily& latency = registry.AddHistogram("latency_seconds", "Latency.", {"zone", "a"}, {0.005, 0.1, 1});
  Histogram& eu = latency.Labels({"eu", "x"});
  for (double v : {0.005, 0.05, 0.1, 1.5}) eu.Observe(v);
  latency.Labels({"us", "y"});
  EXPECT_EQ(registry.Render(),
            "# HELP latency_seconds Latency.\n"
            "# TYPE latency_seconds histogram\n"
            "latency_seconds_bucket{a=\"x\",le=\"0.005\",zone=\"eu\"} 1.0\n"
            "latency_seconds_bucket{a=\"x\",le=\"0.1\",zone=\"eu\"} 3.0\n"
            "latency_seconds_bucket{a=\"x\",le=\"1.0\",zone=\"eu\"} 3.0\n"
            "latency_seconds_bucket{a=\"x\",le=\"+Inf\",zone=\"eu\"} 4.0\n"
            "latency_seconds_count{a=\"x\",zone=\"eu\"} 4.0\n"
            "latency_seconds_sum{a=\"x\",zone=\"eu\"} 1.655\n"
            "latency_seconds_bucket{a=\"y\",le=\"0.005\",zone=\"us\"} 0.0\n"
            "latency_seconds_bucket{a=\"y\",le=\"0.1\",zone=\"us\"} 0.0\n"
            "latency_seconds_bucket{a=\"y\",le=\"1.0\",zone=\"us\"} 0.0\n"
            "latency_seconds_bucket{a=\"y\",le=\"+Inf\",zone=\"us\"} 0.0\n"
            "latency_seconds_count{a=\"y\",zone=\"us\"} 0.0\n"
            "latency_seconds_sum{a=\"y\",zone=\"us\"} 0.0\n");
}

TEST(HistogramTest, LeSortsFirstOrLastToo) {
  Registry registry;
  registry.AddHistogram("h", "H.", {"model_name"}, {1}).Labels({"m"}).Observe(1);
  registry.AddHistogram("k", "K.", {"a"}, {1}).Labels({"v"});
  const std::string text = registry.Render();
  EXPECT_NE(text.find("h_bucket{le=\"1.0\",model_name=\"m\"} 1.0\n"), std::string::npos);
  EXPECT_NE(text.find("k_bucket{a=\"v\",le=\"+Inf\"} 0.0\n"), std::string::npos);
}

TEST(HistogramTest, ValueEqualToABoundFallsInThatBucket) {
  Registry registry;
  HistogramFamily& family = registry.AddHistogram("h", "H.", {"a"}, {1, 2, 5});
  Histogram& h = family.Labels({"x"});
  for (double v : {0.0, 1.0, 1.0000001, 2.0, 5.0, 5.5, -3.0}) h.Observe(v);
  const Histogram::Snapshot s = h.Read();
  // Buckets: (-inf, 1], (1, 2], (2, 5], (5, +Inf].
  EXPECT_EQ(s.bucket_counts, (std::vector<uint64_t>{3, 2, 1, 1}));
  EXPECT_DOUBLE_EQ(s.sum, 0.0 + 1.0 + 1.0000001 + 2.0 + 5.0 + 5.5 - 3.0);
  EXPECT_EQ(family.upper_bounds().back(), std::numeric_limits<double>::infinity());
}

TEST(HistogramTest, ExplicitInfBucketIsNotRepeated) {
  Registry registry;
  HistogramFamily& family = registry.AddHistogram("h", "H.", {"a"}, {1, std::numeric_limits<double>::infinity()});
  EXPECT_EQ(family.upper_bounds().size(), 2u);
}

TEST(HistogramTest, NanCountsInNoBucketAndPoisonsTheSum) {
  Registry registry;
  HistogramFamily& family = registry.AddHistogram("h", "H.", {"a"}, {1});
  family.Labels({"x"}).Observe(std::nan(""));
  EXPECT_EQ(registry.Render(),
            "# HELP h H.\n# TYPE h histogram\n"
            "h_bucket{a=\"x\",le=\"1.0\"} 0.0\n"
            "h_bucket{a=\"x\",le=\"+Inf\"} 0.0\n"
            "h_count{a=\"x\"} 0.0\n"
            "h_sum{a=\"x\"} NaN\n");
}

TEST(HistogramTest, NegativeBucketDropsTheSum) {
  Registry registry;
  registry.AddHistogram("h", "H.", {"a"}, {-1, 1}).Labels({"x"}).Observe(-2);
  EXPECT_EQ(registry.Render(),
            "# HELP h H.\n# TYPE h histogram\n"
            "h_bucket{a=\"x\",le=\"-1.0\"} 1.0\n"
            "h_bucket{a=\"x\",le=\"1.0\"} 1.0\n"
            "h_bucket{a=\"x\",le=\"+Inf\"} 1.0\n"
            "h_count{a=\"x\"} 1.0\n");
}

TEST(RegistryTest, RendersFamiliesInRegistrationOrder) {
  Registry registry;
  registry.AddGauge("b", "B.", {"l"}).Labels({"1"}).Set(1);
  registry.AddCounter("a", "A.", {"l"}).Labels({"1"}).Inc(2);
  EXPECT_EQ(registry.Render(),
            "# HELP b B.\n# TYPE b gauge\nb{l=\"1\"} 1.0\n"
            "# HELP a_total A.\n# TYPE a_total counter\na_total{l=\"1\"} 2.0\n");
}

TEST(RegistryDeathTest, RejectsWhatPrometheusClientRejects) {
  Registry registry;
  registry.AddGauge("g", "G.", {"a"});
  EXPECT_DEATH(registry.AddGauge("g", "Again.", {"a"}), "duplicate metric name");
  EXPECT_DEATH(registry.AddGauge("bad-name", "G.", {"a"}), "invalid metric name");
  EXPECT_DEATH(registry.AddGauge("g2", "G.", {"a", "a"}), "duplicate label name");
  EXPECT_DEATH(registry.AddHistogram("h", "H.", {"le"}, {1}), "reserved");
  EXPECT_DEATH(registry.AddHistogram("h", "H.", {"a"}, {2, 1}), "ascending");
  EXPECT_DEATH(registry.AddHistogram("h", "H.", {"a"}, {}), "at least two buckets");
  EXPECT_DEATH(registry.AddCounter("c", "C.", {"a"}).Labels({"x"}).Inc(-1), "only go up");
  EXPECT_DEATH(registry.AddCounter("c2", "C.", {"a"}).Labels({"x", "y"}), "one label value per label name");
}

}  // namespace
}  // namespace pagoda::metrics
