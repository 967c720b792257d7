// Shared set-up for the engine tests on the real default model: engines
// sized in KV blocks, and helpers that run requests to completion.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pagoda/engine/engine.h"
#include "pagoda/formats/gguf/gguf_file.h"
#include "pagoda/model/model_config.h"
#include "pagoda/engine/kv_cache_sizing.h"

namespace pagoda::testing {

// Bytes of one KV block of the test model (block size 16, F16).
inline int64_t TestModelBytesPerBlock() {
  auto file = gguf::GgufFile::Open(PAGODA_TEST_MODEL);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  auto config = ModelConfigFromGguf(**file);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  return KvCacheBytesFor(*config, DType::kF16, /*block_size=*/16, /*num_tokens=*/16);
}

inline EngineConfig TestEngineConfig(int64_t num_blocks) {
  EngineConfig config;
  config.model = PAGODA_TEST_MODEL;
  config.kv_cache_memory = num_blocks * TestModelBytesPerBlock();
  config.threads = 2;
  // The engine refuses a cache too small for one max_model_len request.
  config.max_model_len = std::min<int64_t>(1024, num_blocks * 16);
  return config;
}

inline std::unique_ptr<Engine> MakeEngine(const EngineConfig& config) {
  auto engine = Engine::Create(config);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return engine.ok() ? std::move(*engine) : nullptr;
}

// Takes outputs until the finished one, which it returns.
inline RequestOutput WaitFinal(OutputStream& stream) {
  std::optional<RequestOutput> last;
  while (std::optional<RequestOutput> out = stream.Next()) last = std::move(out);
  EXPECT_TRUE(last && last->finished);
  return last ? *last : RequestOutput{};
}

// Stats are published after each step, just after its outputs: polls until
// `done` holds (or two minutes pass) and returns the last snapshot.
template <typename Predicate>
EngineStats WaitForStats(const Engine& engine, Predicate done) {
  // A deadline, not a count of polls: under the sanitizers on a loaded
  // machine the engine may take many seconds to get there.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  EngineStats stats = engine.Stats();
  while (!done(stats) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    stats = engine.Stats();
  }
  return stats;
}

struct TestRequest {
  std::vector<int32_t> prompt;
  SamplingParams params;
};

// Adds all requests at once (so they share steps), then waits for each.
inline std::vector<RequestOutput> RunConcurrently(Engine& engine, const std::vector<TestRequest>& requests,
                                                  const std::string& id_prefix) {
  std::vector<std::shared_ptr<OutputStream>> streams;
  for (size_t i = 0; i < requests.size(); ++i) {
    auto stream = engine.AddRequest(id_prefix + std::to_string(i), requests[i].prompt, requests[i].params);
    EXPECT_TRUE(stream.ok()) << stream.status().ToString();
    if (!stream.ok()) return {};
    streams.push_back(*stream);
  }
  std::vector<RequestOutput> outputs;
  for (auto& s : streams) outputs.push_back(WaitFinal(*s));
  return outputs;
}

// Runs `requests` concurrently on `engine` (whose cache is too small for
// all of them) until the scheduler had to preempt, at most `tries` times,
// checking each run with `check`. The engine's thread may start on the
// first request before the test's thread adds the rest, on a loaded machine
// long enough that they never overlap; another try then overlaps them.
template <typename Check>
void RunUntilPreempted(Engine& engine, const std::vector<TestRequest>& requests, const std::string& id_prefix,
                       Check check, int tries = 3) {
  for (int t = 0; t < tries; ++t) {
    check(RunConcurrently(engine, requests, id_prefix + std::to_string(t) + "-"));
    if (engine.Stats().num_preemptions > 0) return;
  }
  ADD_FAILURE() << "no preemption in " << tries << " concurrent runs";
}

// Runs each request by itself: the next is added when the last finished.
inline std::vector<RequestOutput> RunOneByOne(Engine& engine, const std::vector<TestRequest>& requests,
                                              const std::string& id_prefix) {
  std::vector<RequestOutput> outputs;
  for (size_t i = 0; i < requests.size(); ++i) {
    auto one = RunConcurrently(engine, {requests[i]}, id_prefix + std::to_string(i) + "-");
    if (one.size() != 1) return {};
    outputs.push_back(one[0]);
  }
  return outputs;
}

// Deterministic pseudo-random prompt token ids (no special tokens: ids from 100).
inline std::vector<int32_t> TestPrompt(int32_t length, uint32_t salt) {
  std::vector<int32_t> ids;
  uint32_t x = salt * 2654435761u + 12345u;
  for (int32_t i = 0; i < length; ++i) {
    x = x * 1664525u + 1013904223u;
    ids.push_back(100 + static_cast<int32_t>((x >> 8) % 20000));
  }
  return ids;
}

inline SamplingParams Greedy(int32_t max_tokens) {
  SamplingParams p;
  p.temperature = 0;
  p.max_tokens = max_tokens;
  p.ignore_eos = true;
  return p;
}

// Fewer requests under the sanitizers, which run the model several times slower.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr int kConcurrentRequests = 16;
#else
inline constexpr int kConcurrentRequests = 64;
#endif

}  // namespace pagoda::testing
