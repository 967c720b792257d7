// Weights repacked at load (packed_weights.h): a packed view gives every
// kernel set the bits of the GGUF rows, for every quantized type, batch size
// and thread count; float weights and sets without a repacked layout read
// the rows in place.
#include "pagoda/kernels/packed_weights.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/threading/thread_pool.h"
#include "test_util.h"

namespace pagoda::kernels {
namespace {

using testing::Describe;
using testing::FirstBitDifference;
using testing::MakeRawWeights;
using testing::MakeWeights;
using testing::RandomFloats;
using testing::Weights;

constexpr DType kBlockTypes[] = {DType::kQ4_0, DType::kQ4_1, DType::kQ8_0,
                                 DType::kQ5_0, DType::kQ5_1, DType::kIQ4_NL};
constexpr DType kSuperBlockTypes[] = {DType::kQ2_K, DType::kQ3_K, DType::kQ4_K,
                                      DType::kQ5_K, DType::kQ6_K, DType::kIQ4_XS};

// The last of the supported sets that repacks weights, or null.
const cpu::KernelSet* PackingSet() {
  const cpu::KernelSet* found = nullptr;
  for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
    if (set->simd != nullptr && set->simd->pack != nullptr) found = set;
  }
  return found;
}

std::vector<float> RunMatMul(const cpu::KernelSet& set, int threads, const std::vector<float>& x, int64_t m,
                             const MatrixView& w) {
  ThreadPool pool(threads);
  ComputeContext ctx(set, pool);
  std::vector<float> y(static_cast<size_t>(m * w.rows), -1.0f);
  MatMul(ctx, x.data(), m, w, y.data());
  return y;
}

struct Shape {
  int64_t rows, cols;
};

// Packs w's view with the packing set and checks that every supported set,
// at every batch size in ms and 1 and 2 threads, gives the packed view's
// product the bits of the GGUF rows'. Returns the packed bytes.
int64_t ExpectPackedEqualsRows(const cpu::KernelSet& packer, const Weights& w, const std::vector<int64_t>& ms,
                               const std::string& what) {
  MatrixView packed_view = w.view();
  ThreadPool pool(2);
  ComputeContext ctx(packer, pool);
  MatrixView* views[] = {&packed_view};
  const PackedWeights packed = PackedWeights::Pack(ctx, views);
  EXPECT_NE(packed_view.panels, nullptr) << what;
  for (int64_t m : ms) {
    const std::vector<float> x = RandomFloats(m * w.cols, static_cast<uint32_t>(m), -2.0f, 2.0f);
    for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
      for (int threads : {1, 2}) {
        const std::vector<float> want = RunMatMul(*set, threads, x, m, w.view());
        const std::vector<float> got = RunMatMul(*set, threads, x, m, packed_view);
        EXPECT_EQ(FirstBitDifference(got.data(), want.data(), m * w.rows), -1)
            << set->name << " " << Describe(w.dtype, m, w.rows, w.cols, threads) << " " << what;
      }
    }
  }
  return packed.bytes();
}

// Every 32-element type, quantized values and raw block bits, on panels
// whole and cut short (37 and 200 rows are not multiples of 16), through
// single-row decode (m = 1..4), the packed VNNI tiles (5) and the AMX tiles
// (16 and more, with a VNNI tail at 17 and 40): the packed view's product
// equals the GGUF rows' on every set, bit for bit.
TEST(PackedWeightsTest, PackedBlocksGiveTheBitsOfTheGgufRows) {
  const cpu::KernelSet* packer = PackingSet();
  if (packer == nullptr) GTEST_SKIP() << "no kernel set on this CPU repacks weights";
  for (DType t : kBlockTypes) {
    for (const Shape s : {Shape{16, 32}, Shape{37, 96}, Shape{200, 576}}) {
      for (bool raw_bits : {false, true}) {
        const bool quantizable = t == DType::kQ4_0 || t == DType::kQ4_1 || t == DType::kQ8_0;
        if (!raw_bits && !quantizable) continue;
        const Weights w = raw_bits ? MakeRawWeights(t, s.rows, s.cols, 31) : MakeWeights(t, s.rows, s.cols, 31);
        const int64_t bytes = ExpectPackedEqualsRows(*packer, w, {1, 2, 3, 4, 5, 16, 17, 40},
                                                     raw_bits ? "raw bits" : "quantized");
        // A permutation of the bytes, padded to whole panels on cache lines.
        const int64_t panel_bytes = (16 * DTypeRowBytes(t, s.cols) + 63) / 64 * 64;
        EXPECT_EQ(bytes, (s.rows + 15) / 16 * panel_bytes) << DTypeName(t);
      }
    }
  }
}

