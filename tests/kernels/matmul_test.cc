// MatMul: the reference against independent arithmetic, every SIMD set
// against the reference bit for bit, and batch invariance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
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
using testing::Describe;
using testing::FirstBitDifference;
using testing::MakeRawWeights;
using testing::MakeWeights;
using testing::RandomFloats;
using testing::Weights;

constexpr DType kWeightTypes[] = {DType::kF32, DType::kF16, DType::kBF16,
                                  DType::kQ4_0, DType::kQ4_1, DType::kQ8_0};

std::vector<float> RunSet(const cpu::KernelSet& set, const std::vector<float>& x, int64_t m,
                       const MatrixView& w, int threads) {
  ThreadPool pool(threads);
  ComputeContext ctx(set, pool);
  std::vector<float> y(static_cast<size_t>(m * w.rows), -1.0f);
  set.matmul(x.data(), m, w, y.data(), ctx);
  return y;
}

std::vector<float> RunReference(const std::vector<float>& x, int64_t m, const MatrixView& w) {
  std::vector<float> y(static_cast<size_t>(m * w.rows), -1.0f);
  ref::MatMul(x.data(), m, w, y.data());
  return y;
}

TEST(ReferenceMatMulTest, ExactIntegerCase) {
  // Q8_0 weights j - 16 with d = 1 against x = 127 everywhere (so x's d = 1,
  // q = 127): every product and sum is exact.
  std::vector<BlockQ8_0> w(2 * 2);
  for (int r = 0; r < 2; ++r) {
    for (int b = 0; b < 2; ++b) {
      w[r * 2 + b].d = F32ToF16(r == 0 ? 1.0f : 0.5f);
      for (int j = 0; j < 32; ++j) w[r * 2 + b].qs[j] = static_cast<int8_t>(j - 16);
    }
  }
  const std::vector<float> x(64, 127.0f);
  float y[2];
  ref::MatMul(x.data(), 1, {DType::kQ8_0, w.data(), 2, 64}, y);
  EXPECT_EQ(y[0], 2 * 127 * -16);  // sum over j of (j - 16) = -16 per block
  EXPECT_EQ(y[1], 127 * -16);
}

// Expected outputs computed in double from the blocks' fields: dequantized
// weights against the quantized activations (for Q4_1, the Q8_1 s field
// carries x's block sum, as in GGML).
std::vector<double> ExpectedInDouble(const std::vector<float>& x, int64_t m, const Weights& w,
                                     std::vector<double>* magnitude) {
  const int64_t k = w.cols;
  const int64_t nb = k / 32;
  std::vector<double> y(static_cast<size_t>(m * w.rows));
  magnitude->assign(y.size(), 0.0);
  std::vector<float> wrow(k), xrow(k);
  for (int64_t i = 0; i < m; ++i) {
    std::vector<BlockQ8_1> q8_1(static_cast<size_t>(k / 32 + 1));
    std::vector<BlockQ8_0> q8_0(static_cast<size_t>(k / 32 + 1));
    if (w.dtype == DType::kQ4_1) {
      ref::QuantizeRowQ8_1(x.data() + i * k, q8_1.data(), k);
    } else if (w.dtype == DType::kQ4_0 || w.dtype == DType::kQ8_0) {
      ref::QuantizeRowQ8_0(x.data() + i * k, q8_0.data(), k);
      ref::DequantizeRow(DType::kQ8_0, q8_0.data(), xrow.data(), k);
    } else {
      std::memcpy(xrow.data(), x.data() + i * k, k * sizeof(float));
    }
    for (int64_t j = 0; j < w.rows; ++j) {
      const uint8_t* row = w.bytes.data() + j * DTypeRowBytes(w.dtype, k);
      double sum = 0.0;
      double mag = 0.0;
      if (w.dtype == DType::kQ4_1) {
        const auto* blocks = reinterpret_cast<const BlockQ4_1*>(row);
        for (int64_t b = 0; b < nb; ++b) {
          double dot = 0.0;
          for (int e = 0; e < 32; ++e) {
            const int nibble = e < 16 ? blocks[b].qs[e] & 15 : blocks[b].qs[e - 16] >> 4;
            dot += nibble * q8_1[b].qs[e];
          }
          const double term1 = double{F16ToF32(blocks[b].d)} * F16ToF32(q8_1[b].d) * dot;
          const double term2 = double{F16ToF32(blocks[b].m)} * F16ToF32(q8_1[b].s);
          sum += term1 + term2;
          mag += std::fabs(term1) + std::fabs(term2);
        }
      } else {
        ref::DequantizeRow(w.dtype, row, wrow.data(), k);
        for (int64_t e = 0; e < k; ++e) {
          sum += double{wrow[e]} * xrow[e];
          mag += std::fabs(double{wrow[e]} * xrow[e]);
        }
      }
      y[i * w.rows + j] = sum;
      (*magnitude)[i * w.rows + j] = mag;
    }
  }
  return y;
}

