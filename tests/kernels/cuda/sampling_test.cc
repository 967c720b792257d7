// cuda::SampleTokens against a plain host implementation of the CPU
// sampler's rules (sampler/top_k_top_p.h), in double: sort, cut at the k-th
// largest (keeping its ties), keep the most likely (lower id first) while
// the mass before each is below top_p of the total, then draw in id order.
// A row whose draw or top-p cut falls within 1e-4 of the total mass of a
// boundary is not compared (f32 sums on the GPU may fall either side); most
// rows must be.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "cuda_test_support.h"
#include "pagoda/kernels/cuda/sampling.cuh"

namespace pagoda::kernels::cuda {
namespace {

using testing::DeviceBuffer;

constexpr double kMargin = 1e-4;

struct Expected {
  int32_t token;
  bool near_boundary;
};

Expected HostSample(const float* logits, int64_t vocab, const RowSampling& s) {
  if (s.temperature <= 0.0f) {
    const float* best = std::max_element(logits, logits + vocab);
    return {*best == -INFINITY ? -1 : static_cast<int32_t>(best - logits), false};
  }
  std::vector<float> v(static_cast<size_t>(vocab));
  for (int64_t i = 0; i < vocab; ++i) v[i] = logits[i] / s.temperature;
  const float top = *std::max_element(v.begin(), v.end());
  if (top == -INFINITY) return {-1, false};
  std::vector<int32_t> order(static_cast<size_t>(vocab));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return v[a] > v[b]; });
  std::vector<bool> kept(static_cast<size_t>(vocab), false);
  const float kth = s.top_k > 0 && s.top_k < vocab ? v[order[s.top_k - 1]] : -INFINITY;
  double total = 0;
  for (int64_t i = 0; i < vocab; ++i) {
    if (v[i] != -INFINITY && v[i] >= kth) {
      kept[i] = true;
      total += std::exp(static_cast<double>(v[i]) - top);
    }
  }
  bool near = false;
  if (s.top_p < 1.0f) {
    const double target = static_cast<double>(s.top_p) * total;
    double before = 0;
    double new_total = 0;
    for (int32_t id : order) {
      if (!kept[id]) continue;
      const double mass = std::exp(static_cast<double>(v[id]) - top);
      if (std::fabs(before - target) < kMargin * total) near = true;
      if (before < target) {
        new_total += mass;
      } else {
        kept[id] = false;
      }
      before += mass;
    }
    total = new_total;
  }
  const double threshold = static_cast<double>(s.uniform) * total;
  double acc = 0;
  int32_t last = -1;
  for (int64_t i = 0; i < vocab; ++i) {
    if (!kept[i]) continue;
    acc += std::exp(static_cast<double>(v[i]) - top);
    last = static_cast<int32_t>(i);
    if (std::fabs(acc - threshold) < kMargin * total) near = true;
    if (threshold < acc) return {last, near};
  }
  return {last, near};
}

class SampleTokensTest : public testing::CudaTest {};

TEST_F(SampleTokensTest, FollowsTheSamplersRules) {
  constexpr int64_t kVocab = 32000;
  std::mt19937 rng(12);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<RowSampling> settings = {
      {0.0f, 0, 1.0f, 0.5f},     // greedy
      {1.0f, 0, 1.0f, 0.3f},     // the whole row
      {0.7f, 50, 1.0f, 0.9f},    // top-k
      {1.0f, 0, 0.9f, 0.1f},     // top-p
      {1.3f, 40, 0.8f, 0.6f},    // both
      {1.0f, 1, 1.0f, 0.99f},    // top-1
      {1.0f, 0, 0.05f, 0.5f},    // a tight top-p
      {0.5f, 31999, 0.95f, 0.0f}};
  while (settings.size() < 64) {
    settings.push_back({0.2f + 2.0f * unit(rng), static_cast<int32_t>(rng() % 200), 0.5f + 0.5f * unit(rng), unit(rng)});
  }
  const auto rows = static_cast<int64_t>(settings.size());
  std::vector<float> logits(static_cast<size_t>(rows * kVocab));
  for (float& x : logits) x = normal(rng);
  // Exact ties at the top of some rows, and -inf entries.
  for (int64_t r = 0; r < rows; r += 3) {
    float* row = logits.data() + r * kVocab;
    const float top = *std::max_element(row, row + kVocab);
    for (int64_t i = 100; i < kVocab; i += 997) row[i] = top;
    for (int64_t i = 7; i < kVocab; i += 13) row[i] = -INFINITY;
  }
  DeviceBuffer logits_dev(logits), settings_dev(settings), tokens_dev(static_cast<size_t>(rows) * sizeof(int32_t));
  const Status status = SampleTokens(logits_dev.as<float>(), rows, kVocab, settings_dev.as<RowSampling>(),
                                     tokens_dev.as<int32_t>(), nullptr);
  ASSERT_TRUE(status.ok()) << status.ToString();
  testing::CudaCheck(cudaDeviceSynchronize(), "SampleTokens");
  const std::vector<int32_t> tokens = tokens_dev.ToHost<int32_t>();
  int compared = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const Expected e = HostSample(logits.data() + r * kVocab, kVocab, settings[r]);
    if (e.near_boundary) continue;
    ++compared;
    EXPECT_EQ(tokens[r], e.token) << "row " << r;
  }
  EXPECT_GE(compared, rows * 9 / 10);
}

TEST_F(SampleTokensTest, AllMinusInfinityGivesMinusOne) {
  constexpr int64_t kVocab = 1000;
  const std::vector<float> logits(2 * kVocab, -INFINITY);
  const std::vector<RowSampling> settings = {{0.0f, 0, 1.0f, 0.5f}, {1.0f, 10, 0.9f, 0.5f}};
  DeviceBuffer logits_dev(logits), settings_dev(settings), tokens_dev(2 * sizeof(int32_t));
  ASSERT_TRUE(SampleTokens(logits_dev.as<float>(), 2, kVocab, settings_dev.as<RowSampling>(), tokens_dev.as<int32_t>(),
                           nullptr)
                  .ok());
  EXPECT_EQ(tokens_dev.ToHost<int32_t>(), (std::vector<int32_t>{-1, -1}));
}

TEST(SampleTokensArgs, RefusesAVocabularyBeyondExactCounts) {
  EXPECT_EQ(SampleTokens(nullptr, 1, int64_t{1} << 25, nullptr, nullptr, nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(SampleTokens(nullptr, 0, 1000, nullptr, nullptr, nullptr).ok());
}

}  // namespace
}  // namespace pagoda::kernels::cuda
