// The small kernels: reference against independent double-precision math or
// exact expectations, through the public entry points where they coincide.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/tensor/half.h"
#include "pagoda/threading/thread_pool.h"
#include "test_util.h"

namespace pagoda::kernels {
namespace {

namespace ref = reference;
using testing::RandomFloats;

TEST(RmsNormTest, MatchesDoublePrecisionFormula) {
  const int64_t rows = 3;
  const int64_t dim = 576;
  const float eps = 1e-5f;
  const std::vector<float> x = RandomFloats(rows * dim, 1, -3.0f, 3.0f);
  const std::vector<float> w = RandomFloats(dim, 2, 0.5f, 1.5f);
  std::vector<float> y(rows * dim);
  ref::RmsNorm(x.data(), w.data(), rows, dim, eps, y.data());
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0.0;
    for (int64_t i = 0; i < dim; ++i) ss += double{x[r * dim + i]} * x[r * dim + i];
    const double inv = 1.0 / std::sqrt(ss / dim + eps);
    for (int64_t i = 0; i < dim; ++i) {
      const double want = x[r * dim + i] * inv * w[i];
      ASSERT_NEAR(y[r * dim + i], want, 2e-6 * std::fabs(want) + 1e-12) << r << "," << i;
    }
  }
}

TEST(RmsNormTest, EpsilonGuardsAZeroRow) {
  const std::vector<float> x(8, 0.0f), w(8, 1.0f);
  std::vector<float> y(8, 1.0f);
  ref::RmsNorm(x.data(), w.data(), 1, 8, 1e-6f, y.data());
  for (float v : y) EXPECT_EQ(v, 0.0f);
}

// kernels::Rope keeps each call's angles for the next (RopeAnglesCache): a
// call at other positions (in the same buffer), with another head size or
// other parameters must not reuse them, and one with other heads at the same
// positions (K after Q) may. Every call equals the reference bit for bit.
TEST(RopeTest, PublicEntryPointEqualsTheReferenceFromCallToCall) {
  ThreadPool pool(2);
  ComputeContext ctx(cpu::BestKernelSet(), pool);
  const float factors[32] = {1.0f, 2.0f, 4.0f, 8.0f, 1.5f, 3.0f, 1.0f, 1.0f, 2.0f, 2.0f, 2.0f,
                             2.0f, 1.0f, 1.0f, 1.0f, 1.0f, 5.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f,
                             1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 7.0f};
  struct Call {
    int64_t heads, head_dim;
    RopeParams params;
    int32_t shift;  // added to every position before the call
  };
  const Call calls[] = {
      {9, 64, {.freq_base = 10000.0f}, 0},
      {3, 64, {.freq_base = 10000.0f}, 0},
      {9, 64, {.freq_base = 10000.0f}, 5},
      {9, 64, {.style = RopeStyle::kNeox, .freq_base = 10000.0f}, 0},
      {9, 64, {.style = RopeStyle::kNeox, .freq_base = 500000.0f}, 0},
      {9, 64, {.style = RopeStyle::kNeox, .freq_base = 500000.0f, .freq_scale = 0.25f}, 0},
      {9, 64, {.style = RopeStyle::kNeox, .freq_base = 500000.0f, .freq_scale = 0.25f, .freq_factors = factors}, 0},
      {9, 64, {.style = RopeStyle::kNeox, .freq_base = 500000.0f, .freq_scale = 0.25f, .freq_factors = factors,
               .attn_factor = 1.5f}, 0},
      {4, 32, {.style = RopeStyle::kNeox, .freq_base = 500000.0f, .freq_scale = 0.25f, .freq_factors = factors,
               .attn_factor = 1.5f}, 0},
      {4, 32, {.freq_base = 10000.0f}, 1000},
  };
  std::vector<int32_t> positions = {0, 17, 511, 3, 4, 4095};
  const auto tokens = static_cast<int64_t>(positions.size());
  for (size_t c = 0; c < std::size(calls); ++c) {
    const Call& call = calls[c];
    for (int32_t& p : positions) p += call.shift;
    std::vector<float> want = RandomFloats(tokens * call.heads * call.head_dim, static_cast<uint32_t>(c + 1));
    std::vector<float> got = want;
    ref::Rope(want.data(), positions.data(), tokens, call.heads, call.head_dim, call.params);
    Rope(ctx, got.data(), positions.data(), tokens, call.heads, call.head_dim, call.params);
    EXPECT_EQ(testing::FirstBitDifference(got.data(), want.data(), static_cast<int64_t>(got.size())), -1)
        << "call " << c;
  }
}

// RopeRows turns only its rows, with the angles of the whole batch: two
// workers each turning their own rows inside one job give Rope's bits.
TEST(RopeTest, RowsInsideAJobEqualTheWholeBatch) {
  ThreadPool pool(2);
  ComputeContext ctx(cpu::BestKernelSet(), pool);
  const RopeParams params{.style = RopeStyle::kNeox, .freq_base = 500000.0f};
  std::vector<int32_t> positions(50);
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int32_t>(3 * i + 1);
  const auto tokens = static_cast<int64_t>(positions.size());
  const int64_t heads = 3, head_dim = 64;
  std::vector<float> want = RandomFloats(tokens * heads * head_dim, 4);
  std::vector<float> got = want;
  ref::Rope(want.data(), positions.data(), tokens, heads, head_dim, params);
  PrepareRope(ctx, positions.data(), tokens, head_dim, params);
  pool.ParallelFor(tokens, [&](int64_t begin, int64_t end) {
    RopeRows(ctx, got.data(), positions.data(), tokens, heads, head_dim, params, begin, end);
  });
  EXPECT_EQ(testing::FirstBitDifference(got.data(), want.data(), static_cast<int64_t>(got.size())), -1);
}

// Inside a job the angle table must already hold the batch's positions:
// computing it there would have two workers write it at once.
TEST(RopeDeathTest, RowsInsideAJobNeedTheAnglesPrepared) {
  ThreadPool pool(2);
  ComputeContext ctx(cpu::BestKernelSet(), pool);
  const std::vector<int32_t> positions = {0, 1, 2, 3};
  std::vector<float> x(4 * 64, 1.0f);
  EXPECT_DEATH(pool.ParallelFor(4, [&](int64_t begin, int64_t end) {
                 RopeRows(ctx, x.data(), positions.data(), 4, 1, 64, RopeParams{}, begin, end);
               }),
               "PrepareRope");
}

TEST(RopeTest, NormalStyleRotatesAdjacentPairsByPositionTimesFrequency) {
  const int64_t heads = 2;
  const int64_t head_dim = 8;
  const float base = 10000.0f;
  const int32_t positions[3] = {0, 1, 37};
  const std::vector<float> x0 = RandomFloats(3 * heads * head_dim, 4);
  std::vector<float> x = x0;
  ref::Rope(x.data(), positions, 3, heads, head_dim, {.freq_base = base});
  for (int64_t t = 0; t < 3; ++t) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t i = 0; i < head_dim / 2; ++i) {
        const double angle = positions[t] * std::pow(double{base}, -2.0 * i / head_dim);
        const size_t e = static_cast<size_t>((t * heads + h) * head_dim + 2 * i);
        const double a = x0[e], b = x0[e + 1];
        // The angle is built in f32 by repeated multiplication, so allow its rounding.
        const double tol = 1e-6 + 4e-7 * positions[t] * (i + 1);
        EXPECT_NEAR(x[e], a * std::cos(angle) - b * std::sin(angle), tol) << t << "," << h << "," << i;
        EXPECT_NEAR(x[e + 1], a * std::sin(angle) + b * std::cos(angle), tol) << t << "," << h << "," << i;
      }
    }
  }
  // Position 0 is the identity, exactly.
  EXPECT_EQ(0, std::memcmp(x.data(), x0.data(), heads * head_dim * sizeof(float)));
}

