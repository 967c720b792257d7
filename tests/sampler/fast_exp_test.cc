#include "pagoda/sampler/fast_exp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace pagoda {
namespace {

TEST(FastExpTest, MatchesStdExpToAFewUlps) {
  double worst = 0;
  for (float x = -87.0f; x <= 88.0f; x += 0.0137f) {
    const double exact = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::abs(FastExp(x) - exact) / exact);
  }
  EXPECT_LT(worst, 3e-7);
  EXPECT_EQ(FastExp(0.0f), 1.0f);
}

TEST(FastExpTest, EdgesGiveZeroOrFinite) {
  EXPECT_EQ(FastExp(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(FastExp(-100.0f), 0.0f);
  EXPECT_EQ(FastExp(std::numeric_limits<float>::quiet_NaN()), 0.0f);
  EXPECT_TRUE(std::isfinite(FastExp(1000.0f)));
}

TEST(FastExpTest, SumsMatchADoubleLoop) {
  std::vector<float> row;
  for (int i = 0; i < 1003; ++i) row.push_back(std::sin(static_cast<float>(i)) * 10.0f);
  double exact = 0;
  for (float x : row) exact += std::exp(static_cast<double>(x) - 10.0);
  EXPECT_NEAR(SumExp(row, 10.0f), exact, exact * 1e-6);
  std::vector<float> terms(row.size());
  EXPECT_NEAR(ExpAndSum(row, 10.0f, terms), exact, exact * 1e-6);
  EXPECT_NEAR(terms[5], std::exp(static_cast<double>(row[5]) - 10.0), 1e-6);
}

}  // namespace
}  // namespace pagoda
