// Reference row conversions against hand-computed blocks, and every SIMD
// activation quantizer against the reference, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"
#include "test_util.h"

namespace pagoda::kernels {
namespace {

namespace ref = reference;

TEST(DequantizeTest, Q4_0SubtractsEightAndScales) {
  BlockQ4_0 b;
  b.d = F32ToF16(0.5f);
  for (int j = 0; j < 16; ++j) b.qs[j] = static_cast<uint8_t>(j | ((15 - j) << 4));
  float out[32];
  ref::DequantizeRow(DType::kQ4_0, &b, out, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(out[j], (j - 8) * 0.5f) << j;
    EXPECT_EQ(out[j + 16], (7 - j) * 0.5f) << j;
  }
}

TEST(DequantizeTest, Q4_1ScalesAndAddsMinimum) {
  BlockQ4_1 b;
  b.d = F32ToF16(0.25f);
  b.m = F32ToF16(-1.0f);
  for (int j = 0; j < 16; ++j) b.qs[j] = static_cast<uint8_t>(j | ((15 - j) << 4));
  float out[32];
  ref::DequantizeRow(DType::kQ4_1, &b, out, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(out[j], j * 0.25f - 1.0f) << j;
    EXPECT_EQ(out[j + 16], (15 - j) * 0.25f - 1.0f) << j;
  }
}

TEST(DequantizeTest, Q8ScalesSignedBytes) {
  BlockQ8_0 b0;
  BlockQ8_1 b1;
  b0.d = b1.d = F32ToF16(2.0f);
  b1.s = F32ToF16(12345.0f);  // not used for dequantization
  for (int j = 0; j < 32; ++j) b0.qs[j] = b1.qs[j] = static_cast<int8_t>(j * 8 - 128);
  float out0[32];
  float out1[32];
  ref::DequantizeRow(DType::kQ8_0, &b0, out0, 32);
  ref::DequantizeRow(DType::kQ8_1, &b1, out1, 32);
  for (int j = 0; j < 32; ++j) {
    EXPECT_EQ(out0[j], (j * 8 - 128) * 2.0f);
    EXPECT_EQ(out1[j], (j * 8 - 128) * 2.0f);
  }
}

TEST(DequantizeTest, HalfFormats) {
  const f16_bits h[4] = {0x3c00, 0xc000, 0x3555, 0x0001};  // 1, -2, ~1/3, smallest subnormal
  const bf16_bits bf[3] = {0x3f80, 0xc040, 0x4049};         // 1, -3, 3.140625
  float out[4];
  ref::DequantizeRow(DType::kF16, h, out, 4);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], -2.0f);
  EXPECT_EQ(out[2], 0.333251953125f);
  EXPECT_EQ(out[3], std::ldexp(1.0f, -24));
  ref::DequantizeRow(DType::kBF16, bf, out, 3);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], -3.0f);
  EXPECT_EQ(out[2], 3.140625f);
}

// A block whose largest magnitude is 127, so d = 1 and the quantized values
// are the rounded x exactly; includes halfway cases (GGML rounds them to even).
std::vector<float> UnitScaleBlock() {
  std::vector<float> x(32, 0.0f);
  const float values[] = {127.0f, 2.5f, -2.5f, 0.5f, -0.5f, 1.49f, -1.51f, 3.5f, -126.5f, 0.0f, 64.25f};
  std::copy(std::begin(values), std::end(values), x.begin());
  return x;
}

// GGML's x86 quantize_row_q8_0/q8_1 round with the SIMD round instruction:
// to nearest, ties to even.
TEST(QuantizeTest, Q8_0RoundsHalfToEven) {
  const std::vector<float> x = UnitScaleBlock();
  BlockQ8_0 b;
  ref::QuantizeRowQ8_0(x.data(), &b, 32);
  EXPECT_EQ(b.d, 0x3c00);
  const int expected[] = {127, 2, -2, 0, 0, 1, -2, 4, -126, 0, 64};
  for (int j = 0; j < 11; ++j) EXPECT_EQ(b.qs[j], expected[j]) << j;
  for (int j = 11; j < 32; ++j) EXPECT_EQ(b.qs[j], 0);
}

TEST(QuantizeTest, Q8_1StoresScaledSum) {
  std::vector<float> x = UnitScaleBlock();
  x.insert(x.end(), 32, 0.0f);  // an all-zero second block
  BlockQ8_1 b[2];
  ref::QuantizeRowQ8_1(x.data(), b, 64);
  EXPECT_EQ(b[0].d, 0x3c00);
  EXPECT_EQ(F16ToF32(b[0].s), 127 + 2 - 2 + 0 + 0 + 1 - 2 + 4 - 126 + 0 + 64);
  EXPECT_EQ(b[1].d, 0);
  EXPECT_EQ(b[1].s, 0);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(b[1].qs[j], 0);
}

TEST(QuantizeTest, Q4_0MapsLargestMagnitudeToZeroNibble) {
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j) x[j] = static_cast<float>(j % 16 - 8);  // -8..7, so d = -8 / -8 = 1
  BlockQ4_0 b;
  ref::QuantizeRowQ4_0(x.data(), &b, 32);
  EXPECT_EQ(F16ToF32(b.d), 1.0f);
  for (int j = 0; j < 16; ++j) EXPECT_EQ(b.qs[j], j | (j << 4)) << j;  // x + 8.5 truncated
}

