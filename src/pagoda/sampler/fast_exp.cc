// Built with -fno-trapping-math (CMakeLists.txt): without it GCC keeps the
// float compares and selects below scalar, and the loops do not vectorize.
// On x86-64 each row function also gets an AVX2 clone, chosen at load time
// by the CPU, which about halves the time of the exp loops.
#include "pagoda/sampler/fast_exp.h"

#include <algorithm>
#include <limits>

#include "pagoda/base/check.h"

namespace pagoda {
namespace {

#if defined(__x86_64__) && defined(__GNUC__)
#define PAGODA_ROW_FUNCTION __attribute__((target_clones("avx2", "default")))
#else
#define PAGODA_ROW_FUNCTION
#endif

constexpr size_t kLanes = 16;
constexpr size_t kBlock = 512;  // 32 float terms per lane before a double add

// Sums term(i) for i in [0, n): float lanes within a block, double across.
// Always inlined, so each clone of its callers compiles it for its own ISA.
template <typename Term>
[[gnu::always_inline]] inline double BlockedSum(size_t n, Term term) {
  double total = 0;
  for (size_t start = 0; start < n; start += kBlock) {
    const size_t end = std::min(n, start + kBlock);
    float lanes[kLanes] = {};
    size_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      for (size_t j = 0; j < kLanes; ++j) lanes[j] += term(i + j);
    }
    for (; i < end; ++i) total += term(i);
    for (float lane : lanes) total += lane;
  }
  return total;
}

}  // namespace

PAGODA_ROW_FUNCTION float RowMax(std::span<const float> row) {
  PAGODA_CHECK(!row.empty());
  float lanes[kLanes];
  std::fill(std::begin(lanes), std::end(lanes), -std::numeric_limits<float>::infinity());
  size_t i = 0;
  for (; i + kLanes <= row.size(); i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) lanes[j] = row[i + j] > lanes[j] ? row[i + j] : lanes[j];
  }
  float best = -std::numeric_limits<float>::infinity();
  for (; i < row.size(); ++i) best = row[i] > best ? row[i] : best;
  for (float lane : lanes) best = lane > best ? lane : best;
  return best;
}

PAGODA_ROW_FUNCTION double SumExp(std::span<const float> row, float shift) {
  return BlockedSum(row.size(), [&](size_t i) { return FastExp(row[i] - shift); });
}

PAGODA_ROW_FUNCTION double ExpAndSum(std::span<const float> row, float shift, std::span<float> terms) {
  PAGODA_CHECK(terms.size() == row.size());
  return BlockedSum(row.size(), [&](size_t i) { return terms[i] = FastExp(row[i] - shift); });
}

PAGODA_ROW_FUNCTION double SumRow(std::span<const float> row) {
  return BlockedSum(row.size(), [&](size_t i) { return row[i]; });
}

}  // namespace pagoda
