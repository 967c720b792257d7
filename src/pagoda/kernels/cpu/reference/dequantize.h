// Per-type dequantizers behind reference::DequantizeRow: nb blocks of the
// type to nb * its block size floats, with GGML's dequantize_row_*
// arithmetic (checked against the `gguf` package's, see
// tests/fixtures/quants/).
#pragma once

#include <cstdint>

#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::reference {

void DequantizeQ5_0(const BlockQ5_0* blocks, float* y, int64_t nb);
void DequantizeQ5_1(const BlockQ5_1* blocks, float* y, int64_t nb);
void DequantizeQ2_K(const BlockQ2_K* blocks, float* y, int64_t nb);
void DequantizeQ3_K(const BlockQ3_K* blocks, float* y, int64_t nb);
void DequantizeQ4_K(const BlockQ4_K* blocks, float* y, int64_t nb);
void DequantizeQ5_K(const BlockQ5_K* blocks, float* y, int64_t nb);
void DequantizeQ6_K(const BlockQ6_K* blocks, float* y, int64_t nb);
void DequantizeIQ4_NL(const BlockIQ4_NL* blocks, float* y, int64_t nb);
void DequantizeIQ4_XS(const BlockIQ4_XS* blocks, float* y, int64_t nb);

}  // namespace pagoda::kernels::reference
