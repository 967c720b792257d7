// Kernels for x86-64 with AVX2, FMA and F16C, defined in translation units
// built with -mavx2 -mfma -mf16c. Call only after checking the CPU.
#pragma once

#include <cstdint>

#include "pagoda/kernels/cpu/attention_plan.h"
#include "pagoda/kernels/cpu/simd_matmul.h"

namespace pagoda::kernels::cpu::avx2 {

constexpr int kPanelRows = 8;
// Largest packed block: Q8_0 keeps |w| and w, 8 vectors of 32 bytes each, plus 8 scales.
constexpr int64_t kScratchBytesPerBlock = 16 * 32 + 8 * 4;
// One unpacked super-block (k_decode_avx2.h) per row of a panel; the driver
// sizes scratch per super-block of a row, so this is more than wide rows need.
constexpr int64_t kKScratchBytesPerSuperBlock = kPanelRows * 896;

void QuantizeRows(const float* x, int64_t row_begin, int64_t row_end, const QuantizedRows& out);
// Rows [row_begin, row_end) of x (k columns) to Q8_K, as reference::QuantizeRowQ8_K.
void QuantizeRowsQ8_K(const float* x, int64_t k, int64_t row_begin, int64_t row_end, BlockQ8_K* out);

void PanelsQ4_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y);
void PanelsQ4_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y);
void PanelsQ8_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y);

void PanelsQ5_0(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y);
void PanelsQ5_1(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                void* scratch, float* y);
void PanelsIQ4_NL(const QuantizedRows& x, const MatrixView& w, int64_t row_begin, int64_t row_end,
                  void* scratch, float* y);
// The super-block types (Q2_K..Q6_K, IQ4_XS), any of them.
void PanelsK(const BlockQ8_K* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
             void* scratch, float* y);

void PanelsF32(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
               float* y);
void PanelsF16(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
               float* y);
void PanelsBF16(const float* x, int64_t m, const MatrixView& w, int64_t row_begin, int64_t row_end,
                float* y);

void AttendRow(const AttendRowArgs& args);

}  // namespace pagoda::kernels::cpu::avx2
