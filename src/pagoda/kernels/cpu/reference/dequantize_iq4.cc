// Dequantization of the IQ4 types: 4-bit indices into GGML's fixed
// non-linear table (kvalues_iq4nl), scaled per block (IQ4_NL) or per
// six-bit sub-block scale under an f16 one (IQ4_XS).
#include "pagoda/kernels/cpu/reference/dequantize.h"

#include "pagoda/tensor/half.h"

namespace pagoda::kernels::reference {
namespace {

constexpr int8_t kIq4Values[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

// 32 elements from 16 bytes of indices: low nibbles, then high ones.
void Iq4Block(const uint8_t* qs, float d, float* y) {
  for (int j = 0; j < kQuantBlock / 2; ++j) {
    y[j] = d * static_cast<float>(kIq4Values[qs[j] & 0x0f]);
    y[j + kQuantBlock / 2] = d * static_cast<float>(kIq4Values[qs[j] >> 4]);
  }
}

}  // namespace

void DequantizeIQ4_NL(const BlockIQ4_NL* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b, y += kQuantBlock) Iq4Block(blocks[b].qs, F16ToF32(blocks[b].d), y);
}

void DequantizeIQ4_XS(const BlockIQ4_XS* blocks, float* y, int64_t nb) {
  for (int64_t b = 0; b < nb; ++b) {
    const BlockIQ4_XS& x = blocks[b];
    const float d = F16ToF32(x.d);
    for (int sub = 0; sub < kSuperBlock / kQuantBlock; ++sub, y += kQuantBlock) {
      const int low = (x.scales_l[sub / 2] >> (4 * (sub % 2))) & 0x0f;
      const int high = (x.scales_h >> (2 * sub)) & 3;
      Iq4Block(x.qs + 16 * sub, d * static_cast<float>((low | (high << 4)) - 32), y);
    }
  }
}

}  // namespace pagoda::kernels::reference