TEST(ReferenceMatMulTest, MatchesBlockArithmeticInDouble) {
  for (DType t : kWeightTypes) {
    for (int64_t cols : {32, 96, 576}) {
      const Weights w = MakeWeights(t, 9, cols, 21);
      const int64_t m = 3;
      const std::vector<float> x = RandomFloats(m * cols, 5, -2.0f, 2.0f);
      const std::vector<float> y = RunReference(x, m, w.view());
      std::vector<double> magnitude;
      const std::vector<double> want = ExpectedInDouble(x, m, w, &magnitude);
      for (size_t e = 0; e < y.size(); ++e) {
        ASSERT_NEAR(y[e], want[e], 1e-5 * magnitude[e] + 1e-30) << Describe(t, m, 9, cols, 1) << " at " << e;
      }
    }
  }
}

TEST(ReferenceMatMulTest, RejectsActivationOnlyType) {
  const Weights w = MakeWeights(DType::kQ8_1, 2, 32, 1);
  const std::vector<float> x(32, 1.0f);
  float y[2];
  EXPECT_DEATH(ref::MatMul(x.data(), 1, w.view(), y), "activation type");
}

struct Shape {
  int64_t m, rows, cols;
};

// The kernels that are not the reference bit for bit: the AVX512-BF16
// set's BF16 weights (VDPBF16PS on x split into two bf16 parts, see
// matmul_bf16_dot_avx512.cc) sum in another order and drop x's bits below
// the 16th; the AVX-512 sets' 32-element block types add each block's
// (d_w d_x) sum (+ m_w s_x) by FMA (quant_panel_avx512.h), where the
// reference rounds each product and, for Q4_1 and Q8_0, keeps GGML's eight
// group accumulators. Their bound: 1e-5 of the sum of |w * x|. Batch
// invariance still holds exactly (MatMulBatchInvarianceTest).
bool OutsideReferenceOrder(const cpu::KernelSet& set, DType t) {
  const std::string_view name = set.name;
  return (t == DType::kBF16 && testing::RunsBf16Dots(name)) ||
         testing::RunsAvx512BlockUpdate(name, t);
}

void ExpectSetsMatchReference(const Weights& w, const std::vector<Shape>& shapes) {
  for (const Shape& s : shapes) {
    if (s.rows != w.rows || s.cols != w.cols) continue;
    const std::vector<float> x = RandomFloats(s.m * s.cols, static_cast<uint32_t>(s.m * 31 + s.cols), -3.0f, 3.0f);
    const std::vector<float> want = RunReference(x, s.m, w.view());
    for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
      for (int threads : {1, 2, 3}) {
        const std::vector<float> got = RunSet(*set, x, s.m, w.view(), threads);
        if (OutsideReferenceOrder(*set, w.dtype)) {
          const int64_t bad = testing::FirstOutsideDotBound(got, want, w, x, s.m);
          ASSERT_EQ(bad, -1) << set->name << " " << Describe(w.dtype, s.m, s.rows, s.cols, threads) << " got "
                             << got[bad < 0 ? 0 : bad] << " want " << want[bad < 0 ? 0 : bad];
          continue;
        }
        const int64_t bad = FirstBitDifference(got.data(), want.data(), static_cast<int64_t>(want.size()));
        ASSERT_EQ(bad, -1) << set->name << " " << Describe(w.dtype, s.m, s.rows, s.cols, threads)
                           << " got " << got[bad < 0 ? 0 : bad] << " want " << want[bad < 0 ? 0 : bad];
      }
    }
  }
}

