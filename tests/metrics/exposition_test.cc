#include "pagoda/metrics/exposition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace pagoda::metrics {
namespace {

// Expected strings are prometheus_client's floatToGoString of the same
// doubles.
TEST(FormatValueTest, WritesPythonReprWithAFractionalPart) {
  EXPECT_EQ(FormatValue(0.0), "0.0");
  EXPECT_EQ(FormatValue(-0.0), "-0.0");
  EXPECT_EQ(FormatValue(1.0), "1.0");
  EXPECT_EQ(FormatValue(0.005), "0.005");
  EXPECT_EQ(FormatValue(0.3), "0.3");
  EXPECT_EQ(FormatValue(2560.0), "2560.0");
  EXPECT_EQ(FormatValue(123456.0), "123456.0");
  EXPECT_EQ(FormatValue(999999.0), "999999.0");
  EXPECT_EQ(FormatValue(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(FormatValue(0.1 + 0.2), "0.30000000000000004");
}

TEST(FormatValueTest, SmallAndHugeValuesUseScientificNotationAsPython) {
  EXPECT_EQ(FormatValue(0.0001), "0.0001");
  EXPECT_EQ(FormatValue(1e-05), "1e-05");
  EXPECT_EQ(FormatValue(1.5e-05), "1.5e-05");
  EXPECT_EQ(FormatValue(5e-324), "5e-324");
  EXPECT_EQ(FormatValue(1e16), "1e+16");
  EXPECT_EQ(FormatValue(1.5e16), "1.5e+16");
  EXPECT_EQ(FormatValue(-1e16), "-1e+16");
  EXPECT_EQ(FormatValue(1.7976931348623157e308), "1.7976931348623157e+308");
}

TEST(FormatValueTest, PositiveValuesWithSevenIntegerDigitsSwitchToGoExponents) {
  EXPECT_EQ(FormatValue(1000000.0), "1e+06");
  EXPECT_EQ(FormatValue(1234567.0), "1.234567e+06");
  EXPECT_EQ(FormatValue(1500000.0), "1.5e+06");
  EXPECT_EQ(FormatValue(20000000.0), "2e+07");
  EXPECT_EQ(FormatValue(12345678.9), "1.23456789e+07");
  EXPECT_EQ(FormatValue(1e15), "1e+15");
  EXPECT_EQ(FormatValue(9007199254740992.0), "9.007199254740992e+15");
  EXPECT_EQ(FormatValue(1732912345.123456), "1.732912345123456e+09");
  // Only positive ones.
  EXPECT_EQ(FormatValue(-1234567.0), "-1234567.0");
}

TEST(FormatValueTest, InfinitiesAndNan) {
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatValue(std::nan("")), "NaN");
}

TEST(EscapingTest, LabelValuesEscapeBackslashQuoteAndNewline) {
  std::string out;
  AppendEscapedLabelValue(out, "a\\b\"c\nd\te");
  EXPECT_EQ(out, "a\\\\b\\\"c\\nd\te");
}

TEST(EscapingTest, HelpEscapesBackslashAndNewlineButNotQuotes) {
  std::string out;
  AppendEscapedHelp(out, "say \"hi\"\\\nbye");
  EXPECT_EQ(out, "say \"hi\"\\\\\\nbye");
}

TEST(NamesTest, MetricAndLabelNames) {
  EXPECT_TRUE(IsValidMetricName("vllm:prompt_tokens"));
  EXPECT_TRUE(IsValidMetricName(":a1"));
  EXPECT_FALSE(IsValidMetricName("1a"));
  EXPECT_FALSE(IsValidMetricName("a-b"));
  EXPECT_FALSE(IsValidMetricName(""));
  EXPECT_TRUE(IsValidLabelName("model_name"));
  EXPECT_TRUE(IsValidLabelName("_x9"));
  EXPECT_FALSE(IsValidLabelName("a:b"));
  EXPECT_FALSE(IsValidLabelName("__reserved"));
  EXPECT_FALSE(IsValidLabelName("9a"));
}

}  // namespace
}  // namespace pagoda::metrics
