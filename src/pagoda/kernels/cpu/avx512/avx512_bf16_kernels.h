// Kernels that also need AVX512-BF16 (VDPBF16PS, VCVTNEPS2BF16), in a
// translation unit built with -mavx512bf16. Call only after checking the CPU.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu/simd_matmul.h"

namespace pagoda::kernels::cpu::avx512 {

// BF16 weights, x split into bf16 high and low parts (matmul_bf16_dot_avx512.cc).
void PanelsBF16Dot(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end, float* y);

}  // namespace pagoda::kernels::cpu::avx512