TEST(RopeTest, FrequencyFactorsDivideEachPairsAngle) {
  const int64_t head_dim = 8;
  const float base = 500000.0f;
  const float factors[4] = {1.0f, 2.5f, 8.0f, 32.0f};  // Llama 3.1's rope_freqs: low frequencies slowed
  const int32_t positions[2] = {3, 1000};
  const std::vector<float> x0 = RandomFloats(2 * head_dim, 9);
  std::vector<float> x = x0;
  ref::Rope(x.data(), positions, 2, 1, head_dim, {.freq_base = base, .freq_factors = factors});
  for (int64_t t = 0; t < 2; ++t) {
    for (int64_t i = 0; i < head_dim / 2; ++i) {
      const double angle = positions[t] * std::pow(double{base}, -2.0 * i / head_dim) / factors[i];
      const size_t e = static_cast<size_t>(t * head_dim + 2 * i);
      const double a = x0[e], b = x0[e + 1];
      const double tol = 1e-6 + 4e-7 * positions[t] * (i + 1);
      EXPECT_NEAR(x[e], a * std::cos(angle) - b * std::sin(angle), tol) << t << "," << i;
      EXPECT_NEAR(x[e + 1], a * std::sin(angle) + b * std::cos(angle), tol) << t << "," << i;
    }
  }
  // Factors of 1 are no scaling, bit for bit.
  const float ones[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  std::vector<float> plain = x0, scaled = x0;
  ref::Rope(plain.data(), positions, 2, 1, head_dim, {.freq_base = base});
  ref::Rope(scaled.data(), positions, 2, 1, head_dim, {.freq_base = base, .freq_factors = ones});
  EXPECT_EQ(0, std::memcmp(plain.data(), scaled.data(), plain.size() * sizeof(float)));
}

TEST(RopeTest, QuarterTurn) {
  // Pair 0 turns by exactly p radians; p = 1 with a known vector.
  float x[4] = {1.0f, 0.0f, 0.0f, 1.0f};
  const int32_t pos = 1;
  ref::Rope(x, &pos, 1, 1, 4, {.freq_base = 10000.0f});
  EXPECT_FLOAT_EQ(x[0], std::cos(1.0f));
  EXPECT_FLOAT_EQ(x[1], std::sin(1.0f));
  // Pair 1 turns by 10000^(-1/2) = 0.01 radians.
  EXPECT_NEAR(x[2], -std::sin(0.01), 1e-7);
  EXPECT_NEAR(x[3], std::cos(0.01), 1e-7);
}

// NeoX style pairs dimension i with i + head_dim / 2; linear scaling
// multiplies the angle, the factors divide it, and attn_factor scales the
// result: checked against the rotation computed in double.
TEST(RopeTest, NeoxStyleWithScalingFactorsAndAttentionFactor) {
  const int64_t heads = 3;
  const int64_t head_dim = 12;
  const float base = 1000000.0f;
  const float factors[6] = {1.0f, 1.5f, 2.0f, 4.0f, 9.0f, 30.0f};
  const int32_t positions[3] = {0, 5, 700};
  for (const RopeParams params : {RopeParams{.style = RopeStyle::kNeox, .freq_base = base},
                                  RopeParams{.style = RopeStyle::kNeox, .freq_base = base, .freq_scale = 0.125f,
                                             .freq_factors = factors, .attn_factor = 1.19f}}) {
    const std::vector<float> x0 = RandomFloats(3 * heads * head_dim, 11);
    std::vector<float> x = x0;
    ref::Rope(x.data(), positions, 3, heads, head_dim, params);
    for (int64_t t = 0; t < 3; ++t) {
      for (int64_t h = 0; h < heads; ++h) {
        for (int64_t i = 0; i < head_dim / 2; ++i) {
          const double divisor = params.freq_factors != nullptr ? params.freq_factors[i] : 1.0;
          const double angle =
              positions[t] * std::pow(double{base}, -2.0 * i / head_dim) / divisor * params.freq_scale;
          const size_t e = static_cast<size_t>((t * heads + h) * head_dim + i);
          const size_t f = e + head_dim / 2;
          const double a = x0[e], b = x0[f], m = params.attn_factor;
          const double tol = 2e-6 + 4e-7 * positions[t] * (i + 1);
          EXPECT_NEAR(x[e], m * (a * std::cos(angle) - b * std::sin(angle)), tol) << t << "," << h << "," << i;
          EXPECT_NEAR(x[f], m * (a * std::sin(angle) + b * std::cos(angle)), tol) << t << "," << h << "," << i;
        }
      }
    }
  }
}

TEST(GeluMulTest, MatchesTanhApproximationInDouble) {
  const std::vector<float> g = RandomFloats(1000, 5, -12.0f, 12.0f), u = RandomFloats(1000, 6);
  std::vector<float> out(1000);
  ref::GeluMul(g.data(), u.data(), 1000, out.data());
  for (size_t i = 0; i < g.size(); ++i) {
    const double x = g[i];
    const double gelu = 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    EXPECT_NEAR(out[i], gelu * u[i], 1e-5 * (1.0 + std::fabs(gelu * u[i]))) << x;
  }
}

TEST(AddBiasTest, AddsTheBiasToEveryRow) {
  const std::vector<float> y0 = RandomFloats(3 * 5, 1), bias = RandomFloats(5, 2);
  std::vector<float> y = y0;
  ref::AddBias(y.data(), bias.data(), 3, 5);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 5; ++c) EXPECT_EQ(y[r * 5 + c], y0[r * 5 + c] + bias[c]);
  }
}

