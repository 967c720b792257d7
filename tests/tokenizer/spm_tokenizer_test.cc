// The SentencePiece ("llama") path of Tokenizer and IncrementalDetokenizer on
// a hand-built vocabulary, where every expected id follows from the rules:
// spaces become U+2581 "▁", a space prefix goes before each text run at the
// start or after an added token, and pairs merge by score.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "pagoda/tokenizer/incremental_detokenizer.h"
#include "pagoda/tokenizer/tokenizer.h"
#include "pagoda/tokenizer/utf8.h"

namespace pagoda::tokenizer {
namespace {

using Ids = std::vector<TokenId>;

const std::string kMeta = "\xE2\x96\x81";  // U+2581, SentencePiece's space
const std::string kHan = "\xE4\xB8\xAD";   // U+4E2D, not in the vocabulary
const std::string kFffd = "\xEF\xBF\xBD";

constexpr TokenId kUnk = 0, kBos = 1, kEos = 2, kUserDefined = 3;
constexpr TokenId Byte(int b) { return 4 + b; }
constexpr TokenId kSpace = 260, kA = 261, kB = 262, kSpaceA = 263, kSpaceB = 264;

TokenizerSpec ToySpm(bool add_space_prefix) {
  TokenizerSpec spec;
  spec.model = "llama";
  auto add = [&](const std::string& text, TokenType type, float score) {
    spec.tokens.push_back(text);
    spec.token_types.push_back(type);
    spec.scores.push_back(score);
  };
  add("<unk>", TokenType::kUnknown, 0);
  add("<s>", TokenType::kControl, 0);
  add("</s>", TokenType::kControl, 0);
  add("<ud>", TokenType::kUserDefined, 0);
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", b);
    add(name, TokenType::kByte, 0);
  }
  add(kMeta, TokenType::kNormal, -1);
  add("a", TokenType::kNormal, -2);
  add("b", TokenType::kNormal, -3);
  add(kMeta + "a", TokenType::kNormal, -4);
  add(kMeta + "b", TokenType::kNormal, -5);
  spec.unk_id = kUnk;
  spec.bos_id = kBos;
  spec.eos_id = kEos;
  spec.add_bos = true;
  spec.add_space_prefix = add_space_prefix;
  return spec;
}

std::unique_ptr<Tokenizer> Create(bool add_space_prefix) {
  auto tok = Tokenizer::Create(ToySpm(add_space_prefix));
  EXPECT_TRUE(tok.ok()) << tok.status().ToString();
  return std::move(*tok);
}

TEST(tokenizer_spm_tokenizer, SpacesBecomeMetaspaceAndMerge) {
  const auto tok = Create(/*add_space_prefix=*/true);
  // " a b" -> "▁a▁b": ▁a and ▁b merge, a▁ is no token.
  EXPECT_EQ(tok->Encode("a b"), (Ids{kBos, kSpaceA, kSpaceB}));
  EXPECT_EQ(tok->Encode("a b", {.add_special = false}), (Ids{kSpaceA, kSpaceB}));
  // "▁▁a": the leftmost ▁▁ is no token, so the second ▁ takes the a.
  EXPECT_EQ(tok->Encode(" a", {.add_special = false}), (Ids{kSpace, kSpaceA}));
  EXPECT_EQ(tok->Encode("", {.add_special = false}), Ids{});
  EXPECT_EQ(tok->Encode(""), Ids{kBos});
}

TEST(tokenizer_spm_tokenizer, WithoutSpacePrefixTheTextIsTakenAsIs) {
  const auto tok = Create(/*add_space_prefix=*/false);
  EXPECT_EQ(tok->Encode("a b", {.add_special = false}), (Ids{kA, kSpaceB}));
  EXPECT_EQ(tok->Encode("a<ud>b", {.add_special = false}), (Ids{kA, kUserDefined, kB}));
}

TEST(tokenizer_spm_tokenizer, SpacePrefixFollowsEveryAddedToken) {
  const auto tok = Create(/*add_space_prefix=*/true);
  EXPECT_EQ(tok->Encode("a<ud>b", {.add_special = false}), (Ids{kSpaceA, kUserDefined, kSpaceB}));
  EXPECT_EQ(tok->Encode("<s>a</s>", {.add_special = false}), (Ids{kBos, kSpaceA, kEos}));
  // Control tokens as text: "▁<s>a", where <, s and > are byte fallback.
  EXPECT_EQ(tok->Encode("<s>a", {.add_special = false, .parse_special = false}),
            (Ids{kSpace, Byte('<'), Byte('s'), Byte('>'), kA}));
  // User-defined tokens are matched either way.
  EXPECT_EQ(tok->Encode("<ud>", {.add_special = false, .parse_special = false}), (Ids{kUserDefined}));
}

TEST(tokenizer_spm_tokenizer, ByteFallbackForCharactersOutsideTheVocabulary) {
  const auto tok = Create(/*add_space_prefix=*/false);
  EXPECT_EQ(tok->Encode(kHan + "a", {.add_special = false}), (Ids{Byte(0xE4), Byte(0xB8), Byte(0xAD), kA}));
}

TEST(tokenizer_spm_tokenizer, DecodeDropsTheSpacePrefix) {
  const auto tok = Create(/*add_space_prefix=*/true);
  EXPECT_EQ(*tok->Decode(Ids{kSpaceA, kSpaceB}), "a b");
  EXPECT_EQ(*tok->Decode(Ids{kSpace, kSpaceA}), " a");
  // The prefix is the text's first character: after a rendered BOS it stays.
  EXPECT_EQ(*tok->Decode(Ids{kBos, kSpaceA}), "<s> a");
  EXPECT_EQ(*tok->Decode(Ids{kBos, kSpaceA}, /*skip_special_tokens=*/true), "a");
  EXPECT_EQ(*tok->Decode(Ids{kSpaceA, kUserDefined, kSpaceB}), "a<ud> b");
  EXPECT_EQ(*tok->Decode(Ids{Byte(' '), kA}), "a");
  EXPECT_EQ(*Create(/*add_space_prefix=*/false)->Decode(Ids{kSpaceA}), " a");
}

TEST(tokenizer_spm_tokenizer, ByteTokensReassembleCharacters) {
  const auto tok = Create(/*add_space_prefix=*/false);
  EXPECT_EQ(*tok->Decode(Ids{Byte(0xE4), Byte(0xB8), Byte(0xAD)}), kHan);
  // A cut sequence is one U+FFFD (maximal subpart), then the rest.
  EXPECT_EQ(*tok->Decode(Ids{Byte(0xE4), Byte(0xB8), kA}), kFffd + "a");
  EXPECT_EQ(*tok->TokenToPiece(Byte(0xE4)), "\xE4");
  EXPECT_EQ(*tok->TokenToPiece(kSpaceA), " a");
}

TEST(tokenizer_spm_tokenizer, EncodeThenDecodeGivesTheTextBack) {
  for (bool prefix : {true, false}) {
    const auto tok = Create(prefix);
    for (const std::string text : {"a b", "  ab  ", "\xE4\xB8\xAD\xF0\x9F\x98\x80 a", "a\n\tb"}) {
      EXPECT_EQ(*tok->Decode(tok->Encode(text), /*skip_special_tokens=*/true), text) << text << " " << prefix;
    }
  }
  // The prefix after an added token is not taken off again (llama.cpp and
  // HF legacy alike), so text following one gains a space.
  const auto tok = Create(/*add_space_prefix=*/true);
  EXPECT_EQ(*tok->Decode(tok->Encode("a<ud>b"), /*skip_special_tokens=*/true), "a<ud> b");
}

std::string Stream(const Tokenizer& tok, const Ids& ids, bool skip_special, std::vector<std::string>* deltas) {
  IncrementalDetokenizer detok(tok, skip_special);
  std::string text;
  for (TokenId id : ids) {
    deltas->push_back(*detok.Push(id));
    EXPECT_TRUE(IsValidUtf8(deltas->back()));
    text += deltas->back();
  }
  return text + detok.Finish();
}

TEST(tokenizer_spm_tokenizer, StreamingHoldsByteTokensUntilTheCharacterIsWhole) {
  const auto tok = Create(/*add_space_prefix=*/true);
  const Ids ids = {kSpaceA, Byte(0xE4), Byte(0xB8), Byte(0xAD), kSpaceB};
  std::vector<std::string> deltas;
  EXPECT_EQ(Stream(*tok, ids, false, &deltas), *tok->Decode(ids));
  EXPECT_EQ(deltas, (std::vector<std::string>{"a", "", "", kHan, " b"}));
}

TEST(tokenizer_spm_tokenizer, StreamingDropsTheSpacePrefixAsDecodeDoes) {
  const auto tok = Create(/*add_space_prefix=*/true);
  for (const Ids& ids : {Ids{kSpace, kSpaceA}, Ids{kBos, kSpaceA}, Ids{kBos, kBos, kSpaceB}, Ids{Byte(' '), kA}}) {
    for (bool skip : {false, true}) {
      std::vector<std::string> deltas;
      EXPECT_EQ(Stream(*tok, ids, skip, &deltas), *tok->Decode(ids, skip)) << skip;
    }
  }
}

}  // namespace
}  // namespace pagoda::tokenizer
