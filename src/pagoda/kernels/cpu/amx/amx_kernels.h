// Kernels for x86-64 with AMX-TILE and AMX-INT8 (and AVX-512 with VNNI), in
// translation units built with those -m flags. Call only where
// AmxTilesUsable() (tile_permission.h) said yes.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu/simd_matmul.h"

namespace pagoda::kernels::cpu::amx {

// Per block of a row: the packed panel block (avx512::kScratchBytesPerBlock)
// and a 16 x 16 tile of int32 block sums.
constexpr int64_t kScratchBytesPerBlock = 8 * 64 + 2 * 64 + 16 * 16 * 4;

// The 32-element block types' panels (simd_matmul.h's QuantPanelFn), equal
// bit for bit to the AVX-512 set's; batches of 8 rows or more run on tiles.
void PanelsQ4_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y);
void PanelsQ4_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y);
void PanelsQ8_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y);
void PanelsQ5_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y);
void PanelsQ5_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                float* y);
void PanelsIQ4_NL(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end, void* scratch,
                  float* y);

}  // namespace pagoda::kernels::cpu::amx
