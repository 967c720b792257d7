#include "pagoda/server/http/request.h"

#include "pagoda/server/http/ascii.h"

namespace pagoda::http {

std::optional<std::string_view> Request::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (internal::EqualsIgnoreCase(key, name)) return value;
  }
  return std::nullopt;
}

}  // namespace pagoda::http
