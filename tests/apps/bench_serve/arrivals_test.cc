#include "pagoda/apps/bench_serve/arrivals.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>

namespace pagoda::apps::bench_serve {
namespace {

std::vector<double> Gaps(const std::vector<double>& offsets) {
  std::vector<double> gaps;
  for (size_t i = 1; i < offsets.size(); ++i) gaps.push_back(offsets[i] - offsets[i - 1]);
  return gaps;
}

double Mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }

double Variance(const std::vector<double>& v) {
  const double m = Mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / v.size();
}

TEST(ArrivalsTest, InfiniteRateSendsEverythingAtOnce) {
  const auto offsets = ArrivalOffsets(50, std::numeric_limits<double>::infinity(), 1.0, 7);
  ASSERT_EQ(offsets.size(), 50u);
  for (double t : offsets) EXPECT_EQ(t, 0.0);
}

// A gamma(k, 1 / (rate * k)) gap has mean 1 / rate and variance 1 / (k * rate^2).
// With n = 20000 gaps the sample mean's standard error is (1 / rate) / sqrt(k * n):
// 5 standard errors is a bound a correct sampler misses about once in 3.5 million runs.
void ExpectGapStatistics(double rate, double burstiness) {
  const int n = 20001;
  const auto offsets = ArrivalOffsets(n, rate, burstiness, 42);
  ASSERT_EQ(offsets.size(), static_cast<size_t>(n));
  EXPECT_EQ(offsets[0], 0.0);
  const std::vector<double> gaps = Gaps(offsets);
  for (double g : gaps) ASSERT_GE(g, 0.0);
  const double standard_error = (1 / rate) / std::sqrt(burstiness * gaps.size());
  EXPECT_NEAR(Mean(gaps), 1 / rate, 5 * standard_error) << "burstiness " << burstiness;
  // The variance tells the shapes apart: within 10% of 1 / (k * rate^2).
  const double variance = 1 / (burstiness * rate * rate);
  EXPECT_NEAR(Variance(gaps), variance, 0.1 * variance) << "burstiness " << burstiness;
}

TEST(ArrivalsTest, PoissonGapsHaveMeanOneOverRate) { ExpectGapStatistics(4.0, 1.0); }
TEST(ArrivalsTest, BurstyGapsKeepTheMeanAndSpreadMore) { ExpectGapStatistics(10.0, 0.5); }
TEST(ArrivalsTest, SteadyGapsKeepTheMeanAndSpreadLess) { ExpectGapStatistics(2.0, 4.0); }

TEST(ArrivalsTest, TheSeedDecides) {
  EXPECT_EQ(ArrivalOffsets(10, 3.0, 1.0, 1), ArrivalOffsets(10, 3.0, 1.0, 1));
  EXPECT_NE(ArrivalOffsets(10, 3.0, 1.0, 1), ArrivalOffsets(10, 3.0, 1.0, 2));
}

}  // namespace
}  // namespace pagoda::apps::bench_serve
