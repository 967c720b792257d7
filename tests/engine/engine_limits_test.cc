// The engine's limits on the real model: a KV cache too small for one
// request of max_model_len refused at start-up, the bounded waiting queue,
// and gauges that show a long step while it runs.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <atomic>
#include <thread>

#include "engine_test_util.h"
#include "pagoda/kernels/cpu/kernel_set.h"
#include "pagoda/metrics/engine_metrics.h"

namespace pagoda {
namespace {

using namespace pagoda::testing;

ModelConfig TestModelConfig() {
  auto file = gguf::GgufFile::Open(PAGODA_TEST_MODEL);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  auto config = ModelConfigFromGguf(**file);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return *config;
}

TEST(EngineLimitsTest, RefusesAKvCacheTooSmallForOneMaxModelLenRequest) {
  // One 16-token block holds K and V for every layer and KV head: F16
  // values of head_dim each.
  const ModelConfig mc = TestModelConfig();
  const int64_t block_bytes = 16 * 2 * mc.num_layers * mc.num_kv_heads * mc.head_dim * 2;
  EngineConfig config;
  config.model = PAGODA_TEST_MODEL;
  config.threads = 2;
  config.max_model_len = 8192;  // 512 blocks
  config.kv_cache_memory = 512 * block_bytes - 1;
  auto refused = Engine::Create(config);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  const double gib = 1 << 30;
  EXPECT_EQ(refused.status().message(),
            fmt::format("To serve at least one request with the models's max seq len (8192), ({:.2f} GiB KV cache is "
                        "needed, which is larger than the available KV cache memory ({:.2f} GiB). Based on the "
                        "available memory, the estimated maximum model length is {}. Try increasing "
                        "`--kv-cache-memory` or decreasing `max_model_len` when initializing the engine.",
                        512 * block_bytes / gib, (512 * block_bytes - 1) / gib, 511 * 16));

  // Exactly enough is enough; so is a max_model_len that fits the rest.
  config.kv_cache_memory = 512 * block_bytes;
  EXPECT_TRUE(Engine::Create(config).ok());
  config.kv_cache_memory = 100 * block_bytes;
  config.max_model_len = 1600;
  EXPECT_TRUE(Engine::Create(config).ok());
}

// kv_cache_dtype: auto takes BF16 (the tiles' order) where the kernel set
// has attention of its own for it and F16 elsewhere; BF16 asked for runs on
// any set, and a block size that order cannot hold is refused by name.
TEST(EngineLimitsTest, KvCacheDtypeAutoAndBfloat16) {
  for (const kernels::cpu::KernelSet* set : kernels::cpu::SupportedKernelSets()) {
    EngineConfig config = TestEngineConfig(64);
    config.kernel_set = set->name;
    auto automatic = MakeEngine(config);
    ASSERT_TRUE(automatic);
    EXPECT_EQ(*automatic->config().kv_cache_dtype, set->own_bf16_kv_attention ? DType::kBF16 : DType::kF16)
        << set->name;
    config.kv_cache_dtype = DType::kBF16;
    auto bf16 = MakeEngine(config);
    ASSERT_TRUE(bf16);
    EXPECT_EQ(*bf16->config().kv_cache_dtype, DType::kBF16) << set->name;
  }
  EngineConfig config = TestEngineConfig(64);
  config.block_size = 8;
  auto automatic = MakeEngine(config);
  ASSERT_TRUE(automatic);
  EXPECT_EQ(*automatic->config().kv_cache_dtype, DType::kF16);  // blocks of 8 do not fill a tile
  config.kv_cache_dtype = DType::kBF16;
  auto refused = Engine::Create(config);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("kv_cache_dtype bfloat16"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("block size 8"), std::string::npos) << refused.status().message();
}

TEST(EngineLimitsTest, RefusesRequestsBeyondTheWaitingLimitUntilTheQueueDrains) {
  EngineConfig config = TestEngineConfig(64);
  config.max_num_seqs = 1;  // one request runs, the others wait
  config.max_num_waiting_requests = 2;
  auto engine = MakeEngine(config);
  ASSERT_TRUE(engine);
  auto rejected = [&] {
    const std::string text = engine->metrics().Render();
    const std::string name = "pagoda:num_requests_rejected_total{";
    const size_t at = text.find(name);
    EXPECT_NE(at, std::string::npos);
    return std::stod(text.substr(text.find("} ", at) + 2));
  };
  SamplingParams long_run = Greedy(1000);
  long_run.output_kind = OutputKind::kDelta;
  auto add = [&](const std::string& id) { return engine->AddRequest(id, TestPrompt(8, 1), long_run); };

  auto running = add("running");
  ASSERT_TRUE(running.ok());
  ASSERT_TRUE((*running)->Next());  // scheduled: it no longer waits
  // Two wait (in the inbox or the scheduler, whichever the engine thread
  // has reached); the third is refused at once.
  auto first = add("first");
  auto second = add("second");
  ASSERT_TRUE(first.ok() && second.ok());
  auto refused = add("third");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(refused.status().message().find("waiting queue is full"), std::string::npos);
  EXPECT_NE(refused.status().message().find("2 requests"), std::string::npos);
  EXPECT_NE(refused.status().message().find("max_num_waiting_requests"), std::string::npos);
  EXPECT_EQ(rejected(), 1);

  // Once the running one ends, "first" runs and one place is free again.
  engine->Abort("running");
  WaitFinal(**running);
  ASSERT_TRUE((*first)->Next());
  auto third = add("third");
  EXPECT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_EQ(add("fourth").status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(rejected(), 2);

  // Drained, the queue takes requests again, and they run.
  for (const char* id : {"first", "second", "third"}) engine->Abort(id);
  WaitFinal(**first);
  WaitFinal(**second);
  WaitFinal(**third);
  // (The engine thread frees the places when it has taken the aborts in.)
  WaitForStats(*engine, [](const EngineStats& s) { return s.num_running_requests + s.num_waiting_requests == 0; });
  auto after = engine->AddRequest("after", TestPrompt(8, 2), Greedy(3));
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(WaitFinal(**after).outputs.at(0).token_ids.size(), 3u);
  EXPECT_EQ(rejected(), 2);
}

TEST(EngineLimitsTest, StatsAndGaugesShowALongFirstStepWhileItRuns) {
  // The whole prompt in one step (a fixed budget, no cap, no concurrent
  // partial prefills, which would bring vLLM's 4% cap back), which takes a
  // while on a CPU; max_tokens 1 ends the request with that step.
  EngineConfig config = TestEngineConfig(128);
  config.step_latency_target = 0;
  config.long_prefill_token_threshold = 0;
  config.max_num_partial_prefills = 1;
  config.max_long_partial_prefills = 1;
  auto engine = MakeEngine(config);
  ASSERT_TRUE(engine);
  std::atomic<bool> done = false;
  bool stats_running = false, gauges_running = false;
  std::thread poller([&] {
    while (!done) {
      const EngineStats stats = engine->Stats();
      stats_running |= stats.num_running_requests == 1 && stats.kv_cache_usage > 0;
      const metrics::StatsLogTotals gauges = engine->metrics().LogTotals();
      gauges_running |= gauges.num_running == 1 && gauges.kv_cache_usage > 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  auto stream = engine->AddRequest("long", TestPrompt(500, 3), Greedy(1));
  ASSERT_TRUE(stream.ok());
  WaitFinal(**stream);
  done = true;
  poller.join();
  EXPECT_TRUE(stats_running) << "Engine::Stats() never showed the step in progress";
  EXPECT_TRUE(gauges_running) << "the metrics' gauges never showed the step in progress";
  EXPECT_EQ(engine->Stats().num_steps, 1);
}

}  // namespace
}  // namespace pagoda