TEST(SoftcapTest, BoundsValuesByTheCapAndKeepsSmallOnesNearlyUnchanged) {
  std::vector<float> x = {0.0f, 1e-3f, -2.0f, 30.0f, 1e6f, -1e6f};
  const std::vector<float> x0 = x;
  ref::Softcap(x.data(), static_cast<int64_t>(x.size()), 30.0f);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(x[i], 30.0 * std::tanh(x0[i] / 30.0), 1e-5 * 30.0) << x0[i];
    EXPECT_LE(std::fabs(x[i]), 30.0f);
  }
}

// Router probabilities by softmax over every expert; the top k in order of
// probability, renormalized on request. Checked against a direct double
// computation with ties going to the lower id.
TEST(MoeRouteTest, PicksTopExpertsBySoftmaxProbability) {
  const int64_t tokens = 4, experts = 6, k = 2;
  std::vector<float> logits = RandomFloats(tokens * experts, 3, -4.0f, 4.0f);
  logits[3 * experts + 1] = logits[3 * experts + 4] = 10.0f;  // a tie at the top
  for (bool normalize : {false, true}) {
    std::vector<int32_t> ids(tokens * k);
    std::vector<float> weights(tokens * k);
    ref::MoeRoute(logits.data(), tokens, experts, k, normalize, ids.data(), weights.data());
    for (int64_t t = 0; t < tokens; ++t) {
      const float* row = logits.data() + t * experts;
      double total = 0.0;
      for (int64_t e = 0; e < experts; ++e) total += std::exp(double{row[e]});
      std::vector<int32_t> order(experts);
      for (int32_t e = 0; e < experts; ++e) order[e] = e;
      std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return row[a] > row[b]; });
      double chosen = 0.0;
      for (int64_t j = 0; j < k; ++j) chosen += std::exp(double{row[order[j]]}) / total;
      for (int64_t j = 0; j < k; ++j) {
        const double p = std::exp(double{row[order[j]]}) / total;
        EXPECT_EQ(ids[t * k + j], order[j]) << t << "," << j;
        EXPECT_NEAR(weights[t * k + j], normalize ? p / chosen : p, 1e-6) << t << "," << j;
      }
    }
    EXPECT_EQ(ids[3 * k], 1);  // the tie goes to the lower id
    EXPECT_EQ(ids[3 * k + 1], 4);
  }
}

