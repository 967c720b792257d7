// Element j (0..31) of a Q5_0/Q5_1 block, unsigned (0..31): the low 4 bits
// in qs (elements 0-15 the low nibbles, 16-31 the high ones), the fifth bit
// at bit j of the little-endian qh word.
#pragma once

#include <cstdint>

#include "pagoda/tensor/dtype.h"

namespace pagoda::kernels::reference {

inline int Q5Value(const uint8_t* qs, const uint8_t (&qh)[4], int j) {
  const int half = kQuantBlock / 2;
  const int low = j < half ? qs[j] & 0x0f : qs[j - half] >> 4;
  return low | (((qh[j / 8] >> (j % 8)) & 1) << 4);
}

}  // namespace pagoda::kernels::reference