TEST(QuantizeTest, Q4_1UsesMinimumAndRange) {
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j) x[j] = static_cast<float>((j * 7) % 16) + 10.0f;  // 10..25
  BlockQ4_1 b;
  ref::QuantizeRowQ4_1(x.data(), &b, 32);
  EXPECT_EQ(F16ToF32(b.d), 1.0f);
  EXPECT_EQ(F16ToF32(b.m), 10.0f);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(b.qs[j] & 0x0f, (j * 7) % 16) << j;
    EXPECT_EQ(b.qs[j] >> 4, ((j + 16) * 7) % 16) << j;
  }
}

TEST(QuantizeTest, RoundTripErrorIsWithinHalfAStep) {
  const std::vector<float> x = testing::RandomFloats(32 * 64, 3, -4.0f, 4.0f);
  for (DType t : {DType::kQ4_0, DType::kQ4_1, DType::kQ8_0, DType::kQ8_1}) {
    std::vector<uint8_t> q(static_cast<size_t>(DTypeRowBytes(t, 32 * 64)));
    std::vector<float> back(x.size());
    ref::QuantizeRow(t, x.data(), q.data(), 32 * 64);
    ref::DequantizeRow(t, q.data(), back.data(), 32 * 64);
    for (int64_t b = 0; b < 64; ++b) {
      float lo = x[b * 32], hi = x[b * 32], amax = 0.0f;
      for (int j = 0; j < 32; ++j) {
        lo = std::min(lo, x[b * 32 + j]);
        hi = std::max(hi, x[b * 32 + j]);
        amax = std::max(amax, std::fabs(x[b * 32 + j]));
      }
      const bool four_bit = t == DType::kQ4_0 || t == DType::kQ4_1;
      const float step = t == DType::kQ4_1 ? (hi - lo) / 15 : four_bit ? amax / 8 : amax / 127;
      // Half a step, plus what rounding d (and m) to f16 can add.
      const float bound = 0.5f * step + 16 * step * 1e-3f + std::fabs(lo) * 1e-3f;
      for (int j = 0; j < 32; ++j) {
        // Q4_0 cannot represent +8 steps: the top value may be off by a whole step.
        const float allowed = t == DType::kQ4_0 ? step + bound : bound;
        ASSERT_LE(std::fabs(back[b * 32 + j] - x[b * 32 + j]), allowed) << DTypeName(t) << " block " << b;
      }
    }
  }
}

TEST(QuantizeTest, F16AndBF16RoundToNearest) {
  const float x[3] = {1.0f, 1.0f + 1.0f / 2048, -65504.0f};
  f16_bits h[3];
  bf16_bits bf[3];
  ref::QuantizeRowF16(x, h, 3);
  ref::QuantizeRowBF16(x, bf, 3);
  EXPECT_EQ(h[0], 0x3c00);
  EXPECT_EQ(h[1], 0x3c00);  // halfway rounds to even
  EXPECT_EQ(h[2], 0xfbff);
  EXPECT_EQ(bf[0], 0x3f80);
}

// Every SIMD quantizer must produce exactly the reference's Q8_1 (and so Q8_0) blocks.
TEST(QuantizeTest, SimdQuantizersMatchReferenceBitForBit) {
  const int64_t m = 5;
  // 23 blocks: the AVX-512 quantizer's group of 16 and a partial group.
  const int64_t k = 32 * 23;
  std::vector<float> x = testing::RandomFloats(m * k, 11, -3.0f, 3.0f);
  // Block 0 of row 0 has exact halfway cases, block 1 is all zeros, block 2 tiny values.
  const std::vector<float> halves = UnitScaleBlock();
  std::copy(halves.begin(), halves.end(), x.begin());
  std::fill(x.begin() + 32, x.begin() + 64, 0.0f);
  for (int j = 64; j < 96; ++j) x[j] *= 1e-30f;
  for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
    if (set->simd == nullptr) continue;
    SCOPED_TRACE(set->name);
    const int64_t nb = k / 32;
    std::vector<int8_t> qs(m * k);
    std::vector<float> d(m * nb), s(m * nb);
    std::vector<int32_t> sum(m * nb);
    const cpu::QuantizedRows out{m, k, qs.data(), d.data(), s.data(), sum.data()};
    set->simd->quantize(x.data(), 0, m, out);
    for (int64_t i = 0; i < m; ++i) {
      std::vector<BlockQ8_1> want(nb);
      std::vector<BlockQ8_0> want0(nb);
      ref::QuantizeRowQ8_1(x.data() + i * k, want.data(), k);
      ref::QuantizeRowQ8_0(x.data() + i * k, want0.data(), k);
      for (int64_t b = 0; b < nb; ++b) {
        ASSERT_EQ(want0[b].d, want[b].d);
        ASSERT_EQ(0, std::memcmp(want0[b].qs, want[b].qs, 32));
        ASSERT_EQ(BitsFromF32(d[i * nb + b]), BitsFromF32(F16ToF32(want[b].d))) << i << "," << b;
        ASSERT_EQ(BitsFromF32(s[i * nb + b]), BitsFromF32(F16ToF32(want[b].s))) << i << "," << b;
        int32_t want_sum = 0;
        for (int j = 0; j < 32; ++j) {
          ASSERT_EQ(qs[i * k + b * 32 + j], want[b].qs[j]) << i << "," << b << "," << j;
          want_sum += want[b].qs[j];
        }
        ASSERT_EQ(sum[i * nb + b], want_sum);
      }
    }
  }
}

}  // namespace
}  // namespace pagoda::kernels
