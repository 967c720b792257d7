#include "pagoda/engine/memory_size.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

namespace pagoda {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

StatusOr<int64_t> ParseMemorySize(std::string_view text) {
  auto invalid = [&] {
    return InvalidArgumentError(fmt::format("'{}' is not a memory size (bytes, or a number with KiB, MiB, GiB, TiB)",
                                            text));
  };
  size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  if (end == 0) return invalid();
  double number = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, number);
  if (ec != std::errc() || ptr != text.data() + end) return invalid();
  std::string_view unit = text.substr(end);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);

  static constexpr std::array<std::pair<std::string_view, int>, 14> kUnits = {{
      {"", 0}, {"b", 0},
      {"k", 1}, {"kb", 1}, {"kib", 1},
      {"m", 2}, {"mb", 2}, {"mib", 2},
      {"g", 3}, {"gb", 3}, {"gib", 3},
      {"t", 4}, {"tb", 4}, {"tib", 4},
  }};
  const std::string lower = Lower(unit);
  int power = -1;
  for (const auto& [name, p] : kUnits) {
    if (lower == name) power = p;
  }
  if (power < 0) return invalid();
  // Plain bytes must be a whole number; "1.5" bytes means a typo.
  if (power == 0 && number != std::floor(number)) return invalid();
  const double bytes = std::floor(number * std::pow(1024.0, power));
  if (!(bytes < 9.2e18)) return invalid();
  return static_cast<int64_t>(bytes);
}

}  // namespace pagoda
