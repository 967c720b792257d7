// Reductions over one vocabulary row, for the sampler: the row's maximum and
// sums of exp(x - shift), one set of implementations per instruction set in
// the kernel table like every other kernel. Each term is a float; blocks of
// 512 terms are summed in 16 float lanes and the blocks in double, in that
// fixed order, so every implementation gives the same bits.
#pragma once

#include <cstdint>
#include <span>

#include "pagoda/base/check.h"

namespace pagoda::kernels::cpu {

struct RowOps {
  // The largest value of a non-empty row, ignoring NaN.
  float (*row_max)(const float* row, int64_t n);
  // Sum of exp(x - shift) over the row.
  double (*sum_exp)(const float* row, int64_t n, float shift);
  // The same, also writing each term to terms[0, n).
  double (*exp_and_sum)(const float* row, int64_t n, float shift, float* terms);
  // Sum of a row of weights, the same way.
  double (*sum_row)(const float* row, int64_t n);

  float RowMax(std::span<const float> row) const { return row_max(row.data(), Size(row)); }
  double SumExp(std::span<const float> row, float shift) const { return sum_exp(row.data(), Size(row), shift); }
  double ExpAndSum(std::span<const float> row, float shift, std::span<float> terms) const {
    PAGODA_CHECK(terms.size() == row.size());
    return exp_and_sum(row.data(), Size(row), shift, terms.data());
  }
  double SumRow(std::span<const float> row) const { return sum_row(row.data(), Size(row)); }

 private:
  static int64_t Size(std::span<const float> row) { return static_cast<int64_t>(row.size()); }
};

namespace avx2 {
extern const RowOps kRowOps;  // built with -mavx2: only after checking the CPU
}  // namespace avx2
namespace avx512 {
extern const RowOps kRowOps;  // built with -mavx512f and 512-bit vectors: likewise
}  // namespace avx512

}  // namespace pagoda::kernels::cpu

namespace pagoda::kernels::reference {
extern const cpu::RowOps kRowOps;  // the portable build, and the reference
}  // namespace pagoda::kernels::reference
