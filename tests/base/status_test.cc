#include "pagoda/base/status.h"

#include <gtest/gtest.h>

namespace pagoda {
namespace {

StatusOr<int> ParsePositive(int x) {
  if (x <= 0) return InvalidArgumentError("not positive");
  return x;
}

StatusOr<int> Doubled(int x) {
  PAGODA_ASSIGN_OR_RETURN(int v, ParsePositive(x));
  return 2 * v;
}

TEST(StatusTest, OkAndErrorsCarryCodeAndMessage) {
  EXPECT_TRUE(Status::Ok().ok());
  Status s = DataLossError("truncated header");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.ToString(), "DATA_LOSS: truncated header");
  EXPECT_EQ(UnavailableError("queue full").ToString(), "UNAVAILABLE: queue full");
  EXPECT_EQ(UnavailableError("queue full").code(), StatusCode::kUnavailable);
}

TEST(StatusTest, AssignOrReturnPropagates) {
  auto good = Doubled(4);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 8);
  auto bad = Doubled(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pagoda
