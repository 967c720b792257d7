// cuda::Gemm against sums in double of the same bf16/f16 inputs: relative
// to each call's largest output, 1e-5 for an F32 output (f32 sums of k
// products) and 1e-2 for BF16, 2e-3 for F16 (the output's rounding). Batch
// invariance: a row computed alone and inside batches of other sizes must
// match bit for bit.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_support.h"
#include "pagoda/kernels/cuda/gemm.cuh"

namespace pagoda::kernels::cuda {
namespace {

using testing::DeviceBuffer;

std::vector<float> ReferenceProduct(const std::vector<float>& x, const std::vector<float>& w, int64_t m, int64_t k,
                                    int64_t n) {
  std::vector<float> y(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += static_cast<double>(x[i * k + p]) * w[j * k + p];
      y[i * n + j] = static_cast<float>(sum);
    }
  }
  return y;
}

struct GemmCase {
  DType dtype;
  DType out;
  int64_t m, k, n;
};

class GemmTest : public testing::CudaTest, public ::testing::WithParamInterface<GemmCase> {};

TEST_P(GemmTest, MatchesSumsInDouble) {
  const GemmCase c = GetParam();
  const std::vector<float> x = testing::Rounded(testing::RandomValues(c.m * c.k, -1.0f, 1.0f, 8), c.dtype);
  const std::vector<float> w = testing::Rounded(testing::RandomValues(c.n * c.k, -1.0f, 1.0f, 9), c.dtype);
  DeviceBuffer x_dev(testing::ToBytes(x, c.dtype)), w_dev(testing::ToBytes(w, c.dtype));
  DeviceBuffer y_dev(static_cast<size_t>(c.m * c.n * DTypeBlockBytes(c.out)));
  StatusOr<CublasHandle> cublas = CublasHandle::Create(nullptr);
  ASSERT_TRUE(cublas.ok()) << cublas.status().ToString();
  const Status status = Gemm(*cublas, x_dev.get(), c.dtype, c.m, c.k, w_dev.get(), c.n, y_dev.get(), c.out);
  ASSERT_TRUE(status.ok()) << status.ToString();
  testing::CudaCheck(cudaDeviceSynchronize(), "Gemm");
  const std::vector<float> y = testing::FromBytes(y_dev.ToHost<uint8_t>(), c.out);
  EXPECT_LE(testing::RelativeError(y, ReferenceProduct(x, w, c.m, c.k, c.n)), testing::ElementTolerance(c.out));
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmTest,
                         ::testing::Values(GemmCase{DType::kBF16, DType::kF32, 1, 4096, 4096},
                                           GemmCase{DType::kBF16, DType::kBF16, 37, 4096, 1024},
                                           GemmCase{DType::kF16, DType::kF32, 128, 576, 1536},
                                           GemmCase{DType::kF16, DType::kF16, 5, 1536, 576},
                                           GemmCase{DType::kBF16, DType::kF32, 256, 14336, 512}));

class GemmBatchInvarianceTest : public testing::CudaTest {};

// Row 3 of x, multiplied alone and inside batches of 4 to 512 rows, must
// give the same bits.
TEST_F(GemmBatchInvarianceTest, ARowDoesNotDependOnTheBatch) {
  constexpr int64_t kK = 4096, kN = 4096, kMaxM = 512;
  const std::vector<float> x = testing::Rounded(testing::RandomValues(kMaxM * kK, -1.0f, 1.0f, 10), DType::kBF16);
  const std::vector<float> w = testing::Rounded(testing::RandomValues(kN * kK, -1.0f, 1.0f, 11), DType::kBF16);
  DeviceBuffer x_dev(testing::ToBytes(x, DType::kBF16)), w_dev(testing::ToBytes(w, DType::kBF16));
  DeviceBuffer y_dev(static_cast<size_t>(kMaxM * kN) * sizeof(float));
  StatusOr<CublasHandle> cublas = CublasHandle::Create(nullptr);
  ASSERT_TRUE(cublas.ok()) << cublas.status().ToString();
  auto row3 = [&](int64_t m) {
    const void* x3 = static_cast<const char*>(x_dev.get()) + (m == 1 ? 3 * kK * 2 : 0);
    EXPECT_TRUE(Gemm(*cublas, x3, DType::kBF16, m, kK, w_dev.get(), kN, y_dev.get(), DType::kF32).ok());
    testing::CudaCheck(cudaDeviceSynchronize(), "Gemm");
    const std::vector<float> y = y_dev.ToHost<float>();
    const int64_t row = m == 1 ? 0 : 3;
    return std::vector<float>(y.begin() + row * kN, y.begin() + (row + 1) * kN);
  };
  const std::vector<float> alone = row3(1);
  for (int64_t m : {4, 8, 31, 64, 128, 512}) EXPECT_EQ(row3(m), alone) << "m = " << m;
}

}  // namespace
}  // namespace pagoda::kernels::cuda
