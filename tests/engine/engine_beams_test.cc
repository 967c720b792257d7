// Beam search on the real model: rounds that fork and drop sequences on the
// copy-on-write block tables, under batching, preemption and aborts.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "engine_test_util.h"
#include "pagoda/kernels/cpu/kernel_set.h"

namespace pagoda {
namespace {

using namespace pagoda::testing;

SamplingParams Beams(int32_t width, int32_t max_tokens, float length_penalty = 1.0f) {
  SamplingParams p = Greedy(max_tokens);
  p.use_beam_search = true;
  p.beam_width = width;
  p.n = width;
  p.length_penalty = length_penalty;
  return p;
}

std::vector<TestRequest> BeamRequests() {
  std::vector<TestRequest> requests;
  for (uint32_t i = 0; i < 4; ++i) requests.push_back({TestPrompt(20 + 5 * i, 60 + i), Beams(2 + i % 3, 10 + i)});
  requests[1].params.length_penalty = 0.5f;
  requests[2].params.ignore_eos = false;
  return requests;
}

void ExpectSameBeams(const std::vector<RequestOutput>& got, const std::vector<RequestOutput>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].outputs.size(), want[i].outputs.size()) << "request " << i;
    for (size_t k = 0; k < got[i].outputs.size(); ++k) {
      const CompletionOutput& g = got[i].outputs[k];
      const CompletionOutput& w = want[i].outputs[k];
      EXPECT_EQ(g.token_ids, w.token_ids) << "request " << i << " beam " << k;
      EXPECT_EQ(g.text, w.text) << "request " << i << " beam " << k;
      // Bit-exact logits give bit-exact sums.
      EXPECT_EQ(g.cumulative_logprob, w.cumulative_logprob) << "request " << i << " beam " << k;
      EXPECT_EQ(g.finish_reason, w.finish_reason) << "request " << i << " beam " << k;
    }
  }
}

// Against an independent beam search over llama.cpp's logits (fixture and
// script in tests/fixtures/beam_search/): the same hypotheses in the same
// order, finish reasons, and cumulative logprobs to float precision (the
// fixture sums float64 log-softmax, Pagoda float32 per token). Hypotheses
// follow every last bit of the logits, so this runs a kernel set that keeps
// GGML's operation order and reproduces llama.cpp's logits exactly (AVX2, or
// the scalar set); the AVX-512 sets are within tolerance of it
// (llama_cpp_parity_test.cc) and run the other beam tests.
TEST(EngineBeamsTest, MatchesTheLlamaCppReference) {
  std::ifstream file(PAGODA_FIXTURES_DIR "/beam_search/beam_search.json");
  ASSERT_TRUE(file.good());
  const nlohmann::json fixture = nlohmann::json::parse(file);
  EngineConfig config = TestEngineConfig(256);
  config.kv_cache_dtype = DType::kF32;  // as the reference's llama.cpp context
  config.kernel_set = kernels::cpu::FindSupportedKernelSet("avx2") != nullptr ? "avx2" : "scalar";
  auto engine = MakeEngine(config);
  ASSERT_TRUE(engine);
  int num_stopped = 0;
  for (const nlohmann::json& c : fixture.at("cases")) {
    const std::string name = c.at("name");
    SamplingParams p = Beams(c.at("beam_width"), c.at("max_tokens"), c.at("length_penalty"));
    p.ignore_eos = c.at("ignore_eos");
    const RequestOutput out = RunOneByOne(*engine, {{c.at("prompt_token_ids"), p}}, name).at(0);
    const nlohmann::json& want = c.at("hypotheses");
    ASSERT_EQ(out.outputs.size(), want.size()) << name;
    for (size_t k = 0; k < want.size(); ++k) {
      const CompletionOutput& got = out.outputs[k];
      EXPECT_EQ(got.token_ids, want[k].at("output_token_ids").get<std::vector<int32_t>>()) << name << " " << k;
      EXPECT_EQ(FinishReasonName(*got.finish_reason), want[k].at("finish_reason").get<std::string>()) << name;
      EXPECT_NEAR(*got.cumulative_logprob, want[k].at("cumulative_logprob").get<double>(), 1e-4) << name << " " << k;
      num_stopped += got.finish_reason == FinishReason::kStop;
    }
  }
  EXPECT_GT(num_stopped, 5);  // EOS ended hypotheses, not only the length limit
}

