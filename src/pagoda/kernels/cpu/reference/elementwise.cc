// Elementwise kernels and the embedding gather.
#include <cmath>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/reference/reference.h"

namespace pagoda::kernels::reference {

void SiluMul(const float* gate, const float* up, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

void AddInPlace(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

void EmbeddingLookup(const MatrixView& table, const int32_t* ids, int64_t n, float* out) {
  const int64_t row_bytes = DTypeRowBytes(table.dtype, table.cols);
  for (int64_t i = 0; i < n; ++i) {
    PAGODA_CHECK_MSG(ids[i] >= 0 && ids[i] < table.rows, "embedding id out of range");
    DequantizeRow(table.dtype, static_cast<const uint8_t*>(table.data) + ids[i] * row_bytes,
                  out + i * table.cols, table.cols);
  }
}

}  // namespace pagoda::kernels::reference
