// Numbers in JSON Schema grammars, checked against arithmetic done here:
// integers with multipleOf and bounds (every value of a window, accepted
// exactly when v % k == 0 and v lies in range), and bounds on numbers that
// may have a fraction (every accepted text's double lies in the range, as
// jsonschema compares it; and for short decimals, acceptance is exactly
// that).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grammar_test_util.h"
#include "pagoda/structured/json_integer_multiples.h"
#include "pagoda/structured/json_number_bounds.h"
#include "pagoda/structured/json_schema_to_grammar.h"

namespace pagoda::structured {
namespace {

using testing::Accepts;

std::shared_ptr<const Grammar> SchemaGrammar(const std::string& schema) {
  JsonSchemaOptions options;
  options.max_whitespace = 0;
  auto built = JsonSchemaToGrammar(schema, options);
  EXPECT_TRUE(built.ok()) << schema << ": " << built.status().ToString();
  return built.ok() ? std::make_shared<const Grammar>(std::move(*built)) : nullptr;
}

// The grammar of IntegerMultiples alone, with `limits` (to reach the
// automaton on short ranges too).
std::shared_ptr<const Grammar> MultiplesGrammar(uint64_t k, std::optional<int64_t> lo, std::optional<int64_t> hi,
                                                const IntegerMultiplesLimits& limits) {
  GrammarBuilder builder;
  int n = 0;
  auto expr = IntegerMultiples(
      k, lo, hi, &builder, [&n](const std::string& hint) { return hint + std::to_string(n++); }, limits);
  EXPECT_TRUE(expr.ok()) << expr.status().ToString();
  if (!expr.ok()) return nullptr;
  builder.Define("root", *expr);
  return testing::BuildOrDie(builder);
}

bool InRange(__int128 v, std::optional<int64_t> lo, std::optional<int64_t> hi) {
  return (!lo || v >= *lo) && (!hi || v <= *hi);
}

std::string Text(__int128 v) {
  if (v == 0) return "0";
  std::string digits;
  const bool negative = v < 0;
  for (__int128 m = negative ? -v : v; m > 0; m /= 10) digits.insert(digits.begin(), static_cast<char>('0' + m % 10));
  return negative ? "-" + digits : digits;
}

// Every integer of [from, to] and a few around +-10^18 and the 64-bit ends.
std::vector<__int128> Window(int64_t from, int64_t to) {
  std::vector<__int128> values;
  for (int64_t v = from; v <= to; ++v) values.push_back(v);
  for (const __int128 center : {__int128{1000000000000000000}, __int128{INT64_MAX}, __int128{INT64_MIN}}) {
    for (int d = -30; d <= 30; ++d) {
      values.push_back(center + d);
      values.push_back(-(center + d));
    }
  }
  return values;
}

void ExpectExactMultiples(const std::shared_ptr<const Grammar>& grammar, uint64_t k, std::optional<int64_t> lo,
                          std::optional<int64_t> hi, int64_t from, int64_t to, const std::string& what) {
  ASSERT_NE(grammar, nullptr) << what;
  int accepted = 0;
  for (const __int128 v : Window(from, to)) {
    const bool expected = v % static_cast<__int128>(k) == 0 && InRange(v, lo, hi);
    const bool got = Accepts(grammar, Text(v));
    accepted += got;
    ASSERT_EQ(got, expected) << what << ": " << Text(v);
  }
  EXPECT_GT(accepted, 0) << what;
  // Zero's other spelling, and spellings that are never canonical.
  EXPECT_EQ(Accepts(grammar, "-0"), InRange(0, lo, hi)) << what;
  for (const char* text : {"00", "-00", "+0", "0.0", "07", "1e1", "", "-"})
    EXPECT_FALSE(Accepts(grammar, text)) << what << text;
}

struct MultiplesCase {
  uint64_t k;
  std::optional<int64_t> lo, hi;
};

const MultiplesCase kMultiplesCases[] = {
    {3, std::nullopt, std::nullopt},
    {7, -50, 300},
    {7, std::nullopt, -13},
    {12, 5, std::nullopt},
    {10, -95, -5},
    {1, -3, 3},
    {997, -3000, 2500},
    {13, 0, 0},
    {4, -1, 1},
    {25, std::nullopt, 99},
    {6, 1, std::nullopt},
    {1000, 999, std::nullopt},
    {9, INT64_MIN, INT64_MAX},
    {11, INT64_MAX - 40, INT64_MAX},
    {11, INT64_MIN, INT64_MIN + 40},
};

TEST(structured_json_schema_numbers, IntegerMultiplesAutomatonIsExact) {
  IntegerMultiplesLimits automaton_only;
  automaton_only.max_listed = 0;
  for (const MultiplesCase& c : kMultiplesCases) {
    const std::string what = "k=" + std::to_string(c.k) + " lo=" + (c.lo ? std::to_string(*c.lo) : "-") +
                             " hi=" + (c.hi ? std::to_string(*c.hi) : "-");
    ExpectExactMultiples(MultiplesGrammar(c.k, c.lo, c.hi, automaton_only), c.k, c.lo, c.hi, -3100, 3100, what);
  }
}

TEST(structured_json_schema_numbers, MultipleOfInSchemasIsExact) {
  struct SchemaCase {
    std::string schema;
    uint64_t k;
    std::optional<int64_t> lo, hi;
  };
  const SchemaCase cases[] = {
      {R"({"type": "integer", "multipleOf": 7})", 7, std::nullopt, std::nullopt},
      {R"({"type": "integer", "multipleOf": 5, "minimum": -1000, "exclusiveMaximum": 2000})", 5, -1000, 1999},
      {R"({"type": "integer", "multipleOf": 3, "exclusiveMinimum": -20, "maximum": 40})", 3, -19, 40},  // listed
      {R"({"type": "integer", "multipleOf": 2000, "minimum": -10000, "maximum": 1000000})", 2000, -10000, 1000000},
      {R"({"type": "number", "multipleOf": 4.0, "minimum": -7.5})", 4, -7, std::nullopt},
      {R"({"allOf": [{"type": "integer", "multipleOf": 6}, {"multipleOf": 4}], "maximum": 100})", 12, std::nullopt,
       100},
  };
  for (const SchemaCase& c : cases)
    ExpectExactMultiples(SchemaGrammar(c.schema), c.k, c.lo, c.hi, -2500, 2500, c.schema);
}

TEST(structured_json_schema_numbers, LargeMultipleOfOverAShortRangeIsListed) {
  const auto grammar =
      SchemaGrammar(R"({"type": "integer", "multipleOf": 1000000000000, "minimum": -5000000000000, "maximum": 3e12})");
  ASSERT_NE(grammar, nullptr);
  const __int128 k = 1000000000000;
  for (__int128 m = -7; m <= 5; ++m) {
    for (const int d : {-1, 0, 1}) {
      const __int128 v = m * k + d;
      EXPECT_EQ(Accepts(grammar, Text(v)), d == 0 && m >= -5 && m <= 3) << Text(v);
    }
  }
}

// ------------------------------------------------------- fractional bounds

struct Bound {
  const char* keyword;
  double value;
};

// jsonschema's verdict on a number text: Python reads it as an int (no
// '.', 'e') or a float, and compares it with the bound as a float; for
// the small integers used here a double holds both exactly.
bool Validates(const std::string& text, const std::vector<Bound>& bounds) {
  const double x = std::strtod(text.c_str(), nullptr);
  for (const Bound& b : bounds) {
    const std::string k = b.keyword;
    if ((k == "minimum" && !(x >= b.value)) || (k == "maximum" && !(x <= b.value)) ||
        (k == "exclusiveMinimum" && !(x > b.value)) || (k == "exclusiveMaximum" && !(x < b.value))) {
      return false;
    }
  }
  return true;
}

// Plain decimals and integers of a few digits around zero and the bounds,
// and some longer ones (up to 19 significant digits) next to each bound.
std::vector<std::string> Candidates(const std::vector<Bound>& bounds) {
  std::vector<std::string> out;
  for (int i = -25; i <= 25; ++i) {
    out.push_back(std::to_string(i));
    for (const char* fraction : {".0", ".5", ".25", ".05", ".125", ".999", ".0001", ".1", ".75", ".00"}) {
      out.push_back(std::to_string(i) + fraction);
      if (i == 0) out.push_back(std::string("-0") + fraction);
    }
  }
  for (const Bound& b : bounds) {
    for (const int digits : {1, 2, 3, 6, 15, 17, 19}) {
      for (const double delta : {-1.0, 0.0, 1.0}) {
        char text[64];
        const double v = b.value + delta * std::pow(10.0, -digits) * std::max(1.0, std::fabs(b.value));
        std::snprintf(text, sizeof(text), "%.*f", digits, v);
        out.push_back(text);
      }
    }
  }
  out.insert(out.end(), {"1e1", "-0", "0", "1.", ".5", "01.5", "+1.5", "1.5e0", "-", ""});
  return out;
}

int SignificantDigits(const std::string& text) {
  const size_t first = text.find_first_of("123456789");
  if (first == std::string::npos) return 0;
  int n = 0;
  for (size_t i = first; i < text.size(); ++i) n += text[i] >= '0' && text[i] <= '9';
  return n;
}

TEST(structured_json_schema_numbers, FractionalBoundsAcceptOnlyValidNumbers) {
  const std::vector<std::vector<Bound>> cases = {
      {{"minimum", 0.5}},
      {{"maximum", -2.25}},
      {{"exclusiveMinimum", 0.1}, {"exclusiveMaximum", 0.3}},
      {{"minimum", -1.5}, {"maximum", 2.75}},
      {{"exclusiveMinimum", -3}, {"maximum", 3}},
      {{"minimum", 0}, {"exclusiveMaximum", 1}},
      {{"exclusiveMinimum", 0}},
      {{"minimum", 7.125}, {"maximum", 7.125}},
      {{"minimum", -0.001}, {"maximum", 0.001}},
      {{"exclusiveMaximum", -19.95}},
      {{"minimum", 12.5}, {"exclusiveMaximum", 20}},
      {{"minimum", 1e-5}, {"maximum", 123456.5}},
  };
  for (const auto& bounds : cases) {
    nlohmann::json schema = {{"type", "number"}};
    for (const Bound& b : bounds) schema[b.keyword] = b.value;
    const auto grammar = SchemaGrammar(schema.dump());
    ASSERT_NE(grammar, nullptr);
    int accepted = 0;
    for (const std::string& text : Candidates(bounds)) {
      const bool got = Accepts(grammar, text);
      // What bounded numbers are written as: no exponent.
      static const std::regex kPlain(R"(-?(0|[1-9][0-9]*)(\.[0-9]+)?)");
      const bool plain = std::regex_match(text, kPlain);
      const bool valid = plain && Validates(text, bounds);
      accepted += got;
      if (got) {
        EXPECT_TRUE(valid) << schema.dump() << " accepts " << text;
      }
      // Short texts sit far from every rounding boundary: exact there.
      if (plain && SignificantDigits(text) <= 12) {
        EXPECT_EQ(got, valid) << schema.dump() << ": " << text;
      }
    }
    EXPECT_GT(accepted, 10) << schema.dump();
  }
}

TEST(structured_json_schema_numbers, ThresholdsAreTheShortestDecimalsOfTheNeighbouringDoubles) {
  const auto text = [](const std::optional<ExactDecimal>& d) {
    return !d ? std::string("none")
              : (d->negative ? "-" : "") + d->integer + (d->fraction.empty() ? "" : "." + d->fraction);
  };
  EXPECT_EQ(text(LowerThreshold(0.1, false)), "0.1");
  EXPECT_EQ(text(LowerThreshold(0.1, true)), "0.10000000000000002");  // repr(math.nextafter(0.1, 1))
  EXPECT_EQ(text(UpperThreshold(0.1, true)), "0.09999999999999999");  // repr(math.nextafter(0.1, 0))
  EXPECT_EQ(text(UpperThreshold(-2.5, false)), "-2.5");
  EXPECT_EQ(text(LowerThreshold(1e21, false)), "1000000000000000000000");
  EXPECT_EQ(text(LowerThreshold(-0.0, false)), "0");
  // Finer than 40 fraction digits: rounded inward.
  EXPECT_EQ(text(LowerThreshold(0.0, true)), "0.0000000000000000000000000000000000000001");
  EXPECT_EQ(text(UpperThreshold(0.0, true)), "-0.0000000000000000000000000000000000000001");
  EXPECT_EQ(text(LowerThreshold(1e-45, false)), "0.0000000000000000000000000000000000000001");
  EXPECT_EQ(text(UpperThreshold(1e-45, false)), "0");
  EXPECT_EQ(text(LowerThreshold(1.7976931348623157e308, true)), "none");
}

TEST(structured_json_schema_numbers, TinyAndHugeBoundsStillValidate) {
  for (const char* schema :
       {R"({"type": "number", "exclusiveMinimum": 0})", R"({"type": "number", "maximum": 1e-300})",
        R"({"type": "number", "minimum": 1e300})", R"({"type": "number", "exclusiveMaximum": -1e-320})"}) {
    const auto grammar = SchemaGrammar(schema);
    ASSERT_NE(grammar, nullptr) << schema;
    const nlohmann::json j = nlohmann::json::parse(schema);
    std::vector<Bound> bounds;
    for (const auto& [key, value] : j.items()) {
      if (key != "type")
        bounds.push_back({key == "exclusiveMinimum" ? "exclusiveMinimum"
                          : key == "maximum"        ? "maximum"
                          : key == "minimum"        ? "minimum"
                                                    : "exclusiveMaximum",
                          value.get<double>()});
    }
    // "1" + 300 zeros + ".5", and 10^-40, 10^-42 and -10^-40 written out.
    const auto spelled = [](const char* head, size_t zeros, const char* tail) {
      std::string text(head);
      text.append(zeros, '0');
      text.append(tail);
      return text;
    };
    for (const std::string& text :
         {std::string("0.0"), std::string("-0.0"), std::string("0.5"), std::string("-1.5"), spelled("1", 300, ".5"),
          spelled("0.", 39, "1"), spelled("0.", 41, "1"), spelled("-0.", 39, "1")}) {
      if (Accepts(grammar, text)) {
        EXPECT_TRUE(Validates(text, bounds)) << schema << " accepts " << text.substr(0, 50);
      }
    }
  }
}

// ------------------------------------------------------------- nullable

TEST(structured_json_schema_numbers, NullableAddsNullToTheTypeBesideIt) {
  const auto grammar = SchemaGrammar(R"({"type": "object", "properties": {
      "a": {"type": "integer", "nullable": true, "minimum": 1},
      "b": {"type": "string", "nullable": false},
      "c": {"type": "string", "enum": ["x", null], "nullable": true}}, "required": ["a", "b", "c"]})");
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Accepts(grammar, R"({"a":null,"b":"s","c":null})"));
  EXPECT_TRUE(Accepts(grammar, R"({"a":3,"b":"s","c":"x"})"));
  EXPECT_FALSE(Accepts(grammar, R"({"a":0,"b":"s","c":"x"})"));
  EXPECT_FALSE(Accepts(grammar, R"({"a":1,"b":null,"c":"x"})"));
  // Other keywords keep their meaning (OpenAPI 3.0.3): an enum without null refuses it.
  const auto no_null_in_enum = SchemaGrammar(R"({"type": "string", "enum": ["x", "y"], "nullable": true})");
  ASSERT_NE(no_null_in_enum, nullptr);
  EXPECT_FALSE(Accepts(no_null_in_enum, "null"));
  EXPECT_TRUE(Accepts(no_null_in_enum, R"("y")"));
  // Only the schema object that says it: a $ref'd schema without it stays non-null.
  const auto through_ref = SchemaGrammar(
      R"({"$defs": {"s": {"type": "string"}}, "type": "object", "properties": {"p": {"$ref": "#/$defs/s"},
          "q": {"type": "string", "nullable": true}}, "required": ["p", "q"]})");
  ASSERT_NE(through_ref, nullptr);
  EXPECT_TRUE(Accepts(through_ref, R"({"p":"a","q":null})"));
  EXPECT_FALSE(Accepts(through_ref, R"({"p":null,"q":null})"));
}

}  // namespace
}  // namespace pagoda::structured

namespace pagoda::structured {
namespace {

// The largest automaton allowed, over the widest range: builds within the
// default grammar limits and still matches exactly near the ends.
TEST(structured_json_schema_numbers, LargestMultipleOfAutomatonFitsTheLimits) {
  const auto grammar = SchemaGrammar(R"({"type": "integer", "multipleOf": 997, "minimum": -9223372036854775807,
                                         "maximum": 9223372036854775807})");
  ASSERT_NE(grammar, nullptr);
  const __int128 k = 997;
  for (const __int128 v : Window(-2000, 2000)) {
    const bool in_range = v >= -__int128{INT64_MAX} && v <= INT64_MAX;
    ASSERT_EQ(Accepts(grammar, Text(v)), in_range && v % k == 0) << Text(v);
  }
}

}  // namespace
}  // namespace pagoda::structured
