// WeightLoader hands out matrices of every storage type, in place, and names
// the tensor when its shape is wrong.
#include "pagoda/model/weight_loader.h"

#include <gtest/gtest.h>

#include <string>

#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda {
namespace {

TEST(WeightLoaderTest, HandsOutEveryStorageType) {
  auto file = gguf::GgufFile::Open(std::string(PAGODA_FIXTURES_DIR) + "/gguf/block_types.gguf");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const WeightLoader loader(**file);
  for (const gguf::TensorInfo& t : (*file)->tensors()) {
    StatusOr<kernels::MatrixView> m = loader.Matrix(t.name, t.shape[1], t.shape[0]);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ(m->dtype, t.dtype) << t.name;
    EXPECT_EQ(m->data, t.data) << t.name;  // in place: the file's mapping
  }
}

TEST(WeightLoaderTest, RefusesAMatrixOfTheWrongShape) {
  auto file = gguf::GgufFile::Open(std::string(PAGODA_FIXTURES_DIR) + "/gguf/all_types_v3.gguf");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const WeightLoader loader(**file);
  StatusOr<kernels::MatrixView> m = loader.Matrix("tensor.q4_1", 2, 64);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("tensor.q4_1"), std::string::npos) << m.status().message();
}

TEST(WeightLoaderTest, HandsOutRunnableTypes) {
  auto file = gguf::GgufFile::Open(std::string(PAGODA_FIXTURES_DIR) + "/gguf/all_types_v3.gguf");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const WeightLoader loader(**file);
  StatusOr<kernels::MatrixView> m = loader.Matrix("tensor.q4_1", 1, 64);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->dtype, DType::kQ4_1);
  EXPECT_EQ(m->rows, 1);
  EXPECT_EQ(m->cols, 64);
}

}  // namespace
}  // namespace pagoda
