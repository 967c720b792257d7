// FastExp against std::exp, and every supported set's row sums against a
// double loop of std::exp (tests/kernels/consistency_test.cc checks the
// sets against the portable build bit for bit).
#include "pagoda/kernels/fast_exp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "pagoda/kernels/cpu/kernel_set.h"

namespace pagoda::kernels {
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

TEST(RowOpsTest, SumsMatchADoubleLoopInEverySet) {
  std::vector<float> row;
  for (int i = 0; i < 1003; ++i) row.push_back(std::sin(static_cast<float>(i)) * 10.0f);
  double exact = 0;
  for (float x : row) exact += std::exp(static_cast<double>(x) - 10.0);
  for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
    const cpu::RowOps& rows = *set->rows;
    EXPECT_NEAR(rows.SumExp(row, 10.0f), exact, exact * 1e-6) << set->name;
    std::vector<float> terms(row.size());
    EXPECT_NEAR(rows.ExpAndSum(row, 10.0f, terms), exact, exact * 1e-6) << set->name;
    EXPECT_NEAR(terms[5], std::exp(static_cast<double>(row[5]) - 10.0), 1e-6) << set->name;
    float max = row[0];
    for (float x : row) max = std::max(max, x);
    EXPECT_EQ(rows.RowMax(row), max) << set->name;
  }
}

}  // namespace
}  // namespace pagoda::kernels