TEST(EngineBeamsTest, ReturnsTheBestHypothesesWithTheirLogprobs) {
  auto engine = MakeEngine(TestEngineConfig(256));
  ASSERT_TRUE(engine);
  SamplingParams p = Beams(4, 12);
  p.n = 3;
  const RequestOutput out = RunOneByOne(*engine, {{TestPrompt(30, 7), p}}, "beam").at(0);
  ASSERT_EQ(out.outputs.size(), 3u);
  for (size_t k = 0; k < out.outputs.size(); ++k) {
    const CompletionOutput& o = out.outputs[k];
    EXPECT_EQ(o.index, static_cast<int32_t>(k));
    EXPECT_EQ(o.token_ids.size(), 12u);  // ignore_eos: every beam runs to max_tokens
    EXPECT_EQ(o.finish_reason, FinishReason::kLength);
    ASSERT_TRUE(o.cumulative_logprob.has_value());
    if (k > 0) {
      EXPECT_GE(*out.outputs[k - 1].cumulative_logprob, *o.cumulative_logprob);  // equal lengths
      EXPECT_NE(o.token_ids, out.outputs[k - 1].token_ids);
    }
  }
  // The prompt computed once; every beam's token of every round counted.
  const EngineStats stats = WaitForStats(*engine, [](const EngineStats& s) { return s.num_finished_requests == 1; });
  EXPECT_EQ(stats.prompt_tokens, 30);
  EXPECT_GE(stats.generation_tokens, 12 * 4);
  EXPECT_EQ(stats.kv_cache_usage, 0);
}

TEST(EngineBeamsTest, BatchingAndATinyCacheKeepEveryBeam) {
  // 14 blocks hold 224 tokens; the four searches want up to 4 beams of ~48.
  auto large = MakeEngine(TestEngineConfig(512));
  auto small = MakeEngine(TestEngineConfig(14));
  ASSERT_TRUE(large && small);
  const std::vector<TestRequest> requests = BeamRequests();
  const auto want = RunOneByOne(*large, requests, "alone");
  RunUntilPreempted(*small, requests, "small", [&want](const auto& got) { ExpectSameBeams(got, want); });
  EXPECT_EQ(large->Stats().num_preemptions, 0);
  EXPECT_EQ(WaitForStats(*small, [](const EngineStats& s) { return s.kv_cache_usage == 0; }).kv_cache_usage, 0);
}

TEST(EngineBeamsTest, AbortMidSearchFreesEveryBlock) {
  auto engine = MakeEngine(TestEngineConfig(128));
  ASSERT_TRUE(engine);
  auto stream = engine->AddRequest("b", TestPrompt(40, 9), Beams(3, 400));
  ASSERT_TRUE(stream.ok());
  EXPECT_GT(WaitForStats(*engine, [](const EngineStats& s) { return s.generation_tokens > 20; }).generation_tokens, 20);
  engine->Abort("b");
  const RequestOutput out = WaitFinal(**stream);
  ASSERT_EQ(out.outputs.size(), 3u);
  for (const CompletionOutput& o : out.outputs) {
    EXPECT_EQ(o.finish_reason, FinishReason::kAbort);
    EXPECT_FALSE(o.token_ids.empty());
  }
  const EngineStats stats = WaitForStats(*engine, [](const EngineStats& s) { return s.num_finished_requests == 1; });
  EXPECT_EQ(stats.kv_cache_usage, 0);
  EXPECT_EQ(stats.num_running_seqs + stats.num_waiting_seqs, 0);
}

}  // namespace
}  // namespace pagoda
