// Continuous batching on the real model: whatever else runs in the same
// steps, whatever the prefix cache holds and however often a request is
// preempted, its tokens are the ones it gets alone with a cold, large cache
// (the runner is batch-invariant and bit-exact).
#include <gtest/gtest.h>

#include <thread>

#include "engine_test_util.h"

namespace pagoda {
namespace {

using namespace pagoda::testing;

void ExpectSameTokens(const std::vector<RequestOutput>& got, const std::vector<RequestOutput>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].outputs.size(), want[i].outputs.size()) << "request " << i;
    for (size_t k = 0; k < got[i].outputs.size(); ++k) {
      EXPECT_EQ(got[i].outputs[k].token_ids, want[i].outputs[k].token_ids) << "request " << i << " output " << k;
      EXPECT_EQ(got[i].outputs[k].text, want[i].outputs[k].text) << "request " << i << " output " << k;
    }
  }
}

// A cold engine with room for everything and no prefix cache: the reference.
std::unique_ptr<Engine> ReferenceEngine() {
  EngineConfig config = TestEngineConfig(512);
  config.enable_prefix_caching = false;
  return MakeEngine(config);
}

TEST(EngineBatchingTest, PrefixCacheHitGivesTheColdRunsOutput) {
  auto cached = MakeEngine(TestEngineConfig(256));
  auto cold = ReferenceEngine();
  ASSERT_TRUE(cached && cold);
  const std::vector<int32_t> shared = TestPrompt(70, 1);
  std::vector<TestRequest> requests;
  for (uint32_t i = 0; i < 3; ++i) {
    std::vector<int32_t> prompt = shared;
    const std::vector<int32_t> tail = TestPrompt(5 + 3 * i, 10 + i);
    prompt.insert(prompt.end(), tail.begin(), tail.end());
    requests.push_back({prompt, Greedy(8)});
  }
  const auto want = RunOneByOne(*cold, requests, "cold");
  const auto got = RunOneByOne(*cached, requests, "cached");
  ExpectSameTokens(got, want);
  // The first request found nothing; the others found the shared 64 tokens
  // (4 full blocks of the 70).
  EXPECT_EQ(got[0].num_cached_tokens, 0);
  EXPECT_EQ(got[1].num_cached_tokens, 64);
  EXPECT_EQ(got[2].num_cached_tokens, 64);
  const EngineStats stats = cached->Stats();
  EXPECT_EQ(stats.prefix_cache_hits, 128);
  EXPECT_GT(stats.prefix_cache_queries, stats.prefix_cache_hits);
  EXPECT_EQ(cold->Stats().prefix_cache_hits, 0);

  // The same prompt again hits all its full blocks but the one holding the
  // last token, which must be computed for its logits.
  const auto again = RunOneByOne(*cached, {requests[0]}, "again");
  ExpectSameTokens(again, {want[0]});
  EXPECT_EQ(again[0].num_cached_tokens, 64);
}

TEST(EngineBatchingTest, ConcurrentRequestsMatchTheirRunsAlone) {
  auto batched = MakeEngine(TestEngineConfig(1024));
  auto alone = ReferenceEngine();
  ASSERT_TRUE(batched && alone);
  std::vector<TestRequest> requests;
  for (int i = 0; i < kConcurrentRequests; ++i) {
    // Mixed prompt and output lengths, some prompts sharing a prefix.
    std::vector<int32_t> prompt = TestPrompt(2 + (i * 37) % 35, i % 5 == 0 ? 99 : i);
    if (i % 5 == 0) prompt.push_back(1000 + i);
    requests.push_back({prompt, Greedy(1 + i % 4)});
  }
  // One seeded, sampled request among them gets its own random stream.
  requests[7].params.temperature = 0.9f;
  requests[7].params.seed = 1234;
  const auto want = RunOneByOne(*alone, requests, "alone");
  const auto got = RunConcurrently(*batched, requests, "batched");
  ExpectSameTokens(got, want);
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].outputs.size(), 1u);
    EXPECT_EQ(got[i].outputs[0].token_ids.size(), static_cast<size_t>(*requests[i].params.max_tokens));
    EXPECT_EQ(got[i].outputs[0].finish_reason, FinishReason::kLength);
  }
}

