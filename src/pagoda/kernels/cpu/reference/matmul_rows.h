// The reference MatMul in two steps, so the threaded scalar kernel set can
// quantize activations once and split the weight rows over a pool.
#pragma once

#include <cstdint>
#include <vector>

#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::reference {

// x rows in the form the weight type's dot product consumes: Q8_1 blocks for
// Q4_1 weights, Q8_0 blocks for Q4_0/Q8_0 weights, the f32 rows otherwise.
struct MatMulActivations {
  const float* f32 = nullptr;
  std::vector<BlockQ8_0> q8_0;
  std::vector<BlockQ8_1> q8_1;
  int64_t m = 0;
  int64_t k = 0;
};

MatMulActivations PrepareActivations(const float* x, int64_t m, const MatrixView& w);

// y[i][j] for all rows i of x and weight rows j in [row_begin, row_end); y has w.rows columns.
void MatMulRows(const MatMulActivations& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                float* y);

}  // namespace pagoda::kernels::reference
