#include "pagoda/structured/grammar_builder.h"

#include <gtest/gtest.h>

#include "grammar_test_util.h"

namespace pagoda::structured {
namespace {

using testing::Accepts;
using testing::AcceptsPrefix;
using testing::BuildOrDie;

TEST(structured_grammar_builder, LowersRepeatsAndChoicesIntoRules) {
  GrammarBuilder builder;
  builder.Define("root", Sequence({Literal("a"), Star(Choice({Literal("b"), Literal("cd")})), RuleRef("end")}));
  builder.Define("end", Bytes(ByteSet::Range('0', '9')));
  builder.Define("unused", Literal("x"));
  const auto grammar = BuildOrDie(builder);
  ASSERT_NE(grammar, nullptr);
  EXPECT_EQ(grammar->ToString(),
            "root ::= [a] root_2 end\n"
            "root_1 ::= [b] | [c] [d]\n"
            "root_2 ::= root_1 root_2 | \"\"\n"
            "end ::= [0-9]\n");
}

TEST(structured_grammar_builder, BoundedRepeats) {
  GrammarBuilder builder;
  builder.Define("root", Repeat(Literal("ab"), 2, 4));
  const auto grammar = BuildOrDie(builder);
  ASSERT_NE(grammar, nullptr);
  for (int n = 0; n <= 6; ++n) {
    std::string text;
    for (int i = 0; i < n; ++i) text += "ab";
    EXPECT_EQ(Accepts(grammar, text), n >= 2 && n <= 4) << n;
  }
}

TEST(structured_grammar_builder, UndefinedAndTwiceDefinedRulesAreNamed) {
  GrammarBuilder undefined;
  undefined.Define("root", Sequence({Literal("a"), RuleRef("missing")}));
  EXPECT_EQ(undefined.Build("root").status().message(), "grammar: rule 'missing' is used but not defined");
  EXPECT_EQ(undefined.Build("nope").status().message(), "grammar: rule 'nope' is used but not defined");

  GrammarBuilder twice;
  twice.Define("root", Literal("a"));
  twice.Define("root", Literal("b"));
  EXPECT_EQ(twice.Build("root").status().message(), "grammar: rule 'root' is defined twice");
}

TEST(structured_grammar_builder, DirectLeftRecursionIsRewritten) {
  // expr ::= expr "+" term | expr "*" term | term, as written in Lark or yacc.
  GrammarBuilder builder;
  builder.Define("root", Choice({Sequence({RuleRef("root"), Literal("+"), RuleRef("term")}),
                                 Sequence({RuleRef("root"), Literal("*"), RuleRef("term")}), RuleRef("term")}));
  builder.Define("term", Plus(Bytes(ByteSet::Range('0', '9'))));
  const auto grammar = BuildOrDie(builder);
  ASSERT_NE(grammar, nullptr);
  for (const char* good : {"1", "12+3", "1+2*3+45"}) EXPECT_TRUE(Accepts(grammar, good)) << good;
  for (const char* bad : {"", "+1", "1+", "1++2"}) EXPECT_FALSE(Accepts(grammar, bad)) << bad;
}

TEST(structured_grammar_builder, IndirectLeftRecursionIsRefusedWithItsCycle) {
  GrammarBuilder builder;
  builder.Define("root", Choice({Sequence({RuleRef("b"), Literal("x")}), Literal("y")}));
  builder.Define("b", Sequence({Optional(Literal("z")), RuleRef("root")}));  // nullable prefix, then root
  const auto status = builder.Build("root").status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("root -> b -> root"), std::string::npos) << status.message();
}

TEST(structured_grammar_builder, TooLargeIsRefusedInBoundedTime) {
  GrammarBuilder builder;
  // 10^6 nested repeats of 10^6 would be 10^12 symbols: refused at the limit.
  builder.Define("root", Repeat(Repeat(Literal("ab"), 1000000, 1000000), 1000000, 1000000));
  const auto status = builder.Build("root").status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("too large"), std::string::npos) << status.message();

  ExprPtr deep = Literal("a");
  for (int i = 0; i < 5000; ++i) deep = Sequence({deep});
  GrammarBuilder nested;
  nested.Define("root", deep);
  EXPECT_NE(nested.Build("root").status().message().find("nested over"), std::string::npos);
}

TEST(structured_grammar_builder, AlternativesOverEmptyByteSetsArePruned) {
  GrammarBuilder builder;
  builder.Define("root", Choice({Sequence({Literal("a"), RuleRef("dead")}), Literal("b"), RuleRef("maybe")}));
  builder.Define("dead", Sequence({Literal("x"), Bytes(ByteSet())}));
  builder.Define("maybe", Sequence({Star(Sequence({Bytes(ByteSet()), Literal("y")})), Literal("c")}));
  const auto grammar = BuildOrDie(builder);
  ASSERT_NE(grammar, nullptr);
  GrammarMatcher matcher(grammar);
  EXPECT_TRUE(matcher.NextBytes().Contains('b'));
  EXPECT_TRUE(matcher.NextBytes().Contains('c'));
  EXPECT_FALSE(matcher.NextBytes().Contains('a'));
  EXPECT_TRUE(Accepts(grammar, "b"));
  EXPECT_TRUE(Accepts(grammar, "c"));
  EXPECT_FALSE(AcceptsPrefix(grammar, "y"));

  GrammarBuilder nothing;
  nothing.Define("root", Sequence({Literal("a"), Bytes(ByteSet())}));
  EXPECT_EQ(nothing.Build("root").status().message(), "grammar: rule 'root' derives no finite text (nothing satisfies it)");
  nothing.SetUnsatisfiableMessage("front end: nothing matches");
  EXPECT_EQ(nothing.Build("root").status().message(), "front end: nothing matches");
}

TEST(structured_grammar_builder, SharedNodesAreLoweredOnce) {
  // Each level offers two branches that share the level below: lowered per
  // use, 60 levels would be 2^60 rules.
  ExprPtr level = Literal("z");
  for (int i = 0; i < 60; ++i) {
    level = Choice({Sequence({Literal("a"), level}), Sequence({Literal("b"), Optional(level)})});
  }
  GrammarBuilder builder;
  builder.Define("root", level);
  const auto grammar = BuildOrDie(builder);
  ASSERT_NE(grammar, nullptr);
  EXPECT_LT(grammar->NumSymbols(), 1000u);
  EXPECT_TRUE(Accepts(grammar, std::string(60, 'a') + "z"));
  EXPECT_TRUE(Accepts(grammar, "b"));
  EXPECT_TRUE(Accepts(grammar, "abab"));
  EXPECT_FALSE(Accepts(grammar, "a"));
  EXPECT_FALSE(Accepts(grammar, std::string(61, 'a') + "z"));
}

}  // namespace
}  // namespace pagoda::structured
