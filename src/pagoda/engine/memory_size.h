// Memory sizes as people write them on command lines and in configs.
#pragma once

#include <cstdint>
#include <string_view>

#include "pagoda/base/status.h"

namespace pagoda {

// Plain bytes ("1048576"), or a number with a unit: binary KiB, MiB, GiB,
// TiB (also K, M, G, T, KB, MB, GB, TB, which mean the same powers of 1024, as
// in vLLM's VLLM_CPU_KVCACHE_SPACE and most tools' memory options) and B.
// Fractions are allowed with a unit ("1.5GiB"); units are case-insensitive;
// spaces between number and unit are allowed. INVALID_ARGUMENT otherwise, or
// for sizes that overflow 63 bits.
StatusOr<int64_t> ParseMemorySize(std::string_view text);

}  // namespace pagoda
