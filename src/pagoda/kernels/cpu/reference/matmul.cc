// Reference MatMul: activations quantized once per call, then one dot product
// per output, weight row by weight row.
#include <vector>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/reference/matmul_rows.h"
#include "pagoda/kernels/cpu/reference/reference.h"

namespace pagoda::kernels::reference {
namespace {

template <typename Block>
void QuantizeRows(DType type, const float* x, int64_t m, int64_t k, std::vector<Block>& out) {
  const int64_t blocks_per_row = k / DTypeBlockElems(type);
  out.resize(static_cast<size_t>(m * blocks_per_row));
  for (int64_t i = 0; i < m; ++i) QuantizeRow(type, x + i * k, out.data() + i * blocks_per_row, k);
}

// Activation row i of nb blocks.
template <typename Block>
const Block* Row(const std::vector<Block>& blocks, int64_t i, int64_t nb) {
  return blocks.data() + i * nb;
}

// A weight row of nb blocks against activation row i.
float DotRow(DType type, const void* row, const MatMulActivations& a, int64_t i, int64_t nb) {
  switch (type) {
    case DType::kQ4_0: return VecDotQ4_0Q8_0(static_cast<const BlockQ4_0*>(row), Row(a.q8_0, i, nb), nb);
    case DType::kQ4_1: return VecDotQ4_1Q8_1(static_cast<const BlockQ4_1*>(row), Row(a.q8_1, i, nb), nb);
    case DType::kQ5_0: return VecDotQ5_0Q8_0(static_cast<const BlockQ5_0*>(row), Row(a.q8_0, i, nb), nb);
    case DType::kQ5_1: return VecDotQ5_1Q8_1(static_cast<const BlockQ5_1*>(row), Row(a.q8_1, i, nb), nb);
    case DType::kQ8_0: return VecDotQ8_0Q8_0(static_cast<const BlockQ8_0*>(row), Row(a.q8_0, i, nb), nb);
    case DType::kIQ4_NL: return VecDotIQ4_NLQ8_0(static_cast<const BlockIQ4_NL*>(row), Row(a.q8_0, i, nb), nb);
    case DType::kQ2_K: return VecDotQ2_KQ8_K(static_cast<const BlockQ2_K*>(row), Row(a.q8_k, i, nb), nb);
    case DType::kQ3_K: return VecDotQ3_KQ8_K(static_cast<const BlockQ3_K*>(row), Row(a.q8_k, i, nb), nb);
    case DType::kQ4_K: return VecDotQ4_KQ8_K(static_cast<const BlockQ4_K*>(row), Row(a.q8_k, i, nb), nb);
    case DType::kQ5_K: return VecDotQ5_KQ8_K(static_cast<const BlockQ5_K*>(row), Row(a.q8_k, i, nb), nb);
    case DType::kQ6_K: return VecDotQ6_KQ8_K(static_cast<const BlockQ6_K*>(row), Row(a.q8_k, i, nb), nb);
    case DType::kIQ4_XS: return VecDotIQ4_XSQ8_K(static_cast<const BlockIQ4_XS*>(row), Row(a.q8_k, i, nb), nb);
    default: PAGODA_CHECK_MSG(false, "no dot product for this weight type");
  }
  return 0.0f;
}

}  // namespace

DType ActivationType(DType weight) {
  switch (weight) {
    case DType::kF32:
    case DType::kF16:
    case DType::kBF16: return DType::kF32;
    case DType::kQ4_1:
    case DType::kQ5_1: return DType::kQ8_1;
    case DType::kQ2_K:
    case DType::kQ3_K:
    case DType::kQ4_K:
    case DType::kQ5_K:
    case DType::kQ6_K:
    case DType::kIQ4_XS: return DType::kQ8_K;
    case DType::kQ4_0:
    case DType::kQ5_0:
    case DType::kQ8_0:
    case DType::kIQ4_NL: return DType::kQ8_0;
    case DType::kQ8_1:
    case DType::kQ8_K:
    case DType::kI32: break;
  }
  PAGODA_CHECK_MSG(false, "an activation type (or an index type) is not a weight type");
  return DType::kF32;
}

MatMulActivations PrepareActivations(const float* x, int64_t m, const MatrixView& w) {
  MatMulActivations a;
  a.m = m;
  a.k = w.cols;
  PAGODA_CHECK_MSG(w.cols % DTypeBlockElems(w.dtype) == 0, "MatMul: a row is not a whole number of blocks");
  PAGODA_CHECK_MSG(w.input_order == nullptr, "MatMul: the input order is applied before the kernel");
  switch (const DType type = ActivationType(w.dtype)) {
    case DType::kQ8_0: QuantizeRows(type, x, m, w.cols, a.q8_0); break;
    case DType::kQ8_1: QuantizeRows(type, x, m, w.cols, a.q8_1); break;
    case DType::kQ8_K: QuantizeRows(type, x, m, w.cols, a.q8_k); break;
    default: a.f32 = x; break;
  }
  return a;
}

void MatMulRows(const MatMulActivations& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                float* y) {
  const int64_t k = w.cols;
  const int64_t nb = k / DTypeBlockElems(w.dtype);
  const int64_t row_bytes = DTypeRowBytes(w.dtype, k);
  std::vector<float> w_row(x.f32 != nullptr ? static_cast<size_t>(k) : 0);
  for (int64_t j = row_begin; j < row_end; ++j) {
    const void* row = static_cast<const uint8_t*>(w.data) + j * row_bytes;
    if (x.f32 != nullptr) DequantizeRow(w.dtype, row, w_row.data(), k);
    for (int64_t i = 0; i < x.m; ++i) {
      y[i * w.rows + j] =
          x.f32 != nullptr ? LaneDot(w_row.data(), x.f32 + i * k, k) : DotRow(w.dtype, row, x, i, nb);
    }
  }
}

void GatherColumns(const float* x, int64_t m, int64_t cols, const int32_t* order, float* out) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t k = 0; k < cols; ++k) out[i * cols + k] = x[i * cols + order[k]];
  }
}

void MatMul(const float* x, int64_t m, const MatrixView& w, float* y) {
  if (w.input_order != nullptr) {
    std::vector<float> ordered(static_cast<size_t>(m * w.cols));
    GatherColumns(x, m, w.cols, w.input_order, ordered.data());
    MatrixView plain = w;
    plain.input_order = nullptr;
    MatMul(ordered.data(), m, plain, y);
    return;
  }
  MatMulRows(PrepareActivations(x, m, w), w, 0, w.rows, y);
}

}  // namespace pagoda::kernels::reference
