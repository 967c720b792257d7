// Shared set-up for tests that run the real default model: the model is
// loaded once per test binary, and each test gets its own KV cache.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/kernels/compute_context.h"
#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/kv_blocks/block_pool.h"
#include "pagoda/model/model.h"
#include "pagoda/runner/kv_cache_arena.h"
#include "pagoda/runner/model_runner.h"
#include "pagoda/threading/thread_pool.h"

namespace pagoda::testing {

// The default model loaded afresh; `packed`: its weights repacked for the
// best kernel set, as the engine runs them.
inline StatusOr<std::unique_ptr<Model>> LoadTestModel(bool packed) {
  PAGODA_ASSIGN_OR_RETURN(auto file, gguf::GgufFile::Open(PAGODA_TEST_MODEL));
  PAGODA_ASSIGN_OR_RETURN(auto model, LoadModel(std::shared_ptr<const gguf::GgufFile>(std::move(file))));
  if (packed) {
    ThreadPool pool(1);
    kernels::ComputeContext ctx(kernels::cpu::BestKernelSet(), pool);
    model->PackWeights(ctx);
  }
  return model;
}

// The model, repacked, or the error that loading it gave. The set-up script
// always installs it, so a missing model fails the tests rather than
// skipping them.
inline StatusOr<Model*> SharedTestModel() {
  static StatusOr<std::unique_ptr<Model>> model = LoadTestModel(/*packed=*/true);
  if (!model.ok()) return model.status();
  return model->get();
}

// One sequence driven by hand through the runner: its tokens, its block
// table, and how many of its tokens are already in the cache.
struct TestSequence {
  std::vector<int32_t> tokens;
  std::vector<int32_t> table;
  int32_t computed = 0;
};

// A model, a KV cache of `num_blocks` blocks and a runner over them.
struct TestRunner {
  std::unique_ptr<KvCacheArena> arena;
  std::unique_ptr<BlockPool> blocks;
  std::unique_ptr<ThreadPool> pool;
  std::unique_ptr<kernels::ComputeContext> compute;
  std::unique_ptr<ModelRunner> runner;

  // On `model`, or the shared one when null.
  static std::unique_ptr<TestRunner> Create(int64_t num_blocks, DType kv_dtype, int threads = 2,
                                            Model* model = nullptr) {
    if (model == nullptr) {
      auto loaded = SharedTestModel();
      if (!loaded.ok()) return nullptr;
      model = *loaded;
    }
    const ModelConfig& c = model->config();
    KvCacheShape shape{c.num_layers, c.num_kv_heads, c.head_dim, 16, kv_dtype};
    auto t = std::make_unique<TestRunner>();
    auto arena = KvCacheArena::Create(shape, num_blocks * shape.BytesPerBlock());
    if (!arena.ok()) return nullptr;
    t->arena = std::move(*arena);
    t->blocks = std::make_unique<BlockPool>(static_cast<int32_t>(t->arena->num_blocks()));
    t->pool = std::make_unique<ThreadPool>(threads);
    t->compute = std::make_unique<kernels::ComputeContext>(kernels::cpu::BestKernelSet(), *t->pool);
    t->runner = std::make_unique<ModelRunner>(*model, *t->arena, *t->compute);
    return t;
  }
};

#define PAGODA_ASSERT_TEST_MODEL() \
  ASSERT_TRUE(::pagoda::testing::SharedTestModel().ok()) << ::pagoda::testing::SharedTestModel().status().ToString()

}  // namespace pagoda::testing