TEST(FastMatMulTest, EverySetMatchesReferenceBitForBit) {
  std::vector<Shape> shapes;
  for (int64_t m : {1, 2, 3, 4, 5, 8, 9, 37}) {
    for (int64_t rows : {1, 7, 16, 50}) {
      for (int64_t cols : {32, 64, 576}) shapes.push_back({m, rows, cols});
    }
  }
  for (DType t : kWeightTypes) {
    for (int64_t rows : {1, 7, 16, 50}) {
      for (int64_t cols : {32, 64, 576}) {
        ExpectSetsMatchReference(MakeWeights(t, rows, cols, static_cast<uint32_t>(rows + cols)), shapes);
      }
    }
  }
}

TEST(FastMatMulTest, FloatWeightsWithColumnsOffTheLaneGrid) {
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (int64_t cols : {1, 5, 17, 40}) {
      ExpectSetsMatchReference(MakeWeights(t, 19, cols, 3), {{1, 19, cols}, {6, 19, cols}});
    }
  }
}

TEST(FastMatMulTest, ArbitraryBlockBitsMatchReference) {
  // Every nibble value, Q8_0 weights down to -128, signed scales and
  // minimums; 40 rows take the amx set's tiles for 32 of them.
  for (DType t : {DType::kQ4_0, DType::kQ4_1, DType::kQ8_0}) {
    ExpectSetsMatchReference(testing::MakeRawWeights(t, 33, 256, 99),
                             {{1, 33, 256}, {7, 33, 256}, {40, 33, 256}});
  }
}

TEST(FastMatMulTest, ModelShapesMatchReference) {
  ExpectSetsMatchReference(MakeWeights(DType::kQ4_1, 1536, 576, 1), {{5, 1536, 576}, {48, 1536, 576}});
  ExpectSetsMatchReference(MakeWeights(DType::kQ4_1, 576, 1536, 2), {{3, 576, 1536}});
  ExpectSetsMatchReference(MakeWeights(DType::kQ8_0, 49152, 576, 3), {{1, 49152, 576}});
}

TEST(FastMatMulTest, EmptyBatchWritesNothing) {
  const Weights w = MakeWeights(DType::kQ4_1, 4, 64, 1);
  for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
    ThreadPool pool(2);
    ComputeContext ctx(*set, pool);
    float y = 42.0f;
    set->matmul(nullptr, 0, w.view(), &y, ctx);
    EXPECT_EQ(y, 42.0f) << set->name;
  }
}

// y[i] must not depend on the other rows in the batch or the thread count:
// each row of an m = 37 product (tiles of 4 plus a tail of 1) equals that row
// computed alone, bit for bit.
TEST(MatMulBatchInvarianceTest, RowsOfABatchEqualSingleRowProducts) {
  const int64_t m = 37;
  const int64_t rows = 50;  // not a multiple of any panel height
  const int64_t cols = 576;
  const std::vector<float> x = RandomFloats(m * cols, 77, -2.0f, 2.0f);
  for (DType t : kWeightTypes) {
    const Weights w = MakeWeights(t, rows, cols, 13);
    for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
      for (int threads : {1, 2}) {
        const std::vector<float> batch = RunSet(*set, x, m, w.view(), threads);
        for (int64_t i = 0; i < m; ++i) {
          const std::vector<float> xi(x.begin() + i * cols, x.begin() + (i + 1) * cols);
          for (int single_threads : {1, 2}) {
            const std::vector<float> one = RunSet(*set, xi, 1, w.view(), single_threads);
            ASSERT_EQ(FirstBitDifference(one.data(), batch.data() + i * rows, rows), -1)
                << set->name << " " << Describe(t, m, rows, cols, threads) << " row " << i
                << " single-row threads " << single_threads;
          }
        }
      }
    }
  }
}

