// Every op that a kernel set implements itself, against the scalar
// reference, with a tolerance stated per op. An op a set takes straight
// from the reference (the same function) is skipped for that set: comparing
// the reference with itself could never fail. The scalar set's MatMul and
// attention are tested: they are the reference's arithmetic split across
// the thread pool, which is code of their own.
//
// Tolerances: every SIMD op follows the reference's order of operations
// (GGML's, for parity with llama.cpp), so each is 0 ULP, with one exception:
// the avx512bf16 set's BF16-weight MatMul dots x split into two bf16 parts
// with VDPBF16PS (matmul_bf16_dot_avx512.cc), which differs by x's bits
// below the 16th and the order of the sums: it is held to 1e-5 of the sum
// of |w * x| per output instead. Its attention rounds q, K, V and the
// softmax's probabilities to bf16 (attention_bf16_avx512.cc): it runs on
// values bf16 holds exactly, and may differ by the probabilities' rounding
// (each weight within 2^-8 of itself) on top of the summation order.
#include <gtest/gtest.h>

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/threading/thread_pool.h"
#include "test_util.h"

namespace pagoda::kernels {
namespace {

namespace ref = reference;
using testing::MaxUlpDistance;
using testing::RandomFloats;

// The largest ULP distance each op may have from the reference.
constexpr int64_t kMatMulMaxUlp = 0;
// Attention outputs are weighted means of V values in [-2, 2]; the AVX-512
// set's online softmax sums in another order than the reference's.
constexpr double kPagedAttentionTolerance = 1e-5;
// Weights each within eps = 2^-8 of themselves move a weighted mean of V by
// at most eps / (1 - eps) times the largest |V - mean| (4 here).
constexpr double kBf16AttentionTolerance = kPagedAttentionTolerance + 4.0 / 255.0;
constexpr int64_t kEmbeddingLookupMaxUlp = 0;  // a dequantization: exact in any order
// The AVX-512 sets sum RMSNorm's squares in double lanes, not the
// reference's one double chain: the sums may differ in their last bits,
// which can move the f32 mean (and so the outputs) by one ulp.
constexpr int64_t kRmsNormMaxUlp = 1;
constexpr int64_t kSiluMulMaxUlp = 0;
constexpr int64_t kAddInPlaceMaxUlp = 0;  // one rounding per element: exact in any order
constexpr int64_t kRopeMaxUlp = 0;
// The row reductions: the same source built per instruction set, every term
// and partial sum in a fixed order; the maximum, the sums and every exp
// term are compared bit for bit.
// WriteKv copies (F32) or rounds once to F16 or BF16: compared byte for byte.

class ConsistencyTest : public ::testing::TestWithParam<const cpu::KernelSet*> {
 protected:
  const cpu::KernelSet& set() const { return *GetParam(); }
  ThreadPool pool_{2};
  ComputeContext ctx_{*GetParam(), pool_};
};

// Skips the test when the set's op is the reference function itself.
#define SKIP_IF_REFERENCE(op, reference_fn)                                                    \
  if (set().op == &(reference_fn)) {                                                           \
    GTEST_SKIP() << "the " << set().name << " set uses the reference " #op " (nothing to compare)"; \
  }

TEST_P(ConsistencyTest, MatMul) {
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ4_0, DType::kQ4_1, DType::kQ8_0}) {
    const testing::Weights w = testing::MakeWeights(t, 40, 192, 1);
    const int64_t m = 6;
    const std::vector<float> x = RandomFloats(m * 192, 2);
    std::vector<float> want(m * 40), got(m * 40);
    ref::MatMul(x.data(), m, w.view(), want.data());
    set().matmul(x.data(), m, w.view(), got.data(), ctx_);
    // Not the reference's order: AVX512-BF16's BF16 dots, and the AVX-512
    // sets' 32-element block types (one FMA update per block instead of
    // GGML's order). Bound: 1e-5 of the sum of |w * x|.
    if ((t == DType::kBF16 && testing::RunsBf16Dots(set().name)) ||
        testing::RunsAvx512BlockUpdate(set().name, t)) {
      std::vector<float> wrow(192);
      for (int64_t j = 0; j < 40; ++j) {
        ref::DequantizeRow(t, w.bytes.data() + j * DTypeRowBytes(t, 192), wrow.data(), 192);
        for (int64_t i = 0; i < m; ++i) {
          double magnitude = 0.0;
          for (int64_t c = 0; c < 192; ++c) magnitude += std::fabs(double{wrow[c]} * x[i * 192 + c]);
          EXPECT_NEAR(got[i * 40 + j], want[i * 40 + j], 1e-5 * magnitude) << i << "," << j;
        }
      }
      continue;
    }
    EXPECT_LE(MaxUlpDistance(got.data(), want.data(), m * 40), kMatMulMaxUlp) << DTypeName(t);
  }
}

