// F32 / F16 / BF16 weight MatMul for AVX2. Every output is reference::LaneDot
// of the widened weight row with the x row: a 16-lane FMA accumulator (two
// ymm registers) folded in the same order. Up to 4 x rows share each weight load.
#include <immintrin.h>

#include "pagoda/kernels/cpu/avx2/avx2_kernels.h"
#include "pagoda/kernels/cpu/avx2/avx2_util.h"

namespace pagoda::kernels::cpu::avx2 {
namespace {

enum class Elem { kF32, kF16, kBF16 };

// 8 weights from element k, widened to f32.
template <Elem E>
inline __m256 LoadWeights(const void* row, int64_t k) {
  if constexpr (E == Elem::kF32) {
    return _mm256_loadu_ps(static_cast<const float*>(row) + k);
  } else {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(row) + k));
    if constexpr (E == Elem::kF16) {
      return _mm256_cvtph_ps(h);
    } else {
      return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    }
  }
}

template <Elem E>
inline float WeightAt(const void* row, int64_t k) {
  if constexpr (E == Elem::kF32) {
    return static_cast<const float*>(row)[k];
  } else if constexpr (E == Elem::kF16) {
    return HalfToFloat(static_cast<const uint16_t*>(row)[k]);
  } else {
    return BFloatToFloat(static_cast<const uint16_t*>(row)[k]);
  }
}

// y[r * ldy] = LaneDot(row, x + r * k) for r < R.
template <Elem E, int R>
void Tile(const void* row, const float* x, int64_t k, float* y, int64_t ldy) {
  __m256 lo[R];
  __m256 hi[R];
  for (int r = 0; r < R; ++r) lo[r] = hi[r] = _mm256_setzero_ps();
  int64_t c = 0;
  for (; c + 16 <= k; c += 16) {
    const __m256 w0 = LoadWeights<E>(row, c);
    const __m256 w1 = LoadWeights<E>(row, c + 8);
    for (int r = 0; r < R; ++r) {
      lo[r] = _mm256_fmadd_ps(w0, _mm256_loadu_ps(x + r * k + c), lo[r]);
      hi[r] = _mm256_fmadd_ps(w1, _mm256_loadu_ps(x + r * k + c + 8), hi[r]);
    }
  }
  if (c < k) {
    // The last partial group, zero-padded exactly as LaneDot pads it.
    alignas(32) float wt[16] = {};
    for (int64_t e = c; e < k; ++e) wt[e - c] = WeightAt<E>(row, e);
    const __m256 w0 = _mm256_load_ps(wt);
    const __m256 w1 = _mm256_load_ps(wt + 8);
    for (int r = 0; r < R; ++r) {
      alignas(32) float xt[16] = {};
      for (int64_t e = c; e < k; ++e) xt[e - c] = x[r * k + e];
      lo[r] = _mm256_fmadd_ps(w0, _mm256_load_ps(xt), lo[r]);
      hi[r] = _mm256_fmadd_ps(w1, _mm256_load_ps(xt + 8), hi[r]);
    }
  }
  for (int r = 0; r < R; ++r) y[r * ldy] = Fold16(lo[r], hi[r]);
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

}  // namespace pagoda::kernels::cpu::avx2
