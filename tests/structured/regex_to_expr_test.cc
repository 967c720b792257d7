#include "pagoda/structured/regex_to_expr.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "grammar_test_util.h"

namespace pagoda::structured {
namespace {

using testing::Accepts;
using testing::AcceptsPrefix;
using testing::BuildOrDie;

std::shared_ptr<const Grammar> Compile(const std::string& pattern, const RegexLimits& limits = {}) {
  auto expr = RegexToExpr(pattern, limits);
  EXPECT_TRUE(expr.ok()) << pattern << ": " << expr.status().ToString();
  if (!expr.ok()) return nullptr;
  GrammarBuilder builder;
  builder.Define("root", *expr);
  return BuildOrDie(builder);
}

struct FixtureCase {
  std::string text;
  bool match;
};

struct FixturePattern {
  std::string pattern;
  std::vector<FixtureCase> cases;
};

// tests/fixtures/structured/regex/regex_cases.jsonl: strings labelled by
// Python's re.fullmatch (make_regex_cases.py beside it).
std::vector<FixturePattern> LoadFixture() {
  std::ifstream in(PAGODA_FIXTURES_DIR "/structured/regex/regex_cases.jsonl");
  EXPECT_TRUE(in.good()) << "missing regex_cases.jsonl";
  std::vector<FixturePattern> patterns;
  for (std::string line; std::getline(in, line);) {
    const auto json = nlohmann::json::parse(line);
    FixturePattern& entry = patterns.emplace_back();
    entry.pattern = json.at("pattern").get<std::string>();
    for (const auto& c : json.at("cases")) {
      entry.cases.push_back({c.at("text").get<std::string>(), c.at("match").get<bool>()});
    }
  }
  return patterns;
}

// A fixture pattern that Python's re matched against none of its strings
// may be one that matches nothing at all, which RegexToExpr refuses.
bool RefusedAsMatchingNothing(const FixturePattern& entry) {
  for (const FixtureCase& c : entry.cases) {
    if (c.match) return false;
  }
  const auto expr = RegexToExpr(entry.pattern);
  return !expr.ok() && expr.status().message() == "regex: the pattern matches no string";
}

TEST(structured_regex_to_expr, AcceptsExactlyWhatPythonFullmatchAccepts) {
  const std::vector<FixturePattern> patterns = LoadFixture();
  size_t strings = 0;
  size_t matches = 0;
  for (const FixturePattern& entry : patterns) {
    SCOPED_TRACE("pattern " + entry.pattern);
    if (RefusedAsMatchingNothing(entry)) continue;
    const auto grammar = Compile(entry.pattern);
    if (grammar == nullptr) continue;
    for (const FixtureCase& c : entry.cases) {
      EXPECT_EQ(Accepts(grammar, c.text), c.match) << "text '" << c.text << "'";
      ++strings;
      matches += c.match;
    }
  }
  EXPECT_GE(patterns.size(), 90u);
  EXPECT_GE(strings, 4000u);
  EXPECT_GE(matches, 1400u);
}

TEST(structured_regex_to_expr, EveryPrefixOfAMatchCanContinue) {
  for (const FixturePattern& entry : LoadFixture()) {
    SCOPED_TRACE("pattern " + entry.pattern);
    if (RefusedAsMatchingNothing(entry)) continue;
    const auto grammar = Compile(entry.pattern);
    if (grammar == nullptr) continue;
    for (const FixtureCase& c : entry.cases) {
      if (!c.match) continue;
      for (size_t length = 0; length <= c.text.size(); ++length) {
        EXPECT_TRUE(AcceptsPrefix(grammar, c.text.substr(0, length))) << "text '" << c.text << "' up to " << length;
      }
    }
  }
}

TEST(structured_regex_to_expr, SurrogatePairEscapesAreOneCodePoint) {
  const auto grammar = Compile(R"(\uD83D\uDE00+)");
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Accepts(grammar, "😀😀"));
  EXPECT_FALSE(Accepts(grammar, ""));
  EXPECT_FALSE(Accepts(grammar, "\xED\xA0\xBD"));  // the high surrogate alone, as CESU would spell it
}

TEST(structured_regex_to_expr, NestedQuantifiersOverNullableBodiesStayCheap) {
  // Each would be left recursive or multiply the matcher's stacks if its
  // body's empty string were kept.
  for (const std::string pattern : {"(a*)*", "((a*)*)*", "(a?b?)*c", "((a?){0,20}){0,20}", "(a*|b?)+", "((a|)*)*",
                                    "(()*)*", "((a*b*)*c*)*"}) {
    SCOPED_TRACE(pattern);
    const auto grammar = Compile(pattern);
    ASSERT_NE(grammar, nullptr);
    GrammarMatcher matcher(grammar);
    for (int i = 0; i < 2000; ++i) {
      if (!matcher.AcceptByte('a')) break;
    }
    EXPECT_FALSE(matcher.Overflowed());
  }
  const auto grammar = Compile("((a?){0,20}){0,20}");
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Accepts(grammar, std::string(400, 'a')));
  EXPECT_FALSE(Accepts(grammar, std::string(401, 'a')));
}

