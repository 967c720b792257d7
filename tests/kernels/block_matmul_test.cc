// MatMul with the block types beyond Q4_0/Q4_1/Q8_0 (Q5_0, Q5_1, IQ4_NL and
// the super-block types): the reference's dot products against the same
// products in double, from the dequantized weights (whose dequantization
// matches the gguf package, see dequantize_test.cc) and the quantized
// activations; every kernel set against the reference, bit for bit or (the
// AVX-512 sets' 32-element block types) within the dot bound; batch
// invariance; and the Q8_K activation quantizer.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/kernels/cpu/reference/matmul_rows.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"
#include "pagoda/threading/thread_pool.h"
#include "test_util.h"

namespace pagoda::kernels {
namespace {

namespace ref = reference;
using testing::FirstBitDifference;
using testing::MakeRawWeights;
using testing::RandomFloats;
using testing::Weights;

constexpr DType kBlockTypes[] = {DType::kQ5_0, DType::kQ5_1, DType::kIQ4_NL, DType::kQ2_K, DType::kQ3_K,
                                 DType::kQ4_K, DType::kQ5_K, DType::kQ6_K,   DType::kIQ4_XS};

// An activation row as the dot products see it: each element d * q.
std::vector<double> DequantizedActivations(DType type, const float* x, int64_t k) {
  std::vector<double> out(static_cast<size_t>(k));
  if (type == DType::kQ8_K) {
    std::vector<BlockQ8_K> q(static_cast<size_t>(k / kSuperBlock));
    ref::QuantizeRowQ8_K(x, q.data(), k);
    for (int64_t e = 0; e < k; ++e) out[e] = double{q[e / kSuperBlock].d} * q[e / kSuperBlock].qs[e % kSuperBlock];
    return out;
  }
  std::vector<float> f(static_cast<size_t>(k));
  std::vector<uint8_t> q(static_cast<size_t>(DTypeRowBytes(type, k)));
  ref::QuantizeRow(type, x, q.data(), k);
  ref::DequantizeRow(type, q.data(), f.data(), k);
  for (int64_t e = 0; e < k; ++e) out[e] = f[e];
  return out;
}

// Q5_1 pairs with Q8_1, whose s field carries d * sum(q) rounded to f16:
// the minimum's term uses it, as the reference (and GGML) do.
double Q5_1MinimumCorrection(const uint8_t* row, const float* x, int64_t k) {
  std::vector<BlockQ8_1> q(static_cast<size_t>(k / kQuantBlock));
  ref::QuantizeRowQ8_1(x, q.data(), k);
  const auto* w = reinterpret_cast<const BlockQ5_1*>(row);
  double correction = 0;
  for (int64_t b = 0; b < k / kQuantBlock; ++b) {
    int sum = 0;
    for (int j = 0; j < kQuantBlock; ++j) sum += q[b].qs[j];
    correction += double{F16ToF32(w[b].m)} * (double{F16ToF32(q[b].s)} - double{F16ToF32(q[b].d)} * sum);
  }
  return correction;
}

TEST(BlockMatMulTest, ReferenceMatchesTheProductInDouble) {
  const int64_t m = 3, rows = 5, k = 512;
  const std::vector<float> x = RandomFloats(m * k, 17, -2.0f, 2.0f);
  for (DType t : kBlockTypes) {
    const Weights w = MakeRawWeights(t, rows, k, static_cast<uint32_t>(t));
    std::vector<float> y(static_cast<size_t>(m * rows));
    ref::MatMul(x.data(), m, w.view(), y.data());
    std::vector<float> wrow(static_cast<size_t>(k));
    for (int64_t i = 0; i < m; ++i) {
      const std::vector<double> xi = DequantizedActivations(ref::ActivationType(t), x.data() + i * k, k);
      for (int64_t j = 0; j < rows; ++j) {
        const uint8_t* row = w.bytes.data() + j * DTypeRowBytes(t, k);
        ref::DequantizeRow(t, row, wrow.data(), k);
        double want = 0, magnitude = 0;
        for (int64_t e = 0; e < k; ++e) {
          want += wrow[e] * xi[e];
          magnitude += std::fabs(wrow[e] * xi[e]);
        }
        if (t == DType::kQ5_1) want += Q5_1MinimumCorrection(row, x.data() + i * k, k);
        EXPECT_NEAR(y[i * rows + j], want, 1e-5 * magnitude) << DTypeName(t) << " row " << j << " x " << i;
      }
    }
  }
}

// The set's full batch against the reference (within the dot bound where
// its block update is not the reference's order), and every smaller batch
// and the last row alone against that full batch, bit for bit.
void CheckEverySetAndBatchInvariance(DType t, const std::vector<float>& x, int64_t m, int64_t rows, int64_t k) {
  const Weights w = MakeRawWeights(t, rows, k, 40 + static_cast<uint32_t>(t));
  std::vector<float> want(static_cast<size_t>(m * rows));
  ref::MatMul(x.data(), m, w.view(), want.data());
  for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
    const std::string what = std::string(set->name) + " " + std::string(DTypeName(t)) + " k " + std::to_string(k);
    // The AVX-512 sets' block update is not the reference's order: their
    // full batch is within the dot bound of the reference, and every
    // smaller batch equals it bit for bit.
    std::vector<float> own = want;
    if (testing::RunsAvx512BlockUpdate(set->name, t)) {
      ThreadPool pool(2);
      ComputeContext ctx(*set, pool);
      set->matmul(x.data(), m, w.view(), own.data(), ctx);
      EXPECT_EQ(testing::FirstOutsideDotBound(own, want, w, x, m), -1) << what;
    }
    for (int threads : {1, 2}) {
      ThreadPool pool(threads);
      ComputeContext ctx(*set, pool);
      // Every batch size from 1 to 64 computes the first rows of the same
      // batch, and the last row alone, bit for bit.
      for (int64_t batch = 1; batch <= m; ++batch) {
        std::vector<float> got(static_cast<size_t>(batch * rows), -1.0f);
        set->matmul(x.data(), batch, w.view(), got.data(), ctx);
        EXPECT_EQ(FirstBitDifference(got.data(), own.data(), batch * rows), -1)
            << what << " batch " << batch << " threads " << threads;
      }
      std::vector<float> one(static_cast<size_t>(rows));
      set->matmul(x.data() + (m - 1) * k, 1, w.view(), one.data(), ctx);
      EXPECT_EQ(FirstBitDifference(one.data(), own.data() + (m - 1) * rows, rows), -1) << what << " alone";
    }
  }
}

// Rows of 768 columns, and (for the 32-element blocks) of 544: 17 blocks,
// which the amx set's products take as a chunk of 12 and a run of 5.
TEST(BlockMatMulTest, EverySetMatchesTheReferenceAndIsBatchInvariant) {
  const int64_t m = 64, rows = 21;
  for (int64_t k : {int64_t{768}, int64_t{544}}) {
    const std::vector<float> x = RandomFloats(m * k, 5, -3.0f, 3.0f);
    for (DType t : kBlockTypes) {
      if (k % DTypeBlockElems(t) == 0) CheckEverySetAndBatchInvariance(t, x, m, rows, k);
    }
  }
}

// Blocks of one repeated byte reach the largest values and scales that the
// bit layouts can hold; with activations of one sign they give the largest
// integer sums, where a SIMD kernel's 16-bit steps would overflow first.
// 19 rows (the three patterns in turn) reach the amx set's 16-row tiles.
TEST(BlockMatMulTest, ExtremeBlocksMatchTheReferenceInEverySet) {
  const int64_t m = 19, rows = 9, k = 512;
  std::vector<float> x(static_cast<size_t>(m * k));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t e = 0; e < k; ++e) {
      const float alternating = e % 2 ? 3.0f : -3.0f;
      x[i * k + e] = i % 3 == 0 ? 3.0f : i % 3 == 1 ? -3.0f : alternating;
    }
  }
  for (DType t : kBlockTypes) {
    for (uint8_t fill : {0x00, 0x55, 0x7f, 0x80, 0xaa, 0xff}) {
      Weights w = MakeRawWeights(t, rows, k, 7);
      const std::vector<size_t> f16_fields = testing::F16FieldOffsets(t);
      const auto block_bytes = static_cast<size_t>(DTypeBlockBytes(t));
      for (size_t off = 0; off < w.bytes.size(); ++off) {
        bool is_f16 = false;
        for (size_t field : f16_fields) is_f16 |= off % block_bytes == field || off % block_bytes == field + 1;
        if (!is_f16) w.bytes[off] = fill;
      }
      std::vector<float> want(static_cast<size_t>(m * rows));
      ref::MatMul(x.data(), m, w.view(), want.data());
      for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
        ThreadPool pool(1);
        ComputeContext ctx(*set, pool);
        std::vector<float> got(want.size(), -1.0f);
        set->matmul(x.data(), m, w.view(), got.data(), ctx);
        if (testing::RunsAvx512BlockUpdate(set->name, t)) {
          EXPECT_EQ(testing::FirstOutsideDotBound(got, want, w, x, m), -1)
              << set->name << " " << DTypeName(t) << " fill " << int{fill};
        } else {
          EXPECT_EQ(FirstBitDifference(got.data(), want.data(), m * rows), -1)
              << set->name << " " << DTypeName(t) << " fill " << int{fill};
        }
        // One row at a time takes the decode path, bit for bit the batch's rows.
        const std::vector<float> batch = got;
        for (int64_t i = 0; i < m; ++i) {
          set->matmul(x.data() + i * k, 1, w.view(), got.data(), ctx);
          EXPECT_EQ(FirstBitDifference(got.data(), batch.data() + i * rows, rows), -1)
              << set->name << " " << DTypeName(t) << " fill " << int{fill} << " x " << i << " alone";
        }
      }
    }
  }
}

