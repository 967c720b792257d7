#include "pagoda/tokenizer/pre_tokenizer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>
#include <vector>

#include "test_data.h"

namespace pagoda::tokenizer {
namespace {

using testing::Corpus;
using testing::Escape;

std::vector<std::string> Split(const PreTokenizer& pre, std::string_view text) {
  std::vector<std::string_view> pieces;
  pre.Split(text, &pieces);
  return {pieces.begin(), pieces.end()};
}

std::unique_ptr<PreTokenizer> MakeOrDie(std::string_view name) {
  auto pre = PreTokenizer::Create(name);
  EXPECT_TRUE(pre.ok()) << pre.status().ToString();
  return pre.ok() ? std::move(*pre) : nullptr;
}

// The text a fixture row splits: its own "text", or corpus line "line".
std::string RowText(const nlohmann::json& row) {
  if (row.contains("text")) return row["text"].get<std::string>();
  return Corpus().at(row["line"].get<int>() - 1);
}

// Each family's pieces of the fixture's rows against the expected ones,
// reporting the first few differing rows.
void ExpectFamiliesMatch(const std::vector<nlohmann::json>& rows, std::initializer_list<const char*> families) {
  for (const char* family : families) {
    const auto pre = MakeOrDie(family);
    ASSERT_NE(pre, nullptr);
    int mismatches = 0;
    for (const auto& row : rows) {
      const std::string text = RowText(row);
      const auto expected = row[family].get<std::vector<std::string>>();
      const auto got = Split(*pre, text);
      if (got != expected && ++mismatches <= 10) {
        size_t i = 0;
        while (i < got.size() && i < expected.size() && got[i] == expected[i]) ++i;
        ADD_FAILURE() << family << (row.contains("line") ? " line " + row["line"].dump() : "") << " \""
                      << Escape(text) << "\": first difference at piece " << i << ": expected \""
                      << (i < expected.size() ? Escape(expected[i]) : "<end>") << "\", got \""
                      << (i < got.size() ? Escape(got[i]) : "<end>") << "\"";
      }
    }
    EXPECT_EQ(mismatches, 0) << family << ": rows differing from HF out of " << rows.size();
  }
}

// A corpus-sample fixture: every 10th line of the 23k-line corpus.
std::vector<nlohmann::json> SampleRows(const char* fixture) {
  auto rows = testing::ReadJsonLines(fixture);
  EXPECT_GT(rows.size(), 2000u) << fixture;
  return rows;
}

// Pieces of every 10th corpus line under each regex family, against HF
// tokenizers' Split pre-tokenizers (make_expected.py).
TEST(tokenizer_pre_tokenizer, MatchesHuggingFaceOnCorpusSample) {
  ExpectFamiliesMatch(SampleRows("expected_pretokens.jsonl"), {"gpt2", "llama3", "smollm"});
}

// The other families' pieces, against HF Split pre-tokenizers built from
// their tokenizer.json regexes (make_pretoken_families.py).
TEST(tokenizer_pre_tokenizer, OtherFamiliesMatchHuggingFace) {
  ExpectFamiliesMatch(SampleRows("expected_pretokens_families.jsonl"),
                      {"qwen2", "tekken", "gpt-4o", "deepseek-llm", "deepseek-v3"});
}

// Emoji, letters, digits, marks and punctuation that Unicode 15.0 added (and
// Debian 12's PCRE2 lacks), against HF (make_pretoken_families.py): every
// family's \p{...} follows Unicode 15.0 at least (unicode_classes.h).
TEST(tokenizer_pre_tokenizer, UnicodeFifteenCharactersSplitLikeHuggingFace) {
  const auto rows = testing::ReadJsonLines("expected_pretokens_unicode15.jsonl");
  ASSERT_EQ(rows.size(), 6u);
  ExpectFamiliesMatch(rows, {"gpt2", "llama3", "smollm", "qwen2", "tekken", "gpt-4o", "deepseek-llm", "deepseek-v3"});
}

// The same for characters that Unicode 15.1 and 16.0 added, which Debian 12's
// ICU 72 lacks too: they follow the generated Unicode 16.0 additions.
TEST(tokenizer_pre_tokenizer, UnicodeSixteenCharactersSplitLikeHuggingFace) {
  const auto rows = testing::ReadJsonLines("expected_pretokens_unicode16.jsonl");
  ASSERT_EQ(rows.size(), 5u);
  ExpectFamiliesMatch(rows, {"gpt2", "llama3", "smollm", "qwen2", "tekken", "gpt-4o", "deepseek-llm", "deepseek-v3"});
}

TEST(tokenizer_pre_tokenizer, UnknownNamesAreUnimplemented) {
  for (const char* name : {"default", "falcon", "deepseek-coder", "", "SMOLLM"}) {
    const Status status = PreTokenizer::Create(name).status();
    EXPECT_EQ(status.code(), StatusCode::kUnimplemented) << name;
    EXPECT_NE(status.message().find("smollm"), std::string::npos) << status.message();
  }
}

TEST(tokenizer_pre_tokenizer, IllFormedBytesFormTheirOwnPieces) {
  const auto pre = MakeOrDie("smollm");
  ASSERT_NE(pre, nullptr);
  EXPECT_EQ(Split(*pre, "ab\xFF\xFE" "cd 12"), (std::vector<std::string>{"ab", "\xFF\xFE", "cd", " ", "1", "2"}));
  EXPECT_EQ(Split(*pre, "\xE4\xB8 x"), (std::vector<std::string>{"\xE4\xB8", " x"}));
}

// Long runs are where a backtracking regex engine could run out of stack.
TEST(tokenizer_pre_tokenizer, LongRunsAreSplitLikeShortOnes) {
  for (const char* family : {"gpt2", "llama3", "smollm"}) {
    const auto pre = MakeOrDie(family);
    ASSERT_NE(pre, nullptr);
    const std::string spaces(1 << 20, ' ');
    EXPECT_EQ(Split(*pre, spaces + "x"), (std::vector<std::string>{spaces.substr(1), " x"})) << family;
    const std::string letters(1 << 20, 'a');
    EXPECT_EQ(Split(*pre, letters), std::vector<std::string>{letters}) << family;
    std::string text;
    for (int i = 0; i < 100000; ++i) text += "\xE4\xB8\xAD\n\t";
    size_t covered = 0;
    for (const std::string& piece : Split(*pre, text)) covered += piece.size();
    EXPECT_EQ(covered, text.size()) << family;
  }
}

// Beyond PCRE2's default match limit of 10M backtracking steps.
TEST(tokenizer_pre_tokenizer, HugeWhitespaceRunDoesNotHitMatchLimits) {
  const auto pre = MakeOrDie("llama-bpe");
  ASSERT_NE(pre, nullptr);
  const std::string spaces(12 << 20, ' ');
  EXPECT_EQ(Split(*pre, spaces + "x"), (std::vector<std::string>{spaces.substr(1), " x"}));
}

}  // namespace
}  // namespace pagoda::tokenizer
