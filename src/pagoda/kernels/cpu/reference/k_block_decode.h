// A K-quant or IQ4_XS super-block as integers: every element's quantized
// value, and each sub-block's integer scale and minimum, so that element i
// of sub-block s is  d * scale[s] * q[i] - dmin * min[s].
// The reference dot products work on this form.
#pragma once

#include <cstdint>

#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::reference {

struct DecodedKBlock {
  int8_t q[kSuperBlock];
  int32_t scale[16];
  int32_t min[16];  // all 0 for the types without minimums
  int sub_size = 0;  // 16 or 32 elements
  float d = 0;
  float dmin = 0;
};

void Decode(const BlockQ2_K& b, DecodedKBlock& out);
void Decode(const BlockQ3_K& b, DecodedKBlock& out);
void Decode(const BlockQ4_K& b, DecodedKBlock& out);
void Decode(const BlockQ5_K& b, DecodedKBlock& out);
void Decode(const BlockQ6_K& b, DecodedKBlock& out);
void Decode(const BlockIQ4_XS& b, DecodedKBlock& out);

}  // namespace pagoda::kernels::reference
