#include "pagoda/server/token_id.h"

namespace pagoda::server {

std::optional<int32_t> TokenIdFromJson(const nlohmann::json& v, int64_t vocab_size) {
  if (v.is_number_unsigned()) {
    const uint64_t id = v.get<uint64_t>();
    if (id < static_cast<uint64_t>(vocab_size)) return static_cast<int32_t>(id);
    return std::nullopt;
  }
  if (v.is_number_integer()) {
    const int64_t id = v.get<int64_t>();
    if (id >= 0 && id < vocab_size) return static_cast<int32_t>(id);
  }
  return std::nullopt;
}

}  // namespace pagoda::server
