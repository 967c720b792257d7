// GGML's non-linear 4-bit table (kvalues_iq4nl), shared by IQ4_NL and IQ4_XS.
#pragma once

#include <cstdint>

namespace pagoda::kernels::reference {

inline constexpr int8_t kIq4Values[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                          1,    13,   25,  38,  53,  69,  89,  113};

}  // namespace pagoda::kernels::reference