TEST(structured_regex_to_expr, GroupsNestUpToTheLimit) {
  RegexLimits limits;
  limits.max_nesting = 100;
  const std::string deepest = std::string(100, '(') + "a" + std::string(100, ')');
  const auto grammar = Compile(deepest + "+", limits);
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Accepts(grammar, "aaa"));
  const auto refused = RegexToExpr("(" + deepest + ")", limits);
  EXPECT_EQ(refused.status().message(), "regex: group nested deeper than 100 at offset 100 is not supported");
}

TEST(structured_regex_to_expr, BranchesThatMatchNothingAreNeverStarted) {
  // b[^\s\S] is a dead end: offering 'b' would strand generation there.
  for (const std::string pattern : {R"((a|b[^\s\S])c)", R"(a(x[^\d\D])*c|[^\w\W]?d)"}) {
    SCOPED_TRACE(pattern);
    const auto grammar = Compile(pattern);
    ASSERT_NE(grammar, nullptr);
    GrammarMatcher matcher(grammar);
    std::string next;
    for (int byte = 0; byte < 256; ++byte) {
      if (matcher.NextBytes().Contains(static_cast<uint8_t>(byte))) next += static_cast<char>(byte);
    }
    EXPECT_EQ(next, pattern[1] == 'a' ? "a" : "ad");
  }
  const auto grammar = Compile(R"(a(x[^\d\D])*c|[^\w\W]?d)");
  ASSERT_NE(grammar, nullptr);
  EXPECT_TRUE(Accepts(grammar, "ac"));
  EXPECT_TRUE(Accepts(grammar, "d"));
  EXPECT_FALSE(AcceptsPrefix(grammar, "ax"));
}

struct Refusal {
  std::string pattern;
  std::string message;
};

