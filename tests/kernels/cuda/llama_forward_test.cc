// cuda::LlamaGpuModel against a forward built here from the CPU scalar
// reference's ops (RmsNorm, MatMul on the same BF16 weights, Rope, WriteKv
// into an f32 cache, PagedAttention, SiluMul), in f32 throughout: three
// steps over two sequences, a prompt alone, then a decode row beside
// another prompt, then two decode rows, so that the cache written in one
// step is read in the next. The GPU keeps activations in BF16 between ops:
// each logits row must be within 5% of its largest |reference| logit, and
// its greedy token must agree where the reference's top two are further
// apart than twice that row's error. Run again with greedy sampling on the
// GPU, each row's token is its logits' first largest.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda_test_support.h"
#include "pagoda/kernels/cpu/reference/reference.h"
#include "pagoda/kernels/cuda/llama_forward.cuh"
#include "pagoda/tensor/half.h"

namespace pagoda::kernels::cuda {
namespace {

constexpr int64_t kHidden = 256, kFf = 512, kLayers = 2, kHeads = 4, kKvHeads = 2, kHeadDim = 64, kVocab = 320;
constexpr int64_t kBlocks = 12, kBlockSize = 16;
constexpr float kEps = 1e-5f;

// A BF16 matrix, uniform in +-1/sqrt(cols).
struct HostMatrix {
  std::vector<bf16_bits> bits;
  MatrixView view;
  HostMatrix(int64_t rows, int64_t cols, uint32_t seed) {
    const std::vector<float> values =
        testing::RandomValues(static_cast<size_t>(rows * cols), -1.0f, 1.0f, seed);
    const float bound = 1.0f / std::sqrt(static_cast<float>(cols));
    for (float x : values) bits.push_back(F32ToBF16(x * bound));
    view = MatrixView{DType::kBF16, bits.data(), rows, cols};
  }
};

struct HostLayer {
  std::vector<float> attn_norm, ffn_norm;
  HostMatrix q, k, v, o, gate, up, down;
  explicit HostLayer(uint32_t seed)
      : attn_norm(testing::RandomValues(kHidden, 0.8f, 1.2f, seed)),
        ffn_norm(testing::RandomValues(kHidden, 0.8f, 1.2f, seed + 1)),
        q(kHeads * kHeadDim, kHidden, seed + 2),
        k(kKvHeads * kHeadDim, kHidden, seed + 3),
        v(kKvHeads * kHeadDim, kHidden, seed + 4),
        o(kHidden, kHeads * kHeadDim, seed + 5),
        gate(kFf, kHidden, seed + 6),
        up(kFf, kHidden, seed + 7),
        down(kHidden, kFf, seed + 8) {}
};

struct HostModel {
  HostMatrix token_embd{kVocab, kHidden, 1}, output{kVocab, kHidden, 2};
  std::vector<float> output_norm = testing::RandomValues(kHidden, 0.8f, 1.2f, 3);
  std::vector<HostLayer> layers;
  RopeParams rope{.style = RopeStyle::kNorm, .freq_base = 10000.0f};
  HostModel() {
    for (int64_t l = 0; l < kLayers; ++l) layers.emplace_back(static_cast<uint32_t>(100 + 20 * l));
  }
  LlamaGpuShape Shape() const { return {kHidden, kFf, kLayers, kHeads, kKvHeads, kHeadDim, kVocab, kEps, rope}; }
  LlamaGpuWeights Weights() const {
    LlamaGpuWeights w{token_embd.view, output.view, output_norm.data(), {}};
    for (const HostLayer& l : layers) {
      w.layers.push_back({l.attn_norm.data(), l.q.view, l.k.view, l.v.view, l.o.view, l.ffn_norm.data(), l.gate.view,
                          l.up.view, l.down.view});
    }
    return w;
  }
};

// The reference forward, with its own f32 cache.
class ReferenceModel {
 public:
  explicit ReferenceModel(const HostModel& m) : m_(m) {
    for (int64_t l = 0; l < kLayers; ++l) {
      k_.emplace_back(static_cast<size_t>(kBlocks * kBlockSize * kKvHeads * kHeadDim), 0.0f);
      v_.emplace_back(k_.back().size(), 0.0f);
    }
  }