TEST(SiluMulTest, MatchesDoublePrecision) {
  std::vector<float> g = RandomFloats(1000, 5, -20.0f, 20.0f);
  g.push_back(0.0f);
  g.push_back(-100.0f);  // exp overflows to inf; silu is -0
  const std::vector<float> u = RandomFloats(static_cast<int64_t>(g.size()), 6, -2.0f, 2.0f);
  std::vector<float> out(g.size());
  ref::SiluMul(g.data(), u.data(), static_cast<int64_t>(g.size()), out.data());
  for (size_t i = 0; i < g.size(); ++i) {
    const double want = g[i] / (1.0 + std::exp(-double{g[i]})) * u[i];
    ASSERT_NEAR(out[i], want, 1e-6 * std::fabs(want) + 1e-30) << g[i];
  }
}

TEST(AddInPlaceTest, AddsElementwise) {
  std::vector<float> y = {1.0f, -2.0f, 0.5f};
  const std::vector<float> x = {0.25f, 2.0f, 1e30f};
  ref::AddInPlace(y.data(), x.data(), 3);
  EXPECT_EQ(y[0], 1.25f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 1e30f);
}

TEST(EmbeddingLookupTest, DequantizesTheRequestedRows) {
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ4_0, DType::kQ4_1, DType::kQ8_0}) {
    const testing::Weights table = testing::MakeWeights(t, 10, 64, 3);
    const int32_t ids[4] = {9, 0, 9, 4};
    std::vector<float> out(4 * 64);
    ref::EmbeddingLookup(table.view(), ids, 4, out.data());
    for (int i = 0; i < 4; ++i) {
      std::vector<float> want(64);
      ref::DequantizeRow(t, table.bytes.data() + ids[i] * DTypeRowBytes(t, 64), want.data(), 64);
      ASSERT_EQ(0, std::memcmp(want.data(), out.data() + i * 64, 64 * sizeof(float))) << DTypeName(t);
    }
  }
}

