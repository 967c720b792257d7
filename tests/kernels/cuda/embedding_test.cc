// cuda::EmbeddingGather against the CPU reference's EmbeddingLookup and
// Scale: exact for F32, BF16 and F16 tables (widening is exact, and the
// scale is one f32 multiplication either way).
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_support.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/kernels/cuda/embedding.cuh"

namespace pagoda::kernels::cuda {
namespace {

using testing::DeviceBuffer;

class EmbeddingGatherTest : public testing::CudaTest, public ::testing::WithParamInterface<DType> {};

TEST_P(EmbeddingGatherTest, CopiesEachIdsRowScaled) {
  const DType dtype = GetParam();
  constexpr int64_t kVocab = 1000, kDim = 576;
  constexpr float kScale = 24.0f;
  const std::vector<float> table =
      testing::Rounded(testing::RandomValues(static_cast<size_t>(kVocab * kDim), -1.0f, 1.0f, 7), dtype);
  const std::vector<int32_t> ids = {0, 999, 5, 5, 123, 998, 1, 500, 42};
  const auto tokens = static_cast<int64_t>(ids.size());
  const std::vector<uint8_t> table_bytes = testing::ToBytes(table, dtype);
  DeviceBuffer table_dev(table_bytes), ids_dev(ids), out_dev(static_cast<size_t>(tokens * kDim) * sizeof(float));
  const Status status = EmbeddingGather(table_dev.get(), dtype, kVocab, kDim, ids_dev.as<int32_t>(), tokens, kScale,
                                        out_dev.as<float>(), nullptr);
  ASSERT_TRUE(status.ok()) << status.ToString();
  testing::CudaCheck(cudaDeviceSynchronize(), "EmbeddingGather");

  const MatrixView view{.dtype = dtype, .data = table_bytes.data(), .rows = kVocab, .cols = kDim};
  std::vector<float> expected(static_cast<size_t>(tokens * kDim));
  reference::EmbeddingLookup(view, ids.data(), tokens, expected.data());
  reference::Scale(expected.data(), tokens * kDim, kScale);
  EXPECT_EQ(out_dev.ToHost<float>(), expected);
}

INSTANTIATE_TEST_SUITE_P(TableDtypes, EmbeddingGatherTest, ::testing::Values(DType::kF32, DType::kBF16, DType::kF16));

TEST(EmbeddingGatherArgs, RefusesQuantizedTables) {
  EXPECT_EQ(EmbeddingGather(nullptr, DType::kQ4_1, 10, 64, nullptr, 1, 1.0f, nullptr, nullptr).code(),
            StatusCode::kUnimplemented);
  EXPECT_EQ(EmbeddingGather(nullptr, DType::kF32, 0, 64, nullptr, 1, 1.0f, nullptr, nullptr).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pagoda::kernels::cuda