  std::vector<float> Forward(const LlamaGpuStep& s) {
    const auto n = static_cast<int64_t>(s.token_ids.size());
    const int64_t qd = kHeads * kHeadDim, kd = kKvHeads * kHeadDim;
    std::vector<float> x(static_cast<size_t>(n * kHidden)), h(x.size()), o(x.size());
    std::vector<float> q(static_cast<size_t>(n * qd)), k(static_cast<size_t>(n * kd)), v(k.size()), attn(q.size());
    std::vector<float> g(static_cast<size_t>(n * kFf)), u(g.size());
    reference::EmbeddingLookup(m_.token_embd.view, s.token_ids.data(), n, x.data());
    for (int64_t l = 0; l < kLayers; ++l) {
      const HostLayer& w = m_.layers[static_cast<size_t>(l)];
      reference::RmsNorm(x.data(), w.attn_norm.data(), n, kHidden, kEps, h.data());
      reference::MatMul(h.data(), n, w.q.view, q.data());
      reference::MatMul(h.data(), n, w.k.view, k.data());
      reference::MatMul(h.data(), n, w.v.view, v.data());
      reference::Rope(q.data(), s.positions.data(), n, kHeads, kHeadDim, m_.rope);
      reference::Rope(k.data(), s.positions.data(), n, kKvHeads, kHeadDim, m_.rope);
      const KvCacheLayer cache{DType::kF32, k_[l].data(), v_[l].data(), kBlocks, kBlockSize, kKvHeads, kHeadDim};
      reference::WriteKv(k.data(), v.data(), s.slot_mapping.data(), n, cache);
      for (int64_t t = 0; t < n; ++t) {
        const int32_t query_start_loc[2] = {0, 1};
        const AttentionBatch one{1, query_start_loc, &s.contexts[t], s.block_tables.data() + t * s.max_blocks_per_row,
                                 s.max_blocks_per_row};
        reference::PagedAttention(q.data() + t * qd, kHeads, cache, one,
                                  {.scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim))}, attn.data() + t * qd);
      }
      reference::MatMul(attn.data(), n, w.o.view, o.data());
      reference::AddInPlace(x.data(), o.data(), n * kHidden);
      reference::RmsNorm(x.data(), w.ffn_norm.data(), n, kHidden, kEps, h.data());
      reference::MatMul(h.data(), n, w.gate.view, g.data());
      reference::MatMul(h.data(), n, w.up.view, u.data());
      reference::SiluMul(g.data(), u.data(), n * kFf, g.data());
      reference::MatMul(g.data(), n, w.down.view, o.data());
      reference::AddInPlace(x.data(), o.data(), n * kHidden);
    }
    std::vector<float> logits;
    std::vector<float> row(kVocab);
    for (int32_t r : s.logit_rows) {
      reference::RmsNorm(x.data() + r * kHidden, m_.output_norm.data(), 1, kHidden, kEps, h.data());
      reference::MatMul(h.data(), 1, m_.output.view, row.data());
      logits.insert(logits.end(), row.begin(), row.end());
    }
    return logits;
  }

 private:
  const HostModel& m_;
  std::vector<std::vector<float>> k_, v_;
};

// A step's arrays, built from (sequence blocks, first position, count).
struct StepArrays {
  std::vector<int32_t> token_ids, positions, contexts, tables, logit_rows;
  std::vector<int64_t> slots;
  static constexpr int64_t kMaxBlocks = 4;

  void Add(const std::vector<int32_t>& blocks, int32_t first, int32_t count, uint32_t seed) {
    const std::vector<float> ids = testing::RandomValues(static_cast<size_t>(count), 0.0f, kVocab, seed);
    for (int32_t i = 0; i < count; ++i) {
      const int32_t pos = first + i;
      token_ids.push_back(static_cast<int32_t>(ids[static_cast<size_t>(i)]));
      positions.push_back(pos);
      contexts.push_back(pos + 1);
      slots.push_back(int64_t{blocks[static_cast<size_t>(pos / kBlockSize)]} * kBlockSize + pos % kBlockSize);
      for (int64_t b = 0; b < kMaxBlocks; ++b) {
        tables.push_back(b < static_cast<int64_t>(blocks.size()) ? blocks[static_cast<size_t>(b)] : -1);
      }
    }
    logit_rows.push_back(static_cast<int32_t>(token_ids.size()) - 1);
  }
  LlamaGpuStep Step() const { return {token_ids, positions, slots, contexts, tables, kMaxBlocks, logit_rows}; }
};

