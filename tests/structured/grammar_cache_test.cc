#include "pagoda/structured/grammar_cache.h"

#include <gtest/gtest.h>

#include "grammar_test_util.h"

namespace pagoda::structured {
namespace {

std::shared_ptr<const TokenTrie> Vocabulary() {
  return std::make_shared<const TokenTrie>(std::vector<std::string>{"a", "b", "ab", "ba", "c", ""});
}

std::shared_ptr<const Grammar> AThenBs() {
  GrammarBuilder builder;
  builder.Define("root", Sequence({Literal("a"), Star(Literal("b"))}));
  return testing::BuildOrDie(builder);
}

TEST(structured_compiled_grammar, MasksAreCachedByState) {
  CompiledGrammar compiled(AThenBs(), Vocabulary());
  GrammarMatcher matcher = compiled.NewMatcher();
  TokenBitmask expected(6);
  matcher.FillNextTokenMask(compiled.vocabulary(), &expected);
  EXPECT_EQ(*compiled.NextTokenMask(matcher), expected);
  EXPECT_EQ(compiled.num_computed_masks(), 1u);

  ASSERT_TRUE(matcher.AcceptBytes("ab"));
  const auto after_ab = compiled.NextTokenMask(matcher);
  EXPECT_TRUE(after_ab->Test(1) && !after_ab->Test(0) && !after_ab->Test(3));
  ASSERT_TRUE(matcher.AcceptBytes("bbb"));  // the same state: a lookup
  EXPECT_EQ(compiled.NextTokenMask(matcher), after_ab);
  EXPECT_EQ(compiled.num_computed_masks(), 2u);
  EXPECT_EQ(compiled.num_cached_lookups(), 1u);
}

TEST(structured_compiled_grammar, CachedMaskIsALookupOnly) {
  CompiledGrammar compiled(AThenBs(), Vocabulary());
  GrammarMatcher matcher = compiled.NewMatcher();
  EXPECT_EQ(compiled.CachedNextTokenMask(matcher), nullptr);  // never walks
  EXPECT_EQ(compiled.num_computed_masks(), 0u);
  const auto first = compiled.NextTokenMask(matcher);
  EXPECT_EQ(compiled.CachedNextTokenMask(matcher), first);
  ASSERT_TRUE(matcher.AcceptBytes("a"));
  EXPECT_EQ(compiled.CachedNextTokenMask(matcher), nullptr);
  EXPECT_EQ(compiled.num_computed_masks(), 1u);
  EXPECT_EQ(compiled.num_cached_lookups(), 1u);
}

TEST(structured_compiled_grammar, LeastRecentlyUsedMasksAreDropped) {
  CompiledGrammar compiled(AThenBs(), Vocabulary(), /*max_cached_masks=*/1);
  GrammarMatcher matcher = compiled.NewMatcher();
  compiled.NextTokenMask(matcher);
  ASSERT_TRUE(matcher.AcceptBytes("a"));
  compiled.NextTokenMask(matcher);
  matcher.RollbackTo(0);
  compiled.NextTokenMask(matcher);  // evicted: computed again
  EXPECT_EQ(compiled.num_computed_masks(), 3u);
  EXPECT_EQ(compiled.num_cached_lookups(), 0u);
}

TEST(structured_grammar_cache, CompilesOnceAndKeepsNoErrors) {
  GrammarCache cache(/*capacity=*/2);
  int compiles = 0;
  auto compile = [&]() -> StatusOr<std::shared_ptr<CompiledGrammar>> {
    ++compiles;
    return std::make_shared<CompiledGrammar>(AThenBs(), Vocabulary());
  };
  auto first = cache.GetOrCompile("x", compile);
  auto again = cache.GetOrCompile("x", compile);
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(*first, *again);
  EXPECT_EQ(compiles, 1);

  auto failing = [&]() -> StatusOr<std::shared_ptr<CompiledGrammar>> {
    ++compiles;
    return InvalidArgumentError("bad");
  };
  EXPECT_FALSE(cache.GetOrCompile("bad", failing).ok());
  EXPECT_FALSE(cache.GetOrCompile("bad", failing).ok());
  EXPECT_EQ(compiles, 3);
  EXPECT_EQ(cache.size(), 1u);

  ASSERT_TRUE(cache.GetOrCompile("y", compile).ok());
  ASSERT_TRUE(cache.GetOrCompile("z", compile).ok());  // evicts x, the least recent
  EXPECT_EQ(cache.size(), 2u);
  ASSERT_TRUE(cache.GetOrCompile("x", compile).ok());
  EXPECT_EQ(compiles, 6);
}

}  // namespace
}  // namespace pagoda::structured
