// cuda::FusedAddRmsNorm against the layers' residual add and the CPU
// reference's RmsNorm, on inputs rounded as the kernel reads them. The
// tolerance is relative to each call's largest output: 1e-5 for an F32
// output (f32 sums in another order than the reference's double), 1e-2 for
// BF16 and 2e-3 for F16 (the output's rounding).
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_support.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/kernels/cuda/rms_norm.cuh"

namespace pagoda::kernels::cuda {
namespace {

using testing::DeviceBuffer;

struct NormCase {
  DType add_dtype;  // kI32: no add
  DType out_dtype;
  int64_t rows;
  int64_t dim;
};

class FusedAddRmsNormTest : public testing::CudaTest, public ::testing::WithParamInterface<NormCase> {};

TEST_P(FusedAddRmsNormTest, MatchesTheResidualAddThenTheReferenceNorm) {
  const NormCase c = GetParam();
  const bool with_add = c.add_dtype != DType::kI32;
  const size_t n = static_cast<size_t>(c.rows * c.dim);
  std::vector<float> x = testing::RandomValues(n, -4.0f, 4.0f, 1);
  const std::vector<float> add =
      with_add ? testing::Rounded(testing::RandomValues(n, -2.0f, 2.0f, 2), c.add_dtype) : std::vector<float>();
  const std::vector<float> weight = testing::RandomValues(static_cast<size_t>(c.dim), 0.5f, 1.5f, 3);
  constexpr float kEps = 1e-6f;

  DeviceBuffer x_dev(x), weight_dev(weight), out_dev(n * DTypeBlockBytes(c.out_dtype));
  const std::vector<uint8_t> add_bytes = with_add ? testing::ToBytes(add, c.add_dtype) : std::vector<uint8_t>(1);
  DeviceBuffer add_dev(add_bytes);
  const Status status = FusedAddRmsNorm(x_dev.as<float>(), with_add ? add_dev.get() : nullptr, c.add_dtype,
                                        weight_dev.as<float>(), c.rows, c.dim, kEps, out_dev.get(), c.out_dtype,
                                        nullptr);
  ASSERT_TRUE(status.ok()) << status.ToString();
  testing::CudaCheck(cudaDeviceSynchronize(), "FusedAddRmsNorm");

  if (with_add) reference::AddInPlace(x.data(), add.data(), static_cast<int64_t>(n));
  std::vector<float> expected(n);
  reference::RmsNorm(x.data(), weight.data(), c.rows, c.dim, kEps, expected.data());
  // The residual stream in f32, exactly the sum; the output within rounding.
  EXPECT_EQ(x_dev.ToHost<float>(), x);
  const std::vector<float> out = testing::FromBytes(out_dev.ToHost<uint8_t>(), c.out_dtype);
  EXPECT_LE(testing::RelativeError(out, expected), testing::ElementTolerance(c.out_dtype));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, FusedAddRmsNormTest,
    ::testing::Values(NormCase{DType::kI32, DType::kF32, 3, 576}, NormCase{DType::kF32, DType::kF32, 5, 4096},
                      NormCase{DType::kBF16, DType::kBF16, 7, 4096}, NormCase{DType::kF16, DType::kF16, 2, 1000},
                      NormCase{DType::kBF16, DType::kF32, 1, 33}, NormCase{DType::kF32, DType::kBF16, 64, 8192}));

TEST(FusedAddRmsNormArgs, RefusesOtherDtypesAndBadShapes) {
  EXPECT_EQ(FusedAddRmsNorm(nullptr, nullptr, DType::kF32, nullptr, 1, 64, 1e-6f, nullptr, DType::kQ4_0, nullptr).code(),
            StatusCode::kUnimplemented);
  EXPECT_EQ(FusedAddRmsNorm(nullptr, nullptr, DType::kF32, nullptr, 1, 0, 1e-6f, nullptr, DType::kF32, nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(FusedAddRmsNorm(nullptr, nullptr, DType::kF32, nullptr, 0, 64, 1e-6f, nullptr, DType::kF32, nullptr).ok());
}

}  // namespace
}  // namespace pagoda::kernels::cuda
