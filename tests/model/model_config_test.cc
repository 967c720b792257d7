#include "pagoda/model/model_config.h"

#include <gtest/gtest.h>

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/model/model.h"

namespace pagoda {
namespace {

TEST(ModelConfigTest, ReadsSmolLM2Hyperparameters) {
  auto file = gguf::GgufFile::Open(PAGODA_TEST_MODEL);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  auto config = ModelConfigFromGguf(**file);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  // Values as published in SmolLM2-135M's config.json.
  EXPECT_EQ(config->architecture, "llama");
  EXPECT_EQ(config->vocab_size, 49152);
  EXPECT_EQ(config->hidden_size, 576);
  EXPECT_EQ(config->num_layers, 30);
  EXPECT_EQ(config->num_heads, 9);
  EXPECT_EQ(config->num_kv_heads, 3);
  EXPECT_EQ(config->head_dim, 64);
  EXPECT_EQ(config->intermediate_size, 1536);
  EXPECT_EQ(config->max_context, 8192);
  EXPECT_FLOAT_EQ(config->rope_freq_base, 100000.0f);
  EXPECT_FLOAT_EQ(config->rms_norm_eps, 1e-5f);
}

TEST(ModelConfigTest, AnUnknownArchitectureIsAClearError) {
  // The GGUF test fixture is valid but names an architecture no one implements.
  auto file = gguf::GgufFile::Open(std::string(PAGODA_FIXTURES_DIR) + "/gguf/all_types_v3.gguf");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  auto model = LoadModel(std::shared_ptr<const gguf::GgufFile>(std::move(*file)));
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(model.status().message().find("'pagoda-test' is not supported"), std::string::npos)
      << model.status().ToString();
}

}  // namespace
}  // namespace pagoda
