// Tokenizers built from Hugging Face tokenizer.json files against HF
// `tokenizers` itself: tests/fixtures/hf_models/tokenizer_cases.json (made by
// make_checkpoints.py there) holds, per tokenizer.json, each text's ids with
// and without special tokens and the decodes of those ids, skipping special
// tokens or not. And the chat templates as transformers finds them.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pagoda/tokenizer/hf_tokenizer_loader.h"

namespace pagoda::tokenizer {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

fs::path FixtureDir() { return fs::path(PAGODA_FIXTURES_DIR) / "hf_models"; }

json Cases() {
  std::ifstream in(FixtureDir() / "tokenizer_cases.json");
  EXPECT_TRUE(in.good()) << "missing hf_models/tokenizer_cases.json";
  return json::parse(in);
}

class HfTokenizerTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    entry_ = Cases()["tokenizers"][GetParam()];
    dir_ = (FixtureDir() / entry_["tokenizer_json"].get<std::string>()).parent_path();
    auto loaded = LoadTokenizerFromHf(dir_.string());
    ASSERT_TRUE(loaded.ok()) << GetParam() << ": " << loaded.status().ToString();
    tokenizer_ = std::move(*loaded);
  }

  json entry_;
  fs::path dir_;
  std::unique_ptr<Tokenizer> tokenizer_;
};

TEST_P(HfTokenizerTest, EncodesAsHuggingFaceDoes) {
  for (const json& c : entry_["cases"]) {
    const std::string text = c["text"];
    EXPECT_EQ(tokenizer_->Encode(text, {.add_special = false}), c["ids"].get<std::vector<TokenId>>())
        << GetParam() << ": '" << text << "'";
    EXPECT_EQ(tokenizer_->Encode(text, {.add_special = true}), c["ids_with_special"].get<std::vector<TokenId>>())
        << GetParam() << " with special tokens: '" << text << "'";
  }
}

TEST_P(HfTokenizerTest, DecodesAsHuggingFaceDoes) {
  for (const json& c : entry_["cases"]) {
    const auto ids = c["ids"].get<std::vector<TokenId>>();
    const auto with_special = c["ids_with_special"].get<std::vector<TokenId>>();
    EXPECT_EQ(*tokenizer_->Decode(ids), c["decode"].get<std::string>()) << GetParam() << ": " << c["text"];
    EXPECT_EQ(*tokenizer_->Decode(with_special, /*skip_special_tokens=*/true),
              c["decode_with_special_skip_special"].get<std::string>())
        << GetParam() << ": " << c["text"];
  }
}

INSTANTIATE_TEST_SUITE_P(Tokenizers, HfTokenizerTest,
                         ::testing::Values("qwen2-bpe-nfc", "qwen2-bpe", "llama3-bpe", "gemma-sp", "phi3-sp",
                                           "llama2-sp"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(HfChatTemplateTest, FoundWhereTransformersFindsIt) {
  const json cases = Cases()["chat_templates"];
  for (const auto& [checkpoint, entry] : cases.items()) {
    auto found = ChatTemplateFromHf((FixtureDir() / checkpoint).string());
    ASSERT_TRUE(found.ok()) << checkpoint << ": " << found.status().ToString();
    ASSERT_TRUE(found->has_value()) << checkpoint;
    const std::string where = entry["template_in"];
    std::string expected;
    if (where == "chat_template.jinja") {
      std::ifstream in(FixtureDir() / checkpoint / "chat_template.jinja", std::ios::binary);
      expected.assign(std::istreambuf_iterator<char>(in), {});
    } else {
      std::ifstream in(FixtureDir() / checkpoint / "tokenizer_config.json");
      expected = json::parse(in)["chat_template"].get<std::string>();
    }
    EXPECT_EQ(**found, expected) << checkpoint;
  }
  auto none = ChatTemplateFromHf((FixtureDir() / "qwen3-bf16").string());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

// Added tokens flagged lstrip/rstrip take the whitespace beside them, as HF
// tokenizers does: tests/fixtures/hf_tokenizer_strip (make_strip_cases.py
// there) flags the specials of two tiny tokenizers and records tokenizers'
// ids for texts with every kind of whitespace next to them.
TEST(HfTokenizerStripTest, AddedTokensTakeTheirWhitespaceAsHuggingFaceDoes) {
  const fs::path dir = fs::path(PAGODA_FIXTURES_DIR) / "hf_tokenizer_strip";
  std::ifstream in(dir / "cases.json");
  ASSERT_TRUE(in.good());
  const json cases = json::parse(in);
  int checked = 0;
  for (const auto& [base, entry] : cases["bases"].items()) {
    auto loaded = LoadTokenizerFromHf((dir / base).string());
    ASSERT_TRUE(loaded.ok()) << base << ": " << loaded.status().ToString();
    for (const json& c : entry["cases"]) {
      const std::string text = c["text"];
      EXPECT_EQ((*loaded)->Encode(text, {.add_special = false}), c["ids"].get<std::vector<TokenId>>())
          << base << " " << json(text).dump();
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace pagoda::tokenizer
