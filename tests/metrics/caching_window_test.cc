#include "pagoda/metrics/caching_window.h"

#include <gtest/gtest.h>

namespace pagoda::metrics {
namespace {

TEST(CachingWindowTest, EmptyUntilARequestIsObserved) {
  CachingWindow window;
  EXPECT_FALSE(window.HitRate().has_value());
  window.Observe(0, 0, 0);
  EXPECT_FALSE(window.HitRate().has_value());
  window.Observe(1, 0, 0);
  EXPECT_EQ(window.HitRate(), 0.0);
}

TEST(CachingWindowTest, DropsTheOldestObservationsPastTheRequestLimit) {
  CachingWindow window(/*max_recent_requests=*/4);
  window.Observe(2, 100, 100);
  window.Observe(2, 100, 0);
  EXPECT_EQ(window.HitRate(), 0.5);
  // 6 requests > 4: the first observation leaves.
  window.Observe(2, 100, 50);
  EXPECT_EQ(window.HitRate(), 0.25);
}

TEST(CachingWindowTest, KeepsTheNewestObservationEvenWhenItAloneExceedsTheLimit) {
  CachingWindow window(/*max_recent_requests=*/4);
  window.Observe(1, 10, 0);
  window.Observe(9, 10, 10);
  EXPECT_EQ(window.HitRate(), 1.0);
}

}  // namespace
}  // namespace pagoda::metrics
