// The byte-level BPE ("gpt2") tokenizer of each `tokenizer.ggml.pre` family
// against the references of tests/fixtures/tokenizer_bpe (make_fixture.py):
// Hugging Face `tokenizers` with the family's tokenizer.json pipeline over a
// small vocabulary trained with that pipeline, written as a vocabulary-only
// GGUF the way llama.cpp's converter does and loaded here through the normal
// GGUF loader. The default model's tests cover one family (smollm) with a
// real vocabulary; these cover the regexes, ignore_merges settings and added
// token layouts of the others. llama.cpp's agreement is in fixture_info.json.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <ostream>
#include <memory>
#include <string>
#include <vector>

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/tokenizer/gguf_tokenizer_loader.h"
#include "pagoda/tokenizer/tokenizer.h"
#include "test_data.h"

namespace pagoda::tokenizer {
namespace {

using testing::BpeFixturePath;
using testing::Corpus;
using testing::Escape;
using testing::IdsToString;
using Ids = std::vector<TokenId>;

constexpr int kMaxReported = 10;

struct Family {
  const char* name;  // also the GGUF's tokenizer.ggml.pre
  int vocab_size;
  TokenId bos_id;
  bool add_bos;
  const char* control_token;       // one special added token of the family
  const char* user_defined_token;  // a non-special added token, or nullptr
  int min_lines_no_special_differs;  // corpus lines holding the family's specials
};

void PrintTo(const Family& f, std::ostream* os) { *os << f.name; }

// HF's ids of one corpus line, from <family>.ids.
struct Expected {
  size_t line;  // from 1
  Ids ids;
};

// <family>.ids: little-endian uint16 records [line, n, id_1 .. id_n].
std::vector<Expected> ReadIdRecords(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << path;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint16_t> words(bytes.size() / 2);
  for (size_t i = 0; i < words.size(); ++i) {
    words[i] = static_cast<uint16_t>(static_cast<uint8_t>(bytes[2 * i]) | static_cast<uint8_t>(bytes[2 * i + 1]) << 8);
  }
  std::vector<Expected> records;
  size_t at = 0;
  while (at + 2 <= words.size()) {
    const size_t n = words[at + 1];
    if (at + 2 + n > words.size()) break;
    records.push_back({words[at], Ids(words.begin() + at + 2, words.begin() + at + 2 + n)});
    at += 2 + n;
  }
  EXPECT_EQ(at, words.size()) << path << " ends inside a record";
  EXPECT_EQ(bytes.size() % 2, 0u) << path;
  return records;
}

class BpeParity : public ::testing::TestWithParam<Family> {
 protected:
  void SetUp() override {
    auto file = gguf::GgufFile::Open(Path(".gguf"));
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    auto tok = LoadTokenizerFromGguf(**file);
    ASSERT_TRUE(tok.ok()) << tok.status().ToString();
    tok_ = std::move(*tok);
    expected_ = ReadIdRecords(Path(".ids"));
    ASSERT_GE(expected_.size(), 11500u);  // the corpus's odd lines
    for (const Expected& e : expected_) ASSERT_TRUE(e.line >= 1 && e.line <= Corpus().size()) << e.line;
    for (nlohmann::json& row : testing::ReadJsonLinesAt(Path("_cases.jsonl"))) {
      if (row.contains("line")) {
        const auto line = row["line"].get<size_t>();
        line_cases_[line] = std::move(row);
      } else {
        template_cases_.push_back(std::move(row));
      }
    }
    ASSERT_GE(template_cases_.size(), 100u);
  }
  std::string Path(const char* suffix) const { return BpeFixturePath(std::string(GetParam().name) + suffix); }
  // The corpus-line row of make_fixture.py's _cases.jsonl, or an empty object.
  const nlohmann::json& LineCase(size_t line) const {
    static const nlohmann::json kNone = nlohmann::json::object();
    const auto it = line_cases_.find(line);
    return it == line_cases_.end() ? kNone : it->second;
  }

