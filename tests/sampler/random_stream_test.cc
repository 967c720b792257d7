#include "pagoda/sampler/random_stream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace pagoda {
namespace {

TEST(RandomStreamTest, SameSeedAndChildGiveTheSameDraws) {
  const RandomStream a = RandomStream::Seeded(42, 0);
  const RandomStream b = RandomStream::Seeded(42, 0);
  for (int64_t step = 0; step < 100; ++step) EXPECT_EQ(a.Uniform(step), b.Uniform(step));
  // Draws depend on the step only, not on how many were taken before.
  EXPECT_EQ(a.Uniform(7), a.Uniform(7));
}

TEST(RandomStreamTest, ChildrenAndSeedsGiveDifferentStreams) {
  const RandomStream base = RandomStream::Seeded(42, 0);
  for (const RandomStream& other :
       {RandomStream::Seeded(42, 1), RandomStream::Seeded(42, 2), RandomStream::Seeded(43, 0), RandomStream::Seeded(-1, 0)}) {
    int same = 0;
    for (int64_t step = 0; step < 100; ++step) same += base.Uniform(step) == other.Uniform(step);
    EXPECT_EQ(same, 0);
  }
  // Neither a child's stream a shifted copy of another's.
  const RandomStream child1 = RandomStream::Seeded(42, 1);
  EXPECT_NE(base.Uniform(1), child1.Uniform(0));
}

TEST(RandomStreamTest, UniformLooksUniform) {
  const RandomStream s = RandomStream::Seeded(7, 3);
  const int n = 100000;
  const int bins = 10;
  std::vector<int> counts(bins, 0);
  for (int64_t step = 0; step < n; ++step) {
    const double u = s.Uniform(step);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ++counts[static_cast<int>(u * bins)];
  }
  double chi2 = 0;
  for (int c : counts) chi2 += std::pow(c - n / bins, 2) / (n / bins);
  EXPECT_LT(chi2, 27.9);  // 9 degrees of freedom, p = 0.001
}

}  // namespace
}  // namespace pagoda
