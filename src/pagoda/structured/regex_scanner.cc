#include "pagoda/structured/regex_scanner.h"

#include <cstdint>
#include <utility>

namespace pagoda::structured {
namespace {

// The code point of the UTF-8 sequence at `text[i]` and its length, or a
// length of 0 when the bytes there are not well-formed UTF-8.
std::pair<char32_t, size_t> DecodeOne(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[i + k]); };
  const uint8_t lead = byte(0);
  if (lead < 0x80) return {lead, 1};
  size_t length = 0;
  char32_t c = 0;
  char32_t min = 0;  // below this the sequence is overlong
  if ((lead & 0xE0) == 0xC0) {
    length = 2, c = lead & 0x1F, min = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, c = lead & 0x0F, min = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, c = lead & 0x07, min = 0x10000;
  } else {
    return {0, 0};
  }
  if (i + length > text.size()) return {0, 0};
  for (size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return {0, 0};
    c = (c << 6) | (byte(k) & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return {0, 0};
  return {c, length};
}

}  // namespace

StatusOr<RegexScanner> RegexScanner::Decode(std::string_view pattern) {
  RegexScanner scanner;
  scanner.pattern_ = std::string(pattern);
  for (size_t i = 0; i < pattern.size();) {
    const auto [c, length] = DecodeOne(pattern, i);
    if (length == 0) return Malformed(i, "invalid UTF-8");
    scanner.code_points_.push_back(c);
    scanner.offsets_.push_back(i);
    i += length;
  }
  scanner.offsets_.push_back(pattern.size());
  return scanner;
}

Status RegexScanner::Unsupported(size_t offset, const std::string& construct) {
  return InvalidArgumentError("regex: " + construct + " at offset " + std::to_string(offset) + " is not supported");
}

Status RegexScanner::Malformed(size_t offset, const std::string& problem) {
  return InvalidArgumentError("regex: " + problem + " at offset " + std::to_string(offset));
}

}  // namespace pagoda::structured
