// JSON's lexical pieces: numerals in ranges, string characters and their
// escapes, numbers, and the whitespace bound.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "grammar_test_util.h"
#include "pagoda/structured/json_grammar_primitives.h"
#include "pagoda/structured/json_schema_to_grammar.h"
#include "pagoda/structured/json_string_chars.h"
#include "pagoda/structured/json_string_formats.h"
#include "pagoda/structured/numeral_ranges.h"

namespace pagoda::structured {
namespace {

JsonLayout CompactLayout() {
  JsonLayout layout;
  layout.max_whitespace = 0;
  return layout;
}

using testing::Accepts;
using testing::BuildOrDie;

std::shared_ptr<const Grammar> Of(ExprPtr expr) {
  GrammarBuilder builder;
  builder.Define("root", std::move(expr));
  return BuildOrDie(builder);
}

TEST(structured_json_primitives, FixedWidthNumeralsAreExactlyTheRange) {
  for (const auto& [lo, hi] : std::vector<std::pair<int, int>>{{0, 999}, {7, 7}, {15, 904}, {100, 199}, {99, 100}, {0, 0}, {250, 255}}) {
    const auto grammar = Of(FixedWidthNumerals(lo, hi, 3, Radix::kDecimal));
    for (int v = 0; v < 1000; ++v) {
      char text[8];
      snprintf(text, sizeof(text), "%03d", v);
      ASSERT_EQ(Accepts(grammar, text), v >= lo && v <= hi) << lo << ".." << hi << ": " << text;
    }
  }
  const auto hex = Of(FixedWidthNumerals(0xD7FF, 0xE001, 4, Radix::kHex));
  EXPECT_TRUE(Accepts(hex, "d7ff"));
  EXPECT_TRUE(Accepts(hex, "D800"));
  EXPECT_TRUE(Accepts(hex, "e001"));
  EXPECT_TRUE(Accepts(hex, "dAbC"));
  EXPECT_FALSE(Accepts(hex, "e002"));
  EXPECT_FALSE(Accepts(hex, "d7fe"));
}

TEST(structured_json_primitives, IntegerRangesMatchTheirValues) {
  struct Case {
    std::optional<int64_t> lo, hi;
  };
  const Case cases[] = {{-120, 37}, {0, 100}, {1, 1}, {-5, -1}, {17, std::nullopt}, {std::nullopt, -17},
                        {std::nullopt, 5}, {-3, std::nullopt}, {0, std::nullopt}};
  for (const Case& c : cases) {
    const auto grammar = Of(IntegerRange(c.lo, c.hi));
    ASSERT_NE(grammar, nullptr);
    for (int v = -1200; v <= 1200; ++v) {
      const bool in = (!c.lo || v >= *c.lo) && (!c.hi || v <= *c.hi);
      ASSERT_EQ(Accepts(grammar, std::to_string(v)), in) << v;
    }
    const bool zero = (!c.lo || *c.lo <= 0) && (!c.hi || *c.hi >= 0);
    EXPECT_EQ(Accepts(grammar, "-0"), zero);
    for (const char* bad : {"", "01", "-", "+1", "1.0", "--1", "00"}) EXPECT_FALSE(Accepts(grammar, bad)) << bad;
  }
  GrammarBuilder empty;  // lo > hi: no integer, so no grammar
  empty.Define("root", IntegerRange(5, 3));
  EXPECT_FALSE(empty.Build("root").ok());
  const auto extreme = Of(IntegerRange(INT64_MIN, INT64_MAX));
  EXPECT_TRUE(Accepts(extreme, "-9223372036854775808"));
  EXPECT_TRUE(Accepts(extreme, "9223372036854775807"));
  EXPECT_FALSE(Accepts(extreme, "9223372036854775808"));
  EXPECT_FALSE(Accepts(extreme, "-9223372036854775809"));
  EXPECT_FALSE(Accepts(extreme, "10000000000000000000"));
}

// RFC 5321's lengths (local part 64 bytes, domain 255) and RFC 3339
// fractions up to nanoseconds: what a model may write before it must stop.
TEST(structured_json_primitives, EmailsAndFractionsAreBounded) {
  const auto email = Of(FormatStringContents("email"));
  ASSERT_NE(email, nullptr);
  const std::string label(63, 'd');
  const std::string domain = label + "." + label + "." + label + "." + std::string(63, 'e');  // 255 bytes
  ASSERT_EQ(domain.size(), 255u);
  for (const std::string& good :
       std::vector<std::string>{"a@b", "first.last@ex-ample.com", "x!#$%&'*+/=?^_`{|}~-@a1-2-b.c",
                                std::string(64, 'l') + "@x", "l@" + domain,
                                std::string(31, 'l') + "." + std::string(32, 'l') + "@x"}) {
    EXPECT_TRUE(Accepts(email, good)) << good;
  }
  for (const std::string& bad :
       std::vector<std::string>{std::string(65, 'l') + "@x", "l@" + domain + "e", "a..b@x", ".a@x", "a.@x", "a@-b",
                                "a@b-", "a@b-.c", "a@b..c", "a@b.", "@b", "a@"}) {
    EXPECT_FALSE(Accepts(email, bad)) << bad;
  }
  const auto time = Of(FormatStringContents("time"));
  ASSERT_NE(time, nullptr);
  EXPECT_TRUE(Accepts(time, "12:00:00.123456789Z"));
  EXPECT_TRUE(Accepts(time, "12:00:00.1+01:00"));
  EXPECT_FALSE(Accepts(time, "12:00:00.1234567890Z"));
  EXPECT_FALSE(Accepts(time, "12:00:00.Z"));
}

TEST(structured_json_primitives, StringCharactersFollowJsonEscapes) {
  GrammarBuilder builder;
  JsonGrammarPrimitives json(&builder, CompactLayout());
  builder.Define("root", json.String());
  const auto grammar = BuildOrDie(builder);
  for (const char* good : {R"("")", R"("abc")", R"("\"\\\/\b\f\n\r\t")", R"("\u0041\u00e9\uFFFF")",
                           R"("\ud83d\ude00")", R"("\uD800\uDC00")", "\"\xE4\xB8\xAD\xF0\x9F\x98\x80\x7F\"",
                           R"("\u0000")"}) {
    EXPECT_TRUE(Accepts(grammar, good)) << good;
  }
  for (const char* bad : {R"(")", R"("\")", R"("\x41")", R"("\u004")", R"("\u004g")", R"("\a")", "\"\x01\"",
                          "\"\n\"", "\"\x1F\"", R"("\ud83d")", R"("\ude00")", R"("\ud83d\u0041")",
                          R"("\ude00\ud83d")", "\"\xC0\xAF\"", "\"\xED\xA0\x80\"", "\"\xFF\"", R"("a"b")"}) {
    EXPECT_FALSE(Accepts(grammar, bad)) << bad;
  }
}

TEST(structured_json_primitives, NumbersFollowTheJsonGrammar) {
  GrammarBuilder builder;
  JsonGrammarPrimitives json(&builder, CompactLayout());
  builder.Define("root", json.Number());
  const auto grammar = BuildOrDie(builder);
  for (const char* good : {"0", "-0", "12", "-12.5", "0.0001", "1e5", "1E+5", "1e-05", "-0.0e0", "9007199254740993"}) {
    EXPECT_TRUE(Accepts(grammar, good)) << good;
  }
  for (const char* bad : {"", "-", "01", "+1", ".5", "1.", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity", "1.5.2",
                          "--1", "1 "}) {
    EXPECT_FALSE(Accepts(grammar, bad)) << bad;
  }
}

TEST(structured_json_primitives, CanonicalStringsEscapeOnlyWhatJsonMust) {
  EXPECT_EQ(CanonicalJsonString("a\"b\\c/d"), R"("a\"b\\c/d")");
  EXPECT_EQ(CanonicalJsonString("\n\t\r\b\f\x01\x1f\x7f"), "\"\\n\\t\\r\\b\\f\\u0001\\u001f\x7f\"");
  EXPECT_EQ(CanonicalJsonString("\xE4\xB8\xAD"), "\"\xE4\xB8\xAD\"");
}

TEST(structured_json_primitives, EachWhitespaceGapIsBounded) {
  JsonSchemaOptions options;
  options.max_whitespace = 3;
  auto built = AnyJsonGrammar(options);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const auto grammar = std::make_shared<const Grammar>(std::move(*built));
  EXPECT_TRUE(Accepts(grammar, "{}"));
  EXPECT_TRUE(Accepts(grammar, "{   }"));
  EXPECT_FALSE(Accepts(grammar, "{    }"));
  EXPECT_TRUE(Accepts(grammar, "{\n\t \"a\" \n\t:\t\n [ 1 ,\n2\t] }"));
  EXPECT_FALSE(Accepts(grammar, "{\"a\":    1}"));
  EXPECT_FALSE(Accepts(grammar, " {}"));  // nothing around the top-level value
  EXPECT_FALSE(Accepts(grammar, "{} "));
  EXPECT_FALSE(Accepts(grammar, "{\r}"));  // only ' ', '\n', '\t'
  EXPECT_FALSE(Accepts(grammar, "[]"));    // json_object: an object at the top
  EXPECT_FALSE(Accepts(grammar, "{,}"));
  EXPECT_FALSE(Accepts(grammar, "{\"a\":1,}"));

  options.max_whitespace = 0;
  built = AnyJsonGrammar(options);
  ASSERT_TRUE(built.ok());
  const auto compact = std::make_shared<const Grammar>(std::move(*built));
  EXPECT_TRUE(Accepts(compact, R"({"a":[1,{"b":null}],"c":"d"})"));
  EXPECT_FALSE(Accepts(compact, R"({"a": 1})"));

  options.max_whitespace = JsonSchemaOptions::kUnboundedWhitespace;
  built = AnyJsonGrammar(options);
  ASSERT_TRUE(built.ok());
  EXPECT_TRUE(Accepts(std::make_shared<const Grammar>(std::move(*built)), "{" + std::string(500, ' ') + "}"));
}

// xgrammar's any_whitespace=False layout: ", " and ": ", nothing else.
TEST(structured_json_primitives, SeparatorsCarryTheirSpaces) {
  JsonSchemaOptions options;
  options.max_whitespace = 0;
  options.item_separator = ", ";
  options.key_separator = ": ";
  auto grammar = AnyJsonGrammar(options);
  ASSERT_TRUE(grammar.ok()) << grammar.status().ToString();
  const auto any = std::make_shared<const Grammar>(std::move(*grammar));
  EXPECT_TRUE(Accepts(any, R"({"a": 1, "b": [1, 2, {"c": null}], "d": {}})"));
  for (const char* text : {R"({"a":1})", R"({"a": 1,"b": 2})", R"({"a": 1,  "b": 2})", R"({ "a": 1})",
                           R"({"a": [1,2]})", R"({"a" : 1})"}) {
    EXPECT_FALSE(Accepts(any, text)) << text;
  }
  options.item_separator = ";";
  EXPECT_FALSE(AnyJsonGrammar(options).ok());
  options.item_separator = ",\n";
  EXPECT_FALSE(AnyJsonGrammar(options).ok());
}

}  // namespace
}  // namespace pagoda::structured
