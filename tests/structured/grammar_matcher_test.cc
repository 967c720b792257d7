#include "pagoda/structured/grammar_matcher.h"

#include <gtest/gtest.h>

#include "grammar_test_util.h"

namespace pagoda::structured {
namespace {

using testing::Accepts;
using testing::AcceptsPrefix;
using testing::BuildOrDie;

// A JSON-like list of digits or nested lists: recursion and repetition.
std::shared_ptr<const Grammar> NestedLists() {
  GrammarBuilder builder;
  builder.Define("root", Sequence({Literal("["), Optional(Sequence({RuleRef("item"), Star(Sequence({Literal(","), RuleRef("item")}))})),
                                   Literal("]")}));
  builder.Define("item", Choice({Plus(Bytes(ByteSet::Range('0', '9'))), RuleRef("root")}));
  return BuildOrDie(builder);
}

TEST(structured_grammar_matcher, AcceptsAndRejectsWholeStrings) {
  const auto grammar = NestedLists();
  ASSERT_NE(grammar, nullptr);
  for (const char* good : {"[]", "[1]", "[1,22,[3,[]],[[4]]]"}) EXPECT_TRUE(Accepts(grammar, good)) << good;
  for (const char* bad : {"", "[", "[1,]", "[,1]", "[1]]", "[[1]", "[a]"}) EXPECT_FALSE(Accepts(grammar, bad)) << bad;
  EXPECT_TRUE(AcceptsPrefix(grammar, "[[1,[2"));
  EXPECT_FALSE(AcceptsPrefix(grammar, "[[1,,"));
}

TEST(structured_grammar_matcher, RefusedByteLeavesTheStateAlone) {
  GrammarMatcher matcher(NestedLists());
  ASSERT_TRUE(matcher.AcceptBytes("[1"));
  EXPECT_FALSE(matcher.AcceptByte('x'));
  EXPECT_FALSE(matcher.AcceptBytes(",]"));  // ',' alone is fine, ']' after it is not: all or nothing
  EXPECT_EQ(matcher.NumBytes(), 2u);
  EXPECT_TRUE(matcher.AcceptBytes("]"));
  EXPECT_TRUE(matcher.IsAccepting());
  EXPECT_FALSE(matcher.CanContinue());
}

TEST(structured_grammar_matcher, NextBytes) {
  GrammarMatcher matcher(NestedLists());
  EXPECT_EQ(matcher.NextBytes(), ByteSet::Of('['));
  ASSERT_TRUE(matcher.AcceptBytes("[1"));
  ByteSet expected = ByteSet::Range('0', '9');
  expected.Add(',');
  expected.Add(']');
  EXPECT_EQ(matcher.NextBytes(), expected);
}

TEST(structured_grammar_matcher, RollbackRestoresEarlierStates) {
  GrammarMatcher matcher(NestedLists());
  ASSERT_TRUE(matcher.AcceptBytes("[[1,2]"));
  const std::string key = matcher.StateKey();
  ASSERT_TRUE(matcher.AcceptBytes(",[3]]"));
  EXPECT_TRUE(matcher.IsAccepting());
  matcher.RollbackTo(6);
  EXPECT_EQ(matcher.StateKey(), key);
  EXPECT_FALSE(matcher.IsAccepting());
  EXPECT_TRUE(matcher.AcceptBytes("]"));
  EXPECT_TRUE(matcher.IsAccepting());
}

TEST(structured_grammar_matcher, StateKeysAgreeAcrossMatchersAndPaths) {
  const auto grammar = NestedLists();
  GrammarMatcher a(grammar);
  GrammarMatcher b(grammar);
  ASSERT_TRUE(a.AcceptBytes("[1,[2"));
  ASSERT_TRUE(b.AcceptBytes("[[[]],[77777"));
  EXPECT_EQ(a.StateKey(), b.StateKey());  // both inside a number, one list deep
  ASSERT_TRUE(b.AcceptBytes("]"));
  EXPECT_NE(a.StateKey(), b.StateKey());
}

TEST(structured_grammar_matcher, DeepNestingRunsInStackDepthNotRecursion) {
  const auto grammar = NestedLists();
  const std::string deep = std::string(20000, '[') + std::string(20000, ']');
  EXPECT_TRUE(Accepts(grammar, deep));
  EXPECT_FALSE(Accepts(grammar, deep + "]"));
}

TEST(structured_grammar_matcher, LongRepeatsKeepOneStack) {
  GrammarBuilder builder;
  builder.Define("root", Sequence({Literal("\""), Star(CodePointsExcept({{'"', '"'}})), Literal("\"")}));
  GrammarMatcher matcher(BuildOrDie(builder));
  ASSERT_TRUE(matcher.AcceptBytes("\""));
  const std::string key = matcher.StateKey();
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(matcher.AcceptBytes("ab\xE4\xB8\xAD"));  // tail calls: no growth
  EXPECT_EQ(matcher.StateKey(), key);
  EXPECT_FALSE(matcher.AcceptByte(0xE4) && matcher.AcceptByte('"'));  // not inside a character
}

TEST(structured_grammar_matcher, EmptyLanguageAcceptsNothing) {
  // GrammarBuilder refuses such a grammar; one made by hand still runs.
  GrammarBuilder builder;
  builder.Define("root", Choice({}));
  EXPECT_FALSE(builder.Build("root").ok());
  auto grammar = std::make_shared<Grammar>();
  grammar->rules.push_back({"root", {}});
  GrammarMatcher matcher(grammar);
  EXPECT_FALSE(matcher.IsAccepting());
  EXPECT_FALSE(matcher.CanContinue());
}

TEST(structured_grammar_matcher, TooAmbiguousOverflowsInsteadOfGrowing) {
  // After n a's, 2^n stacks remember which of b or c each a wants.
  GrammarBuilder builder;
  builder.Define("root", Choice({Sequence({Literal("a"), RuleRef("root"), Literal("b")}),
                                 Sequence({Literal("a"), RuleRef("root"), Literal("c")}), Empty()}));
  GrammarMatcher matcher(BuildOrDie(builder), /*max_stacks=*/1024);
  EXPECT_TRUE(matcher.AcceptBytes("aaaaa"));
  EXPECT_FALSE(matcher.Overflowed());
  EXPECT_FALSE(matcher.AcceptBytes("aaaaaaaaaa"));
  EXPECT_TRUE(matcher.Overflowed());
}

}  // namespace
}  // namespace pagoda::structured
