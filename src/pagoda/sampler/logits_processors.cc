#include "pagoda/sampler/logits_processors.h"

#include <algorithm>
#include <cmath>

#include "pagoda/base/check.h"

namespace pagoda::logits {
namespace {

void CheckId(std::span<const float> row, int32_t id) {
  PAGODA_CHECK_MSG(id >= 0 && static_cast<size_t>(id) < row.size(), "token id outside the vocabulary");
}

}  // namespace

void KeepAllowed(std::span<float> row, std::span<const int32_t> allowed, TokenSet& scratch) {
  scratch.Clear();
  for (int32_t id : allowed) scratch.Insert(id);
  for (size_t i = 0; i < row.size(); ++i) {
    if (!scratch.Contains(static_cast<int32_t>(i))) row[i] = kMasked;
  }
}

void BanBadWords(std::span<float> row, std::span<const std::vector<int32_t>> bad_words,
                 std::span<const int32_t> output_tokens) {
  for (const std::vector<int32_t>& word : bad_words) {
    PAGODA_CHECK(!word.empty());
    const size_t prefix_len = word.size() - 1;
    if (prefix_len > output_tokens.size()) continue;
    const auto tail = output_tokens.last(prefix_len);
    if (std::equal(tail.begin(), tail.end(), word.begin())) {
      CheckId(row, word.back());
      row[word.back()] = kMasked;
    }
  }
}

void Ban(std::span<float> row, std::span<const int32_t> tokens) {
  for (int32_t id : tokens) {
    CheckId(row, id);
    row[id] = kMasked;
  }
}

void AddLogitBias(std::span<float> row, const std::map<int32_t, float>& bias) {
  for (const auto& [id, value] : bias) {
    CheckId(row, id);
    row[id] += value;
  }
}

void ApplyPenalties(std::span<float> row, std::span<const int32_t> prompt_tokens,
                    std::span<const int32_t> output_tokens, const Penalties& penalties, TokenSet& seen,
                    std::vector<int32_t>& counts) {
  if (penalties.repetition != 1.0f) {
    seen.Clear();
    auto penalize = [&](int32_t id) {
      CheckId(row, id);
      if (!seen.Insert(id)) return;  // once per distinct token
      row[id] = row[id] > 0.0f ? row[id] / penalties.repetition : row[id] * penalties.repetition;
    };
    for (int32_t id : prompt_tokens) penalize(id);
    for (int32_t id : output_tokens) penalize(id);
  }
  if (penalties.frequency != 0.0f || penalties.presence != 0.0f) {
    for (int32_t id : output_tokens) {
      CheckId(row, id);
      ++counts[id];
    }
    for (int32_t id : output_tokens) {
      if (counts[id] == 0) continue;  // already applied for this token
      row[id] -= penalties.frequency * static_cast<float>(counts[id]);
      row[id] -= penalties.presence;
      counts[id] = 0;
    }
  }
}

void ApplyTemperature(std::span<float> row, float temperature) {
  PAGODA_CHECK(temperature > 0.0f);
  if (temperature == 1.0f) return;  // x / 1 is x
  for (float& x : row) x /= temperature;
}

void ApplyMinP(std::span<float> row, float min_p, const kernels::cpu::RowOps& rows) {
  if (min_p <= 0.0f || row.empty()) return;
  const float max_logit = rows.RowMax(row);
  const float threshold = max_logit + std::log(min_p);
  for (float& x : row) {
    if (x < threshold) x = kMasked;
  }
}

int32_t Argmax(std::span<const float> row, const kernels::cpu::RowOps& rows) {
  // Two passes, a vectorized max and then its first position, beat one
  // scalar pass that tracks both.
  const float max = rows.RowMax(row);
  const auto it = std::find(row.begin(), row.end(), max);
  return it == row.end() ? 0 : static_cast<int32_t>(it - row.begin());  // all NaN: token 0
}

}  // namespace pagoda::logits
