// Dot products of the super-block weight types with Q8_K activations, in
// the order documented in reference.h.
#include "pagoda/kernels/cpu/reference/k_block_decode.h"
#include "pagoda/kernels/cpu/reference/reference.h"

namespace pagoda::kernels::reference {
namespace {

template <typename Block>
float VecDotK(const Block* w, const BlockQ8_K* x, int64_t nb) {
  DecodedKBlock k;
  float sumf = 0.0f;
  for (int64_t b = 0; b < nb; ++b) {
    Decode(w[b], k);
    int64_t scaled = 0;  // sum over sub-blocks of scale * (q_w . q_x)
    int64_t mins = 0;    // sum over sub-blocks of min * (sum of q_x)
    for (int s = 0; s < kSuperBlock / k.sub_size; ++s) {
      int32_t dot = 0;
      for (int i = s * k.sub_size; i < (s + 1) * k.sub_size; ++i) dot += k.q[i] * x[b].qs[i];
      int32_t xsum = 0;
      for (int g = s * k.sub_size / 16; g < (s + 1) * k.sub_size / 16; ++g) xsum += x[b].bsums[g];
      scaled += int64_t{k.scale[s]} * dot;
      mins += int64_t{k.min[s]} * xsum;
    }
    sumf += x[b].d * (k.d * static_cast<float>(scaled) - k.dmin * static_cast<float>(mins));
  }
  return sumf;
}

}  // namespace

float VecDotQ2_KQ8_K(const BlockQ2_K* w, const BlockQ8_K* x, int64_t nb) { return VecDotK(w, x, nb); }
float VecDotQ3_KQ8_K(const BlockQ3_K* w, const BlockQ8_K* x, int64_t nb) { return VecDotK(w, x, nb); }
float VecDotQ4_KQ8_K(const BlockQ4_K* w, const BlockQ8_K* x, int64_t nb) { return VecDotK(w, x, nb); }
float VecDotQ5_KQ8_K(const BlockQ5_K* w, const BlockQ8_K* x, int64_t nb) { return VecDotK(w, x, nb); }
float VecDotQ6_KQ8_K(const BlockQ6_K* w, const BlockQ8_K* x, int64_t nb) { return VecDotK(w, x, nb); }
float VecDotIQ4_XSQ8_K(const BlockIQ4_XS* w, const BlockQ8_K* x, int64_t nb) { return VecDotK(w, x, nb); }

}  // namespace pagoda::kernels::reference
