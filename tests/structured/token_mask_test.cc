#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "grammar_test_util.h"
#include "pagoda/structured/token_trie.h"

namespace pagoda::structured {
namespace {

using testing::BuildOrDie;

// Every byte (as byte-fallback vocabularies have), random strings over the
// grammar's alphabet with multi-byte and cut UTF-8, duplicates and empties.
std::vector<std::string> TestVocabulary() {
  std::vector<std::string> vocab;
  for (int b = 0; b < 256; ++b) vocab.push_back(std::string(1, static_cast<char>(b)));
  const std::vector<std::string> pieces = {"[", "]", ",", "\"", "1", "23", "a", "b", " ", "\xE4\xB8\xAD", "\xE4",
                                           "\xB8\xAD", "\xF0\x9F\x98\x80", "\\", "\\\""};
  std::mt19937 rng(3);
  for (int i = 0; i < 3000; ++i) {
    std::string token;
    const int length = 1 + static_cast<int>(rng() % 5);
    for (int j = 0; j < length; ++j) token += pieces[rng() % pieces.size()];
    vocab.push_back(token);
  }
  vocab.push_back("[1");  // duplicates
  vocab.push_back("[1");
  vocab.push_back("");  // never allowed
  return vocab;
}

// Lists of numbers and strings with escapes, nested.
std::shared_ptr<const Grammar> ListsOfNumbersAndStrings() {
  GrammarBuilder builder;
  builder.Define("root", Sequence({Literal("["), Optional(Sequence({RuleRef("item"), Star(Sequence({Literal(","), RuleRef("item")}))})),
                                   Literal("]")}));
  builder.Define("item", Choice({Plus(Bytes(ByteSet::Range('0', '9'))), RuleRef("root"), RuleRef("string")}));
  builder.Define("string", Sequence({Literal("\""), Star(Choice({CodePointsExcept({{'"', '"'}, {'\\', '\\'}}),
                                                                 Sequence({Literal("\\"), Bytes(ByteSet::Of('"'))})})),
                                     Literal("\"")}));
  return BuildOrDie(builder);
}

// The mask from the trie against trying every token on its own.
void ExpectMaskMatchesBruteForce(GrammarMatcher& matcher, const std::vector<std::string>& vocab,
                                 const TokenTrie& trie) {
  TokenBitmask mask(trie.vocab_size());
  matcher.FillNextTokenMask(trie, &mask);
  const size_t before = matcher.NumBytes();
  int mismatches = 0;
  for (size_t id = 0; id < vocab.size(); ++id) {
    const bool allowed = !vocab[id].empty() && matcher.AcceptBytes(vocab[id]);
    matcher.RollbackTo(before);
    if (allowed != mask.Test(static_cast<int32_t>(id)) && ++mismatches <= 5) {
      ADD_FAILURE() << "token " << id << " (" << vocab[id] << "): brute force " << allowed;
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(matcher.NumBytes(), before);
}

// Strings of at most 12 characters or short numbers, in a list: a state per
// length, and ambiguity between the branches (the mask walk memoizes steps
// between states, which this exercises).
std::shared_ptr<const Grammar> ListsOfBoundedStrings() {
  GrammarBuilder builder;
  const ExprPtr character = Choice({CodePointsExcept({{'"', '"'}, {'\\', '\\'}}), Literal("\\\"")});
  const ExprPtr item = Choice({Sequence({Literal("\""), Repeat(character, 0, 12), Literal("\"")}),
                               Repeat(Bytes(ByteSet::Range('0', '9')), 1, 3), Sequence({Literal("1"), Literal("23")})});
  builder.Define("root", Sequence({Literal("["), item, Star(Sequence({Literal(","), item})), Literal("]")}));
  return BuildOrDie(builder);
}

// Along random walks, every step's mask against trying each token alone.
void ExpectMasksMatchAlongRandomWalks(const std::shared_ptr<const Grammar>& grammar) {
  const auto vocab = TestVocabulary();
  const TokenTrie trie(vocab);
  std::mt19937 rng(11);
  for (int walk = 0; walk < 4; ++walk) {
    GrammarMatcher matcher(grammar);
    for (int step = 0; step < 25 && matcher.CanContinue(); ++step) {
      ExpectMaskMatchesBruteForce(matcher, vocab, trie);
      TokenBitmask mask(trie.vocab_size());
      matcher.FillNextTokenMask(trie, &mask);
      std::vector<int32_t> allowed;
      for (int32_t id = 0; id < mask.size(); ++id) {
        if (mask.Test(id)) allowed.push_back(id);
      }
      ASSERT_FALSE(allowed.empty());
      ASSERT_TRUE(matcher.AcceptBytes(vocab[allowed[rng() % allowed.size()]]));
    }
  }
}

TEST(structured_token_mask, MatchesTryingEachTokenAlongRandomWalks) {
  const auto grammar = ListsOfNumbersAndStrings();
  ASSERT_NE(grammar, nullptr);
  ExpectMasksMatchAlongRandomWalks(grammar);
}

TEST(structured_token_mask, MatchesTryingEachTokenInBoundedStrings) {
  const auto grammar = ListsOfBoundedStrings();
  ASSERT_NE(grammar, nullptr);
  ExpectMasksMatchAlongRandomWalks(grammar);
}

// A string of up to 3,000 characters walked a character at a time: every
// length is a new state, so the matcher's walk memo passes its bound
// (GrammarMatcher::kMaxWalkStates, 2,048) and the frames are compacted on
// the way. Masks stay exact, and so do rollback to a state from before the
// compaction and a copy of the matcher.
TEST(structured_token_mask, StaysExactWhenTheWalkMemoIsCompacted) {
  GrammarBuilder builder;
  const ExprPtr character = Choice({CodePointsExcept({{'"', '"'}, {'\\', '\\'}}), Literal("\\\"")});
  builder.Define("root", Sequence({Literal("\""), Repeat(character, 0, 3000), Literal("\"]")}));
  const auto grammar = BuildOrDie(builder);
  ASSERT_NE(grammar, nullptr);
  const auto vocab = TestVocabulary();
  const TokenTrie trie(vocab);
  GrammarMatcher matcher(grammar);
  ASSERT_TRUE(matcher.AcceptBytes("\""));
  TokenBitmask mask(trie.vocab_size());
  for (int step = 1; step <= 2600; ++step) {
    matcher.FillNextTokenMask(trie, &mask);
    ASSERT_TRUE(mask.Test('a'));
    if (step % 500 == 0) ExpectMaskMatchesBruteForce(matcher, vocab, trie);
    ASSERT_TRUE(matcher.AcceptBytes(step % 2 == 0 ? "a" : "\xE4\xB8\xAD"));
  }
  GrammarMatcher copy = matcher;
  ExpectMaskMatchesBruteForce(copy, vocab, trie);
  ASSERT_TRUE(copy.AcceptBytes("\"]"));
  EXPECT_TRUE(copy.IsAccepting());
  matcher.RollbackTo(1 + 3 + 1 + 3 + 1 + 3);  // the quote, then five characters
  ExpectMaskMatchesBruteForce(matcher, vocab, trie);
  ASSERT_TRUE(matcher.AcceptBytes("b\"]"));
  EXPECT_TRUE(matcher.IsAccepting());
}

TEST(structured_token_mask, FinishedSentenceAllowsNoToken) {
  const auto vocab = TestVocabulary();
  const TokenTrie trie(vocab);
  GrammarMatcher matcher(ListsOfNumbersAndStrings());
  ASSERT_TRUE(matcher.AcceptBytes("[1,\"\xE4\xB8\xAD\\\"\"]"));
  TokenBitmask mask(trie.vocab_size());
  mask.Set(0);
  matcher.FillNextTokenMask(trie, &mask);
  EXPECT_EQ(mask.Count(), 0);
  EXPECT_TRUE(matcher.IsAccepting());
}

TEST(structured_token_trie, SharesPrefixesAndKeepsDuplicates) {
  const TokenTrie trie({"ab", "a", "", "abc", "ab", "b"});
  ASSERT_EQ(trie.nodes().size(), 4u);  // a, ab, abc, b
  EXPECT_EQ(trie.nodes()[0].subtree_end, 3);
  EXPECT_EQ(trie.nodes()[1].token_count, 2);
  EXPECT_EQ(trie.nodes()[3].byte, 'b');
  EXPECT_EQ(trie.max_depth(), 3);
  EXPECT_EQ(trie.token_ids().size(), 5u);
}

}  // namespace
}  // namespace pagoda::structured