// The super-block types' planes (each super-block's gathered vectors, in
// the unpacker's order), on random block bits: decode (m = 1), the VNNI
// tiles (2..5) and the AMX tiles with their tails (16, 17, 40). The planes
// hold about the GGUF bytes: a little more where the unpacker's gathers
// overlap (IQ4_XS) or run past a block's end (Q3_K, Q6_K).
TEST(PackedWeightsTest, PackedSuperBlocksGiveTheBitsOfTheGgufRows) {
  const cpu::KernelSet* packer = PackingSet();
  if (packer == nullptr) GTEST_SKIP() << "no kernel set on this CPU repacks weights";
  for (DType t : kSuperBlockTypes) {
    for (const Shape s : {Shape{16, 256}, Shape{37, 512}, Shape{50, 1536}}) {
      const Weights w = MakeRawWeights(t, s.rows, s.cols, 17);
      const int64_t bytes = ExpectPackedEqualsRows(*packer, w, {1, 2, 5, 16, 17, 40}, "raw bits");
      const int64_t gguf = (s.rows + 15) / 16 * 16 * DTypeRowBytes(t, s.cols);
      EXPECT_GE(bytes, gguf) << DTypeName(t);
      EXPECT_LE(bytes, gguf + gguf / 16) << DTypeName(t);
    }
  }
}

// MatMuls (one input, several weights) on packed views: each output equals
// its own MatMul on the GGUF rows.
TEST(PackedWeightsTest, SharedInputProductsReadThePackedViews) {
  const cpu::KernelSet* packer = PackingSet();
  if (packer == nullptr) GTEST_SKIP() << "no kernel set on this CPU repacks weights";
  const int64_t cols = 256;
  const Weights a = MakeWeights(DType::kQ4_1, 48, cols, 3);
  const Weights b = MakeWeights(DType::kQ8_0, 21, cols, 4);
  MatrixView va = a.view(), vb = b.view();
  ThreadPool pool(2);
  ComputeContext ctx(*packer, pool);
  MatrixView* views[] = {&va, &vb};
  const PackedWeights packed = PackedWeights::Pack(ctx, views);
  EXPECT_EQ(packed.num_packed(), 2);
  for (int64_t m : {1, 24}) {
    const std::vector<float> x = RandomFloats(m * cols, 5);
    std::vector<float> ya(static_cast<size_t>(m * 48)), yb(static_cast<size_t>(m * 21));
    const MatMulTarget targets[] = {{&va, ya.data()}, {&vb, yb.data()}};
    MatMuls(ctx, x.data(), m, targets);
    EXPECT_EQ(FirstBitDifference(ya.data(), RunMatMul(*packer, 2, x, m, a.view()).data(), m * 48), -1) << m;
    EXPECT_EQ(FirstBitDifference(yb.data(), RunMatMul(*packer, 2, x, m, b.view()).data(), m * 21), -1) << m;
  }
}

// Float weights, and sets that read every type in place, leave the views
// as they are and allocate nothing.
TEST(PackedWeightsTest, FloatWeightsAndOtherSetsReadInPlace) {
  const Weights k = MakeRawWeights(DType::kQ4_K, 32, 256, 1);
  const Weights f = MakeWeights(DType::kF16, 32, 256, 2);
  const Weights q = MakeWeights(DType::kQ4_1, 32, 256, 3);
  for (const cpu::KernelSet* set : cpu::SupportedKernelSets()) {
    MatrixView vk = k.view(), vf = f.view(), vq = q.view();
    ThreadPool pool(1);
    ComputeContext ctx(*set, pool);
    MatrixView* views[] = {&vk, &vf, &vq};
    const PackedWeights packed = PackedWeights::Pack(ctx, views);
    EXPECT_EQ(vf.panels, nullptr) << set->name;
    const bool packs = set->simd != nullptr && set->simd->pack != nullptr;
    EXPECT_EQ(vk.panels != nullptr, packs) << set->name;
    EXPECT_EQ(vq.panels != nullptr, packs) << set->name;
    EXPECT_EQ(packed.num_packed(), packs ? 2 : 0) << set->name;
    if (!packs) {
      EXPECT_EQ(packed.bytes(), 0) << set->name;
    }
  }
}

}  // namespace
}  // namespace pagoda::kernels
