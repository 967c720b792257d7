// --load-format dummy: the tensors a config describes, against the names,
// shapes and types of the real fixture checkpoints that transformers wrote
// from the same configs (tests/fixtures/hf_models), and the random values'
// rules.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <unistd.h>

#include "pagoda/model/hf/dummy_weights.h"
#include "pagoda/model/hf/hf_checkpoint.h"
#include "pagoda/tensor/half.h"

namespace pagoda::hf {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

fs::path Fixture(const std::string& name) { return fs::path(PAGODA_FIXTURES_DIR) / "hf_models" / name; }

json Config(const std::string& name) {
  std::ifstream in(Fixture(name) / "config.json");
  return json::parse(in);
}

// A directory holding only a fixture's config.json.
class ConfigOnly {
 public:
  explicit ConfigOnly(const std::string& name)
      : dir_(fs::temp_directory_path() / ("pagoda_dummy_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    fs::copy_file(Fixture(name) / "config.json", dir_ / "config.json");
  }
  ~ConfigOnly() { fs::remove_all(dir_); }
  std::string path() const { return dir_.string(); }

 private:
  fs::path dir_;
};

// name -> (GGML shape, dtype) of every tensor of a GGUF view.
std::map<std::string, std::pair<std::vector<int64_t>, DType>> Tensors(const gguf::GgufFile& f) {
  std::map<std::string, std::pair<std::vector<int64_t>, DType>> out;
  for (const gguf::TensorInfo& t : f.tensors()) out[t.name] = {t.shape, t.dtype};
  return out;
}

class DummyMatchesTheRealCheckpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(DummyMatchesTheRealCheckpoint, SameTensorsShapesAndTypes) {
  const ConfigOnly dir(GetParam());
  auto dummy = OpenHfCheckpoint(dir.path(), {.random_weights = true});
  ASSERT_TRUE(dummy.ok()) << dummy.status().ToString();
  auto real = OpenHfCheckpoint(Fixture(GetParam()).string());
  ASSERT_TRUE(real.ok()) << real.status().ToString();
  EXPECT_EQ(Tensors(*dummy->file), Tensors(*real->file));
  EXPECT_NE(dummy->description.find("random values (--load-format dummy)"), std::string::npos) << dummy->description;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DummyMatchesTheRealCheckpoint,
                         ::testing::Values("llama-bf16", "llama-f16", "mistral-bf16", "qwen2-bf16", "qwen3-bf16"));

TEST(DummyWeightsTest, RefusesArchitecturesItDoesNotBuild) {
  const auto shapes = DummyTensorShapes(Config("gemma2-bf16"));
  ASSERT_FALSE(shapes.ok());
  EXPECT_EQ(shapes.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(shapes.status().message().find("Gemma2ForCausalLM"), std::string::npos) << shapes.status().message();
}

TEST(DummyWeightsTest, RefusesQuantizationAndNeedsNoSafetensors) {
  const ConfigOnly dir("llama-bf16");
  const auto quantized = OpenHfCheckpoint(dir.path(), {.quantization = "fp8", .random_weights = true});
  ASSERT_FALSE(quantized.ok());
  EXPECT_NE(quantized.status().message().find("--load-format dummy"), std::string::npos);
  EXPECT_FALSE(OpenHfCheckpoint(dir.path()).ok());  // without dummy it needs the weights
}

TEST(DummyWeightsTest, ValuesAreSeededByNameNormsOneBiasesZeroMatricesScaled) {
  const DummyTensorShape matrix{"model.layers.0.mlp.up_proj.weight", {64, 256}};
  std::vector<uint8_t> a, b, other;
  const auto ta = DummyTensor(matrix, DType::kF32, a);
  DummyTensor(matrix, DType::kF32, b);
  DummyTensor({"model.layers.1.mlp.up_proj.weight", {64, 256}}, DType::kF32, other);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, other);
  EXPECT_EQ(ta.shape, matrix.shape);
  ASSERT_EQ(ta.data.size(), 64u * 256u * 4u);
  std::vector<float> v(64 * 256);
  std::memcpy(v.data(), a.data(), a.size());
  // Uniform in +-1/16: every value inside, mean near 0, variance near 1/768.
  double sum = 0, squares = 0;
  for (float x : v) {
    EXPECT_LE(std::fabs(x), 1.0f / 16.0f);
    sum += x;
    squares += static_cast<double>(x) * x;
  }
  const double mean = sum / v.size();
  EXPECT_LT(std::fabs(mean), 0.003);
  EXPECT_NEAR(squares / v.size() - mean * mean, 1.0 / 768.0, 0.1 / 768.0);

  std::vector<uint8_t> norm, bias;
  DummyTensor({"model.norm.weight", {8}}, DType::kBF16, norm);
  DummyTensor({"model.layers.0.self_attn.q_proj.bias", {8}}, DType::kF32, bias);
  for (size_t i = 0; i < 8; ++i) {
    uint16_t h;
    std::memcpy(&h, norm.data() + 2 * i, 2);
    EXPECT_EQ(BF16ToF32(h), 1.0f);
    float f;
    std::memcpy(&f, bias.data() + 4 * i, 4);
    EXPECT_EQ(f, 0.0f);
  }
}

// The benchmarks' Llama 3 8B shape has Meta's published parameter count.
TEST(DummyWeightsTest, TheLlama3EightBConfigHasItsPublishedParameterCount) {
  std::ifstream in(fs::path(PAGODA_FIXTURES_DIR) / ".." / ".." / "bench" / "models" / "llama-3-8b" / "config.json");
  const auto shapes = DummyTensorShapes(json::parse(in));
  ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
  int64_t parameters = 0;
  for (const DummyTensorShape& t : *shapes) {
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    parameters += n;
  }
  EXPECT_EQ(parameters, 8'030'261'248);
}

TEST(DummyWeightsTest, TiedEmbeddingsHaveNoLmHead) {
  json config = Config("llama-bf16");
  config["tie_word_embeddings"] = true;
  const auto tied = DummyTensorShapes(config);
  ASSERT_TRUE(tied.ok());
  config["tie_word_embeddings"] = false;
  const auto untied = DummyTensorShapes(config);
  ASSERT_TRUE(untied.ok());
  EXPECT_EQ(untied->size(), tied->size() + 1);
  for (const DummyTensorShape& t : *tied) EXPECT_NE(t.name, "lm_head.weight");
}

}  // namespace
}  // namespace pagoda::hf
