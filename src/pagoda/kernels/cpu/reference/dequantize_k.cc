// Dequantization of the K-quant and IQ4_XS super-blocks with GGML's
// dequantize_row_* arithmetic: (d * scale) * q - (dmin * min), in f32,
// without fused multiply-add.
#include "pagoda/kernels/cpu/reference/dequantize.h"
#include "pagoda/kernels/cpu/reference/k_block_decode.h"

namespace pagoda::kernels::reference {
namespace {

template <typename Block>
void DequantizeKBlocks(const Block* blocks, float* y, int64_t nb) {
  DecodedKBlock k;
  for (int64_t b = 0; b < nb; ++b, y += kSuperBlock) {
    Decode(blocks[b], k);
    for (int i = 0; i < kSuperBlock; ++i) {
      const int s = i / k.sub_size;
      const float dl = k.d * static_cast<float>(k.scale[s]);
      const float ml = k.dmin * static_cast<float>(k.min[s]);
      y[i] = dl * static_cast<float>(k.q[i]) - ml;
    }
  }
}

}  // namespace

void DequantizeQ2_K(const BlockQ2_K* b, float* y, int64_t nb) { DequantizeKBlocks(b, y, nb); }
void DequantizeQ3_K(const BlockQ3_K* b, float* y, int64_t nb) { DequantizeKBlocks(b, y, nb); }
void DequantizeQ4_K(const BlockQ4_K* b, float* y, int64_t nb) { DequantizeKBlocks(b, y, nb); }
void DequantizeQ5_K(const BlockQ5_K* b, float* y, int64_t nb) { DequantizeKBlocks(b, y, nb); }
void DequantizeQ6_K(const BlockQ6_K* b, float* y, int64_t nb) { DequantizeKBlocks(b, y, nb); }
void DequantizeIQ4_XS(const BlockIQ4_XS* b, float* y, int64_t nb) { DequantizeKBlocks(b, y, nb); }

}  // namespace pagoda::kernels::reference
