// A model under test with a KV cache for one sequence, run through the
// model runner as the engine runs it, and the fixture readers the model
// tests share (tiny_models_test.cc, hf_checkpoints_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/model/model.h"
#include "pagoda/runner/kv_cache_arena.h"
#include "pagoda/runner/model_runner.h"
#include "pagoda/threading/thread_pool.h"

namespace pagoda::testing_harness {

namespace fs = std::filesystem;

inline constexpr int kBlockSize = 4;

inline std::vector<char> ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing " << path;
  return std::vector<char>((std::istreambuf_iterator<char>(in)), {});
}

inline std::vector<float> ReadF32(const fs::path& path) {
  const std::vector<char> bytes = ReadBytes(path);
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

// One model with a KV cache for one sequence of up to 256 tokens, reached
// through a shuffled block table.
class TinyModel {
 public:
  explicit TinyModel(const fs::path& path) {
    auto file = gguf::GgufFile::Open(path.string());
    EXPECT_TRUE(file.ok()) << file.status().ToString();
    if (file.ok()) Load(std::shared_ptr<const gguf::GgufFile>(std::move(*file)), path.string());
  }
  // A Hugging Face checkpoint's GGUF view, or any other file.
  TinyModel(std::shared_ptr<const gguf::GgufFile> file, const std::string& name) { Load(std::move(file), name); }

 private:
  void Load(std::shared_ptr<const gguf::GgufFile> file, const std::string& name) {
    auto model = LoadModel(std::move(file));
    EXPECT_TRUE(model.ok()) << name << ": " << model.status().ToString();
    if (!model.ok()) return;
    model_ = std::move(*model);
    const ModelConfig& c = model_->config();
    const KvCacheShape shape{c.num_layers, c.num_kv_heads, c.head_dim, kBlockSize, DType::kF32};
    const int64_t blocks = 256 / kBlockSize;
    auto arena = KvCacheArena::Create(shape, blocks * shape.BytesPerBlock());
    EXPECT_TRUE(arena.ok()) << arena.status().ToString();
    if (!arena.ok()) return;
    arena_ = std::move(*arena);
    table_.resize(blocks);
    std::iota(table_.begin(), table_.end(), 0);
    std::shuffle(table_.begin(), table_.end(), std::mt19937(7));
    pool_ = std::make_unique<ThreadPool>(2);
    ctx_ = std::make_unique<kernels::ComputeContext>(kernels::cpu::BestKernelSet(), *pool_);
    runner_ = std::make_unique<ModelRunner>(*model_, *arena_, *ctx_);
  }

 public:

  bool ok() const { return runner_ != nullptr; }
  int64_t vocab() const { return model_->config().vocab_size; }

  // Every position's logits, [tokens][vocab], the sequence run from an empty
  // cache in chunks of `chunk` tokens.
  std::vector<float> AllLogits(const std::vector<int32_t>& tokens, size_t chunk) {
    std::vector<float> out;
    for (size_t done = 0; done < tokens.size(); done += chunk) {
      const size_t n = std::min(chunk, tokens.size() - done);
      const SequenceChunk c{std::span(tokens).subspan(done, n), static_cast<int32_t>(done), BlockTables(&table_, 1), LogitsMode::kAll};
      const std::span<const float> logits = runner_->Execute({&c, 1});
      out.insert(out.end(), logits.begin(), logits.end());
    }
    return out;
  }

  // `steps` greedy tokens after the prompt (argmax of the raw logits, lowest
  // id on ties), one token per step.
  std::vector<int32_t> Greedy(std::vector<int32_t> tokens, int steps) {
    const size_t prompt = tokens.size();
    std::vector<float> last = AllLogits(tokens, tokens.size());
    last.erase(last.begin(), last.end() - vocab());
    for (int s = 0; s < steps; ++s) {
      tokens.push_back(static_cast<int32_t>(std::max_element(last.begin(), last.end()) - last.begin()));
      if (s + 1 == steps) break;
      const SequenceChunk c{std::span(tokens).last(1), static_cast<int32_t>(tokens.size() - 1), BlockTables(&table_, 1),
                            LogitsMode::kLast};
      const std::span<const float> logits = runner_->Execute({&c, 1});
      last.assign(logits.begin(), logits.end());
    }
    return {tokens.begin() + static_cast<std::ptrdiff_t>(prompt), tokens.end()};
  }

 private:
  std::unique_ptr<Model> model_;
  std::unique_ptr<KvCacheArena> arena_;
  std::vector<int32_t> table_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<kernels::ComputeContext> ctx_;
  std::unique_ptr<ModelRunner> runner_;
};

inline double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0.0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) worst = std::max(worst, std::fabs(double{a[i]} - b[i]));
  return worst;
}

}  // namespace pagoda::testing_harness
