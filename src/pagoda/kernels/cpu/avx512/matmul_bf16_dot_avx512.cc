// BF16-weight MatMul with AVX512-BF16's VDPBF16PS, which multiplies 32 bf16
// pairs and adds them into 16 f32 lanes in one instruction, so the weights
// are used as stored, with no widening.
//
// The x rows are f32. Rounding them to bf16 would cost 8 bits of each
// activation; instead each element is split into two bf16 parts, x = hi + lo
// (hi = bf16(x), lo = bf16(x - hi)), and both are dotted with the weights:
// w * hi and w * lo are exact in f32, so each output differs from the
// widening kernel's only by x's residue below 16 bits and by the order of
// the f32 sums (within 1e-5 of the sum of |w * x|; the test states the bound).
//
// Batch invariance: every output is one fixed sequence of VDPBF16PS over its
// row pair (one accumulator: w * hi, then w * lo, per 32 elements; folded at
// the end), whatever m, the tile it lands in, or the thread count.
//
// Speed (docs/performance.md): on the Zen 5 machine the default model's
// prompts run about 1.1-1.25x faster than with the widening kernel, but
// decode, which streams 4 interleaved weight rows from memory, runs about
// 0.7x; so this set is not the default (kernel_set.cc).
// GCC 12 reports its own intrinsics' _mm*_undefined_* placeholders (which
// initialize a variable from itself by design) as maybe-uninitialized once
// they are inlined into this unit's loops: a known false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <immintrin.h>

#include <vector>

#include "pagoda/kernels/cpu/avx512/avx512_bf16_kernels.h"
#include "pagoda/kernels/cpu/avx512/avx512_util.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

// 32 bf16 values from `p` (masked elements read as zero).
inline __m512bh Load32(const uint16_t* p, __mmask32 mask) {
  return (__m512bh)_mm512_maskz_loadu_epi16(mask, p);
}

inline __mmask32 First32(int64_t n) { return n >= 32 ? ~__mmask32{0} : (__mmask32{1} << n) - 1; }

// Row i of x as its bf16 parts: hi[c] = bf16(x[c]), lo[c] = bf16(x[c] - hi[c]).
void SplitRow(const float* x, int64_t k, uint16_t* hi, uint16_t* lo) {
  for (int64_t c = 0; c < k; c += 16) {
    const __mmask16 mask = FirstLanes(k - c);
    const __m512 v = _mm512_maskz_loadu_ps(mask, x + c);
    const __m256bh h = _mm512_cvtneps_pbh(v);
    const __m512 back = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32((__m256i)h), 16));
    const __m256bh l = _mm512_cvtneps_pbh(_mm512_sub_ps(v, back));
    _mm256_mask_storeu_epi16(hi + c, mask, (__m256i)h);
    _mm256_mask_storeu_epi16(lo + c, mask, (__m256i)l);
  }
}

// y[r * ldy + c] for R split x rows (hi and lo, `k` elements per row) by C
// weight rows: one accumulator per output takes w * hi, then w * lo, for
// each 32 elements, and is folded at the end. R + C loads feed 2 * R * C
// VDPBF16PS.
template <int R, int C>
void Tile(const uint16_t* const* rows, const uint16_t* hi, const uint16_t* lo, int64_t k, float* y, int64_t ldy) {
  __m512 acc[R][C];
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
  }
  for (int64_t i = 0; i < k; i += 32) {
    const __mmask32 mask = First32(k - i);
    __m512bh wv[C];
    for (int c = 0; c < C; ++c) wv[c] = Load32(rows[c] + i, mask);
    for (int r = 0; r < R; ++r) {
      const __m512bh xh = Load32(hi + r * k + i, mask);
      const __m512bh xl = Load32(lo + r * k + i, mask);
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_dpbf16_ps(_mm512_dpbf16_ps(acc[r][c], wv[c], xh), wv[c], xl);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) y[r * ldy + c] = Fold16(acc[r][c]);
  }
}

// All x rows against C weight rows, 4 x rows at a time.
template <int C>
void RowGroup(const uint16_t* const* rows, const uint16_t* hi, const uint16_t* lo, int64_t m, int64_t k, float* y,
              int64_t ldy) {
  int64_t i = 0;
  for (; i + 4 <= m; i += 4) Tile<4, C>(rows, hi + i * k, lo + i * k, k, y + i * ldy, ldy);
  switch (m - i) {
    case 3: Tile<3, C>(rows, hi + i * k, lo + i * k, k, y + i * ldy, ldy); break;
    case 2: Tile<2, C>(rows, hi + i * k, lo + i * k, k, y + i * ldy, ldy); break;
    case 1: Tile<1, C>(rows, hi + i * k, lo + i * k, k, y + i * ldy, ldy); break;
    default: break;
  }
}

}  // namespace

void PanelsBF16Dot(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y) {
  const int64_t k = w.cols;
  // Split once per call (one call per thread per MatMul), reused by every row.
  thread_local std::vector<uint16_t> split;
  split.resize(static_cast<size_t>(2 * m * k));
  uint16_t* hi = split.data();
  uint16_t* lo = hi + m * k;
  for (int64_t i = 0; i < m; ++i) SplitRow(x + i * k, k, hi + i * k, lo + i * k);
  // Each x load is shared across 4 weight rows (one row at a time for the last few).
  const auto* weights = static_cast<const uint16_t*>(w.data);
  const uint16_t* rows[4];
  int64_t j = row_begin;
  for (; j + 4 <= row_end; j += 4) {
    for (int c = 0; c < 4; ++c) rows[c] = weights + (j + c) * k;
    RowGroup<4>(rows, hi, lo, m, k, y + j, w.rows);
  }
  for (; j < row_end; ++j) {
    rows[0] = weights + j * k;
    RowGroup<1>(rows, hi, lo, m, k, y + j, w.rows);
  }
}

}  // namespace pagoda::kernels::cpu::avx512
