// Parity with Hugging Face tokenizers on the committed corpus; the expected
// outputs come from make_expected.py.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "pagoda/tokenizer/tokenizer.h"
#include "test_data.h"

namespace pagoda::tokenizer {
namespace {

using testing::Corpus;
using testing::Escape;
using testing::IdsToString;
using testing::ModelTokenizer;

constexpr int kMaxReported = 10;

void ReportMismatch(int* count, size_t line, const std::string& text, const std::vector<TokenId>& expected,
                    const std::vector<TokenId>& got) {
  if (++*count > kMaxReported) return;
  ADD_FAILURE() << "line " << line << " \"" << Escape(text) << "\"\n  expected " << IdsToString(expected)
                << "\n  got      " << IdsToString(got);
}

TEST(tokenizer_parity, CorpusIdsMatchHuggingFace) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  const auto expected = testing::ReadJsonLines("expected_ids.jsonl");
  const auto& corpus = Corpus();
  ASSERT_EQ(expected.size(), corpus.size());
  ASSERT_GE(corpus.size(), 20000u);

  std::vector<std::vector<TokenId>> got(corpus.size());
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < corpus.size(); ++i) got[i] = tok.Encode(corpus[i]);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  size_t tokens = 0;
  int mismatches = 0;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const auto want = expected[i].get<std::vector<TokenId>>();
    tokens += want.size();
    if (got[i] != want) ReportMismatch(&mismatches, i + 1, corpus[i], want, got[i]);
  }
  EXPECT_EQ(mismatches, 0) << "lines differing from HF out of " << corpus.size();
  std::printf("encoded %zu lines, %zu tokens in %.3f s: %.0f tokens/s, %.1f MB/s\n", corpus.size(), tokens, seconds,
              tokens / seconds, [&] {
                size_t bytes = 0;
                for (const auto& line : corpus) bytes += line.size();
                return bytes / seconds / 1e6;
              }());
}

// With parse_special off, control-token text is ordinary text (HF's
// encode_special_tokens); the fixture lists the lines where that matters.
TEST(tokenizer_parity, CorpusIdsWithoutParsingSpecialMatchHuggingFace) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  const auto expected = testing::ReadJsonLines("expected_ids.jsonl");
  std::map<size_t, std::vector<TokenId>> changed;
  for (const auto& row : testing::ReadJsonLines("expected_ids_no_special.jsonl")) {
    changed[row["line"].get<size_t>()] = row["ids"].get<std::vector<TokenId>>();
  }
  ASSERT_GT(changed.size(), 1000u);
  const auto& corpus = Corpus();
  int mismatches = 0;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const auto it = changed.find(i + 1);
    const auto want = it != changed.end() ? it->second : expected[i].get<std::vector<TokenId>>();
    const auto got = tok.Encode(corpus[i], {.add_special = true, .parse_special = false});
    if (got != want) ReportMismatch(&mismatches, i + 1, corpus[i], want, got);
  }
  EXPECT_EQ(mismatches, 0);
}

// Random id sequences, many cutting UTF-8 sequences apart, against HF's decode.
TEST(tokenizer_parity, DecodeMatchesHuggingFace) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  const auto cases = testing::ReadJsonLines("expected_decode.jsonl");
  ASSERT_GE(cases.size(), 1000u);
  int mismatches = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto ids = cases[i]["ids"].get<std::vector<TokenId>>();
    for (bool skip : {false, true}) {
      const auto want = cases[i][skip ? "text_skip_special" : "text"].get<std::string>();
      const StatusOr<std::string> got = tok.Decode(ids, skip);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      if (*got != want && ++mismatches <= kMaxReported) {
        ADD_FAILURE() << "case " << i + 1 << " " << IdsToString(ids) << " skip_special=" << skip
                      << "\n  expected \"" << Escape(want) << "\"\n  got      \"" << Escape(*got) << "\"";
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// Exact except for the control characters SmolLM2 has no token for, which
// encoding drops (as HF does).
TEST(tokenizer_parity, DecodeOfEncodeRoundTripsTheCorpus) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const Tokenizer& tok = *ModelTokenizer();
  int mismatches = 0;
  int lossy_lines = 0;
  const auto& corpus = Corpus();
  for (size_t i = 0; i < corpus.size(); ++i) {
    const StatusOr<std::string> text = tok.Decode(tok.Encode(corpus[i]));
    ASSERT_TRUE(text.ok()) << text.status().ToString();
    const std::string want = testing::WithoutUncoveredBytes(tok, corpus[i]);
    if (want != corpus[i]) ++lossy_lines;
    if (*text != want && ++mismatches <= kMaxReported) {
      ADD_FAILURE() << "line " << i + 1 << "\n  expected \"" << Escape(want) << "\"\n  got      \""
                    << Escape(*text) << "\"";
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_LT(lossy_lines, 1000) << "the corpus should mostly round-trip exactly";
}

}  // namespace
}  // namespace pagoda::tokenizer
