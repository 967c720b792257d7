// The real default model (SmolLM2-135M, Q4_1 with a Q8_0 embedding).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda::gguf {
namespace {

class gguf_model : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(PAGODA_TEST_MODEL)) GTEST_SKIP() << "model not installed: " << PAGODA_TEST_MODEL;
    const auto start = std::chrono::steady_clock::now();
    auto file = GgufFile::Open(PAGODA_TEST_MODEL);
    open_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    file_ = std::move(file).value();
  }
  std::unique_ptr<GgufFile> file_;
  double open_ms_ = 0;
};

TEST_F(gguf_model, HeaderAndArchitecture) {
  EXPECT_EQ(file_->version(), 3u);
  EXPECT_EQ(file_->alignment(), 32u);
  EXPECT_EQ(file_->metadata().size(), 33u);
  EXPECT_EQ(*file_->GetString("general.architecture"), "llama");
  EXPECT_EQ(*file_->GetUint("llama.block_count"), 30u);
  EXPECT_EQ(*file_->GetUint("llama.embedding_length"), 576u);
  EXPECT_EQ(*file_->GetUint("llama.feed_forward_length"), 1536u);
  EXPECT_EQ(*file_->GetUint("llama.attention.head_count"), 9u);
  EXPECT_EQ(*file_->GetUint("llama.attention.head_count_kv"), 3u);
  EXPECT_EQ(*file_->GetUint("llama.context_length"), 8192u);
  EXPECT_EQ(*file_->GetUint("llama.vocab_size"), 49152u);
  EXPECT_EQ(*file_->GetUint("llama.rope.dimension_count"), 64u);
  EXPECT_EQ(*file_->GetFloat("llama.rope.freq_base"), 100000.0);
  EXPECT_EQ(*file_->GetFloat("llama.attention.layer_norm_rms_epsilon"), static_cast<double>(1e-5f));
  EXPECT_FALSE(*file_->GetBool("tokenizer.ggml.add_bos_token"));
}

TEST_F(gguf_model, Tokenizer) {
  EXPECT_EQ(*file_->GetString("tokenizer.ggml.model"), "gpt2");
  const auto tokens = file_->GetStringArray("tokenizer.ggml.tokens");
  ASSERT_TRUE(tokens.ok()) << tokens.status().ToString();
  ASSERT_EQ(tokens->size(), 49152u);
  EXPECT_EQ((*tokens)[0], "<|endoftext|>");
  EXPECT_EQ((*tokens)[2], "<|im_end|>");
  const auto types = file_->GetIntArray("tokenizer.ggml.token_type");
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  ASSERT_EQ(types->size(), 49152u);
  EXPECT_EQ((*types)[0], 3);
  const Value* merges = file_->Find("tokenizer.ggml.merges");
  ASSERT_NE(merges, nullptr);
  ASSERT_EQ(merges->strings().size(), 48900u);
  EXPECT_EQ(merges->strings()[0], "\u0120 t");
  EXPECT_EQ(*file_->GetUint("tokenizer.ggml.bos_token_id"), 1u);
  EXPECT_EQ(*file_->GetUint("tokenizer.ggml.eos_token_id"), 2u);
}

TEST_F(gguf_model, TensorTable) {
  ASSERT_EQ(file_->tensors().size(), 272u);
  const TensorInfo* embd = file_->FindTensor("token_embd.weight");
  ASSERT_NE(embd, nullptr);
  EXPECT_EQ(embd->dtype, DType::kQ8_0);
  EXPECT_EQ(embd->shape, (std::vector<int64_t>{576, 49152}));
  EXPECT_EQ(embd->nbytes, 576u / 32 * 34 * 49152);
  const TensorInfo* q = file_->FindTensor("blk.29.attn_q.weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->dtype, DType::kQ4_1);
  EXPECT_EQ(q->shape, (std::vector<int64_t>{576, 576}));
  const TensorInfo* norm = file_->FindTensor("output_norm.weight");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->dtype, DType::kF32);
  EXPECT_EQ(norm->shape, (std::vector<int64_t>{576}));
  uint64_t total = 0;
  for (const TensorInfo& t : file_->tensors()) total += t.nbytes;
  EXPECT_LE(file_->data_offset() + total, file_->file_size());
}

// Every CLI start opens the model. Reported always; the bound is loose so
// sanitizer and debug builds pass.
TEST_F(gguf_model, OpensQuickly) {
  std::cout << "model open took " << open_ms_ << " ms\n";
  RecordProperty("open_ms", std::to_string(open_ms_));
  EXPECT_LT(open_ms_, 1000.0);
}

}  // namespace
}  // namespace pagoda::gguf
