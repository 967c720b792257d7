#include "pagoda/tokenizer/tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "pagoda/tokenizer/utf8.h"
#include "test_data.h"

namespace pagoda::tokenizer {
namespace {

using testing::ModelSpec;
using testing::ModelTokenizer;
using testing::ToySpec;
using Ids = std::vector<TokenId>;

std::unique_ptr<Tokenizer> CreateOrDie(const TokenizerSpec& spec) {
  auto tok = Tokenizer::Create(spec);
  EXPECT_TRUE(tok.ok()) << tok.status().ToString();
  return tok.ok() ? std::move(*tok) : nullptr;
}

std::string Pieces(const Tokenizer& tok, const Ids& ids) {
  std::string bytes;
  for (TokenId id : ids) bytes += *tok.TokenToPiece(id);
  return bytes;
}

TEST(tokenizer, SmolLm2Metadata) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  EXPECT_EQ(tok.vocab_size(), 49152);
  EXPECT_EQ(tok.bos_id(), 1);
  EXPECT_EQ(tok.eos_id(), 2);
  EXPECT_EQ(tok.unk_id(), 0);
  EXPECT_EQ(tok.pad_id(), 2);
  EXPECT_FALSE(tok.add_bos());
  EXPECT_FALSE(tok.add_eos());
  EXPECT_EQ(tok.FindToken("<|im_end|>"), 2);
  EXPECT_EQ(tok.FindToken("not a token"), std::nullopt);
  EXPECT_EQ(tok.TokenText(1), "<|im_start|>");
  for (TokenId id = 0; id <= 16; ++id) {
    EXPECT_EQ(tok.GetTokenType(id), TokenType::kControl) << id;
    EXPECT_TRUE(tok.IsSpecial(id)) << id;
  }
  EXPECT_FALSE(tok.IsSpecial(17));
  EXPECT_EQ(*tok.TokenToPiece(*tok.FindToken("\xC4\xA0the")), " the");  // "Ġthe"
}

// Expected ids from HF tokenizers (make_expected.py's pipeline).
TEST(tokenizer, ChatMarkersAreSingleTokens) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  EXPECT_EQ(tok.Encode("<|im_start|>user\nhi<|im_end|>"), (Ids{1, 4093, 198, 6004, 2}));
  EXPECT_EQ(tok.Encode("Hello world 123"), (Ids{19556, 905, 216, 33, 34, 35}));
  const Ids plain = tok.Encode("<|im_start|>user", {.add_special = true, .parse_special = false});
  EXPECT_GT(plain.size(), 2u);
  for (TokenId id : plain) EXPECT_FALSE(tok.IsSpecial(id));
  EXPECT_EQ(*tok.Decode(plain), "<|im_start|>user");
}

TEST(tokenizer, DecodeSkipsOnlySpecialTokensWhenAsked) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  const Ids ids = tok.Encode("<|im_start|>assistant\nSure!<|im_end|>");
  EXPECT_EQ(*tok.Decode(ids, /*skip_special_tokens=*/false), "<|im_start|>assistant\nSure!<|im_end|>");
  EXPECT_EQ(*tok.Decode(ids, /*skip_special_tokens=*/true), "assistant\nSure!");
}

TEST(tokenizer, BosAndEosFollowTheFlags) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  TokenizerSpec spec = *ModelSpec();
  spec.add_bos = true;
  spec.add_eos = true;
  const auto tok = CreateOrDie(spec);
  ASSERT_NE(tok, nullptr);
  EXPECT_EQ(tok->Encode("Hello"), (Ids{1, 19556, 2}));
  EXPECT_EQ(tok->Encode(""), (Ids{1, 2}));
  EXPECT_EQ(tok->Encode("Hello", {.add_special = false}), (Ids{19556}));
  EXPECT_EQ(ModelTokenizer()->Encode("Hello"), (Ids{19556}));  // SmolLM2 adds neither
  EXPECT_EQ(ModelTokenizer()->Encode(""), Ids{});
}

TEST(tokenizer, DecodeRejectsIdsOutsideTheVocabulary) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  for (TokenId bad : {-1, 49152, 1 << 30}) {
    EXPECT_EQ(tok.Decode(Ids{19556, bad}).status().code(), StatusCode::kOutOfRange) << bad;
    EXPECT_EQ(tok.TokenToPiece(bad).status().code(), StatusCode::kOutOfRange) << bad;
    EXPECT_FALSE(tok.IsValidId(bad));
  }
}

// Ill-formed input is encoded from its raw bytes: the pieces give the input
// back (less the bytes SmolLM2 has no token for, such as C0 and F5..FF), and
// decoding replaces what is ill-formed as decode always does.
TEST(tokenizer, IllFormedUtf8InputIsEncodedLosslessly) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  std::mt19937 rng(1234);
  std::vector<std::string> inputs = {"abc\xFF\xFE def\xC3", "\xE4\xB8", "\x80<|im_end|>\xF0\x9F\x98",
                                     std::string("\0\xC0\xAF", 3), "caf\xE9 na\xEFve"};
  for (int i = 0; i < 2000; ++i) {
    std::string s(rng() % 40, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 2 ? rng() % 256 : "aZ 1\n<|>"[rng() % 8]);
    inputs.push_back(s);
  }
  for (const std::string& input : inputs) {
    const Ids ids = tok.Encode(input, {.add_special = false, .parse_special = false});
    const std::string covered = testing::WithoutUncoveredBytes(tok, input);
    ASSERT_EQ(Pieces(tok, ids), covered) << testing::Escape(input);
    std::string lossy;
    AppendUtf8Lossy(covered, /*at_end=*/true, &lossy);
    EXPECT_EQ(*tok.Decode(ids), lossy);
  }
}