// From 64 rows per worker a batch's rows are split over the workers
// (each quantizes and runs its own rows past every panel) instead of the
// panels: every output must be what one thread computes, and a row in any
// worker's share (a partial 16-row tile in the last) what it is alone.
TEST(MatMulBatchInvarianceTest, RowsSplitOverWorkersChangeNoBit) {
  const int64_t rows = 50;
  const int64_t cols = 512;
  for (DType t : {DType::kF32, DType::kQ4_0, DType::kQ4_1, DType::kQ8_0, DType::kQ4_K, DType::kQ6_K}) {
    const bool quantizable = t != DType::kQ4_K && t != DType::kQ6_K;
    const Weights w = quantizable ? MakeWeights(t, rows, cols, 21) : MakeRawWeights(t, rows, cols, 21);
    for (int64_t m : {128, 200}) {
      const std::vector<float> x = RandomFloats(m * cols, static_cast<uint32_t>(m), -2.0f, 2.0f);
      for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
        const std::vector<float> one_thread = RunSet(*set, x, m, w.view(), 1);
        for (int threads : {2, 3}) {
          const std::vector<float> split = RunSet(*set, x, m, w.view(), threads);
          ASSERT_EQ(FirstBitDifference(split.data(), one_thread.data(), m * rows), -1)
              << set->name << " " << Describe(t, m, rows, cols, threads);
        }
        for (int64_t i : {int64_t{0}, m / 2 + 3, m - 1}) {
          const std::vector<float> xi(x.begin() + i * cols, x.begin() + (i + 1) * cols);
          const std::vector<float> alone = RunSet(*set, xi, 1, w.view(), 2);
          ASSERT_EQ(FirstBitDifference(alone.data(), one_thread.data() + i * rows, rows), -1)
              << set->name << " " << Describe(t, m, rows, cols, 1) << " row " << i;
        }
      }
    }
  }
}

TEST(MatMulBatchInvarianceTest, PublicEntryPoint) {
  const int64_t m = 37;
  const Weights w = MakeWeights(DType::kQ4_1, 64, 576, 8);
  const std::vector<float> x = RandomFloats(m * 576, 9);
  ThreadPool pool(2);
  ComputeContext ctx(cpu::BestKernelSet(), pool);
  std::vector<float> batch(m * 64);
  MatMul(ctx, x.data(), m, w.view(), batch.data());
  ThreadPool single(1);
  ComputeContext single_ctx(cpu::BestKernelSet(), single);
  for (int64_t i = 0; i < m; ++i) {
    std::vector<float> one(64);
    MatMul(single_ctx, x.data() + i * 576, 1, w.view(), one.data());
    ASSERT_EQ(FirstBitDifference(one.data(), batch.data() + i * 64, 64), -1) << "row " << i;
  }
}

// An input order (act-order GPTQ) multiplies column k by x[order[k]]: with
// F32 weights the product equals the plain one on x gathered by hand, and
// both equal the double-precision sum over the original channels; every
// set, through the public entry point, and the reference agree bit for bit.
TEST(MatMulInputOrderTest, ColumnsTakeTheirInputsInOrder) {
  const int64_t m = 5, rows = 7, cols = 96;
  std::vector<int32_t> order(cols);
  for (int64_t k = 0; k < cols; ++k) order[k] = static_cast<int32_t>((k * 37 + 11) % cols);  // 37 is prime to 96
  const std::vector<float> x = RandomFloats(m * cols, 4, -2.0f, 2.0f);
  std::vector<float> gathered(x.size());
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t k = 0; k < cols; ++k) gathered[i * cols + k] = x[i * cols + order[k]];
  }
  for (DType t : {DType::kF32, DType::kQ4_1, DType::kQ8_0}) {
    const Weights w = MakeWeights(t, rows, cols, 6);
    MatrixView ordered = w.view();
    ordered.input_order = order.data();
    const std::vector<float> want = RunReference(gathered, m, w.view());
    ASSERT_EQ(FirstBitDifference(RunReference(x, m, ordered).data(), want.data(), m * rows), -1) << DTypeName(t);
    for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
      ThreadPool pool(2);
      ComputeContext ctx(*set, pool);
      std::vector<float> got(static_cast<size_t>(m * rows));
      MatMul(ctx, x.data(), m, ordered, got.data());
      ASSERT_EQ(FirstBitDifference(got.data(), RunSet(*set, gathered, m, w.view(), 2).data(), m * rows), -1)
          << set->name << " " << DTypeName(t);
    }
    if (t != DType::kF32) continue;
    const auto* weights = reinterpret_cast<const float*>(w.bytes.data());
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < rows; ++j) {
        double sum = 0.0;
        for (int64_t k = 0; k < cols; ++k) sum += double{weights[j * cols + k]} * x[i * cols + order[k]];
        EXPECT_NEAR(want[i * rows + j], sum, 1e-4) << i << "," << j;
      }
    }
  }
}