TEST_P(ConsistencyTest, PagedAttention) {
  const bool bf16 = testing::RunsBf16Dots(set().name);
  const double tolerance = bf16 ? kBf16AttentionTolerance : kPagedAttentionTolerance;
  for (DType t : {DType::kF32, DType::kF16}) {
    const testing::PagedFixture f =
        testing::MakePagedFixture(t, 9, 3, 64, 16, {1, 6}, {40, 6}, 3, /*bf16_values=*/bf16);
    const size_t n = static_cast<size_t>(f.tokens() * f.num_heads * f.head_dim);
    std::vector<float> want(n), got(n);
    for (const AttentionParams& params : {AttentionParams{.scale = 0.125f},
                                          AttentionParams{.scale = 0.125f, .sliding_window = 7, .softcap = 0.6f}}) {
      ref::PagedAttention(f.q.data(), f.num_heads, f.cache, f.batch(), params, want.data());
      set().paged_attention(f.q.data(), f.num_heads, f.cache, f.batch(), params, got.data(), ctx_);
      for (size_t e = 0; e < n; ++e) {
        ASSERT_NEAR(got[e], want[e], tolerance) << DTypeName(t) << " window " << params.sliding_window;
      }
    }
  }
}

TEST_P(ConsistencyTest, EmbeddingLookup) {
  SKIP_IF_REFERENCE(embedding_lookup, ref::EmbeddingLookup);
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ4_0, DType::kQ4_1, DType::kQ8_0}) {
    const testing::Weights table = testing::MakeWeights(t, 12, 96, 4);
    const int32_t ids[3] = {11, 3, 3};
    std::vector<float> want(3 * 96), got(3 * 96);
    ref::EmbeddingLookup(table.view(), ids, 3, want.data());
    set().embedding_lookup(table.view(), ids, 3, got.data());
    EXPECT_LE(MaxUlpDistance(got.data(), want.data(), 3 * 96), kEmbeddingLookupMaxUlp) << DTypeName(t);
  }
}

constexpr int64_t kRows = 3;
constexpr int64_t kDim = 576;
constexpr int64_t kN = kRows * kDim;

// A row of whole 16-lane vectors (576), one with a tail (100), and one
// whose squares span 2^-40 to 2^20, beyond what a double sums exactly.
TEST_P(ConsistencyTest, RmsNorm) {
  SKIP_IF_REFERENCE(rms_norm, ref::RmsNorm);
  for (int64_t dim : {kDim, int64_t{100}}) {
    const int64_t n = kRows * dim;
    std::vector<float> a = RandomFloats(n, 5, -8.0f, 8.0f);
    const std::vector<float> w = RandomFloats(dim, 6);
    if (dim == 100) {
      for (int64_t i = 0; i < n; i += 3) a[static_cast<size_t>(i)] *= std::ldexp(1.0f, static_cast<int>(i % 31) - 20);
    }
    std::vector<float> want(static_cast<size_t>(n)), got(static_cast<size_t>(n));
    ref::RmsNorm(a.data(), w.data(), kRows, dim, 1e-5f, want.data());
    set().rms_norm(a.data(), w.data(), kRows, dim, 1e-5f, got.data());
    EXPECT_LE(MaxUlpDistance(got.data(), want.data(), n), kRmsNormMaxUlp) << dim;
  }
}

TEST_P(ConsistencyTest, SiluMul) {
  SKIP_IF_REFERENCE(silu_mul, ref::SiluMul);
  const std::vector<float> a = RandomFloats(kN, 5, -8.0f, 8.0f), b = RandomFloats(kN, 6);
  std::vector<float> want(kN), got(kN);
  ref::SiluMul(a.data(), b.data(), kN, want.data());
  set().silu_mul(a.data(), b.data(), kN, got.data());
  EXPECT_LE(MaxUlpDistance(got.data(), want.data(), kN), kSiluMulMaxUlp);
}

// Saturating and infinite gates, a length that is no multiple of 16, and a
// prompt-sized call that kernels::SiluMul splits over the pool.
TEST_P(ConsistencyTest, SiluMulExtremesTailsAndPoolSplit) {
  std::vector<float> gate = {-200.0f, -100.0f, -88.5f, -87.0f, -0.0f, 0.0f, 1e-30f, 87.0f, 88.5f, 100.0f,
                             INFINITY, -INFINITY, 3.0f, -3.0f, 0.5f, -0.5f, 7.0f, 20.0f, -20.0f};
  std::vector<float> up(gate.size(), 1.5f);
  for (int64_t n : {int64_t{19}, int64_t{40000}}) {
    if (n > static_cast<int64_t>(gate.size())) {
      gate = RandomFloats(n, 9, -30.0f, 30.0f);
      up = RandomFloats(n, 10);
    }
    std::vector<float> want(static_cast<size_t>(n)), got(static_cast<size_t>(n));
    ref::SiluMul(gate.data(), up.data(), n, want.data());
    kernels::SiluMul(ctx_, gate.data(), up.data(), n, got.data());
    EXPECT_EQ(testing::FirstBitDifference(got.data(), want.data(), n), -1) << set().name << " n " << n;
  }
}

