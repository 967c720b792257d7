#include "pagoda/structured/json_string_chars.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "pagoda/structured/numeral_ranges.h"

namespace pagoda::structured {
namespace {

constexpr char32_t kHighSurrogateFirst = 0xD800;
constexpr char32_t kLowSurrogateFirst = 0xDC00;
constexpr char32_t kLowSurrogateLast = 0xDFFF;

struct ShortEscape {
  char32_t code_point;
  char letter;
};
constexpr ShortEscape kShortEscapes[] = {{'"', '"'}, {'\\', '\\'}, {'/', '/'},  {0x08, 'b'},
                                         {0x0C, 'f'}, {0x0A, 'n'},  {0x0D, 'r'}, {0x09, 't'}};

bool Contains(const CodePointRanges& ranges, char32_t c) {
  return std::any_of(ranges.begin(), ranges.end(), [c](const auto& r) { return r.first <= c && c <= r.second; });
}

// \u and four hex digits whose value lies in one of `ranges` (within the BMP).
ExprPtr HexEscapes(const CodePointRanges& ranges) {
  std::vector<ExprPtr> choices;
  for (const auto& [first, last] : ranges) choices.push_back(FixedWidthNumerals(first, last, 4, Radix::kHex));
  if (choices.empty()) return Choice({});
  return Sequence({Literal("\\u"), choices.size() == 1 ? choices[0] : Choice(std::move(choices))});
}

// Surrogate-pair escapes of the supplementary code points first..last.
void AppendPairEscapes(char32_t first, char32_t last, std::vector<ExprPtr>* out) {
  const auto high = [](char32_t c) { return kHighSurrogateFirst + ((c - 0x10000) >> 10); };
  const auto low = [](char32_t c) { return kLowSurrogateFirst + ((c - 0x10000) & 0x3FF); };
  const auto pair = [out](char32_t h_first, char32_t h_last, char32_t l_first, char32_t l_last) {
    out->push_back(Sequence({HexEscapes({{h_first, h_last}}), HexEscapes({{l_first, l_last}})}));
  };
  if (high(first) == high(last)) {
    pair(high(first), high(first), low(first), low(last));
    return;
  }
  pair(high(first), high(first), low(first), kLowSurrogateLast);
  if (high(first) + 1 <= high(last) - 1) pair(high(first) + 1, high(last) - 1, kLowSurrogateFirst, kLowSurrogateLast);
  pair(high(last), high(last), kLowSurrogateFirst, low(last));
}

}  // namespace

CodePointRanges Intersect(const CodePointRanges& a, const CodePointRanges& b) {
  const CodePointRanges x = Normalize(a);
  const CodePointRanges y = Normalize(b);
  CodePointRanges out;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    const char32_t first = std::max(x[i].first, y[j].first);
    const char32_t last = std::min(x[i].second, y[j].second);
    if (first <= last) out.emplace_back(first, last);
    if (x[i].second < y[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

ExprPtr JsonStringChar(const CodePointRanges& ranges) {
  const CodePointRanges wanted = Normalize(ranges);  // surrogates are never characters
  std::vector<ExprPtr> choices;
  const CodePointRanges raw = Intersect(wanted, {{0x20, 0x21}, {0x23, 0x5B}, {0x5D, kMaxCodePoint}});
  if (!raw.empty()) choices.push_back(CodePoints(raw));
  ByteSet letters;
  for (const ShortEscape& escape : kShortEscapes) {
    if (Contains(wanted, escape.code_point)) letters.Add(static_cast<uint8_t>(escape.letter));
  }
  if (!letters.Empty()) choices.push_back(Sequence({Literal("\\"), Bytes(letters)}));
  const CodePointRanges bmp = Intersect(wanted, {{0, 0xFFFF}});
  if (!bmp.empty()) choices.push_back(HexEscapes(bmp));
  for (const auto& [first, last] : Intersect(wanted, {{0x10000, kMaxCodePoint}})) {
    AppendPairEscapes(first, last, &choices);
  }
  if (choices.empty()) return Choice({});
  return choices.size() == 1 ? choices[0] : Choice(std::move(choices));
}

ExprPtr AnyJsonStringChar() { return JsonStringChar({{0, kMaxCodePoint}}); }

std::string CanonicalJsonString(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<uint8_t>(c);
    const auto escape = std::find_if(std::begin(kShortEscapes), std::end(kShortEscapes),
                                     [byte](const ShortEscape& e) { return e.code_point == byte && byte != '/'; });
    if (escape != std::end(kShortEscapes)) {
      out += '\\';
      out += escape->letter;
    } else if (byte < 0x20) {
      char hex[8];
      snprintf(hex, sizeof(hex), "\\u%04x", byte);
      out += hex;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace pagoda::structured
