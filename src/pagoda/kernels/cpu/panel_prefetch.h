// Software prefetch of a MatMul panel's successor, for the SIMD units only.
// Like their util headers, everything here has internal linkage, so each
// unit built with its own -m flags keeps its own copy.
#pragma once

#include <xmmintrin.h>

#include <cstdint>

namespace pagoda::kernels::cpu {
namespace {

// Decode reads each weight once, from memory: the rows of a panel are
// interleaved streams, which the hardware prefetchers follow too late.
// The rows of the next panel are contiguous, so a panel prefetches them
// while it works, one slice per block (or per weight vector): slice b of
// `slices` equal runs of whole cache lines over the next panel, cut short at
// the end of the matrix.
struct PanelPrefetch {
  const char* base;   // the next panel's first cache line
  int64_t bytes;      // from base to the end of the next panel
  int64_t per_slice;  // a multiple of 64
  PanelPrefetch(const void* data, int64_t row_bytes, int64_t next_row, int64_t rows, int64_t matrix_rows,
                int64_t slices) {
    const int64_t next_rows = next_row + rows <= matrix_rows ? rows : matrix_rows > next_row ? matrix_rows - next_row : 0;
    if (next_rows == 0) {  // the last panel: nothing to prefetch
      base = static_cast<const char*>(data);
      bytes = 0;
      per_slice = 64;
      return;
    }
    const auto first = reinterpret_cast<uintptr_t>(static_cast<const char*>(data) + next_row * row_bytes);
    base = reinterpret_cast<const char*>(first / 64 * 64);
    bytes = static_cast<int64_t>(first % 64) + next_rows * row_bytes;
    per_slice = (bytes + 64 * slices - 1) / (64 * slices) * 64;
  }
  // Always inlined: GCC deems a function that only prefetches free of side
  // effects, and deletes the calls it does not inline.
  [[gnu::always_inline]] void Slice(int64_t b) const {
    const int64_t begin = b * per_slice;
    const int64_t end = begin + per_slice < bytes ? begin + per_slice : bytes;
    for (int64_t off = begin; off < end; off += 64) _mm_prefetch(base + off, _MM_HINT_T0);
  }
};

}  // namespace
}  // namespace pagoda::kernels::cpu