// The public entry point splits a prompt's rows over the pool; every row
// must still be the reference's.
TEST(EmbeddingLookupTest, PublicEntryPointSplitOverThreadsEqualsTheReference) {
  ThreadPool pool(2);
  ComputeContext ctx(cpu::BestKernelSet(), pool);
  const testing::Weights table = testing::MakeWeights(DType::kQ8_0, 50, 64, 3);
  std::vector<int32_t> ids(101);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>((i * 7) % 50);
  std::vector<float> want(ids.size() * 64), got(ids.size() * 64, -1.0f);
  ref::EmbeddingLookup(table.view(), ids.data(), static_cast<int64_t>(ids.size()), want.data());
  EmbeddingLookup(ctx, table.view(), ids.data(), static_cast<int64_t>(ids.size()), got.data());
  EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float)));
}

TEST(EmbeddingLookupDeathTest, RejectsOutOfRangeIds) {
  const testing::Weights table = testing::MakeWeights(DType::kF32, 4, 32, 3);
  const int32_t id = 4;
  std::vector<float> out(32);
  EXPECT_DEATH(ref::EmbeddingLookup(table.view(), &id, 1, out.data()), "embedding id");
}

TEST(WriteKvTest, WritesOnlyTheMappedSlots) {
  for (DType dtype : {DType::kF32, DType::kF16}) {
    const int64_t blocks = 3, block_size = 4, heads = 2, dim = 8;
    const int64_t width = heads * dim;
    const size_t elem = dtype == DType::kF16 ? 2 : 4;
    std::vector<uint8_t> k(static_cast<size_t>(blocks * block_size * width) * elem, 0xAB);
    std::vector<uint8_t> v = k;
    const std::vector<uint8_t> untouched = k;
    const KvCacheLayer cache{dtype, k.data(), v.data(), blocks, block_size, heads, dim};
    const std::vector<float> nk = RandomFloats(2 * width, 1), nv = RandomFloats(2 * width, 2);
    const int64_t slots[2] = {2 * block_size + 1, 0};  // block 2 offset 1, block 0 offset 0
    ref::WriteKv(nk.data(), nv.data(), slots, 2, cache);
    for (int64_t slot = 0; slot < blocks * block_size; ++slot) {
      const int64_t t = slot == slots[0] ? 0 : slot == slots[1] ? 1 : -1;
      for (int64_t e = 0; e < width; ++e) {
        const size_t at = static_cast<size_t>(slot * width + e);
        if (t < 0) {
          ASSERT_EQ(0, std::memcmp(k.data() + at * elem, untouched.data() + at * elem, elem));
          continue;
        }
        if (dtype == DType::kF16) {
          const auto* kh = reinterpret_cast<const f16_bits*>(k.data());
          const auto* vh = reinterpret_cast<const f16_bits*>(v.data());
          ASSERT_EQ(kh[at], F32ToF16(nk[t * width + e]));
          ASSERT_EQ(vh[at], F32ToF16(nv[t * width + e]));
        } else {
          ASSERT_EQ(reinterpret_cast<const float*>(k.data())[at], nk[t * width + e]);
          ASSERT_EQ(reinterpret_cast<const float*>(v.data())[at], nv[t * width + e]);
        }
      }
    }
  }
}

