// The forward pass against llama.cpp (tests/fixtures/llama_cpp, made by
// make_reference.py there with an F32 KV cache and standard attention).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <vector>

#include "test_model.h"

namespace pagoda {
namespace {

using nlohmann::json;

const std::string kFixtures = std::string(PAGODA_FIXTURES_DIR) + "/llama_cpp/";

json LoadJson(const std::string& name) {
  std::ifstream in(kFixtures + name);
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  return json::parse(in);
}

std::vector<float> LoadF32(const std::string& name) {
  std::ifstream in(kFixtures + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

// How close Pagoda follows llama.cpp: by tolerance, not bit for bit (the
// CPU performance issue dropped GGML's operation order; the AVX-512 attention
// sums in its own order). SmolLM2's residual stream reaches ~2e4 and every
// quantized matmul rounds its input rows to int8, so a last-bit difference
// in the wrong place flips a rounding and grows to tenths of a logit. The
// tolerances below are stated from what reorderings give (measured with
// three revisions of the AVX-512 grouped attention: whole-vocabulary max 0.80
// and mean 0.15; teacher-forced top-5 mean 0.15-0.16 and max 1.67, 1.83,
// 2.07; the 2.07 is at a low-confidence step, logits ~11 with llama.cpp's
// top-2 margin 0.31, where the five logits moved up together by 0.7-2.1
// and the argmax held), with some room:
//  - every compared logit within kMaxLogitDiff, their mean within
//    kMeanLogitDiff;
//  - greedy decoding (and teacher-forced argmax) may differ only at a step
//    where llama.cpp's top-2 margin is below kNearTie, twice the mean
//    deviation, and then only to llama.cpp's second choice.
// The scalar and AVX2 kernel sets still keep GGML's order and reproduce the
// fixtures exactly (PAGODA_KERNEL_SET=avx2 shows it).
constexpr double kNearTie = 0.3;
constexpr double kMaxLogitDiff = 2.5;
constexpr double kMeanLogitDiff = 0.25;

std::vector<int32_t> TopK(std::span<const float> row, int k) {
  std::vector<int32_t> idx(row.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int32_t>(i);
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int32_t a, int32_t b) {
    return row[a] > row[b] || (row[a] == row[b] && a < b);
  });
  idx.resize(k);
  return idx;
}

// Greedy decoding of all fixture prompts together in one flattened batch per
// step: the whole prompts first, then one token each per step.
TEST(LlamaCppParityTest, GreedyDecodingMatchesUntilANearTie) {
  PAGODA_ASSERT_TEST_MODEL();
  const json ref = LoadJson("greedy.json");
  const auto& prompts = ref["prompts"];
  ASSERT_EQ(prompts.size(), 8u);
  const int steps = static_cast<int>(prompts[0]["generated_token_ids"].size());
  ASSERT_EQ(steps, 64);

  auto t = testing::TestRunner::Create(512, DType::kF32);
  ASSERT_NE(t, nullptr);
  const int64_t vocab = t->runner->vocab_size();
  std::vector<testing::TestSequence> seqs(prompts.size());
  std::vector<std::vector<int32_t>> generated(prompts.size());
  for (int step = 0; step < steps; ++step) {
    std::vector<SequenceChunk> chunks;
    for (size_t i = 0; i < seqs.size(); ++i) {
      testing::TestSequence& s = seqs[i];
      if (step == 0) s.tokens = prompts[i]["prompt_token_ids"].get<std::vector<int32_t>>();
      ASSERT_TRUE(GrowBlockTable(*t->blocks, s.table, s.tokens.size(), 16).ok());
      chunks.push_back({std::span(s.tokens).subspan(s.computed), s.computed, BlockTables(&s.table, 1), LogitsMode::kLast});
    }
    std::span<const float> logits = t->runner->Execute(chunks);
    for (size_t i = 0; i < seqs.size(); ++i) {
      seqs[i].computed = static_cast<int32_t>(seqs[i].tokens.size());
      const int32_t next = TopK(logits.subspan(i * vocab, vocab), 1)[0];
      generated[i].push_back(next);
      seqs[i].tokens.push_back(next);
    }
  }

  int identical = 0, within_issue_tolerance = 0;
  for (size_t i = 0; i < prompts.size(); ++i) {
    const auto expected = prompts[i]["generated_token_ids"].get<std::vector<int32_t>>();
    const auto& ref_steps = prompts[i]["steps"];
    size_t k = 0;
    while (k < expected.size() && generated[i][k] == expected[k]) ++k;
    if (k == expected.size()) {
      ++identical;
      ++within_issue_tolerance;
      continue;
    }
    const double margin = ref_steps[k]["margin"].get<double>();
    const int32_t second = ref_steps[k]["top5"][1][0].get<int32_t>();
    within_issue_tolerance += margin < kNearTie && generated[i][k] == second;
    // After a divergence the two continuations see different tokens: only
    // the first divergence can be judged.
    std::printf("prompt %zu: first divergence at step %zu, llama.cpp top-2 margin %.4f\n", i, k, margin);
    EXPECT_LT(margin, kNearTie) << "prompt " << i << " diverges at step " << k << ": got " << generated[i][k]
                                << ", llama.cpp " << expected[k];
    EXPECT_EQ(generated[i][k], second) << "prompt " << i << " step " << k
                                       << ": our token is not llama.cpp's second choice";
  }
  std::printf("greedy: %d of 8 prompts identical for 64 tokens; %d of 8 within the %.2f near-tie rule\n", identical,
              within_issue_tolerance, kNearTie);
  EXPECT_EQ(within_issue_tolerance, 8);
}

// Fed llama.cpp's own tokens (all generated tokens in one batch), every
// step's top-5 logits are within tolerance of llama.cpp's, and the argmax
// differs only at near-ties.
TEST(LlamaCppParityTest, TeacherForcedLogitsMatch) {
  PAGODA_ASSERT_TEST_MODEL();
  const json ref = LoadJson("greedy.json");
  const auto& prompts = ref["prompts"];
  auto t = testing::TestRunner::Create(512, DType::kF32);
  ASSERT_NE(t, nullptr);
  const int64_t vocab = t->runner->vocab_size();

  // Step 1 computes each prompt but its last token; step 2 the rest, with
  // logits at every position that predicts a generated token.
  std::vector<testing::TestSequence> seqs(prompts.size());
  for (int phase = 0; phase < 2; ++phase) {
    std::vector<SequenceChunk> chunks;
    for (size_t i = 0; i < seqs.size(); ++i) {
      testing::TestSequence& s = seqs[i];
      if (phase == 0) {
        s.tokens = prompts[i]["prompt_token_ids"].get<std::vector<int32_t>>();
        s.computed = static_cast<int32_t>(s.tokens.size()) - 1;
        const auto gen = prompts[i]["generated_token_ids"].get<std::vector<int32_t>>();
        s.tokens.insert(s.tokens.end(), gen.begin(), gen.end() - 1);
        ASSERT_TRUE(GrowBlockTable(*t->blocks, s.table, s.tokens.size(), 16).ok());
        // A one-token prompt has nothing to compute before phase 2.
        if (s.computed > 0) chunks.push_back({std::span(s.tokens).first(s.computed), 0, BlockTables(&s.table, 1), LogitsMode::kNone});
      } else {
        chunks.push_back({std::span(s.tokens).subspan(s.computed), s.computed, BlockTables(&s.table, 1), LogitsMode::kAll});
      }
    }
    std::span<const float> logits = t->runner->Execute(chunks);
    if (phase == 0) continue;

    double sum_abs = 0, max_abs = 0;
    int64_t compared = 0, argmax_agree = 0;
    for (size_t i = 0; i < prompts.size(); ++i) {
      const auto& ref_steps = prompts[i]["steps"];
      for (size_t k = 0; k < ref_steps.size(); ++k) {
        const auto row = logits.subspan((i * ref_steps.size() + k) * vocab, vocab);
        const int32_t ours = TopK(row, 1)[0];
        const int32_t theirs = ref_steps[k]["token"].get<int32_t>();
        argmax_agree += ours == theirs;
        if (ours != theirs) {
          EXPECT_LT(ref_steps[k]["margin"].get<double>(), kNearTie) << "prompt " << i << " step " << k;
          EXPECT_EQ(ours, ref_steps[k]["top5"][1][0].get<int32_t>()) << "prompt " << i << " step " << k;
        }
        for (const auto& entry : ref_steps[k]["top5"]) {
          // JSON holds the float32 logits as doubles; the cast back is exact.
          const double diff = std::fabs(row[entry[0].get<int32_t>()] - static_cast<float>(entry[1].get<double>()));
          EXPECT_LE(diff, kMaxLogitDiff) << "prompt " << i << " step " << k << " token " << entry[0];
          sum_abs += diff;
          max_abs = std::max(max_abs, diff);
          ++compared;
        }
      }
    }
    const double mean_abs = sum_abs / compared;
    std::printf("teacher-forced: argmax agrees at %lld of %zu steps; |logit diff| over top-5 mean %.4f max %.4f\n",
                static_cast<long long>(argmax_agree), prompts.size() * 64, mean_abs, max_abs);
    EXPECT_LE(mean_abs, kMeanLogitDiff);
  }
}

// The whole logit vector of a prompt's last position is within tolerance of
// llama.cpp's: every logit within kMaxLogitDiff, and the mean deviation, once
// the two vectors' mean difference (a uniform shift) is removed, within
// kMeanLogitDiff.
TEST(LlamaCppParityTest, PromptLogitsMatchOverTheWholeVocabulary) {
  PAGODA_ASSERT_TEST_MODEL();
  const json ref = LoadJson("greedy.json");
  auto t = testing::TestRunner::Create(64, DType::kF32);
  ASSERT_NE(t, nullptr);
  const int64_t vocab = t->runner->vocab_size();
  for (int i = 0; i < 2; ++i) {
    testing::TestSequence s;
    s.tokens = ref["prompts"][i]["prompt_token_ids"].get<std::vector<int32_t>>();
    ASSERT_TRUE(GrowBlockTable(*t->blocks, s.table, s.tokens.size(), 16).ok());
    SequenceChunk chunk{s.tokens, 0, BlockTables(&s.table, 1), LogitsMode::kLast};
    std::span<const float> logits = t->runner->Execute({&chunk, 1});
    const std::vector<float> want = LoadF32("prompt" + std::to_string(i) + "_last_logits.f32");
    ASSERT_EQ(static_cast<int64_t>(want.size()), vocab);
    // A shift of every logit by the same amount changes no probability, so
    // the mean deviation is taken after removing the mean difference.
    double max_diff = 0, mean_shift = 0;
    for (int64_t v = 0; v < vocab; ++v) {
      max_diff = std::max(max_diff, std::fabs(double{logits[v]} - want[v]));
      mean_shift += (double{logits[v]} - want[v]) / static_cast<double>(vocab);
    }
    double sum_diff = 0;
    for (int64_t v = 0; v < vocab; ++v) sum_diff += std::fabs(double{logits[v]} - want[v] - mean_shift);
    std::printf("prompt %d: |logit - llama.cpp| max %.4f; mean shift %.4f, mean |deviation| beyond it %.4f\n", i,
                max_diff, mean_shift, sum_diff / static_cast<double>(vocab));
    EXPECT_LE(max_diff, kMaxLogitDiff) << "prompt " << i;
    EXPECT_LE(sum_diff / static_cast<double>(vocab), kMeanLogitDiff) << "prompt " << i;
    ReleaseBlockTable(*t->blocks, s.table);
  }
}

}  // namespace
}  // namespace pagoda
