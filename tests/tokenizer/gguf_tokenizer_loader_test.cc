#include "pagoda/tokenizer/gguf_tokenizer_loader.h"

#include <gtest/gtest.h>

#include <bit>
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

  GgufBuilder& Float32s(const std::string& key, const std::vector<float>& values) {
    Key(key, 9);
    Le(6, 4);
    Le(values.size(), 8);
    for (float v : values) Le(std::bit_cast<uint32_t>(v), 4);
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
    b.String("tokenizer.ggml.model", "t5").Strings("tokenizer.ggml.tokens", ToyTokens());
    auto file = b.Open();
    ASSERT_TRUE(file.ok());
    EXPECT_EQ(LoadTokenizerFromGguf(**file).status().code(), StatusCode::kUnimplemented);
  }
  {
    GgufBuilder b;
    b.String("tokenizer.ggml.model", "llama")
        .Strings("tokenizer.ggml.tokens", {"a", "b"})
        .Float32s("tokenizer.ggml.scores", {0.0f});
    auto file = b.Open();
    ASSERT_TRUE(file.ok());
    EXPECT_EQ(LoadTokenizerFromGguf(**file).status().code(), StatusCode::kInvalidArgument);
  }
}

// llama.cpp's defaults for a SentencePiece vocabulary without the flags:
// BOS added, space prefix on.
TEST(tokenizer_gguf_loader, SentencePieceFlagsDefaultToLlamaCpps) {
  GgufBuilder b;
  b.String("tokenizer.ggml.model", "llama")
      .Strings("tokenizer.ggml.tokens", {"<s>", std::string("\xE2\x96\x81") + "a", "a"})
      .Float32s("tokenizer.ggml.scores", {0.0f, -1.5f, -2.0f})
      .Int32s("tokenizer.ggml.token_type", {3, 1, 1})
      .Uint32("tokenizer.ggml.bos_token_id", 0);
  auto file = b.Open();
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  auto spec = TokenizerSpecFromGguf(**file);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->scores, (std::vector<float>{0.0f, -1.5f, -2.0f}));
  EXPECT_TRUE(spec->add_bos);
  EXPECT_TRUE(spec->add_space_prefix);
  auto tok = Tokenizer::Create(*spec);
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  EXPECT_EQ((*tok)->Encode("a"), (std::vector<TokenId>{0, 1}));

  b.Bool("tokenizer.ggml.add_bos_token", false).Bool("tokenizer.ggml.add_space_prefix", false);
  file = b.Open();
  ASSERT_TRUE(file.ok());
  spec = TokenizerSpecFromGguf(**file);
  ASSERT_TRUE(spec.ok());
  EXPECT_FALSE(spec->add_bos);
  EXPECT_FALSE(spec->add_space_prefix);
}

}  // namespace
}  // namespace pagoda::tokenizer