TEST_P(ConsistencyTest, AddInPlace) {
  SKIP_IF_REFERENCE(add_in_place, ref::AddInPlace);
  for (int64_t n : {kN, int64_t{37}}) {
    const std::vector<float> a = RandomFloats(n, 5, -8.0f, 8.0f), b = RandomFloats(n, 6);
    std::vector<float> want = a, got = a;
    ref::AddInPlace(want.data(), b.data(), n);
    set().add_in_place(got.data(), b.data(), n);
    EXPECT_LE(MaxUlpDistance(got.data(), want.data(), n), kAddInPlaceMaxUlp) << n;
  }
}

// Both styles, on a head of whole 16-pair vectors (64) and one with a
// tail of pairs past them (80: Phi-2's).
TEST_P(ConsistencyTest, Rope) {
  SKIP_IF_REFERENCE(rope, ref::RotatePairs);
  const int32_t positions[kRows] = {0, 17, 511};
  for (int64_t head_dim : {64, 80}) {
    const int64_t n = kRows * 9 * head_dim;
    for (RopeStyle style : {RopeStyle::kNorm, RopeStyle::kNeox}) {
      std::vector<float> want = RandomFloats(n, 5, -8.0f, 8.0f), got = want;
      const RopeParams params{.style = style, .freq_base = 100000.0f};
      ref::Rope(want.data(), positions, kRows, 9, head_dim, params);
      std::vector<float> cos_sin(static_cast<size_t>(kRows * head_dim));
      ref::RopeAngles(positions, kRows, head_dim, params, cos_sin.data());
      set().rope(got.data(), cos_sin.data(), kRows, 9, head_dim, style);
      EXPECT_LE(MaxUlpDistance(got.data(), want.data(), n), kRopeMaxUlp) << head_dim;
    }
  }
}

// Rows of whole 16-lane vectors (3 heads of 64) and with a tail (3 of 40);
// K's first values are F16's edge cases: ties to even, the largest finite
// value and the first that rounds to infinity, subnormals and their ties,
// values that round to zero, signed zeros, infinities and the default NaN;
// BF16 takes them too, with ties of its own (bf16 keeps 8 significant bits)
// and f32 subnormals, which it keeps where VCVTNE2PS2BF16 would flush them.
TEST_P(ConsistencyTest, WriteKv) {
  SKIP_IF_REFERENCE(write_kv, ref::WriteKv);
  const std::vector<float> edges = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65504.0f, 65519.99f, 65520.0f, -65520.0f,
                                    0x1p-14f, 0x1p-15f, 0x1p-24f, 0x1p-25f, 3 * 0x1p-25f, 0x1p-26f, 1e-9f, -0.0f,
                                    0.0f, INFINITY, -INFINITY, NAN, 0x1.ffcp-15f, -0x1.0p-20f,
                                    1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, 0x1p-130f, -0x1.8p-140f, 0x1.fffffep127f};
  for (int64_t head_dim : {int64_t{64}, int64_t{40}, int64_t{96}}) {
    for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) {
      if (t == DType::kBF16 && head_dim % 32 != 0) continue;  // the pairs order's shapes (kv_pairs_layout.h)
      const int64_t width = 3 * head_dim;
      const size_t bytes = static_cast<size_t>(4 * 16 * width) * (t == DType::kF32 ? 4 : 2);
      std::vector<uint8_t> k0(bytes), v0(bytes), k1(bytes), v1(bytes);
      std::vector<float> k = RandomFloats(2 * width, 7);
      const std::vector<float> v = RandomFloats(2 * width, 8);
      std::copy(edges.begin(), edges.end(), k.begin());
      const int64_t slots[2] = {37, 5};
      const KvCacheLayer want{t, k0.data(), v0.data(), 4, 16, 3, head_dim};
      const KvCacheLayer got{t, k1.data(), v1.data(), 4, 16, 3, head_dim};
      ref::WriteKv(k.data(), v.data(), slots, 2, want);
      set().write_kv(k.data(), v.data(), slots, 2, got);
      EXPECT_EQ(k0, k1) << DTypeName(t) << " head_dim " << head_dim;
      EXPECT_EQ(v0, v1) << DTypeName(t) << " head_dim " << head_dim;
    }
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