// The Q8_K scale comes from the first value of largest magnitude: blocks
// where +a and -a tie (in either order), an all-zero block, and a lone
// value; every set quantizes its activations itself.
TEST(BlockMatMulTest, Q8KScaleTiesAndZeroBlocksMatchTheReferenceInEverySet) {
  const int64_t m = 2, rows = 17, k = 1024;
  std::vector<float> x = RandomFloats(m * k, 11, -1.0f, 1.0f);
  x[5] = -4.0f;
  x[200] = 4.0f;
  x[256 + 7] = 4.0f;
  x[256 + 9] = -4.0f;
  for (int64_t e = 512; e < 768; ++e) x[e] = 0.0f;
  for (int64_t e = k; e < 2 * k; ++e) x[e] = e == k + 300 ? -0.5f : 0.0f;
  for (DType t : {DType::kQ2_K, DType::kQ3_K, DType::kQ4_K, DType::kQ5_K, DType::kQ6_K, DType::kIQ4_XS}) {
    const Weights w = MakeRawWeights(t, rows, k, 90 + static_cast<uint32_t>(t));
    std::vector<float> want(static_cast<size_t>(m * rows));
    ref::MatMul(x.data(), m, w.view(), want.data());
    for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
      ThreadPool pool(2);
      ComputeContext ctx(*set, pool);
      std::vector<float> got(want.size(), -1.0f);
      set->matmul(x.data(), m, w.view(), got.data(), ctx);
      EXPECT_EQ(FirstBitDifference(got.data(), want.data(), m * rows), -1) << set->name << " " << DTypeName(t);
      set->matmul(x.data() + k, 1, w.view(), got.data(), ctx);
      EXPECT_EQ(FirstBitDifference(got.data(), want.data() + rows, rows), -1) << set->name << " " << DTypeName(t);
    }
  }
}