class LlamaGpuModelTest : public testing::CudaTest {};

TEST_F(LlamaGpuModelTest, StepsMatchTheReferenceForward) {
  const HostModel host;
  StatusOr<std::unique_ptr<LlamaGpuModel>> gpu =
      LlamaGpuModel::Create(host.Shape(), host.Weights(), kBlocks, kBlockSize, 64, 8);
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  ReferenceModel reference(host);
  const std::vector<int32_t> a_blocks = {5, 2}, b_blocks = {9};
  StepArrays steps[3];
  steps[0].Add(a_blocks, 0, 20, 11);
  steps[0].logit_rows = {0, 7, 19};
  steps[1].Add(a_blocks, 20, 1, 12);
  steps[1].Add(b_blocks, 0, 7, 13);
  steps[2].Add(a_blocks, 21, 1, 14);
  steps[2].Add(b_blocks, 7, 1, 15);
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    const LlamaGpuStep step = steps[i].Step();
    std::vector<float> logits(step.logit_rows.size() * kVocab);
    const Status status = (*gpu)->Forward(step, logits);
    ASSERT_TRUE(status.ok()) << status.ToString();
    const std::vector<float> want = reference.Forward(step);
    // The same step again, greedy on the GPU: the step writes the same K/V
    // and gives the same logits, whose first largest is the token.
    const std::vector<RowSampling> greedy(step.logit_rows.size(), RowSampling{0.0f, 0, 1.0f, 0.0f});
    std::vector<int32_t> tokens(step.logit_rows.size());
    const Status sampled = (*gpu)->ForwardAndSample(step, greedy, tokens);
    ASSERT_TRUE(sampled.ok()) << sampled.ToString();
    for (size_t r = 0; r < step.logit_rows.size(); ++r) {
      const std::vector<float> got_row(logits.begin() + r * kVocab, logits.begin() + (r + 1) * kVocab);
      const std::vector<float> want_row(want.begin() + r * kVocab, want.begin() + (r + 1) * kVocab);
      const float error = testing::RelativeError(got_row, want_row);
      EXPECT_LE(error, 0.05f) << "row " << r;
      std::vector<float> sorted = want_row;
      std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end(), std::greater<>());
      float largest = 0.0f;
      for (float x : want_row) largest = std::max(largest, std::fabs(x));
      if (sorted[0] - sorted[1] > 2.0f * error * largest) {
        EXPECT_EQ(std::max_element(got_row.begin(), got_row.end()) - got_row.begin(),
                  std::max_element(want_row.begin(), want_row.end()) - want_row.begin())
            << "row " << r;
      }
      EXPECT_EQ(tokens[r], std::max_element(got_row.begin(), got_row.end()) - got_row.begin()) << "row " << r;
      std::printf("llama forward step %d row %zu: relative error %.2e\n", i, r, error);
    }
  }
}

TEST(LlamaGpuModelArgs, RefusesOtherDtypesAndShapesBeforeTouchingTheDevice) {
  const HostModel host;
  LlamaGpuWeights f32 = host.Weights();
  f32.layers[1].down.dtype = DType::kF32;
  const auto refused = LlamaGpuModel::Create(host.Shape(), f32, kBlocks, kBlockSize, 64, 8);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(refused.status().message().find("ffn_down"), std::string::npos);
  LlamaGpuWeights short_layers = host.Weights();
  short_layers.layers.pop_back();
  EXPECT_EQ(LlamaGpuModel::Create(host.Shape(), short_layers, kBlocks, kBlockSize, 64, 8).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pagoda::kernels::cuda