// The CPU's features as CPUID and XGETBV report them, read here rather than
// through the detection code under test (which asks the compiler's
// __builtin_cpu_supports).
struct CpuFacts {
  bool avx2 = false, fma = false, f16c = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512vnni = false, avx512bf16 = false;
  bool amx_tile = false, amx_int8 = false;
  bool os_saves_ymm = false, os_saves_zmm = false, os_saves_tiles = false;
};

CpuFacts ReadCpuid() {
  CpuFacts f;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  f.fma = c & (1u << 12);
  f.f16c = c & (1u << 29);
  const bool osxsave = c & (1u << 27);
  if (osxsave) {
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    f.os_saves_ymm = (lo & 0x6) == 0x6;    // SSE and AVX state
    f.os_saves_zmm = (lo & 0xe6) == 0xe6;  // plus opmask and both halves of the ZMM state
    f.os_saves_tiles = (lo & 0x60000) == 0x60000;  // XTILECFG and XTILEDATA
  }
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    f.avx2 = b & (1u << 5);
    f.avx512f = b & (1u << 16);
    f.avx512bw = b & (1u << 30);
    f.avx512vl = b & (1u << 31);
    f.avx512vnni = c & (1u << 11);
    f.amx_tile = d & (1u << 24);
    f.amx_int8 = d & (1u << 25);
  }
  if (__get_cpuid_count(7, 1, &a, &b, &c, &d)) f.avx512bf16 = a & (1u << 5);
  return f;
}

TEST_P(ConsistencyTest, RowOps) {
  if (set().rows == &ref::kRowOps) GTEST_SKIP() << "the " << set().name << " set uses the portable row ops";
  const cpu::RowOps& want = ref::kRowOps;
  const cpu::RowOps& got = *set().rows;
  // Lengths around the 16 lanes and the 512-term blocks, and a vocabulary's.
  for (int64_t n : {1, 15, 16, 17, 511, 512, 513, 1000, 49152}) {
    const std::vector<float> row = RandomFloats(n, static_cast<uint32_t>(n), -30.0f, 30.0f);
    const float shift = want.RowMax(row);
    EXPECT_EQ(got.RowMax(row), shift) << n;
    EXPECT_EQ(got.SumExp(row, shift), want.SumExp(row, shift)) << n;
    EXPECT_EQ(got.SumRow(row), want.SumRow(row)) << n;
    std::vector<float> want_terms(n), got_terms(n);
    EXPECT_EQ(got.ExpAndSum(row, shift, got_terms), want.ExpAndSum(row, shift, want_terms)) << n;
    EXPECT_EQ(MaxUlpDistance(got_terms.data(), want_terms.data(), n), 0) << n;
  }
}

TEST(KernelSetTest, SupportedSetsFollowTheCpuidBits) {
  const CpuFacts f = ReadCpuid();
  const bool avx2 = f.os_saves_ymm && f.avx2 && f.fma && f.f16c;
  const bool avx512 = avx2 && f.os_saves_zmm && f.avx512f && f.avx512bw && f.avx512vl && f.avx512vnni;
  std::vector<std::string> want = {"scalar"};
  if (avx2) want.push_back("avx2");
  // avx512bf16 is the best where present (kernel_set.cc says why).
  if (avx512) want.push_back("avx512");
  if (avx512 && f.avx512bf16) want.push_back("avx512bf16");

  std::vector<std::string> got;
  for (const cpu::KernelSet* s : cpu::SupportedKernelSets()) got.push_back(s->name);
  // amx also needs Linux's tile data permission, which detection asked for
  // where the CPU and OS allow tiles: the set is listed exactly where the
  // process now holds it (a kernel or sandbox may refuse it).
  uint64_t permitted = 0;
  const bool tiles_permitted = syscall(SYS_arch_prctl, 0x1022 /* ARCH_GET_XCOMP_PERM */, &permitted) == 0 &&
                               (permitted & (1ull << 18)) != 0;  // XFEATURE_XTILEDATA
  const bool amx = avx512 && f.avx512bf16 && f.amx_tile && f.amx_int8 && f.os_saves_tiles;
  if (!f.os_saves_tiles) {
    EXPECT_FALSE(tiles_permitted) << "tile data permitted where the OS saves no tile state";
  }
  if (amx && !tiles_permitted) std::printf("AMX present but the tile data permission was refused\n");
  if (amx && tiles_permitted) want.push_back("amx");
  EXPECT_EQ(got, want);
  EXPECT_STREQ(cpu::BestKernelSet().name, want.back().c_str());
  std::printf("best kernel set: %s\n", cpu::BestKernelSet().name);
}

}  // namespace
}  // namespace pagoda::kernels
