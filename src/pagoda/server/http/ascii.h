// Case-insensitive comparison for header names and tokens (ASCII only, as
// HTTP defines them).
#pragma once

#include <algorithm>
#include <cctype>
#include <string_view>

namespace pagoda::http::internal {

inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](unsigned char x, unsigned char y) { return std::tolower(x) == std::tolower(y); });
}

}  // namespace pagoda::http::internal