TEST(BlockMatMulTest, Q8KKeepsEachValueWithinHalfAStepAndSumsEachSixteen) {
  std::vector<float> x = RandomFloats(2 * kSuperBlock, 3, -5.0f, 5.0f);
  x[7] = -9.0f;  // the block's largest magnitude, negative: its scale is positive
  std::vector<BlockQ8_K> q(2);
  ref::QuantizeRowQ8_K(x.data(), q.data(), 2 * kSuperBlock);
  EXPECT_EQ(q[0].qs[7], -127);  // the largest magnitude maps to -127
  EXPECT_NEAR(q[0].d, 9.0f / 127.0f, 1e-7f);
  for (int b = 0; b < 2; ++b) {
    for (int j = 0; j < kSuperBlock; ++j) {
      EXPECT_LE(std::fabs(q[b].d * q[b].qs[j] - x[b * kSuperBlock + j]), std::fabs(q[b].d) * 0.5f + 1e-6f);
    }
    for (int g = 0; g < 16; ++g) {
      int sum = 0;
      for (int j = 0; j < 16; ++j) sum += q[b].qs[16 * g + j];
      EXPECT_EQ(q[b].bsums[g], sum);
    }
  }
  std::vector<float> zeros(kSuperBlock, 0.0f);
  ref::QuantizeRowQ8_K(zeros.data(), q.data(), kSuperBlock);
  EXPECT_EQ(q[0].d, 0.0f);
  EXPECT_EQ(q[0].bsums[3], 0);
}

}  // namespace
}  // namespace pagoda::kernels
