// The reference MatMul in two steps, so the threaded scalar kernel set can
// quantize activations once and split the weight rows over a pool.
#pragma once

#include <cstdint>
#include <vector>

#include "pagoda/kernels/cpu_kernels.h"
#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::reference {

// x rows in the form the weight type's dot product consumes
// (ActivationType), or the f32 rows for float weights.
struct MatMulActivations {
  const float* f32 = nullptr;
  std::vector<BlockQ8_0> q8_0;
  std::vector<BlockQ8_1> q8_1;
  std::vector<BlockQ8_K> q8_k;
  int64_t m = 0;
  int64_t k = 0;
};

// Q8_1 for Q4_1 and Q5_1 weights, Q8_K for the super-block types, Q8_0 for
// the other block types; F32 for float weights.
DType ActivationType(DType weight);
MatMulActivations PrepareActivations(const float* x, int64_t m, const MatrixView& w);

// y[i][j] for all rows i of x and weight rows j in [row_begin, row_end); y has w.rows columns.
void MatMulRows(const MatMulActivations& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                float* y);

}  // namespace pagoda::kernels::reference
