// F32 / F16 / BF16 weight MatMul for AVX-512. Every output is
// reference::LaneDot of the widened weight row with the x row: one 16-lane
// FMA accumulator per output, the last group zero-filled by masked loads.
// Up to 4 x rows share each weight load.

#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

enum class Elem { kF32, kF16, kBF16 };

// 16 weights from element k (masked lanes read as zero), widened to f32.
template <Elem E>
inline __m512 LoadWeights(const void* row, int64_t k, __mmask16 mask) {
  if constexpr (E == Elem::kF32) {
    return _mm512_maskz_loadu_ps(mask, static_cast<const float*>(row) + k);
  } else {
    const __m256i h = _mm256_maskz_loadu_epi16(mask, static_cast<const uint16_t*>(row) + k);
    if constexpr (E == Elem::kF16) {
      return _mm512_cvtph_ps(h);
    } else {
      return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    }
  }
}

// y[r * ldy] = LaneDot(row, x + r * k) for r < R.
template <Elem E, int R>
void Tile(const void* row, const float* x, int64_t k, float* y, int64_t ldy) {
  __m512 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_ps();
  for (int64_t c = 0; c < k; c += 16) {
    const __mmask16 mask = FirstLanes(k - c);
    const __m512 wv = LoadWeights<E>(row, c, mask);
    for (int r = 0; r < R; ++r) acc[r] = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(mask, x + r * k + c), acc[r]);
  }
  for (int r = 0; r < R; ++r) y[r * ldy] = Fold16(acc[r]);
}

template <Elem E>
void Panels(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
            float* y) {
  const int64_t k = w.cols;
  const int64_t row_bytes = k * (E == Elem::kF32 ? 4 : 2);
  for (int64_t j = row_begin; j < row_end; ++j) {
    const void* row = static_cast<const uint8_t*>(w.data) + j * row_bytes;
    int64_t i = 0;
    for (; i + 4 <= m; i += 4) Tile<E, 4>(row, x + i * k, k, y + i * w.rows + j, w.rows);
    switch (m - i) {
      case 3: Tile<E, 3>(row, x + i * k, k, y + i * w.rows + j, w.rows); break;
      case 2: Tile<E, 2>(row, x + i * k, k, y + i * w.rows + j, w.rows); break;
      case 1: Tile<E, 1>(row, x + i * k, k, y + i * w.rows + j, w.rows); break;
      default: break;
    }
  }
}

}  // namespace

void PanelsF32(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
               float* y) {
  Panels<Elem::kF32>(x, m, w, row_begin, row_end, y);
}
void PanelsF16(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
               float* y) {
  Panels<Elem::kF16>(x, m, w, row_begin, row_end, y);
}
void PanelsBF16(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
                float* y) {
  Panels<Elem::kBF16>(x, m, w, row_begin, row_end, y);
}

}  // namespace pagoda::kernels::cpu::avx512