// MatMuls (one input, several weights: Q, K and V; gate and up) gives every
// output the bits of its own MatMul call, on every set and thread count:
// weights that share an activation type (mixed block types, super-blocks,
// floats, rows that are not whole panels) and groups that cannot share one
// (different widths, super-blocks beside 32-element blocks), which run one
// by one.
TEST(MatMulsTest, EachOutputEqualsItsOwnMatMul) {
  struct Group {
    std::vector<std::pair<DType, int64_t>> weights;  // type, rows
    int64_t cols;
  };
  const Group groups[] = {
      {{{DType::kQ4_1, 576}, {DType::kQ4_1, 192}, {DType::kQ4_1, 200}}, 576},
      {{{DType::kQ4_1, 64}, {DType::kQ8_0, 40}, {DType::kQ4_0, 17}}, 256},
      {{{DType::kQ4_K, 48}, {DType::kQ6_K, 33}}, 512},
      {{{DType::kF32, 20}, {DType::kBF16, 36}, {DType::kF16, 5}}, 96},
      {{{DType::kQ4_K, 16}, {DType::kQ8_0, 16}}, 256},
  };
  for (const Group& g : groups) {
    std::vector<Weights> weights;
    for (size_t i = 0; i < g.weights.size(); ++i) {
      const auto [dtype, rows] = g.weights[i];
      const bool quantizable = dtype == DType::kF32 || dtype == DType::kF16 || dtype == DType::kBF16 ||
                               dtype == DType::kQ4_0 || dtype == DType::kQ4_1 || dtype == DType::kQ8_0;
      const auto seed = static_cast<uint32_t>(7 + i);
      weights.push_back(quantizable ? MakeWeights(dtype, rows, g.cols, seed) : MakeRawWeights(dtype, rows, g.cols, seed));
    }
    std::vector<MatrixView> views;
    for (const Weights& w : weights) views.push_back(w.view());
    // 200 rows split over the workers instead of the panels.
    for (int64_t m : {1, 5, 33, 200}) {
      const std::vector<float> x = RandomFloats(m * g.cols, static_cast<uint32_t>(m), -2.0f, 2.0f);
      for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
        for (int threads : {1, 2, 3}) {
          ThreadPool pool(threads);
          ComputeContext ctx(*set, pool);
          std::vector<std::vector<float>> got(views.size());
          std::vector<MatMulTarget> targets;
          for (size_t i = 0; i < views.size(); ++i) {
            got[i].assign(static_cast<size_t>(m * views[i].rows), -1.0f);
            targets.push_back({&views[i], got[i].data()});
          }
          MatMuls(ctx, x.data(), m, targets);
          for (size_t i = 0; i < views.size(); ++i) {
            const std::vector<float> want = RunSet(*set, x, m, views[i], threads);
            ASSERT_EQ(FirstBitDifference(got[i].data(), want.data(), m * views[i].rows), -1)
                << set->name << " " << DTypeName(views[i].dtype) << " weight " << i << " m " << m << " threads "
                << threads;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace pagoda::kernels
