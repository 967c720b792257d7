// WeightLoader hands out matrices only of types the kernels run, and names
// the tensor, its type and the runnable types otherwise.
#include "pagoda/model/weight_loader.h"

#include <gtest/gtest.h>

#include <string>

#include "pagoda/formats/gguf/gguf_file.h"

namespace pagoda {
namespace {

TEST(WeightLoaderTest, RefusesReadableTypesWithoutKernels) {
  auto file = gguf::GgufFile::Open(std::string(PAGODA_FIXTURES_DIR) + "/gguf/block_types.gguf");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const WeightLoader loader(**file);
  StatusOr<kernels::MatrixView> m = loader.Matrix("tensor.q4_k", 3, 256);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(m.status().message(),
            "model tensor 'tensor.q4_k' is Q4_K, which Pagoda reads but has no kernels for yet "
            "(it runs F32, F16, BF16, Q4_0, Q4_1, Q8_0)");
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
