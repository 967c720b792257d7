// Q8_K, the activations the K-quant and IQ4_XS dot products pair with:
// GGML's quantize_row_q8_K_ref arithmetic.
#include <cmath>
#include <cstring>

#include "pagoda/base/check.h"
#include "pagoda/kernels/cpu/reference/reference.h"

namespace pagoda::kernels::reference {

void QuantizeRowQ8_K(const float* x, BlockQ8_K* y, int64_t n) {
  PAGODA_CHECK_MSG(n % kSuperBlock == 0, "Q8_K rows need a multiple of 256 elements");
  for (int64_t b = 0; b < n / kSuperBlock; ++b, x += kSuperBlock) {
    // The value of largest magnitude maps to -127: its sign is the scale's.
    float amax = 0.0f;
    float max = 0.0f;
    for (int j = 0; j < kSuperBlock; ++j) {
      if (std::fabs(x[j]) > amax) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    }
    BlockQ8_K& out = y[b];
    if (amax == 0.0f) {
      std::memset(&out, 0, sizeof(out));
      continue;
    }
    const float iscale = -127.0f / max;
    for (int j = 0; j < kSuperBlock; ++j) {
      const int v = static_cast<int>(std::nearbyint(iscale * x[j]));  // half to even
      out.qs[j] = static_cast<int8_t>(v < 127 ? v : 127);
    }
    for (int g = 0; g < kSuperBlock / 16; ++g) {
      int sum = 0;
      for (int j = 0; j < 16; ++j) sum += out.qs[16 * g + j];
      out.bsums[g] = static_cast<int16_t>(sum);
    }
    out.d = 1.0f / iscale;
  }
}

}  // namespace pagoda::kernels::reference