// A BF16 cache: each element lands where kv_pairs_layout.h says, read back
// here from the layout's definition (per block and KV head, K's dimensions
// paired per position, V's positions paired per dimension), and no other
// byte changes.
TEST(WriteKvTest, Bf16GoesToTheTilePairsOrder) {
  const int64_t blocks = 3, block_size = 16, heads = 2, dim = 64;
  const int64_t width = heads * dim;
  const size_t elements = static_cast<size_t>(blocks * block_size * width);
  std::vector<bf16_bits> k(elements, 0xABCD), v(elements, 0xABCD);
  const KvCacheLayer cache{DType::kBF16, k.data(), v.data(), blocks, block_size, heads, dim};
  const std::vector<float> nk = RandomFloats(3 * width, 1), nv = RandomFloats(3 * width, 2);
  const int64_t slots[3] = {2 * block_size + 5, 0, 2 * block_size + 6};
  ref::WriteKv(nk.data(), nv.data(), slots, 3, cache);
  std::vector<bool> k_written(elements, false), v_written(elements, false);
  for (int t = 0; t < 3; ++t) {
    const int64_t block = slots[t] / block_size, i = slots[t] % block_size;
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t run = (block * heads + h) * block_size * dim;
      for (int64_t d = 0; d < dim; ++d) {
        const size_t k_at = static_cast<size_t>(run + (d / 2 * block_size + i) * 2 + d % 2);
        const size_t v_at = static_cast<size_t>(run + (i / 2 * dim + d) * 2 + i % 2);
        ASSERT_EQ(k[k_at], F32ToBF16(nk[t * width + h * dim + d])) << t << " " << h << " " << d;
        ASSERT_EQ(v[v_at], F32ToBF16(nv[t * width + h * dim + d])) << t << " " << h << " " << d;
        k_written[k_at] = v_written[v_at] = true;
      }
    }
  }
  for (size_t e = 0; e < elements; ++e) {
    if (!k_written[e]) {
      ASSERT_EQ(k[e], 0xABCD) << e;
    }
    if (!v_written[e]) {
      ASSERT_EQ(v[e], 0xABCD) << e;
    }
  }
}

// The public entry point splits a prompt's tokens over the pool. Slots are
// handed out so that neighbours in a block (which share K's cache lines and,
// in the BF16 order, V's 32-bit pairs) come from both halves of the split:
// the arena must end as the reference's single pass leaves it.
TEST(WriteKvTest, PublicEntryPointSplitOverThreadsEqualsTheReference) {
  ThreadPool pool(2);
  ComputeContext ctx(cpu::BestKernelSet(), pool);
  const int64_t blocks = 8, block_size = 16, heads = 2, dim = 64, tokens = 100;
  const int64_t width = heads * dim;
  std::vector<int64_t> slots(tokens);
  for (int64_t t = 0; t < tokens; ++t) slots[t] = t % 2 == 0 ? t / 2 : tokens / 2 + t / 2 + 3;
  const std::vector<float> nk = RandomFloats(tokens * width, 1), nv = RandomFloats(tokens * width, 2);
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    const size_t bytes = static_cast<size_t>(blocks * block_size * width) * (dtype == DType::kF32 ? 4 : 2);
    std::vector<uint8_t> want_k(bytes, 0xAB), want_v(bytes, 0xAB);
    std::vector<uint8_t> got_k = want_k, got_v = want_v;
    ref::WriteKv(nk.data(), nv.data(), slots.data(), tokens,
                 KvCacheLayer{dtype, want_k.data(), want_v.data(), blocks, block_size, heads, dim});
    WriteKv(ctx, nk.data(), nv.data(), slots.data(), tokens,
            KvCacheLayer{dtype, got_k.data(), got_v.data(), blocks, block_size, heads, dim});
    EXPECT_EQ(want_k, got_k) << DTypeName(dtype);
    EXPECT_EQ(want_v, got_v) << DTypeName(dtype);
  }
}

TEST(WriteKvDeathTest, RejectsSlotsOutsideTheArena) {
  std::vector<float> k(8), v(8);
  const KvCacheLayer cache{DType::kF32, k.data(), v.data(), 1, 1, 1, 8};
  const std::vector<float> nk(8), nv(8);
  const int64_t slot = 1;
  EXPECT_DEATH(ref::WriteKv(nk.data(), nv.data(), &slot, 1, cache), "KV slot");
}

}  // namespace
}  // namespace pagoda::kernels
