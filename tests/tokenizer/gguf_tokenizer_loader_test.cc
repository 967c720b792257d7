#include "pagoda/tokenizer/gguf_tokenizer_loader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "pagoda/tokenizer/byte_level.h"
#include "test_data.h"

namespace pagoda::tokenizer {
namespace {

// Writes a tensor-less GGUF v3 file with the metadata entries added to it.
class GgufBuilder {
 public:
  GgufBuilder& String(const std::string& key, const std::string& value) {
    Key(key, 8);
    Str(value);
    ++count_;
    return *this;
  }
  GgufBuilder& Uint32(const std::string& key, uint32_t value) {
    Key(key, 4);
    Le(value, 4);
    ++count_;
    return *this;
  }
  GgufBuilder& Bool(const std::string& key, bool value) {
    Key(key, 7);
    body_.push_back(value ? 1 : 0);
    ++count_;
    return *this;
  }
  GgufBuilder& Strings(const std::string& key, const std::vector<std::string>& values) {
    Key(key, 9);
    Le(8, 4);
    Le(values.size(), 8);
    for (const std::string& v : values) Str(v);
    ++count_;
    return *this;
  }
  GgufBuilder& Int32s(const std::string& key, const std::vector<int32_t>& values) {
    Key(key, 9);
    Le(5, 4);
    Le(values.size(), 8);
    for (int32_t v : values) Le(static_cast<uint32_t>(v), 4);
    ++count_;
    return *this;
  }

  StatusOr<std::unique_ptr<gguf::GgufFile>> Open() const {
    std::vector<uint8_t> file = {'G', 'G', 'U', 'F', 3, 0, 0, 0};
    for (int i = 0; i < 8; ++i) file.push_back(0);  // tensor count
    for (int i = 0; i < 8; ++i) file.push_back(static_cast<uint8_t>(count_ >> (8 * i)));
    file.insert(file.end(), body_.begin(), body_.end());
    return gguf::GgufFile::FromBytes(std::move(file));
  }

 private:
  void Le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) body_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void Str(const std::string& s) {
    Le(s.size(), 8);
    body_.insert(body_.end(), s.begin(), s.end());
  }
  void Key(const std::string& key, uint32_t type) {
    Str(key);
    Le(type, 4);
  }

  std::vector<uint8_t> body_;
  uint64_t count_ = 0;
};

std::vector<std::string> ToyTokens() {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.push_back(BytesToVocabText(std::string(1, static_cast<char>(b))));
  tokens.push_back("ab");     // 256
  tokens.push_back("<bos>");  // 257
  return tokens;
}

GgufBuilder ToyGguf() {
  std::vector<int32_t> types(258, 1);
  types[257] = 3;
  GgufBuilder b;
  b.String("tokenizer.ggml.model", "gpt2")
      .String("tokenizer.ggml.pre", "gpt2")
      .Strings("tokenizer.ggml.tokens", ToyTokens())
      .Int32s("tokenizer.ggml.token_type", types)
      .Strings("tokenizer.ggml.merges", {"a b"});
  return b;
}

TEST(tokenizer_gguf_loader, ReadsTheDefaultModel) {
  PAGODA_REQUIRE_MODEL_TOKENIZER();
  const TokenizerSpec& spec = *testing::ModelSpec();
  EXPECT_EQ(spec.model, "gpt2");
  EXPECT_EQ(spec.pre, "smollm");
  EXPECT_EQ(spec.tokens.size(), 49152u);
  EXPECT_EQ(spec.token_types.size(), 49152u);
  EXPECT_EQ(spec.merges.size(), 48900u);
  EXPECT_EQ(spec.merges[0], "\xC4\xA0 t");  // "Ġ t"
  EXPECT_EQ(spec.token_types[2], TokenType::kControl);
  EXPECT_EQ(spec.token_types[17], TokenType::kNormal);
  EXPECT_EQ(spec.bos_id, 1);
  EXPECT_EQ(spec.eos_id, 2);
  EXPECT_EQ(spec.unk_id, 0);
  EXPECT_EQ(spec.pad_id, 2);
  EXPECT_FALSE(spec.add_bos);
  EXPECT_FALSE(spec.add_eos);
}

TEST(tokenizer_gguf_loader, BuildsATokenizerFromMetadata) {
  GgufBuilder builder = ToyGguf();
  builder.Uint32("tokenizer.ggml.bos_token_id", 257).Bool("tokenizer.ggml.add_bos_token", true);
  auto file = builder.Open();
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  auto tok = LoadTokenizerFromGguf(**file);
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  EXPECT_EQ((*tok)->Encode("abc"), (std::vector<TokenId>{257, 256, 'c'}));
  EXPECT_TRUE((*tok)->IsSpecial(257));
  EXPECT_EQ((*tok)->eos_id(), std::nullopt);
}

TEST(tokenizer_gguf_loader, ReportsMissingAndBadMetadata) {
  {
    auto file = GgufBuilder().String("tokenizer.ggml.pre", "gpt2").Open();
    ASSERT_TRUE(file.ok());
    EXPECT_EQ(TokenizerSpecFromGguf(**file).status().code(), StatusCode::kNotFound);
  }
  {
    // No pre-tokenizer name means llama.cpp's "default", which is not supported.
    GgufBuilder b;
    b.String("tokenizer.ggml.model", "gpt2").Strings("tokenizer.ggml.tokens", ToyTokens());
    auto file = b.Open();
    ASSERT_TRUE(file.ok());
    const Status status = LoadTokenizerFromGguf(**file).status();
    EXPECT_EQ(status.code(), StatusCode::kUnimplemented);
    EXPECT_NE(status.message().find("\"default\""), std::string::npos) << status.message();
  }
  {
    GgufBuilder b = ToyGguf();
    b.Uint32("tokenizer.ggml.eos_token_id", 9999);
    auto file = b.Open();
    ASSERT_TRUE(file.ok());
    EXPECT_EQ(LoadTokenizerFromGguf(**file).status().code(), StatusCode::kInvalidArgument);
  }
  {
    GgufBuilder b;
    b.String("tokenizer.ggml.model", "gpt2")
        .String("tokenizer.ggml.pre", "gpt2")
        .Strings("tokenizer.ggml.tokens", ToyTokens())
        .Int32s("tokenizer.ggml.token_type", std::vector<int32_t>(258, 7));
    auto file = b.Open();
    ASSERT_TRUE(file.ok());
    EXPECT_EQ(TokenizerSpecFromGguf(**file).status().code(), StatusCode::kInvalidArgument);
  }
  {
    GgufBuilder b;
    b.String("tokenizer.ggml.model", "llama").String("tokenizer.ggml.pre", "default");
    b.Strings("tokenizer.ggml.tokens", ToyTokens());
    auto file = b.Open();
    ASSERT_TRUE(file.ok());
    EXPECT_EQ(LoadTokenizerFromGguf(**file).status().code(), StatusCode::kUnimplemented);
  }
}

}  // namespace
}  // namespace pagoda::tokenizer
