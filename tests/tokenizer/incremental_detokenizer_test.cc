#include "pagoda/tokenizer/incremental_detokenizer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "pagoda/tokenizer/utf8.h"
#include "test_data.h"

namespace pagoda::tokenizer {
namespace {

using testing::Corpus;
using testing::Escape;
using testing::IdsToString;
using testing::ModelTokenizer;
using Ids = std::vector<TokenId>;

const std::string kFffd = "\xEF\xBF\xBD";

// Streams `ids`, checking every delta is whole UTF-8 and little is held back.
std::string Stream(const Tokenizer& tok, const Ids& ids, bool skip_special) {
  IncrementalDetokenizer detok(tok, skip_special);
  std::string text;
  for (TokenId id : ids) {
    const StatusOr<std::string> delta = detok.Push(id);
    EXPECT_TRUE(delta.ok()) << delta.status().ToString();
    if (!delta.ok()) return text;
    EXPECT_TRUE(IsValidUtf8(*delta)) << Escape(*delta);
    EXPECT_LE(detok.pending_bytes(), 3u);
    text += *delta;
  }
  text += detok.Finish();
  return text;
}

TEST(tokenizer_incremental, DeltasConcatenateToDecodeOnTheCorpus) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  int mismatches = 0;
  for (size_t i = 0; i < Corpus().size(); ++i) {
    const Ids ids = tok.Encode(Corpus()[i]);
    for (bool skip : {false, true}) {
      const std::string streamed = Stream(tok, ids, skip);
      if (streamed != *tok.Decode(ids, skip) && ++mismatches <= 10) {
        ADD_FAILURE() << "line " << i + 1 << " skip_special=" << skip << ": \"" << Escape(streamed) << "\"";
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// Random ids cut UTF-8 sequences apart far more often than real text does.
TEST(tokenizer_incremental, DeltasConcatenateToDecodeForRandomIds) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  // Ids whose piece is not UTF-8 by itself: byte tokens and partial characters.
  Ids partial;
  for (TokenId id = 0; id < tok.vocab_size(); ++id) {
    if (!IsValidUtf8(*tok.TokenToPiece(id))) partial.push_back(id);
  }
  ASSERT_GT(partial.size(), 100u);
  std::mt19937 rng(42);
  int mismatches = 0;
  for (int round = 0; round < 5000; ++round) {
    Ids ids(1 + rng() % 30);
    for (TokenId& id : ids) {
      switch (rng() % 4) {
        case 0: id = static_cast<TokenId>(rng() % tok.vocab_size()); break;
        case 1: id = static_cast<TokenId>(rng() % 17); break;  // control tokens
        default: id = partial[rng() % partial.size()];
      }
    }
    for (bool skip : {false, true}) {
      const std::string streamed = Stream(tok, ids, skip);
      if (streamed != *tok.Decode(ids, skip) && ++mismatches <= 10) {
        ADD_FAILURE() << IdsToString(ids) << " skip_special=" << skip << ": \"" << Escape(streamed) << "\"";
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(tokenizer_incremental, HoldsBackASplitCharacterUntilComplete) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  // HF splits U+1F600 into three tokens: F0 9F | 98 | 80.
  const Ids ids = tok.Encode("\xF0\x9F\x98\x80");
  ASSERT_EQ(ids.size(), 3u);
  IncrementalDetokenizer detok(tok);
  EXPECT_EQ(*detok.Push(ids[0]), "");
  EXPECT_EQ(detok.pending_bytes(), 2u);
  EXPECT_EQ(*detok.Push(ids[1]), "");
  EXPECT_EQ(*detok.Push(ids[2]), "\xF0\x9F\x98\x80");
  EXPECT_EQ(detok.pending_bytes(), 0u);
  EXPECT_EQ(detok.Finish(), "");
}

TEST(tokenizer_incremental, ReplacesABrokenSequenceAsSoonAsItIsCertain) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  const Ids emoji = tok.Encode("\xF0\x9F\x98\x80");
  const TokenId a = tok.Encode("A")[0];
  IncrementalDetokenizer detok(tok);
  EXPECT_EQ(*detok.Push(emoji[0]), "");
  EXPECT_EQ(*detok.Push(a), kFffd + "A");
  EXPECT_EQ(*detok.Push(emoji[0]), "");
  EXPECT_EQ(detok.Finish(), kFffd);  // never completed
  // Finish leaves it ready for a new stream.
  EXPECT_EQ(*detok.Push(a), "A");
  EXPECT_EQ(detok.Finish(), "");
}

TEST(tokenizer_incremental, SkippedSpecialTokensDoNotBreakASequence) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  const Ids emoji = tok.Encode("\xF0\x9F\x98\x80");
  const Ids ids = {emoji[0], 2, emoji[1], emoji[2]};
  EXPECT_EQ(Stream(tok, ids, /*skip_special=*/true), "\xF0\x9F\x98\x80");
  // F0 9F is cut short by '<'; 98 and 80 alone are stray continuation bytes.
  EXPECT_EQ(Stream(tok, ids, /*skip_special=*/false), kFffd + "<|im_end|>" + kFffd + kFffd);
}

TEST(tokenizer_incremental, RejectsBadIdsWithoutLosingState) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  const Ids emoji = tok.Encode("\xF0\x9F\x98\x80");
  IncrementalDetokenizer detok(tok);
  EXPECT_EQ(*detok.Push(emoji[0]), "");
  EXPECT_EQ(detok.Push(tok.vocab_size()).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(detok.Push(-5).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(*detok.Push(emoji[1]), "");
  EXPECT_EQ(*detok.Push(emoji[2]), "\xF0\x9F\x98\x80");
}

}  // namespace
}  // namespace pagoda::tokenizer
