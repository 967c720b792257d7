// cuda::GatedActivation against the CPU reference's SiluMul and GeluMul on
// the halves of a merged gate-and-up output: relative to each call's largest
// output, 1e-5 for F32 (expf and tanhf against the reference's), 1e-2 for
// BF16 and 2e-3 for F16.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_test_support.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/kernels/cuda/gated_activation.cuh"

namespace pagoda::kernels::cuda {
namespace {

using testing::DeviceBuffer;

struct ActivationCase {
  GatedActivationKind kind;
  DType in;
  DType out;
  int64_t tokens;
  int64_t ff;
};

class GatedActivationTest : public testing::CudaTest, public ::testing::WithParamInterface<ActivationCase> {};

TEST_P(GatedActivationTest, MatchesTheReference) {
  const ActivationCase c = GetParam();
  const std::vector<float> gate_up =
      testing::Rounded(testing::RandomValues(static_cast<size_t>(c.tokens * 2 * c.ff), -8.0f, 8.0f, 6), c.in);
  DeviceBuffer in_dev(testing::ToBytes(gate_up, c.in));
  DeviceBuffer out_dev(static_cast<size_t>(c.tokens * c.ff * DTypeBlockBytes(c.out)));
  const Status status = GatedActivation(c.kind, in_dev.get(), c.in, c.tokens, c.ff, out_dev.get(), c.out, nullptr);
  ASSERT_TRUE(status.ok()) << status.ToString();
  testing::CudaCheck(cudaDeviceSynchronize(), "GatedActivation");

  std::vector<float> expected(static_cast<size_t>(c.tokens * c.ff));
  for (int64_t t = 0; t < c.tokens; ++t) {
    const float* row = gate_up.data() + t * 2 * c.ff;
    float* out = expected.data() + t * c.ff;
    if (c.kind == GatedActivationKind::kSilu) {
      reference::SiluMul(row, row + c.ff, c.ff, out);
    } else {
      reference::GeluMul(row, row + c.ff, c.ff, out);
    }
  }
  const std::vector<float> gpu = testing::FromBytes(out_dev.ToHost<uint8_t>(), c.out);
  EXPECT_LE(testing::RelativeError(gpu, expected), testing::ElementTolerance(c.out));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GatedActivationTest,
    ::testing::Values(ActivationCase{GatedActivationKind::kSilu, DType::kF32, DType::kF32, 3, 1536},
                      ActivationCase{GatedActivationKind::kSilu, DType::kBF16, DType::kBF16, 17, 14336},
                      ActivationCase{GatedActivationKind::kGeluTanh, DType::kF32, DType::kF32, 2, 1000},
                      ActivationCase{GatedActivationKind::kGeluTanh, DType::kF16, DType::kF16, 5, 333},
                      ActivationCase{GatedActivationKind::kSilu, DType::kBF16, DType::kF32, 1, 7}));

TEST(GatedActivationArgs, RefusesOtherDtypesAndBadShapes) {
  EXPECT_EQ(GatedActivation(GatedActivationKind::kSilu, nullptr, DType::kQ4_1, 1, 8, nullptr, DType::kF32, nullptr)
                .code(),
            StatusCode::kUnimplemented);
  EXPECT_EQ(
      GatedActivation(GatedActivationKind::kSilu, nullptr, DType::kF32, 70000, 8, nullptr, DType::kF32, nullptr).code(),
      StatusCode::kInvalidArgument);
  EXPECT_TRUE(GatedActivation(GatedActivationKind::kSilu, nullptr, DType::kF32, 0, 8, nullptr, DType::kF32, nullptr)
                  .ok());
}

}  // namespace
}  // namespace pagoda::kernels::cuda
