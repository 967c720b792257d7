// cuda::LlamaGpuModel on Llama 3 8B's shape (bench/models/llama-3-8b) with
// random BF16 weights: a prefill step of 8 prompts of 512 tokens, and decode
// steps of 1 to 256 sequences at 512 positions each, every step drawing
// its tokens greedily on the GPU (only ids cross to the host). Host-timed
// per step, with the step's arrays uploaded and the ids copied back: the
// forward as an engine would call it, without the engine. For decode, the
// weight bytes per second beside this GPU's device-to-device copy.
//
//   pagoda_bench_cuda_llama
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "cuda_bench_util.cuh"
#include "pagoda/kernels/cuda/llama_forward.cuh"
#include "pagoda/tensor/half.h"

namespace {

using pagoda::bench::Check;
using pagoda::kernels::MatrixView;
using pagoda::kernels::cuda::LlamaGpuModel;
using pagoda::kernels::cuda::LlamaGpuShape;
using pagoda::kernels::cuda::LlamaGpuStep;
using pagoda::kernels::cuda::LlamaGpuWeights;
using pagoda::kernels::cuda::RowSampling;

// As bench/models/llama-3-8b/config.json.
constexpr int64_t kHidden = 4096, kFf = 14336, kLayers = 32, kHeads = 32, kKvHeads = 8, kHeadDim = 128;
constexpr int64_t kVocab = 128256;
constexpr int64_t kBlockSize = 16, kContext = 512, kMaxBatch = 256, kPrompts = 8;
constexpr int64_t kBlocksPerSequence = kContext / kBlockSize + 1;
constexpr int64_t kKvBlocks = (kMaxBatch + kPrompts) * kBlocksPerSequence;

// A random BF16 matrix, uniform in +-1/sqrt(cols), filled on every core.
struct HostMatrix {
  std::vector<pagoda::bf16_bits> bits;
  MatrixView view;
  HostMatrix(int64_t rows, int64_t cols, uint32_t seed) : bits(static_cast<size_t>(rows * cols)) {
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> fill;
    for (unsigned t = 0; t < threads; ++t) {
      fill.emplace_back([&, t] {
        std::mt19937 rng(seed * 1000 + t);
        const float bound = 1.0f / std::sqrt(static_cast<float>(cols));
        for (size_t i = t; i < bits.size(); i += threads) {
          bits[i] = pagoda::F32ToBF16((static_cast<float>(rng() >> 8) * (2.0f / 16777216.0f) - 1.0f) * bound);
        }
      });
    }
    for (std::thread& f : fill) f.join();
    view = MatrixView{pagoda::DType::kBF16, bits.data(), rows, cols};
  }
};

struct Step {
  std::vector<int32_t> token_ids, positions, contexts, tables, logit_rows;
  std::vector<int64_t> slots;
  // Sequence `seq`'s tokens at positions [first, first + count), on blocks
  // seq * kBlocksPerSequence on; its last token's logits.
  void Add(int64_t seq, int32_t first, int32_t count) {
    for (int32_t i = 0; i < count; ++i) {
      const int32_t pos = first + i;
      token_ids.push_back(static_cast<int32_t>((seq * 7919 + pos * 104729) % kVocab));
      positions.push_back(pos);
      contexts.push_back(pos + 1);
      slots.push_back((seq * kBlocksPerSequence + pos / kBlockSize) * kBlockSize + pos % kBlockSize);
      for (int64_t b = 0; b < kBlocksPerSequence; ++b) tables.push_back(static_cast<int32_t>(seq * kBlocksPerSequence + b));
    }
    logit_rows.push_back(static_cast<int32_t>(token_ids.size()) - 1);
  }
  LlamaGpuStep View() const {
    return {token_ids, positions, slots, contexts, tables, kBlocksPerSequence, logit_rows};
  }
};

// Mean seconds per call of the step, greedy, after one warm-up call.
double SecondsPerStep(LlamaGpuModel& model, const Step& step, int runs) {
  const std::vector<RowSampling> greedy(step.logit_rows.size(), RowSampling{0.0f, 0, 1.0f, 0.0f});
  std::vector<int32_t> tokens(step.logit_rows.size());
  Check(model.ForwardAndSample(step.View(), greedy, tokens));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i) Check(model.ForwardAndSample(step.View(), greedy, tokens));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / runs;
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  Check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("GPU: %s; Llama 3 8B's shape, random BF16 weights\n", prop.name);
  const double copy = pagoda::bench::CopyBytesPerSecond(3, 20);

