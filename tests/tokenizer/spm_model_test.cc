#include "pagoda/tokenizer/spm_model.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace pagoda::tokenizer {
namespace {

using Ids = std::vector<TokenId>;

struct Piece {
  std::string text;
  float score;
  TokenType type = TokenType::kNormal;
};

// The 256 byte tokens <0x00>..<0xFF> (id = byte value) followed by `extra`
// from id 256: a byte-fallback vocabulary as SentencePiece lays it out.
struct ToyVocab {
  std::vector<std::string> tokens;
  std::vector<TokenType> types;
  std::vector<float> scores;

  explicit ToyVocab(const std::vector<Piece>& extra, bool with_bytes = true) {
    for (int b = 0; with_bytes && b < 256; ++b) {
      char name[8];
      std::snprintf(name, sizeof(name), "<0x%02X>", b);
      Add({name, 0.0f, TokenType::kByte});
    }
    for (const Piece& piece : extra) Add(piece);
  }
  void Add(const Piece& piece) {
    tokens.push_back(piece.text);
    scores.push_back(piece.score);
    types.push_back(piece.type);
  }
  SpmModel Model(std::optional<TokenId> unk_id = std::nullopt) const {
    auto model = SpmModel::Create(tokens, types, scores, unk_id);
    EXPECT_TRUE(model.ok()) << model.status().ToString();
    return std::move(*model);
  }
};

Ids Encode(const SpmModel& model, std::string_view text) {
  SpmModel::Scratch scratch;
  Ids out;
  model.Encode(text, &scratch, &out);
  return out;
}

// Each byte of `text`: what byte fallback gives when nothing merges.
Ids ByteIds(std::string_view text) {
  Ids ids;
  for (char c : text) ids.push_back(static_cast<uint8_t>(c));
  return ids;
}

TEST(tokenizer_spm, OnlyByteTokensGiveEveryByte) {
  const SpmModel model = ToyVocab({}).Model();
  for (std::string_view text : {"a", "hello world", "\xC3\xA9t\xC3\xA9", "\xF0\x9F\x98\x80!", "\xFF\x80z"}) {
    EXPECT_EQ(Encode(model, text), ByteIds(text)) << text;
  }
  EXPECT_EQ(Encode(model, ""), Ids{});
}

TEST(tokenizer_spm, HighestScoreMergesFirst) {
  // "abc" can merge as ab+c or a+bc; only the higher-scored pair happens,
  // and neither ab+c nor a+bc is a token, so merging stops there.
  const ToyVocab bc_wins({{"a", -1}, {"b", -1}, {"c", -1}, {"ab", -3}, {"bc", -2}});
  EXPECT_EQ(Encode(bc_wins.Model(), "abc"), (Ids{256, 260}));
  const ToyVocab ab_wins({{"a", -1}, {"b", -1}, {"c", -1}, {"ab", -2}, {"bc", -3}});
  EXPECT_EQ(Encode(ab_wins.Model(), "abc"), (Ids{259, 258}));
}

TEST(tokenizer_spm, EqualScoresMergeLeftmostFirst) {
  const ToyVocab vocab({{"a", -1}, {"aa", -2}});  // 256, 257
  EXPECT_EQ(Encode(vocab.Model(), "aaa"), (Ids{257, 256}));
  EXPECT_EQ(Encode(vocab.Model(), "aaaa"), (Ids{257, 257}));
}

TEST(tokenizer_spm, MergesContinueIntoLongerTokens) {
  // Scores decide the order; every intermediate must itself be a token.
  const ToyVocab vocab(
      {{"h", -1}, {"e", -1}, {"l", -1}, {"o", -1}, {"he", -5}, {"ll", -4}, {"hell", -6}, {"hello", -7}});
  EXPECT_EQ(Encode(vocab.Model(), "hello"), (Ids{263}));
  // "helo" has no "ll": he + l + o, and no "hel" or "lo" token to go further.
  EXPECT_EQ(Encode(vocab.Model(), "helo"), (Ids{260, 258, 259}));
}

TEST(tokenizer_spm, CharactersNotInTheVocabularyFallBackToBytes) {
  // U+00E9 is not a token: its two UTF-8 bytes are byte tokens.
  const ToyVocab vocab({{"t", -1}, {"\xE2\x96\x81", -1}});  // 256, 257
  EXPECT_EQ(Encode(vocab.Model(), "\xC3\xA9t\xE2\x96\x81\xC3\xA9"), (Ids{0xC3, 0xA9, 256, 257, 0xC3, 0xA9}));
}

TEST(tokenizer_spm, MissingByteTokensBecomeUnknownOrNothing) {
  // No byte tokens at all: each byte of a character outside the vocabulary
  // becomes the unknown token, or is dropped when there is none either.
  const ToyVocab vocab({{"<unk>", 0, TokenType::kUnknown}, {"a", -1}}, /*with_bytes=*/false);
  EXPECT_EQ(Encode(vocab.Model(0), "a\xC3\xA9"), (Ids{1, 0, 0}));
  EXPECT_EQ(Encode(vocab.Model(), "a\xC3\xA9"), (Ids{1}));
}

TEST(tokenizer_spm, UnusedTokensSplitBackAlongTheirMerges) {
  // "ab" is unused: merging may pass through it, but it is never emitted.
  const ToyVocab vocab({{"a", -1}, {"b", -1}, {"c", -1}, {"ab", -2, TokenType::kUnused}, {"abc", -3}});
  EXPECT_EQ(Encode(vocab.Model(), "ab"), (Ids{256, 257}));
  EXPECT_EQ(Encode(vocab.Model(), "abc"), (Ids{260}));
  EXPECT_EQ(Encode(vocab.Model(), "abab"), (Ids{256, 257, 256, 257}));
}

TEST(tokenizer_spm, IllFormedUtf8IsGroupedByItsLeadByte) {
  // A lead byte announces its length: "\xE4" takes the next two bytes with
  // it whatever they are, so "a" and "b" here are byte tokens, not tokens.
  const ToyVocab vocab({{"a", -1}, {"b", -1}});
  const std::string cut = std::string("\xE4") + "ab";
  EXPECT_EQ(Encode(vocab.Model(), cut), ByteIds(cut));
  // A stray continuation byte is a symbol of its own.
  EXPECT_EQ(Encode(vocab.Model(), std::string("\x80") + "a"), (Ids{0x80, 256}));
  // A truncated sequence at the end is clamped to the text.
  EXPECT_EQ(Encode(vocab.Model(), "a\xF0\x9F"), (Ids{256, 0xF0, 0x9F}));
}

TEST(tokenizer_spm, RejectsScoresThatDoNotMatchTheTokens) {
  auto model = SpmModel::Create({"a", "b"}, {}, {0.0f}, std::nullopt);
  EXPECT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pagoda::tokenizer