  std::unique_ptr<Tokenizer> tok_;
  std::vector<Expected> expected_;
  std::map<size_t, nlohmann::json> line_cases_;
  std::vector<nlohmann::json> template_cases_;
};

void ReportMismatch(int* count, const std::string& what, const std::string& text, const Ids& want, const Ids& got) {
  if (++*count > kMaxReported) return;
  ADD_FAILURE() << what << " \"" << Escape(text) << "\"\n  expected " << IdsToString(want) << "\n  got      "
                << IdsToString(got);
}

void ReportTextMismatch(int* count, const std::string& what, const std::string& want, const std::string& got) {
  if (++*count > kMaxReported) return;
  ADD_FAILURE() << what << "\n  expected \"" << Escape(want) << "\"\n  got      \"" << Escape(got) << "\"";
}

TEST_P(BpeParity, ReadsTheGgufMetadata) {
  const Family& f = GetParam();
  EXPECT_EQ(tok_->vocab_size(), f.vocab_size);
  EXPECT_EQ(tok_->bos_id(), f.bos_id);
  EXPECT_EQ(tok_->add_bos(), f.add_bos);
  EXPECT_FALSE(tok_->add_eos());
  EXPECT_FALSE(tok_->strips_leading_space());
  const auto control = tok_->FindToken(f.control_token);
  ASSERT_TRUE(control.has_value()) << f.control_token;
  EXPECT_EQ(tok_->GetTokenType(*control), TokenType::kControl);
  if (f.user_defined_token != nullptr) {
    const auto user = tok_->FindToken(f.user_defined_token);
    ASSERT_TRUE(user.has_value()) << f.user_defined_token;
    EXPECT_EQ(tok_->GetTokenType(*user), TokenType::kUserDefined);
  }
}

TEST_P(BpeParity, CorpusIdsMatchHuggingFace) {
  int mismatches = 0;
  for (const Expected& e : expected_) {
    const std::string& text = Corpus()[e.line - 1];
    const Ids got = tok_->Encode(text, {.add_special = false});
    if (got != e.ids) ReportMismatch(&mismatches, "line " + std::to_string(e.line), text, e.ids, got);
    // With add_special, only the BOS of the families that add one.
    // Built by reserve and push_back: GCC 12 warns (wrongly) about inserting
    // a range into a possibly empty initializer-list vector here.
    Ids with_bos;
    with_bos.reserve(e.ids.size() + 1);
    if (GetParam().add_bos) with_bos.push_back(GetParam().bos_id);
    for (const auto id : e.ids) with_bos.push_back(id);
    const Ids got_with_bos = tok_->Encode(text);
    if (got_with_bos != with_bos) {
      ReportMismatch(&mismatches, "add_special, line " + std::to_string(e.line), text, with_bos, got_with_bos);
    }
  }
  EXPECT_EQ(mismatches, 0) << "lines differing from HF out of " << expected_.size();
}

// Special tokens as plain text (HF's encode_special_tokens); user-defined
// added tokens are still recognized.
TEST_P(BpeParity, CorpusIdsWithoutParsingSpecialMatchHuggingFace) {
  int mismatches = 0;
  int changed = 0;
  for (const Expected& e : expected_) {
    const nlohmann::json& row = LineCase(e.line);
    const bool differs = row.contains("ids_no_special");
    changed += differs;
    const Ids want = differs ? row["ids_no_special"].get<Ids>() : e.ids;
    const std::string& text = Corpus()[e.line - 1];
    const Ids got = tok_->Encode(text, {.add_special = false, .parse_special = false});
    if (got != want) ReportMismatch(&mismatches, "line " + std::to_string(e.line), text, want, got);
  }
  EXPECT_GE(changed, GetParam().min_lines_no_special_differs);
  EXPECT_EQ(mismatches, 0);
}

// Held-out lines inside the family's chat template: its own special tokens
// (and Qwen2's user-defined <tool_call>) next to ordinary text.
TEST_P(BpeParity, ChatTemplateIdsMatchHuggingFace) {
  int mismatches = 0;
  for (const nlohmann::json& row : template_cases_) {
    const std::string text = row["text"].get<std::string>();
    for (bool parse : {true, false}) {
      const Ids want = row[parse ? "ids" : "ids_no_special"].get<Ids>();
      const Ids got = tok_->Encode(text, {.add_special = false, .parse_special = parse});
      if (got != want) ReportMismatch(&mismatches, parse ? "template" : "template, no special", text, want, got);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_P(BpeParity, DecodeOfEncodeMatchesHuggingFace) {
  int mismatches = 0;
  for (const Expected& e : expected_) {
    const nlohmann::json& row = LineCase(e.line);
    const std::string want = row.contains("decode") ? row["decode"].get<std::string>() : Corpus()[e.line - 1];
    const std::string want_skip =
        row.contains("decode_skip_special") ? row["decode_skip_special"].get<std::string>() : want;
    for (bool skip : {false, true}) {
      const StatusOr<std::string> got = tok_->Decode(e.ids, skip);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      if (*got != (skip ? want_skip : want)) {
        ReportTextMismatch(&mismatches, "line " + std::to_string(e.line) + (skip ? " skip_special" : ""),
                           skip ? want_skip : want, *got);
      }
    }
  }
  for (const nlohmann::json& row : template_cases_) {
    const Ids ids = row["ids"].get<Ids>();
    for (bool skip : {false, true}) {
      const std::string want = row[skip ? "decode_skip_special" : "text"].get<std::string>();
      const StatusOr<std::string> got = tok_->Decode(ids, skip);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      if (*got != want) ReportTextMismatch(&mismatches, IdsToString(ids), want, *got);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// Random id sequences, many cutting UTF-8 sequences apart: HF's ByteLevel
// decoder replaces the ill-formed parts of the joined bytes, as Pagoda does.
TEST_P(BpeParity, DecodeOfRandomIdsMatchesHuggingFace) {
  const auto cases = testing::ReadJsonLinesAt(Path("_decode.jsonl"));
  ASSERT_GE(cases.size(), 200u);
  int mismatches = 0;
  int replaced = 0;
  for (const auto& row : cases) {
    const Ids ids = row["ids"].get<Ids>();
    for (bool skip : {false, true}) {
      const auto want = row[skip ? "text_skip_special" : "text"].get<std::string>();
      replaced += want.find("\xEF\xBF\xBD") != std::string::npos;
      const StatusOr<std::string> got = tok_->Decode(ids, skip);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      if (*got != want) ReportTextMismatch(&mismatches, IdsToString(ids) + " skip_special=" + std::to_string(skip),
                                           want, *got);
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(replaced, 10) << "too few cases cut UTF-8 sequences apart";
}

TEST_P(BpeParity, StreamingMatchesDecode) {
  int mismatches = 0;
  for (const auto& row : testing::ReadJsonLinesAt(Path("_decode.jsonl"))) {
    for (bool skip : {false, true}) testing::ExpectStreamMatchesDecode(*tok_, row["ids"].get<Ids>(), skip, &mismatches);
  }
  for (const nlohmann::json& row : template_cases_) {
    for (bool skip : {false, true}) testing::ExpectStreamMatchesDecode(*tok_, row["ids"].get<Ids>(), skip, &mismatches);
  }
  EXPECT_EQ(mismatches, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Families, BpeParity,
    ::testing::Values(Family{"llama-bpe", 4053, 4048, true, "<|eot_id|>", nullptr, 0},
                      Family{"qwen2", 4053, 4048, false, "<|im_start|>", "<tool_call>", 100},
                      Family{"deepseek-llm", 4050, 4048, true, "<\uff5cend\u2581of\u2581sentence\uff5c>", nullptr, 0},
                      Family{"tekken", 4048, 1, true, "[INST]", nullptr, 0},
                      Family{"gpt-4o", 4050, 4048, false, "<|endofprompt|>", nullptr, 50}),
    [](const auto& info) {
      std::string name = info.param.name;
      for (char& c : name) c = c == '-' ? '_' : c;
      return name;
    });

}  // namespace
}  // namespace pagoda::tokenizer
