// Weights of the 32-element block types repacked at load for the AVX-512
// panels (and the AMX panels built on them): per 16-row panel, the bytes a
// panel would otherwise gather from 16 rows at every call (16-byte loads,
// inserts and a transpose per block: the shuffle port bounded single-row
// decode), already in the order the panel loads them. It is a permutation of
// the GGUF bytes, so it takes the same memory, except that the last panel
// repeats its last row up to 16 and every panel starts on a cache line.
//
// Panel p of a matrix of nb blocks per row holds, one plane after another:
//   qs: nb x kQsVectors vectors of 64 bytes; vector t of block b holds in
//       lane l the quant bytes 4t..4t+3 of row l's block b (the nibble kinds
//       store 16 bytes, so 4 vectors; Q8_0 its 32 bytes, so 8);
//   qh: (Q5_0, Q5_1) nb vectors, lane l holding row l's 32 fifth bits;
//   d:  nb x 16 f16 scales, row l's at l;
//   m:  (Q4_1, Q5_1) nb x 16 f16 minimums.
//
// RowSource and PlaneSource read a panel's blocks from either: the panels
// unpack a block the same way whichever they are given, and the packer
// writes the planes from what RowSource gathers, so a packed panel yields
// the bits the GGUF rows do.
//
// Internal linkage only, as avx512_util.h (include that first).
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu/avx512/avx512_kernels.h"
#include "pagoda/kernels/cpu/quant_block_layout.h"
#include "pagoda/kernels/cpu_kernels.h"

namespace pagoda::kernels::cpu::avx512 {
namespace {

// The planes of one panel; Byte is uint8_t for the packer's writes.
template <Kind K, typename Byte = const uint8_t>
struct PanelPlanes {
  static constexpr int kQsVectors = K == Kind::kQ8_0 ? 8 : 4;
  static constexpr bool kHasQh = K == Kind::kQ5_0 || K == Kind::kQ5_1;
  static constexpr int64_t kQsBytes = kQsVectors * 64;
  static constexpr int64_t kBytesPerBlock = kQsBytes + (kHasQh ? 64 : 0) + 32 + (kHasMinimum<K> ? 32 : 0);
  static_assert(kBytesPerBlock == 16 * Layout<K>::kBlockBytes, "a permutation of the panel's GGUF bytes");

  static int64_t PanelBytes(int64_t nb) { return (nb * kBytesPerBlock + 63) / 64 * 64; }

  Byte* qs;
  Byte* qh;
  Byte* d;
  Byte* m;

  PanelPlanes(Byte* panels, int64_t nb, int64_t panel) {
    qs = panels + panel * PanelBytes(nb);
    qh = qs + nb * kQsBytes;
    d = qh + (kHasQh ? nb * 64 : 0);
    m = d + nb * 32;
  }
};

// A block's fields besides its quants, for 16 rows: the f16 scales (and
// minimums) as 16 halves, and (Q5_0, Q5_1) each row's fifth-bit dword.
struct BlockHeader {
  __m256i d;
  __m256i m = _mm256_setzero_si256();
  __m512i qh = _mm512_setzero_si512();
};

inline __m256i LowHalfWords(__m512i dwords) { return _mm512_cvtepi32_epi16(dwords); }

// A panel's blocks gathered from its 16 GGUF rows; rows past the matrix's
// last repeat it. Reading block b prefetches slice b of the next panel:
// the rows of a panel are interleaved streams, which the hardware
// prefetchers follow too late.
template <Kind K>
struct RowSource {
  using L = Layout<K>;
  const uint8_t* row[16];
  PanelPrefetch ahead;

  RowSource(const MatrixView& w, int64_t j0, int rows)
      : ahead(w.data, w.cols / 32 * L::kBlockBytes, j0 + kPanelRows, kPanelRows, w.rows, w.cols / 32) {
    const int64_t row_bytes = w.cols / 32 * L::kBlockBytes;
    for (int r = 0; r < 16; ++r) {
      row[r] = static_cast<const uint8_t*>(w.data) + (j0 + (r < rows ? r : rows - 1)) * row_bytes;
    }
  }
  [[gnu::always_inline]] void Prefetch(int64_t b) const { ahead.Slice(b); }
  // Vector t of o: lane l holds quant bytes 16 half + 4t .. + 3 of row l.
  void Quants(int64_t b, int half, __m512i o[4]) const {
    GatherDwords(row, b * L::kBlockBytes + L::kQsOffset + 16 * half, o);
  }
  BlockHeader Header(int64_t b) const {
    BlockHeader h;
    __m512i v[4];
    if constexpr (PanelPlanes<K>::kHasQh) {
      // The block's first 16 bytes: Q5_0's d in bytes 0-1 and qh in 2-5,
      // Q5_1's d, m in 0-3 and qh in 4-7.
      GatherDwords(row, b * L::kBlockBytes, v);
      h.qh = K == Kind::kQ5_0 ? _mm512_or_si512(_mm512_srli_epi32(v[0], 16), _mm512_slli_epi32(v[1], 16)) : v[1];
    } else {
      // Only the first dword: the scale in its low half, Q4_1's minimum in its high half.
      LoadRows(row, b * L::kBlockBytes, v);
      v[0] = _mm512_unpacklo_epi64(_mm512_unpacklo_epi32(v[0], v[1]), _mm512_unpacklo_epi32(v[2], v[3]));
    }
    h.d = LowHalfWords(v[0]);
    if constexpr (kHasMinimum<K>) h.m = LowHalfWords(_mm512_srli_epi32(v[0], 16));
    return h;
  }
};

// A panel's blocks from its planes. The panels follow one another, so
// block b prefetches slice b of the next one.
template <Kind K>
struct PlaneSource {
  using P = PanelPlanes<K>;
  P planes;
  PanelPrefetch ahead;

  PlaneSource(const MatrixView& w, int64_t j0)
      : planes(static_cast<const uint8_t*>(w.panels), w.cols / 32, j0 / kPanelRows),
        ahead(w.panels, P::PanelBytes(w.cols / 32), j0 / kPanelRows + 1, 1, (w.rows + kPanelRows - 1) / kPanelRows,
              w.cols / 32) {}
  [[gnu::always_inline]] void Prefetch(int64_t b) const { ahead.Slice(b); }
  void Quants(int64_t b, int half, __m512i o[4]) const {
    const auto* v = reinterpret_cast<const __m512i*>(planes.qs + b * P::kQsBytes) + 4 * half;
    for (int t = 0; t < 4; ++t) o[t] = _mm512_load_si512(v + t);
  }
  BlockHeader Header(int64_t b) const {
    BlockHeader h;
    h.d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(planes.d + b * 32));
    if constexpr (kHasMinimum<K>) h.m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(planes.m + b * 32));
    if constexpr (P::kHasQh) h.qh = _mm512_load_si512(planes.qh + b * 64);
    return h;
  }
};

}  // namespace
}  // namespace pagoda::kernels::cpu::avx512
