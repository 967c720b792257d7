// LoadModelFiles' --load-format: what each value reads, what it refuses by
// name, and dummy's tokenizer (the directory's, else a placeholder of the
// config's vocabulary).
#include "pagoda/engine/model_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <unistd.h>

namespace pagoda {
namespace {

namespace fs = std::filesystem;

ModelLoadOptions WithLoadFormat(const std::string& format) {
  ModelLoadOptions options;
  options.load_format = format;
  return options;
}

fs::path HfFixture(const std::string& name) { return fs::path(PAGODA_FIXTURES_DIR) / "hf_models" / name; }

// A directory with some of a fixture checkpoint's files.
class PartialCopy {
 public:
  PartialCopy(const std::string& name, std::initializer_list<const char*> files)
      : dir_(fs::temp_directory_path() / ("pagoda_model_files_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const char* f : files) fs::copy_file(HfFixture(name) / f, dir_ / f);
  }
  ~PartialCopy() { fs::remove_all(dir_); }
  std::string path() const { return dir_.string(); }

 private:
  fs::path dir_;
};

TEST(ModelFilesTest, DummyWithoutATokenizerGetsAPlaceholderOfTheModelsVocabulary) {
  const PartialCopy dir("llama-bf16", {"config.json"});
  auto loaded = LoadModelFiles(dir.path(), /*with_weights=*/true, WithLoadFormat("dummy"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_NE(loaded->model, nullptr);
  EXPECT_EQ(loaded->tokenizer->vocab_size(), loaded->model->config().vocab_size);
  const auto ids = loaded->tokenizer->Encode("hi");
  EXPECT_EQ(ids, (std::vector<tokenizer::TokenId>{'h', 'i'}));
}

TEST(ModelFilesTest, DummyKeepsTheDirectorysTokenizer) {
  const PartialCopy dir("qwen3-bf16", {"config.json", "tokenizer.json", "tokenizer_config.json"});
  auto dummy = LoadModelFiles(dir.path(), /*with_weights=*/false, WithLoadFormat("dummy"));
  ASSERT_TRUE(dummy.ok()) << dummy.status().ToString();
  auto real = LoadModelFiles(HfFixture("qwen3-bf16").string(), /*with_weights=*/false);
  ASSERT_TRUE(real.ok()) << real.status().ToString();
  EXPECT_EQ(dummy->tokenizer->vocab_size(), real->tokenizer->vocab_size());
  EXPECT_EQ(dummy->tokenizer->Encode("hello world"), real->tokenizer->Encode("hello world"));
}

TEST(ModelFilesTest, RefusesFormatsByName) {
  const std::string dir = HfFixture("llama-bf16").string();
  auto pt = LoadModelFiles(dir, false, WithLoadFormat("pt"));
  EXPECT_EQ(pt.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(pt.status().message().find("--load-format pt"), std::string::npos) << pt.status().message();
  auto gguf = LoadModelFiles(dir, false, WithLoadFormat("gguf"));
  EXPECT_EQ(gguf.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(gguf.status().message().find("--load-format gguf"), std::string::npos);
  auto unknown = LoadModelFiles(dir, false, WithLoadFormat("weights"));
  EXPECT_NE(unknown.status().message().find("'weights'"), std::string::npos);
  EXPECT_TRUE(LoadModelFiles(dir, false, WithLoadFormat("safetensors")).ok());
  const std::string file = (fs::path(PAGODA_FIXTURES_DIR) / "tiny_models" / "llama" / "model-f16.gguf").string();
  auto dummy_of_gguf = LoadModelFiles(file, false, WithLoadFormat("dummy"));
  EXPECT_EQ(dummy_of_gguf.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(LoadModelFiles(file, false, WithLoadFormat("gguf")).ok());
}

}  // namespace
}  // namespace pagoda
