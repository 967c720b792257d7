// Greedy decoding on the GPU against the CPU: a dummy Llama (random BF16
// weights of tests/fixtures/hf_models/llama-bf16's config, through
// --load-format dummy's loader) run by the CPU model as the engine runs it
// (ModelRunner) and by cuda::LlamaGpuModel built from the same GGUF view,
// one prompt then one token per step, each drawing greedily. The tokens must
// be the same up to the first step where the CPU's top two logits are
// within 5% of its largest logit (the GPU keeps activations in BF16): the
// issue's "identical except after near-ties", with the near-tie checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <string>
#include <unistd.h>
#include <vector>

#include "cuda_test_support.h"
#include "model_harness.h"
#include "pagoda/kernels/cuda/llama_forward.cuh"
#include "pagoda/model/hf/hf_checkpoint.h"

namespace pagoda {
namespace {

namespace fs = std::filesystem;
using kernels::MatrixView;
using kernels::cuda::LlamaGpuModel;
using kernels::cuda::LlamaGpuShape;
using kernels::cuda::LlamaGpuStep;
using kernels::cuda::LlamaGpuWeights;
using kernels::cuda::RowSampling;

constexpr int64_t kBlockSize = 16, kMaxBlocks = 16;
constexpr double kNearTie = 0.05;

class GpuGreedyTest : public kernels::cuda::testing::CudaTest {};

// The fixture's config.json: where this tree was built, else under the
// working directory (scripts/gpu_check.sh runs from a copy of the tree at
// another path on the GPU machine).
fs::path FixtureConfig() {
  const fs::path relative = fs::path("hf_models") / "llama-bf16" / "config.json";
  const fs::path built = fs::path(PAGODA_FIXTURES_DIR) / relative;
  return fs::exists(built) ? built : fs::path("tests") / "fixtures" / relative;
}

MatrixView Matrix(const gguf::GgufFile& f, const std::string& name) {
  const gguf::TensorInfo* t = f.FindTensor(name);
  EXPECT_NE(t, nullptr) << name;
  return t == nullptr ? MatrixView{} : MatrixView{t->dtype, t->data, t->shape[1], t->shape[0]};
}

const float* Vector(const gguf::GgufFile& f, const std::string& name) {
  const gguf::TensorInfo* t = f.FindTensor(name);
  EXPECT_TRUE(t != nullptr && t->dtype == DType::kF32) << name;
  return t == nullptr ? nullptr : reinterpret_cast<const float*>(t->data);
}

// The dummy Llama's GGUF view, and the GPU forward's shape and weight views
// read from it.
struct DummyLlama {
  std::shared_ptr<const gguf::GgufFile> file;
  LlamaGpuShape shape;
  LlamaGpuWeights weights;
};

DummyLlama MakeDummyLlama() {
  const fs::path dir = fs::temp_directory_path() / ("pagoda_gpu_greedy_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(FixtureConfig(), dir / "config.json", fs::copy_options::overwrite_existing);
  auto opened = hf::OpenHfCheckpoint(dir.string(), {.random_weights = true});
  fs::remove_all(dir);
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  DummyLlama d;
  if (!opened.ok()) return d;
  d.file = opened->file;
  const gguf::GgufFile& f = *d.file;
  const int64_t layers = *f.GetInt("llama.block_count");
  d.shape = LlamaGpuShape{.hidden = *f.GetInt("llama.embedding_length"),
                          .ff = *f.GetInt("llama.feed_forward_length"),
                          .layers = layers,
                          .heads = *f.GetInt("llama.attention.head_count"),
                          .kv_heads = *f.GetInt("llama.attention.head_count_kv"),
                          .head_dim = *f.GetInt("llama.attention.key_length"),
                          .vocab = Matrix(f, "token_embd.weight").rows,
                          .rms_eps = static_cast<float>(*f.GetFloat("llama.attention.layer_norm_rms_epsilon")),
                          .rope = {.style = kernels::RopeStyle::kNorm,
                                   .freq_base = static_cast<float>(*f.GetFloat("llama.rope.freq_base"))}};
  if (f.FindTensor("rope_freqs.weight") != nullptr) d.shape.rope.freq_factors = Vector(f, "rope_freqs.weight");
  d.weights = LlamaGpuWeights{Matrix(f, "token_embd.weight"),
                              Matrix(f, f.FindTensor("output.weight") ? "output.weight" : "token_embd.weight"),
                              Vector(f, "output_norm.weight"),
                              {}};
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    d.weights.layers.push_back({Vector(f, p + "attn_norm.weight"), Matrix(f, p + "attn_q.weight"),
                                Matrix(f, p + "attn_k.weight"), Matrix(f, p + "attn_v.weight"),
                                Matrix(f, p + "attn_output.weight"), Vector(f, p + "ffn_norm.weight"),
                                Matrix(f, p + "ffn_gate.weight"), Matrix(f, p + "ffn_up.weight"),
                                Matrix(f, p + "ffn_down.weight")});
  }
  return d;
}

// Without a GPU too: the views read from the GGUF view pass the forward's
// checks of types and shapes, which come before any device work.
TEST(GpuGreedyArgs, TheDummyLlamasWeightsPassTheForwardsChecks) {
  const DummyLlama d = MakeDummyLlama();
  ASSERT_NE(d.file, nullptr);
  const auto created = LlamaGpuModel::Create(d.shape, d.weights, kMaxBlocks, kBlockSize, 64, 1);
  if (created.ok()) return;  // a GPU is present
  EXPECT_NE(created.status().code(), StatusCode::kInvalidArgument) << created.status().ToString();
  EXPECT_NE(created.status().code(), StatusCode::kUnimplemented) << created.status().ToString();
}

TEST_F(GpuGreedyTest, GreedyTokensMatchTheCpuUpToANearTie) {
  const DummyLlama d = MakeDummyLlama();
  ASSERT_NE(d.file, nullptr);
  const LlamaGpuShape& shape = d.shape;
  const LlamaGpuWeights& weights = d.weights;
  auto gpu = LlamaGpuModel::Create(shape, weights, kMaxBlocks, kBlockSize, 64, 1);
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();

  testing_harness::TinyModel cpu(d.file, "dummy llama");
  ASSERT_TRUE(cpu.ok());
  std::vector<int32_t> tokens = {3, 141, 59, 26, 53, 58, 97, 93, 23, 84, 62, 64};
  constexpr int kSteps = 24;
  // The CPU's greedy tokens and each step's top-two margin.
  const std::vector<float> prompt_logits = cpu.AllLogits(tokens, tokens.size());
  std::vector<float> last(prompt_logits.end() - cpu.vocab(), prompt_logits.end());
  std::vector<int32_t> cpu_tokens;
  std::vector<double> margins;
  std::vector<int32_t> sequence = tokens;
  for (int s = 0; s < kSteps; ++s) {
    std::vector<float> sorted = last;
    std::partial_sort(sorted.begin(), sorted.begin() + 2, sorted.end(), std::greater<>());
    float largest = 0.0f;
    for (float x : last) largest = std::max(largest, std::fabs(x));
    margins.push_back((sorted[0] - sorted[1]) / largest);
    cpu_tokens.push_back(static_cast<int32_t>(std::max_element(last.begin(), last.end()) - last.begin()));
    sequence.push_back(cpu_tokens.back());
    last = cpu.AllLogits(sequence, sequence.size());
    last.erase(last.begin(), last.end() - cpu.vocab());
  }

  // The GPU: the prompt in one step, then a token per step; its own draws
  // feed it.
  std::vector<int32_t> table(kMaxBlocks);
  std::iota(table.begin(), table.end(), 0);
  std::reverse(table.begin(), table.end());  // scattered, not in order
  std::vector<int32_t> gpu_tokens;
  std::vector<int32_t> context = tokens;
  size_t done = 0;
  for (int s = 0; s < kSteps; ++s) {
    std::vector<int32_t> ids(context.begin() + static_cast<std::ptrdiff_t>(done), context.end());
    std::vector<int32_t> positions, contexts, tables;
    std::vector<int64_t> slots;
    for (size_t i = 0; i < ids.size(); ++i) {
      const auto pos = static_cast<int32_t>(done + i);
      positions.push_back(pos);
      contexts.push_back(pos + 1);
      slots.push_back(int64_t{table[static_cast<size_t>(pos / kBlockSize)]} * kBlockSize + pos % kBlockSize);
      tables.insert(tables.end(), table.begin(), table.end());
    }
    const std::vector<int32_t> logit_rows = {static_cast<int32_t>(ids.size()) - 1};
    const LlamaGpuStep step{ids, positions, slots, contexts, tables, kMaxBlocks, logit_rows};
    const std::vector<RowSampling> greedy = {{0.0f, 0, 1.0f, 0.0f}};
    std::vector<int32_t> drawn(1);
    const Status status = (*gpu)->ForwardAndSample(step, greedy, drawn);
    ASSERT_TRUE(status.ok()) << status.ToString();
    gpu_tokens.push_back(drawn[0]);
    done = context.size();
    context.push_back(drawn[0]);
  }

  int compared = 0;
  for (int s = 0; s < kSteps; ++s) {
    if (margins[static_cast<size_t>(s)] < kNearTie) break;  // the first near-tie ends the comparison
    EXPECT_EQ(gpu_tokens[static_cast<size_t>(s)], cpu_tokens[static_cast<size_t>(s)]) << "step " << s;
    if (gpu_tokens[static_cast<size_t>(s)] != cpu_tokens[static_cast<size_t>(s)]) break;
    ++compared;
  }
  std::printf("GPU greedy: %d of %d steps compared before the first near-tie, all equal\n", compared, kSteps);
  EXPECT_GE(compared, 1) << "the first step is already a near-tie: choose another prompt";
}

}  // namespace
}  // namespace pagoda