TEST(structured_regex_to_expr, RefusalsNameTheConstructAndItsOffset) {
  const std::vector<Refusal> refusals = {
      // Not supported: backreferences, lookaround, possessive and atomic, flags, assertions
      {R"((a)\1)", "regex: backreference '\\1' at offset 3 is not supported"},
      {R"((?P<x>a)(?P=x))", "regex: backreference '(?P=' at offset 8 is not supported"},
      {R"((?<x>a)\k<x>)", "regex: named backreference '\\k' at offset 7 is not supported"},
      {"a(?=b)", "regex: lookahead '(?=' at offset 1 is not supported"},
      {"a(?!b)", "regex: lookahead '(?!' at offset 1 is not supported"},
      {"(?<=a)b", "regex: lookbehind '(?<=' at offset 0 is not supported"},
      {"(?<!a)b", "regex: lookbehind '(?<!' at offset 0 is not supported"},
      {"a*+", "regex: possessive quantifier '*+' at offset 1 is not supported"},
      {"a{2,3}+", "regex: possessive quantifier '{2,3}+' at offset 1 is not supported"},
      {"(?>ab)", "regex: atomic group '(?>' at offset 0 is not supported"},
      {"(?i)ab", "regex: inline flags '(?i' at offset 0 is not supported"},
      {"(?(1)a|b)", "regex: conditional group '(?(' at offset 0 is not supported"},
      {"(?#note)a", "regex: comment group '(?#' at offset 0 is not supported"},
      {R"(a\b)", "regex: word boundary '\\b' at offset 1 is not supported"},
      {R"(\Aa)", "regex: anchor '\\A' (only a leading ^ and a trailing $ are) at offset 0 is not supported"},
      {R"(\p{L})", "regex: Unicode property class '\\p' at offset 0 is not supported"},
      {R"(\N{BULLET})", "regex: named character '\\N' at offset 0 is not supported"},
      {"a^b", "regex: anchor '^' other than at the start of the pattern or of a top-level alternative at offset 1"},
      {"(^a)", "regex: anchor '^' other than at the start"},
      {"a$b", "regex: anchor '$' other than at the end of the pattern or of a top-level alternative at offset 1"},
      {"(a$)|b", "regex: anchor '$' other than at the end"},
      {"a{,3}", "regex: repeat without a minimum '{,3}' at offset 1 is not supported"},
      {"a{1001}", "regex: repeat count '{1001}' over the limit of 1000 at offset 1 is not supported"},
      {"a{2,99999999999}", "regex: repeat count '{2,99999999999}' over the limit of 1000 at offset 1"},
      // Malformed
      {"(ab", "regex: unbalanced '(' (missing ')') at offset 0"},
      {"ab)", "regex: unbalanced ')' at offset 2"},
      {"[ab", "regex: unterminated character class (missing ']') at offset 0"},
      {"[z-a]", "regex: bad character range 'z-a' at offset 1"},
      {R"([a-\d])", "regex: bad character range 'a-\\d' at offset 1"},
      {R"([\w-z])", "regex: bad character range '\\w-z' at offset 1"},
      {"[]a]", "regex: ']' first in a character class (escape it as '\\]') at offset 0 is not supported"},
      {"[]", "regex: ']' first in a character class"},
      {"[^]", "regex: ']' first in a character class"},
      {"[[:alpha:]]", "regex: '[' inside a character class (escape it as '\\[') at offset 1 is not supported"},
      {"a{3,2}", "regex: bad repeat range '{3,2}' at offset 1"},
      {"*a", "regex: nothing to repeat at offset 0"},
      {"a|+", "regex: nothing to repeat at offset 2"},
      {"^*", "regex: nothing to repeat at offset 1"},
      {"({2})", "regex: nothing to repeat at offset 1"},
      {"a**", "regex: multiple repeat (a quantifier after '*') at offset 2"},
      {"a{2}{3}", "regex: multiple repeat (a quantifier after '{2}') at offset 4"},
      {"a*??", "regex: multiple repeat (a quantifier after '*?') at offset 3"},
      {"ab\\", "regex: trailing backslash at offset 2"},
      {R"(\q)", "regex: unknown escape '\\q' at offset 0"},
      {R"(\x4g)", "regex: incomplete escape '\\x4' at offset 0"},
      {R"(\u12)", "regex: incomplete escape '\\u12' at offset 0"},
      {R"(\u{12)", "regex: incomplete escape '\\u{12' at offset 0"},
      {R"(\u{110000})", "regex: code point out of range '\\u{110000}' at offset 0"},
      {R"(a\uD83Dz)", "regex: unpaired surrogate '\\uD83D' at offset 1"},
      {R"(\uDE00\uD83D)", "regex: unpaired surrogate '\\uDE00' at offset 0"},
      {"(?P<1x>a)", "regex: bad group name in '(?P<1x>' at offset 0"},
      {"(?<>a)", "regex: bad group name in '(?<>' at offset 0"},
      {"(?Q)", "regex: unknown group extension '(?Q' at offset 0"},
      {"(?Px)", "regex: unknown group extension '(?P' at offset 0"},
      {"(?P>x)", "regex: unknown group extension '(?P' at offset 0"},
      // Nothing matches: Python compiles these, but no output could satisfy them
      {R"([^\s\S])", "regex: the pattern matches no string"},
      {R"(a[^\d\D]|[^\w\W]+)", "regex: the pattern matches no string"},
      {R"([a-z0-9_\-].[^\sX0-9_\[^\s\D])", "regex: the pattern matches no string"},  // found by regex_fuzz
      {"ab\xC3(", "regex: invalid UTF-8 at offset 2"},
      {"\xC0\xAF", "regex: invalid UTF-8 at offset 0"},      // overlong '/'
      {"\xED\xA0\x80", "regex: invalid UTF-8 at offset 0"},  // a surrogate
  };
  for (const Refusal& refusal : refusals) {
    const auto expr = RegexToExpr(refusal.pattern);
    ASSERT_FALSE(expr.ok()) << refusal.pattern;
    EXPECT_EQ(expr.status().code(), StatusCode::kInvalidArgument) << refusal.pattern;
    EXPECT_EQ(expr.status().message().rfind(refusal.message, 0), 0u)
        << refusal.pattern << "\n  got:  " << expr.status().message() << "\n  want: " << refusal.message;
  }
}

TEST(structured_regex_to_expr, LongPatternsAreRefusedBeforeParsing) {
  RegexLimits limits;
  limits.max_pattern_bytes = 8;
  EXPECT_TRUE(RegexToExpr("abcdefgh", limits).ok());
  EXPECT_EQ(RegexToExpr("abcdefghi", limits).status().message(), "regex: pattern of 9 bytes is over the limit of 8");
  limits.max_repeat = 5;
  EXPECT_TRUE(RegexToExpr("a{5}", limits).ok());
  EXPECT_EQ(RegexToExpr("a{2,6}", limits).status().message(),
            "regex: repeat count '{2,6}' over the limit of 5 at offset 1 is not supported");
}

}  // namespace
}  // namespace pagoda::structured