// Every request samples, seeded, some with n = 2: a step's draws run on both
// pool threads, each with its own Sampler, and no token may depend on which
// thread drew it or on the other draws of its step.
TEST(EngineBatchingTest, SeededDrawsInABatchMatchTheirRunsAlone) {
  auto batched = MakeEngine(TestEngineConfig(1024));
  auto alone = ReferenceEngine();
  ASSERT_TRUE(batched && alone);
  std::vector<TestRequest> requests;
  for (int i = 0; i < 9; ++i) {
    SamplingParams params = Greedy(6);
    params.temperature = 0.7f + 0.1f * static_cast<float>(i % 4);
    params.top_p = i % 3 == 0 ? 0.9f : 1.0f;
    params.seed = 100 + i;
    if (i % 4 == 1) params.n = 2;
    if (i == 2) params.logprobs = 2;
    requests.push_back({TestPrompt(3 + i, 40 + i), params});
  }
  const auto want = RunOneByOne(*alone, requests, "alone");
  const auto got = RunConcurrently(*batched, requests, "batched");
  ExpectSameTokens(got, want);
  ASSERT_TRUE(got[2].outputs[0].logprobs.has_value());
  EXPECT_EQ(got[2].outputs[0].logprobs->size(), 6u);
}

TEST(EngineBatchingTest, PreemptionUnderATinyCacheKeepsEveryOutput) {
  // 8 blocks hold 128 tokens; the 6 requests want up to 6 x 48.
  auto small = MakeEngine(TestEngineConfig(8));
  auto large = ReferenceEngine();
  ASSERT_TRUE(small && large);
  std::vector<TestRequest> requests;
  for (uint32_t i = 0; i < 6; ++i) requests.push_back({TestPrompt(18 + 3 * i, 40 + i), Greedy(12 + i)});
  requests[3].params.temperature = 0.7f;  // a seeded request survives recompute too
  requests[3].params.seed = 5;
  const auto want = RunConcurrently(*large, requests, "large");
  RunUntilPreempted(*small, requests, "small", [&want](const auto& got) { ExpectSameTokens(got, want); });
  EXPECT_EQ(large->Stats().num_preemptions, 0);
}

TEST(EngineBatchingTest, AbortFreesEveryBlock) {
  auto engine = MakeEngine(TestEngineConfig(64));
  ASSERT_TRUE(engine);
  SamplingParams long_run = Greedy(500);
  long_run.output_kind = OutputKind::kDelta;
  auto a = engine->AddRequest("a", TestPrompt(40, 3), long_run);
  auto b = engine->AddRequest("b", TestPrompt(50, 4), long_run);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)->Next().has_value());  // running, holding blocks
  EXPECT_GT(WaitForStats(*engine, [](const EngineStats& s) { return s.kv_cache_usage > 0; }).kv_cache_usage, 0);
  engine->Abort("a");
  engine->Abort("b");
  for (auto* stream : {a->get(), b->get()}) {
    const RequestOutput final_output = WaitFinal(*stream);
    ASSERT_EQ(final_output.outputs.size(), 1u);
    EXPECT_EQ(final_output.outputs[0].finish_reason, FinishReason::kAbort);
  }
  const EngineStats stats = WaitForStats(*engine, [](const EngineStats& s) { return s.num_finished_requests == 2; });
  EXPECT_EQ(stats.num_finished_requests, 2);
  EXPECT_EQ(stats.kv_cache_usage, 0);
  EXPECT_EQ(stats.num_running_seqs, 0);
  EXPECT_EQ(stats.num_waiting_seqs, 0);
  // The ids are free again.
  auto again = engine->AddRequest("a", TestPrompt(10, 5), Greedy(2));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(WaitFinal(**again).outputs.at(0).token_ids.size(), 2u);
}

TEST(EngineBatchingTest, ClientsOnManyThreadsAddAndAbort) {
  auto engine = MakeEngine(TestEngineConfig(64));
  ASSERT_TRUE(engine);
  constexpr int kThreads = 4, kPerThread = 6;
  std::vector<std::vector<RequestOutput>> finals(kThreads);
  std::vector<std::thread> clients;
  for (int t = 0; t < kThreads; ++t) {
    clients.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const std::string id = "t" + std::to_string(t) + "-" + std::to_string(i);
        SamplingParams params = Greedy(i % 2 == 0 ? 3 : 400);
        params.output_kind = i % 3 == 0 ? OutputKind::kDelta : OutputKind::kCumulative;
        auto stream = engine->AddRequest(id, TestPrompt(5 + 7 * i, t * 100 + i), params);
        ASSERT_TRUE(stream.ok()) << stream.status().ToString();
        if (i % 2 == 1) {
          (*stream)->Next();  // the long ones are aborted once running
          engine->Abort(id);
        }
        finals[t].push_back(WaitFinal(**stream));
      }
    });
  }
  for (std::thread& c : clients) c.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      EXPECT_EQ(finals[t][i].outputs.at(0).finish_reason, i % 2 == 0 ? FinishReason::kLength : FinishReason::kAbort);
    }
  }
  EXPECT_EQ(WaitForStats(*engine, [](const EngineStats& s) { return s.num_finished_requests == kThreads * kPerThread; })
                .num_finished_requests,
            kThreads * kPerThread);
  EXPECT_EQ(engine->Stats().kv_cache_usage, 0);
}

}  // namespace
}  // namespace pagoda
