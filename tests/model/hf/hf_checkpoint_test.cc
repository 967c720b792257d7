// hf::OpenHfCheckpoint's rules on the tiny checkpoints of
// tests/fixtures/hf_models (their logits are tests/runner/hf_checkpoints_test.cc's):
// the GGUF view's names, shapes and types, --dtype, and refusals that name
// what they refuse.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "pagoda/model/hf/hf_checkpoint.h"
#include "pagoda/model/model_config.h"

namespace pagoda::hf {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

fs::path Fixture(const std::string& name) { return fs::path(PAGODA_FIXTURES_DIR) / "hf_models" / name; }

// A copy of a fixture checkpoint whose config.json `edit` changes.
class EditedCheckpoint {
 public:
  EditedCheckpoint(const std::string& name, const std::function<void(json&)>& edit)
      : dir_(fs::temp_directory_path() / ("pagoda_hf_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::copy(Fixture(name), dir_, fs::copy_options::recursive);
    std::ifstream in(dir_ / "config.json");
    json config = json::parse(in);
    edit(config);
    std::ofstream(dir_ / "config.json") << config.dump(1);
  }
  ~EditedCheckpoint() { fs::remove_all(dir_); }
  std::string path() const { return dir_.string(); }

 private:
  fs::path dir_;
};

TEST(HfCheckpointTest, TranslatesConfigAndTensorsToGgufNames) {
  auto opened = OpenHfCheckpoint(Fixture("qwen2-bf16").string());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  const gguf::GgufFile& f = *opened->file;
  std::ifstream in(Fixture("qwen2-bf16") / "config.json");
  const json config = json::parse(in);
  EXPECT_EQ(*f.GetString("general.architecture"), "qwen2");
  EXPECT_EQ(*f.GetInt("qwen2.embedding_length"), config["hidden_size"].get<int64_t>());
  EXPECT_EQ(*f.GetInt("qwen2.block_count"), config["num_hidden_layers"].get<int64_t>());
  EXPECT_EQ(*f.GetInt("qwen2.attention.head_count_kv"), config["num_key_value_heads"].get<int64_t>());
  EXPECT_FLOAT_EQ(*f.GetFloat("qwen2.rope.freq_base"), config["rope_parameters"]["rope_theta"].get<double>());
  EXPECT_TRUE(*f.GetBool(kHfCheckpointKey));
  const gguf::TensorInfo* q = f.FindTensor("blk.0.attn_q.weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->dtype, DType::kBF16);  // in place, as stored
  EXPECT_EQ(q->shape, (std::vector<int64_t>{config["hidden_size"], config["hidden_size"]}));
  const gguf::TensorInfo* bias = f.FindTensor("blk.0.attn_q.bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->dtype, DType::kF32);  // vectors as GGUF keeps them
  // Tied embeddings: no output.weight, so the head reads token_embd.
  EXPECT_EQ(f.FindTensor("output.weight"), nullptr);
  EXPECT_NE(opened->description.find("as stored"), std::string::npos) << opened->description;
}

TEST(HfCheckpointTest, DtypeConvertsMatricesOnceAtLoad) {
  auto f32 = OpenHfCheckpoint(Fixture("qwen2-bf16").string(), {.dtype = WeightDtype::kFloat32});
  ASSERT_TRUE(f32.ok()) << f32.status().ToString();
  EXPECT_EQ(f32->file->FindTensor("blk.0.attn_q.weight")->dtype, DType::kF32);
  EXPECT_NE(f32->description.find("converted at load from BF16"), std::string::npos) << f32->description;
  // auto keeps 16-bit checkpoints and stores float32 ones in bfloat16, as vLLM's CPU backend does.
  auto from_f32 = OpenHfCheckpoint(Fixture("llama-f32").string());
  ASSERT_TRUE(from_f32.ok()) << from_f32.status().ToString();
  EXPECT_EQ(from_f32->file->FindTensor("blk.0.attn_q.weight")->dtype, DType::kBF16);
  auto f16 = OpenHfCheckpoint(Fixture("llama-f16").string());
  ASSERT_TRUE(f16.ok()) << f16.status().ToString();
  EXPECT_EQ(f16->file->FindTensor("blk.0.attn_q.weight")->dtype, DType::kF16);
}

TEST(HfCheckpointTest, ParsesVllmDtypeSpellings) {
  EXPECT_EQ(*ParseWeightDtype("auto"), WeightDtype::kAuto);
  EXPECT_EQ(*ParseWeightDtype("half"), WeightDtype::kFloat16);
  EXPECT_EQ(*ParseWeightDtype("float16"), WeightDtype::kFloat16);
  EXPECT_EQ(*ParseWeightDtype("bfloat16"), WeightDtype::kBFloat16);
  EXPECT_EQ(*ParseWeightDtype("float"), WeightDtype::kFloat32);
  EXPECT_EQ(*ParseWeightDtype("float32"), WeightDtype::kFloat32);
  const auto bad = ParseWeightDtype("fp8");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'fp8'"), std::string::npos);
}

TEST(HfCheckpointTest, Llama3RopeBecomesFrequencyFactors) {
  auto opened = OpenHfCheckpoint(Fixture("llama-bf16").string());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  const gguf::TensorInfo* freqs = opened->file->FindTensor("rope_freqs.weight");
  ASSERT_NE(freqs, nullptr);
  EXPECT_EQ(freqs->shape, (std::vector<int64_t>{32}));  // head_dim / 2
}

void ExpectRefusal(const std::string& fixture, const std::function<void(json&)>& edit, const std::string& names) {
  EditedCheckpoint c(fixture, edit);
  const auto opened = OpenHfCheckpoint(c.path());
  ASSERT_FALSE(opened.ok()) << names;
  EXPECT_NE(opened.status().message().find(names), std::string::npos) << opened.status().ToString();
}

TEST(HfCheckpointTest, RefusesWhatItDoesNotImplementByName) {
  ExpectRefusal("qwen2-bf16", [](json& c) { c["architectures"] = {"BertModel"}; }, "'BertModel' is not supported");
  ExpectRefusal("qwen2-bf16", [](json& c) { c["quantization_config"] = {{"quant_method", "awq"}}; },
                "quantization_config");
  ExpectRefusal("qwen2-bf16", [](json& c) { c["use_sliding_window"] = true; }, "use_sliding_window");
  ExpectRefusal("qwen2-bf16", [](json& c) { c["hidden_act"] = "gelu"; }, "hidden_act");
  ExpectRefusal("qwen2-bf16", [](json& c) { c["rope_parameters"]["rope_type"] = "yarn"; }, "RoPE type 'yarn'");
  ExpectRefusal("qwen3moe-bf16", [](json& c) { c["norm_topk_prob"] = false; }, "norm_topk_prob");
  ExpectRefusal("llama-bf16", [](json& c) { c["attention_bias"] = true; }, "attention_bias");
  ExpectRefusal("gemma2-bf16", [](json& c) { c["query_pre_attn_scalar"] = 100; }, "query_pre_attn_scalar");
  ExpectRefusal("qwen2-bf16", [](json& c) { c.erase("hidden_size"); }, "'hidden_size' is missing");
  // Untied but without lm_head.weight: never silently tied.
  ExpectRefusal("qwen2-bf16", [](json& c) { c["tie_word_embeddings"] = false; }, "lm_head.weight");
}

TEST(HfCheckpointTest, CorruptFilesAreClearErrors) {
  EditedCheckpoint c("qwen2-bf16", [](json&) {});
  std::ofstream(fs::path(c.path()) / "config.json") << "{ not json";
  const auto bad_config = OpenHfCheckpoint(c.path());
  ASSERT_FALSE(bad_config.ok());
  EXPECT_NE(bad_config.status().message().find("not valid JSON"), std::string::npos);
  EXPECT_FALSE(IsHfDirectory((fs::path(c.path()) / "config.json").string()));
  EXPECT_TRUE(IsHfDirectory(c.path()));
}

}  // namespace
}  // namespace pagoda::hf
