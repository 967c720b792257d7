// The SentencePiece ("llama") tokenizer against the references of
// tests/fixtures/tokenizer_spm (make_fixture.py): Hugging Face `tokenizers`
// built from a trained SentencePiece model, whose vocabulary-only GGUF files
// are loaded here. SentencePiece itself agrees with HF on every line without
// added tokens; where it differs (added tokens, see fixture_info.json) the
// expected ids are HF's, the behaviour llama.cpp has.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/tokenizer/gguf_tokenizer_loader.h"
#include "pagoda/tokenizer/tokenizer.h"
#include "test_data.h"

namespace pagoda::tokenizer {
namespace {

using testing::Corpus;
using testing::Escape;
using testing::IdsToString;
using Ids = std::vector<TokenId>;

constexpr int kMaxReported = 10;

struct Variant {
  const char* name;
  bool add_space_prefix;
  TokenId bos_id;
  size_t min_lines;  // llama: the whole corpus; gemma: its odd lines
};

class SpmParity : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    auto file = gguf::GgufFile::Open(testing::SpmFixturePath(std::string(GetParam().name) + ".gguf"));
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    auto tok = LoadTokenizerFromGguf(**file);
    ASSERT_TRUE(tok.ok()) << tok.status().ToString();
    tok_ = std::move(*tok);
  }
  std::vector<nlohmann::json> Rows(const char* suffix) const {
    return testing::ReadJsonLinesAt(testing::SpmFixturePath(std::string(GetParam().name) + suffix));
  }
  const std::string& Line(const nlohmann::json& row) const { return Corpus().at(row["line"].get<size_t>() - 1); }

  std::unique_ptr<Tokenizer> tok_;
};

void ReportMismatch(int* count, const std::string& what, const std::string& text, const Ids& want, const Ids& got) {
  if (++*count > kMaxReported) return;
  ADD_FAILURE() << what << " \"" << Escape(text) << "\"\n  expected " << IdsToString(want) << "\n  got      "
                << IdsToString(got);
}

TEST_P(SpmParity, ReadsTheGgufMetadata) {
  EXPECT_EQ(tok_->vocab_size(), 4000);
  EXPECT_EQ(tok_->bos_id(), GetParam().bos_id);
  EXPECT_TRUE(tok_->add_bos());
  EXPECT_FALSE(tok_->add_eos());
  EXPECT_EQ(tok_->strips_leading_space(), GetParam().add_space_prefix);
  EXPECT_EQ(tok_->GetTokenType(*tok_->FindToken("<0x41>")), TokenType::kByte);
  EXPECT_EQ(tok_->GetTokenType(*tok_->FindToken("<|im_start|>")), TokenType::kControl);
  EXPECT_EQ(tok_->GetTokenType(*tok_->FindToken("```")), TokenType::kUserDefined);
}

TEST_P(SpmParity, CorpusIdsMatchHuggingFace) {
  const auto rows = Rows("_expected.jsonl");
  ASSERT_GE(rows.size(), GetParam().min_lines);
  int mismatches = 0;
  for (const auto& row : rows) {
    const std::string& text = Line(row);
    const Ids want = row["ids"].get<Ids>();
    const Ids got = tok_->Encode(text, {.add_special = false});
    if (got != want) ReportMismatch(&mismatches, "line " + row["line"].dump(), text, want, got);
    // With add_special, only the BOS is added in front.
    Ids with_bos = {GetParam().bos_id};
    with_bos.insert(with_bos.end(), want.begin(), want.end());
    const Ids got_with_bos = tok_->Encode(text);
    if (got_with_bos != with_bos) {
      ReportMismatch(&mismatches, "with BOS, line " + row["line"].dump(), text, with_bos, got_with_bos);
    }
  }
  EXPECT_EQ(mismatches, 0) << "lines differing from HF out of " << rows.size();
}

// Control tokens as plain text. On the few lines that are exactly a control
// token's text, HF's BPE (ignore_merges) still emits that token whole; there
// the expected ids are SentencePiece's, which merges the text as llama.cpp's
// algorithm does.
TEST_P(SpmParity, CorpusIdsWithoutParsingSpecialMatchTheReferences) {
  int mismatches = 0;
  int changed = 0;
  for (const auto& row : Rows("_expected.jsonl")) {
    const char* key = row.contains("ids_no_special_sentencepiece") ? "ids_no_special_sentencepiece"
                      : row.contains("ids_no_special")             ? "ids_no_special"
                                                                   : "ids";
    if (row.contains("ids_no_special")) ++changed;
    const Ids want = row[key].get<Ids>();
    const Ids got = tok_->Encode(Line(row), {.add_special = false, .parse_special = false});
    if (got != want) ReportMismatch(&mismatches, "line " + row["line"].dump(), Line(row), want, got);
  }
  EXPECT_GT(changed, 100);
  EXPECT_EQ(mismatches, 0);
}

TEST_P(SpmParity, DecodeOfEncodeMatchesHuggingFace) {
  int mismatches = 0;
  for (const auto& row : Rows("_expected.jsonl")) {
    const std::string want = row.contains("decode") ? row["decode"].get<std::string>() : Line(row);
    const StatusOr<std::string> got = tok_->Decode(row["ids"].get<Ids>());
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    if (*got != want && ++mismatches <= kMaxReported) {
      ADD_FAILURE() << "line " << row["line"] << "\n  expected \"" << Escape(want) << "\"\n  got      \""
                    << Escape(*got) << "\"";
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// Random id sequences, many cutting UTF-8 sequences apart. HF's ByteFallback
// decoder turns a whole ill-formed run of byte tokens into U+FFFDs, one per
// token, while llama.cpp returns the bytes; Pagoda replaces the ill-formed
// parts only ("lossy": the bytes through Python's UTF-8 decoder). Where no
// run is ill-formed, the two agree and the text is HF's.
TEST_P(SpmParity, DecodeOfRandomIdsMatchesTheReferences) {
  const auto cases = Rows("_decode.jsonl");
  ASSERT_GE(cases.size(), 500u);
  int mismatches = 0;
  int agree_with_hf = 0;
  for (const auto& row : cases) {
    const Ids ids = row["ids"].get<Ids>();
    for (bool skip : {false, true}) {
      const auto want = row[skip ? "lossy_skip_special" : "lossy"].get<std::string>();
      const StatusOr<std::string> got = tok_->Decode(ids, skip);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      if (*got == row[skip ? "text_skip_special" : "text"].get<std::string>()) ++agree_with_hf;
      if (*got != want && ++mismatches <= kMaxReported) {
        ADD_FAILURE() << IdsToString(ids) << " skip_special=" << skip << "\n  expected \"" << Escape(want)
                      << "\"\n  got      \"" << Escape(*got) << "\"";
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(agree_with_hf, static_cast<int>(cases.size() * 2 * 9 / 10));
}

TEST_P(SpmParity, StreamingMatchesDecode) {
  int mismatches = 0;
  for (const auto& row : Rows("_expected.jsonl")) {
    for (bool skip : {false, true}) testing::ExpectStreamMatchesDecode(*tok_, row["ids"].get<Ids>(), skip, &mismatches);
  }
  for (const auto& row : Rows("_decode.jsonl")) {
    for (bool skip : {false, true}) testing::ExpectStreamMatchesDecode(*tok_, row["ids"].get<Ids>(), skip, &mismatches);
  }
  EXPECT_EQ(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(Variants, SpmParity,
                         ::testing::Values(Variant{"llama", true, 1, 23000}, Variant{"gemma", false, 2, 11500}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace pagoda::tokenizer