// A Tokenizer is shared by request threads; it must hold no mutable state.
TEST(tokenizer, ConcurrentEncodesAgreeWithSerialOnes) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  const auto& corpus = testing::Corpus();
  const size_t n = std::min<size_t>(corpus.size(), 4000);
  std::vector<Ids> serial(n);
  for (size_t i = 0; i < n; ++i) serial[i] = tok.Encode(corpus[i]);
  constexpr int kThreads = 4;
  std::vector<std::vector<Ids>> results(kThreads, std::vector<Ids>(n));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < n; ++i) results[t][i] = tok.Encode(corpus[(i + t * 997) % n]);
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(results[t][i], serial[(i + t * 997) % n]) << "thread " << t;
  }
}

TEST(tokenizer, RejectsInconsistentSpecs) {
  TokenizerSpec good = ToySpec({}, {});
  ASSERT_NE(CreateOrDie(good), nullptr);

  auto code_of = [](const TokenizerSpec& spec) { return Tokenizer::Create(spec).status().code(); };
  TokenizerSpec spec = good;
  spec.model = "t5";
  const Status unknown_model = Tokenizer::Create(spec).status();
  EXPECT_EQ(unknown_model.code(), StatusCode::kUnimplemented);
  for (const char* name : {"\"t5\"", "\"gpt2\"", "\"llama\""}) {
    EXPECT_NE(unknown_model.message().find(name), std::string::npos) << unknown_model.message();
  }
  spec = good;
  spec.pre = "default";
  EXPECT_EQ(code_of(spec), StatusCode::kUnimplemented);
  spec = good;
  spec.tokens.clear();
  EXPECT_EQ(code_of(spec), StatusCode::kInvalidArgument);
  spec = good;
  spec.token_types = {TokenType::kNormal};
  EXPECT_EQ(code_of(spec), StatusCode::kInvalidArgument);
  spec = good;
  spec.eos_id = 256;
  EXPECT_EQ(code_of(spec), StatusCode::kInvalidArgument);
  spec = good;
  spec.add_bos = true;
  EXPECT_EQ(code_of(spec), StatusCode::kInvalidArgument);
  spec = good;
  spec.merges = {"a zz"};
  EXPECT_EQ(code_of(spec), StatusCode::kInvalidArgument);
}

// llama-bpe (Llama 3) uses a whole pre-token found in the vocabulary even
// when the merges could not build it (HF BPE's ignore_merges).
TEST(tokenizer, LlamaBpeIgnoresMergesForWholeWords) {
  const std::vector<std::string> extra = {"ab", "abc"};  // 256, 257: no merge makes "abc"
  const auto gpt2 = CreateOrDie(ToySpec(extra, {"a b"}, "gpt2"));
  const auto llama = CreateOrDie(ToySpec(extra, {"a b"}, "llama-bpe"));
  ASSERT_NE(gpt2, nullptr);
  ASSERT_NE(llama, nullptr);
  EXPECT_EQ(gpt2->Encode("abc"), (Ids{256, 'c'}));
  EXPECT_EQ(llama->Encode("abc"), (Ids{257}));
  EXPECT_EQ(llama->Encode("abcd"), (Ids{256, 'c', 'd'}));
}

// So do Tekken and GPT-4o / Llama 4: their tokenizer.json files ignore merges
// (tiktoken looks a whole pre-token up first), though llama.cpp does so for
// Tekken only; Qwen2's and DeepSeek's do not.
TEST(tokenizer, FamiliesIgnoreMergesAsTheirTokenizerJsonDoes) {
  const std::vector<std::string> extra = {"ab", "abc"};
  for (const char* pre : {"tekken", "gpt-4o", "llama4"}) {
    const auto tok = CreateOrDie(ToySpec(extra, {"a b"}, pre));
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->Encode("abc"), (Ids{257})) << pre;
  }
  for (const char* pre : {"qwen2", "deepseek-llm", "smollm"}) {
    const auto tok = CreateOrDie(ToySpec(extra, {"a b"}, pre));
    ASSERT_NE(tok, nullptr);
    EXPECT_EQ(tok->Encode("abc"), (Ids{256, 'c'})) << pre;
  }
}

TEST(tokenizer, UserDefinedTokensAreMatchedButNotSkipped) {
  TokenizerSpec spec = ToySpec({"<ctl>", "<tool>"}, {});  // 256, 257
  spec.token_types.assign(spec.tokens.size(), TokenType::kNormal);
  spec.token_types[256] = TokenType::kControl;
  spec.token_types[257] = TokenType::kUserDefined;
  const auto tok = CreateOrDie(spec);
  ASSERT_NE(tok, nullptr);
  EXPECT_EQ(tok->Encode("a<tool><ctl>"), (Ids{'a', 257, 256}));
  const Ids ids = tok->Encode("a<tool><ctl>", {.parse_special = false});
  EXPECT_EQ(ids[1], 257);
  EXPECT_EQ(ids.size(), 2u + 5u);
  EXPECT_EQ(*tok->Decode(Ids{'a', 257, 256}, /*skip_special_tokens=*/true), "a<tool>");
}

}  // namespace
}  // namespace pagoda::tokenizer
