// Every op of every kernel set this CPU supports against the scalar
// reference, with a tolerance per dtype. All current sets are bit-exact by
// construction, so every tolerance is 0 ULP; a future set that is not must
// justify a nonzero entry here.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/threading/thread_pool.h"
#include "test_util.h"

namespace pagoda::kernels {
namespace {

namespace ref = reference;
using testing::MaxUlpDistance;
using testing::RandomFloats;

int64_t MaxUlp(DType t) {
  switch (t) {
    case DType::kF32:
    case DType::kF16:
    case DType::kBF16:
    case DType::kQ4_0:
    case DType::kQ4_1:
    case DType::kQ8_0:
    case DType::kQ8_1: return 0;
  }
  return 0;
}

class ConsistencyTest : public ::testing::TestWithParam<const cpu::KernelSet*> {
 protected:
  const cpu::KernelSet& set() const { return *GetParam(); }
  ThreadPool pool_{2};
};

TEST_P(ConsistencyTest, MatMul) {
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ4_0, DType::kQ4_1, DType::kQ8_0}) {
    const testing::Weights w = testing::MakeWeights(t, 40, 192, 1);
    const int64_t m = 6;
    const std::vector<float> x = RandomFloats(m * 192, 2);
    std::vector<float> want(m * 40), got(m * 40);
    ref::MatMul(x.data(), m, w.view(), want.data());
    set().matmul(x.data(), m, w.view(), got.data(), pool_);
    EXPECT_LE(MaxUlpDistance(got.data(), want.data(), m * 40), MaxUlp(t)) << DTypeName(t);
  }
}

TEST_P(ConsistencyTest, PagedAttention) {
  for (DType t : {DType::kF32, DType::kF16}) {
    const testing::PagedFixture f =
        testing::MakePagedFixture(t, 9, 3, 64, 16, {1, 6}, {40, 6}, 3);
    const size_t n = static_cast<size_t>(f.tokens() * f.num_heads * f.head_dim);
    std::vector<float> want(n), got(n);
    ref::PagedAttention(f.q.data(), f.num_heads, f.cache, f.batch(), 0.125f, want.data());
    set().paged_attention(f.q.data(), f.num_heads, f.cache, f.batch(), 0.125f, got.data(), pool_);
    EXPECT_LE(MaxUlpDistance(got.data(), want.data(), static_cast<int64_t>(n)), MaxUlp(t)) << DTypeName(t);
  }
}

TEST_P(ConsistencyTest, EmbeddingLookup) {
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ4_0, DType::kQ4_1, DType::kQ8_0}) {
    const testing::Weights table = testing::MakeWeights(t, 12, 96, 4);
    const int32_t ids[3] = {11, 3, 3};
    std::vector<float> want(3 * 96), got(3 * 96);
    ref::EmbeddingLookup(table.view(), ids, 3, want.data());
    set().embedding_lookup(table.view(), ids, 3, got.data());
    EXPECT_LE(MaxUlpDistance(got.data(), want.data(), 3 * 96), MaxUlp(t)) << DTypeName(t);
  }
}

TEST_P(ConsistencyTest, ElementwiseAndNorms) {
  const int64_t n = 3 * 576;
  const std::vector<float> a = RandomFloats(n, 5, -8.0f, 8.0f), b = RandomFloats(n, 6);
  std::vector<float> want(n), got(n);

  ref::RmsNorm(a.data(), b.data(), 3, 576, 1e-5f, want.data());
  set().rms_norm(a.data(), b.data(), 3, 576, 1e-5f, got.data());
  EXPECT_LE(MaxUlpDistance(got.data(), want.data(), n), MaxUlp(DType::kF32)) << "RmsNorm";

  ref::SiluMul(a.data(), b.data(), n, want.data());
  set().silu_mul(a.data(), b.data(), n, got.data());
  EXPECT_LE(MaxUlpDistance(got.data(), want.data(), n), MaxUlp(DType::kF32)) << "SiluMul";

  want = a;
  got = a;
  ref::AddInPlace(want.data(), b.data(), n);
  set().add_in_place(got.data(), b.data(), n);
  EXPECT_LE(MaxUlpDistance(got.data(), want.data(), n), MaxUlp(DType::kF32)) << "AddInPlace";

  const int32_t positions[3] = {0, 17, 511};
  want = a;
  got = a;
  ref::RopeNorm(want.data(), positions, 3, 9, 64, 100000.0f);
  set().rope_norm(got.data(), positions, 3, 9, 64, 100000.0f);
  EXPECT_LE(MaxUlpDistance(got.data(), want.data(), n), MaxUlp(DType::kF32)) << "RopeNorm";
}

TEST_P(ConsistencyTest, WriteKv) {
  for (DType t : {DType::kF32, DType::kF16}) {
    const int64_t width = 3 * 64;
    const size_t bytes = static_cast<size_t>(4 * 16 * width) * (t == DType::kF16 ? 2 : 4);
    std::vector<uint8_t> k0(bytes), v0(bytes), k1(bytes), v1(bytes);
    const std::vector<float> k = RandomFloats(2 * width, 7), v = RandomFloats(2 * width, 8);
    const int64_t slots[2] = {37, 5};
    ref::WriteKv(k.data(), v.data(), slots, 2, {t, k0.data(), v0.data(), 4, 16, 3, 64});
    set().write_kv(k.data(), v.data(), slots, 2, {t, k1.data(), v1.data(), 4, 16, 3, 64});
    EXPECT_EQ(k0, k1) << DTypeName(t);
    EXPECT_EQ(v0, v1) << DTypeName(t);
  }
}

std::vector<const cpu::KernelSet*> Sets() {
  const auto sets = cpu::SupportedKernelSets();
  return {sets.begin(), sets.end()};
}

INSTANTIATE_TEST_SUITE_P(AllSupportedSets, ConsistencyTest, ::testing::ValuesIn(Sets()),
                         [](const ::testing::TestParamInfo<const cpu::KernelSet*>& info) {
                           return std::string(info.param->name);
                         });

TEST(KernelSetTest, BestSupportedSetIsActive) {
  const auto sets = cpu::SupportedKernelSets();
  ASSERT_FALSE(sets.empty());
  EXPECT_STREQ(sets.front()->name, "scalar");
  EXPECT_EQ(&cpu::ActiveKernelSet(), sets.back());
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")) {
    EXPECT_STREQ(cpu::ActiveKernelSet().name, "avx512");
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_STREQ(cpu::ActiveKernelSet().name, "avx2");
  }
  std::printf("active kernel set: %s\n", cpu::ActiveKernelSet().name);
}

}  // namespace
}  // namespace pagoda::kernels
