// Elementwise kernels and the embedding gather.
#include <bit>
#include <cmath>
#include <cstdint>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/reference/reference.h"

namespace pagoda::kernels::reference {

float GgmlExpf(float x) {
  // Pagoda's own scalar statement of the algorithm of GGML's AVX-512
  // ggml_v_expf, reproduced for parity with llama.cpp: n = round(x / ln 2)
  // by the 1.5 * 2^23 trick, b = x - n ln 2 in two fused steps, a degree-5
  // polynomial in b by fused multiply-adds, then j * 2^n; |n| > 192 saturates.
  const float r = 0x1.8p23f;
  const float z = std::fma(x, 0x1.715476p+0f, r);
  const float n = z - r;
  const float b = std::fma(-n, 0x1.7f7d1cp-20f, std::fma(-n, 0x1.62e4p-1f, x));
  const float u = b * b;
  const float j = std::fma(std::fma(std::fma(0x1.0e4020p-7f, b, 0x1.573e2ep-5f), u,
                                    std::fma(0x1.555e66p-3f, b, 0x1.fffdb6p-2f)),
                           u, std::fma(0x1.ffffecp-1f, b, 1.0f));
  if (std::fabs(n) > 192.0f) return n <= 0.0f ? 0.0f : HUGE_VALF;
  if (std::isnan(n)) return n;
  // VSCALEFPS: j * 2^n with one rounding. While 2^n is a normal float the
  // product is that one rounding; below, ldexp rounds once as well.
  const int e = static_cast<int>(n);
  if (e >= -126 && e <= 127) return j * std::bit_cast<float>(static_cast<uint32_t>(e + 127) << 23);
  return std::ldexp(j, e);
}

float GgmlSilu(float x) { return x / (1.0f + GgmlExpf(0.0f - x)); }

void SiluMul(const float* gate, const float* up, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = GgmlSilu(gate[i]) * up[i];
}

float GeluTanh(float x) {
  constexpr float kSqrt2OverPi = 0.79788456080286535588f;
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * x * (1.0f + 0.044715f * x * x)));
}

void GeluMul(const float* gate, const float* up, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = GeluTanh(gate[i]) * up[i];
}

void AddInPlace(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

void AddBias(float* y, const float* bias, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) AddInPlace(y + r * cols, bias, cols);
}

void Scale(float* x, int64_t n, float s) {
  for (int64_t i = 0; i < n; ++i) x[i] *= s;
}

void Softcap(float* x, int64_t n, float cap) {
  PAGODA_CHECK(cap > 0.0f);
  // As GGML's scale, tanh, scale.
  for (int64_t i = 0; i < n; ++i) x[i] = std::tanh(x[i] * (1.0f / cap)) * cap;
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
