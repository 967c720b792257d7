// Reference MatMul: activations quantized once per call, then one dot product
// per output, weight row by weight row.
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/reference/matmul_rows.h"
#include "pagoda/kernels/cpu/reference/reference.h"

namespace pagoda::kernels::reference {

MatMulActivations PrepareActivations(const float* x, int64_t m, const MatrixView& w) {
  MatMulActivations a;
  a.m = m;
  a.k = w.cols;
  switch (w.dtype) {
    case DType::kF32:
    case DType::kF16:
    case DType::kBF16: a.f32 = x; break;
    case DType::kQ4_0:
    case DType::kQ8_0:
      a.q8_0.resize(static_cast<size_t>(m * w.cols / kQuantBlock));
      for (int64_t i = 0; i < m; ++i) {
        QuantizeRowQ8_0(x + i * w.cols, a.q8_0.data() + i * w.cols / kQuantBlock, w.cols);
      }
      break;
    case DType::kQ4_1:
      a.q8_1.resize(static_cast<size_t>(m * w.cols / kQuantBlock));
      for (int64_t i = 0; i < m; ++i) {
        QuantizeRowQ8_1(x + i * w.cols, a.q8_1.data() + i * w.cols / kQuantBlock, w.cols);
      }
      break;
    case DType::kQ8_1: PAGODA_CHECK_MSG(false, "Q8_1 is an activation type, not a weight type");
    default: PAGODA_CHECK_MSG(false, "no matrix multiplication for this weight type yet");
  }
  return a;
}

void MatMulRows(const MatMulActivations& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                float* y) {
  const int64_t k = w.cols;
  const int64_t nb = k / kQuantBlock;
  const int64_t row_bytes = DTypeRowBytes(w.dtype, k);
  std::vector<float> w_row(x.f32 != nullptr ? static_cast<size_t>(k) : 0);
  for (int64_t j = row_begin; j < row_end; ++j) {
    const void* row = static_cast<const uint8_t*>(w.data) + j * row_bytes;
    if (x.f32 != nullptr) DequantizeRow(w.dtype, row, w_row.data(), k);
    for (int64_t i = 0; i < x.m; ++i) {
      float v = 0.0f;
      switch (w.dtype) {
        case DType::kQ4_0:
          v = VecDotQ4_0Q8_0(static_cast<const BlockQ4_0*>(row), x.q8_0.data() + i * nb, nb);
          break;
        case DType::kQ4_1:
          v = VecDotQ4_1Q8_1(static_cast<const BlockQ4_1*>(row), x.q8_1.data() + i * nb, nb);
          break;
        case DType::kQ8_0:
          v = VecDotQ8_0Q8_0(static_cast<const BlockQ8_0*>(row), x.q8_0.data() + i * nb, nb);
          break;
        default: v = LaneDot(w_row.data(), x.f32 + i * k, k); break;
      }
      y[i * w.rows + j] = v;
    }
  }
}

void MatMul(const float* x, int64_t m, const MatrixView& w, float* y) {
  MatMulRows(PrepareActivations(x, m, w), w, 0, w.rows, y);
}

}  // namespace pagoda::kernels::reference
