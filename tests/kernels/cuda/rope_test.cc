// cuda::Rope against the CPU reference's Rope: the angles are built in the
// reference's order, so an F32 row agrees to within cosf/sinf's last bits
// (1e-5 of the largest value, at positions up to 100,000); BF16 and F16 rows
// within their rounding (1e-2, 2e-3), the reference run on the rounded
// inputs.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_support.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/kernels/cuda/rope.cuh"

namespace pagoda::kernels::cuda {
namespace {

using testing::DeviceBuffer;

struct RopeCase {
  DType dtype;
  RopeStyle style;
  int64_t heads;
  int64_t head_dim;
  bool freq_factors;
};

class RopeTest : public testing::CudaTest, public ::testing::WithParamInterface<RopeCase> {};

TEST_P(RopeTest, MatchesTheReference) {
  const RopeCase c = GetParam();
  const std::vector<int32_t> positions = {0, 1, 2, 17, 255, 4095, 32767, 100000};
  const auto tokens = static_cast<int64_t>(positions.size());
  const size_t n = static_cast<size_t>(tokens * c.heads * c.head_dim);
  std::vector<float> x = testing::Rounded(testing::RandomValues(n, -3.0f, 3.0f, 4), c.dtype);
  const std::vector<float> factors = testing::RandomValues(static_cast<size_t>(c.head_dim / 2), 1.0f, 8.0f, 5);
  DeviceBuffer x_dev(testing::ToBytes(x, c.dtype)), positions_dev(positions), factors_dev(factors);

  RopeParams params{.style = c.style, .freq_base = 500000.0f, .freq_scale = 0.5f, .attn_factor = 1.1f};
  params.freq_factors = c.freq_factors ? factors_dev.as<float>() : nullptr;
  const Status status = Rope(x_dev.get(), c.dtype, positions_dev.as<int32_t>(), tokens, c.heads, c.head_dim, params,
                             nullptr);
  ASSERT_TRUE(status.ok()) << status.ToString();
  testing::CudaCheck(cudaDeviceSynchronize(), "Rope");

  params.freq_factors = c.freq_factors ? factors.data() : nullptr;
  reference::Rope(x.data(), positions.data(), tokens, c.heads, c.head_dim, params);
  const std::vector<float> gpu = testing::FromBytes(x_dev.ToHost<uint8_t>(), c.dtype);
  EXPECT_LE(testing::RelativeError(gpu, x), testing::ElementTolerance(c.dtype));
}

INSTANTIATE_TEST_SUITE_P(Shapes, RopeTest,
                         ::testing::Values(RopeCase{DType::kF32, RopeStyle::kNorm, 9, 64, false},
                                           RopeCase{DType::kF32, RopeStyle::kNeox, 32, 128, true},
                                           RopeCase{DType::kBF16, RopeStyle::kNorm, 8, 128, true},
                                           RopeCase{DType::kBF16, RopeStyle::kNeox, 4, 256, false},
                                           RopeCase{DType::kF16, RopeStyle::kNeox, 2, 80, false}));

TEST(RopeArgs, RefusesOddHeadSizesAndOtherDtypes) {
  EXPECT_EQ(Rope(nullptr, DType::kF32, nullptr, 1, 1, 63, RopeParams{}, nullptr).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Rope(nullptr, DType::kF32, nullptr, 1, 1, 2048, RopeParams{}, nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Rope(nullptr, DType::kQ8_0, nullptr, 1, 1, 64, RopeParams{}, nullptr).code(), StatusCode::kUnimplemented);
  EXPECT_TRUE(Rope(nullptr, DType::kF32, nullptr, 0, 1, 64, RopeParams{}, nullptr).ok());
}

}  // namespace
}  // namespace pagoda::kernels::cuda
