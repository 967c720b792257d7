#include "pagoda/apps/kv_cache_size.h"

#include <fmt/format.h>

namespace pagoda::apps {

StatusOr<DType> ParseKvCacheDtype(const std::string& name) {
  if (name == "f16" || name == "float16") return DType::kF16;
  if (name == "f32" || name == "float32") return DType::kF32;
  return InvalidArgumentError(fmt::format("unknown KV cache dtype '{}' (f16 or f32)", name));
}

}  // namespace pagoda::apps