  const auto made = std::chrono::steady_clock::now();
  const HostMatrix embd(kVocab, kHidden, 1), output(kVocab, kHidden, 2);
  const std::vector<float> ones(kHidden, 1.0f);
  std::vector<HostMatrix> matrices;
  matrices.reserve(kLayers * 7);
  LlamaGpuWeights weights{embd.view, output.view, ones.data(), {}};
  for (int64_t l = 0; l < kLayers; ++l) {
    const auto seed = static_cast<uint32_t>(10 + l * 10);
    matrices.emplace_back(kHeads * kHeadDim, kHidden, seed);
    matrices.emplace_back(kKvHeads * kHeadDim, kHidden, seed + 1);
    matrices.emplace_back(kKvHeads * kHeadDim, kHidden, seed + 2);
    matrices.emplace_back(kHidden, kHeads * kHeadDim, seed + 3);
    matrices.emplace_back(kFf, kHidden, seed + 4);
    matrices.emplace_back(kFf, kHidden, seed + 5);
    matrices.emplace_back(kHidden, kFf, seed + 6);
    const HostMatrix* m = &matrices[matrices.size() - 7];
    weights.layers.push_back({ones.data(), m[0].view, m[1].view, m[2].view, m[3].view, ones.data(), m[4].view,
                              m[5].view, m[6].view});
  }
  const LlamaGpuShape shape{kHidden, kFf, kLayers, kHeads, kKvHeads, kHeadDim, kVocab, 1e-5f,
                            {.style = pagoda::kernels::RopeStyle::kNorm, .freq_base = 500000.0f}};
  auto model = LlamaGpuModel::Create(shape, weights, kKvBlocks, kBlockSize, kPrompts * kContext, kMaxBatch);
  Check(model.status());
  std::printf("weights made and uploaded in %.1f s; KV cache %lld blocks of %lld\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - made).count(),
              static_cast<long long>(kKvBlocks), static_cast<long long>(kBlockSize));

  Step prefill;
  for (int64_t s = 0; s < kPrompts; ++s) prefill.Add(s, 0, static_cast<int32_t>(kContext));
  const double prefill_s = SecondsPerStep(**model, prefill, 3);
  std::printf("prefill %lld x %lld tokens: %.1f ms, %.0f tokens/s\n", static_cast<long long>(kPrompts),
              static_cast<long long>(kContext), prefill_s * 1e3, kPrompts * kContext / prefill_s);

  double weight_bytes = 2.0 * static_cast<double>(2 * kVocab * kHidden);
  for (const auto& m : matrices) weight_bytes += 2.0 * static_cast<double>(m.bits.size());
  for (int64_t batch : {1, 8, 32, 128, 256}) {
    Step decode;
    for (int64_t s = 0; s < batch; ++s) decode.Add(kPrompts + s, static_cast<int32_t>(kContext), 1);
    const double step_s = SecondsPerStep(**model, decode, 10);
    std::printf("decode batch %3lld at %lld positions: %.2f ms a step, %7.0f tokens/s, weights %5.0f GB/s (%4.1f%% "
                "of the copy's read+write)\n",
                static_cast<long long>(batch), static_cast<long long>(kContext), step_s * 1e3, batch / step_s,
                weight_bytes / step_s * 1e-9, 100 * weight_bytes / step_s / copy);
  }
  return 0;
}
