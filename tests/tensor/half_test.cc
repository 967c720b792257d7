#include "pagoda/tensor/half.h"

#include <gtest/gtest.h>
#include <immintrin.h>

#include <cmath>
#include <random>

namespace pagoda {
namespace {

// The hardware F16C conversion is the independent oracle.
__attribute__((target("f16c"))) f16_bits HardwareF32ToF16(float f) {
  return static_cast<f16_bits>(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("f16c"))) float HardwareF16ToF32(f16_bits h) { return _cvtsh_ss(h); }

TEST(HalfTest, EveryHalfDecodesLikeF16C) {
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "no F16C on this CPU";
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float ours = F16ToF32(static_cast<f16_bits>(h));
    const float hw = HardwareF16ToF32(static_cast<f16_bits>(h));
    if (std::isnan(hw)) {
      EXPECT_TRUE(std::isnan(ours)) << h;
    } else {
      EXPECT_EQ(BitsFromF32(ours), BitsFromF32(hw)) << h;
    }
  }
}

TEST(HalfTest, EncodingRoundsLikeF16C) {
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "no F16C on this CPU";
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 2'000'000; ++i) {
    const float f = F32FromBits(bits(rng));
    if (std::isnan(f)) continue;
    ASSERT_EQ(F32ToF16(f), HardwareF32ToF16(f)) << f;
  }
  // Exact halfway cases and the subnormal range, where rounding is subtle.
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    const float lo = F16ToF32(static_cast<f16_bits>(h));
    const float hi = F16ToF32(static_cast<f16_bits>(h + 1));
    const float mid = lo + (hi - lo) / 2;
    ASSERT_EQ(F32ToF16(mid), HardwareF32ToF16(mid)) << h;
  }
}

TEST(HalfTest, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(F32ToBF16(1.0f), 0x3f80);
  EXPECT_EQ(BF16ToF32(0x3f80), 1.0f);
  // 1 + 2^-8 lies exactly between two bf16 values; ties go to the even one (1.0).
  EXPECT_EQ(F32ToBF16(1.0f + 1.0f / 256), 0x3f80);
  // 1 + 3 * 2^-8 ties upward to the even neighbour 1 + 2^-6.
  EXPECT_EQ(F32ToBF16(1.0f + 3.0f / 256), 0x3f82);
}

}  // namespace
}  // namespace pagoda
