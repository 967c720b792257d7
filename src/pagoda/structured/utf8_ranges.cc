#include "pagoda/structured/utf8_ranges.h"

#include <algorithm>

namespace pagoda::structured {
namespace {

constexpr char32_t kSurrogateFirst = 0xD800;
constexpr char32_t kSurrogateLast = 0xDFFF;
// The largest code point of each UTF-8 length.
constexpr char32_t kMaxOfLength[] = {0, 0x7F, 0x7FF, 0xFFFF, 0x10FFFF};

int Utf8Length(char32_t c) { return c <= 0x7F ? 1 : c <= 0x7FF ? 2 : c <= 0xFFFF ? 3 : 4; }

std::vector<uint8_t> Encode(char32_t c) {
  const int length = Utf8Length(c);
  std::vector<uint8_t> bytes(length);
  if (length == 1) {
    bytes[0] = static_cast<uint8_t>(c);
    return bytes;
  }
  for (int i = length - 1; i > 0; --i) {
    bytes[i] = static_cast<uint8_t>(0x80 | (c & 0x3F));
    c >>= 6;
  }
  static constexpr uint8_t kLead[] = {0, 0, 0xC0, 0xE0, 0xF0};
  bytes[0] = static_cast<uint8_t>(kLead[length] | c);
  return bytes;
}

// Appends the sequences for [first, last], both of one UTF-8 length: split
// until every byte position below the first differing one is a full
// continuation range (0x80-0xBF), so that each sequence is a product of
// byte ranges (the method of RE2's and Rust regex's UTF-8 compilers).
void AppendSameLength(char32_t first, char32_t last, std::vector<ByteRangeSequence>* out) {
  const int length = Utf8Length(first);
  for (int i = 1; i < length; ++i) {
    const char32_t mask = (char32_t{1} << (6 * i)) - 1;  // the low i continuation bytes
    if ((first & ~mask) != (last & ~mask)) {
      if ((first & mask) != 0) {
        AppendSameLength(first, first | mask, out);
        AppendSameLength((first | mask) + 1, last, out);
        return;
      }
      if ((last & mask) != mask) {
        AppendSameLength(first, (last & ~mask) - 1, out);
        AppendSameLength(last & ~mask, last, out);
        return;
      }
    }
  }
  const std::vector<uint8_t> a = Encode(first);
  const std::vector<uint8_t> b = Encode(last);
  ByteRangeSequence sequence;
  for (int i = 0; i < length; ++i) sequence.emplace_back(a[i], b[i]);
  out->push_back(std::move(sequence));
}

}  // namespace

CodePointRanges Normalize(CodePointRanges ranges) {
  CodePointRanges clipped;
  for (auto [first, last] : ranges) {
    last = std::min(last, kMaxCodePoint);
    if (first > last) continue;
    if (first < kSurrogateFirst && last >= kSurrogateFirst) {
      clipped.emplace_back(first, kSurrogateFirst - 1);
      first = kSurrogateLast + 1;
    } else if (first >= kSurrogateFirst && first <= kSurrogateLast) {
      first = kSurrogateLast + 1;
    }
    if (first <= last) clipped.emplace_back(first, last);
  }
  std::sort(clipped.begin(), clipped.end());
  CodePointRanges merged;
  for (const auto& range : clipped) {
    if (!merged.empty() && range.first <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, range.second);
    } else {
      merged.push_back(range);
    }
  }
  return merged;
}

CodePointRanges Complement(const CodePointRanges& ranges) {
  CodePointRanges out;
  char32_t next = 0;
  for (const auto& [first, last] : Normalize(ranges)) {
    if (first > next) out.emplace_back(next, first - 1);
    next = last + 1;
  }
  if (next <= kMaxCodePoint) out.emplace_back(next, kMaxCodePoint);
  return Normalize(std::move(out));
}

std::vector<ByteRangeSequence> Utf8Sequences(const CodePointRanges& ranges) {
  std::vector<ByteRangeSequence> out;
  for (auto [first, last] : Normalize(ranges)) {
    for (int length = Utf8Length(first); first <= last; ++length) {
      const char32_t end = std::min(last, kMaxOfLength[length]);
      AppendSameLength(first, end, &out);
      first = end + 1;
    }
  }
  return out;
}

}  // namespace pagoda::structured
