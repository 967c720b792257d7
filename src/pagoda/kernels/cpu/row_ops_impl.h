// The one implementation of RowOps (row_ops.h), compiled by each row-ops
// translation unit for its own instruction set: internal linkage, so no
// copy built for one set can stand in for another's. Built with
// -fno-trapping-math (CMakeLists.txt): without it GCC keeps the float
// compares and selects scalar, and the loops do not vectorize.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/row_ops.h"
#include "pagoda/kernels/fast_exp.h"

namespace pagoda::kernels::cpu {
namespace {

constexpr size_t kRowLanes = 16;
constexpr size_t kRowBlock = 512;  // 32 float terms per lane before a double add

// Sums term(i) for i in [0, n): float lanes within a block, double across.
template <typename Term>
inline double BlockedSum(size_t n, Term term) {
  double total = 0;
  for (size_t start = 0; start < n; start += kRowBlock) {
    const size_t end = std::min(n, start + kRowBlock);
    float lanes[kRowLanes] = {};
    size_t i = start;
    for (; i + kRowLanes <= end; i += kRowLanes) {
      for (size_t j = 0; j < kRowLanes; ++j) lanes[j] += term(i + j);
    }
    for (; i < end; ++i) total += term(i);
    for (float lane : lanes) total += lane;
  }
  return total;
}

inline float RowMaxImpl(const float* row, int64_t n) {
  PAGODA_CHECK(n > 0);
  const size_t size = static_cast<size_t>(n);
  float lanes[kRowLanes];
  std::fill(std::begin(lanes), std::end(lanes), -std::numeric_limits<float>::infinity());
  size_t i = 0;
  for (; i + kRowLanes <= size; i += kRowLanes) {
    for (size_t j = 0; j < kRowLanes; ++j) lanes[j] = row[i + j] > lanes[j] ? row[i + j] : lanes[j];
  }
  float best = -std::numeric_limits<float>::infinity();
  for (; i < size; ++i) best = row[i] > best ? row[i] : best;
  for (float lane : lanes) best = lane > best ? lane : best;
  return best;
}

inline double SumExpImpl(const float* row, int64_t n, float shift) {
  return BlockedSum(static_cast<size_t>(n), [&](size_t i) { return FastExp(row[i] - shift); });
}

inline double ExpAndSumImpl(const float* row, int64_t n, float shift, float* terms) {
  return BlockedSum(static_cast<size_t>(n), [&](size_t i) { return terms[i] = FastExp(row[i] - shift); });
}

inline double SumRowImpl(const float* row, int64_t n) {
  return BlockedSum(static_cast<size_t>(n), [&](size_t i) { return row[i]; });
}

constexpr RowOps kRowOpsOfThisUnit = {RowMaxImpl, SumExpImpl, ExpAndSumImpl, SumRowImpl};

}  // namespace
}  // namespace pagoda::kernels::cpu
