#include "pagoda/chat_template/py_str.h"

#include "pagoda/chat_template/error.h"
#include "pagoda/chat_template/unicode.h"

namespace pagoda::chat_template::py {
namespace {

// Where the code point ending at byte `end` starts.
size_t PrevStart(std::string_view text, size_t end) {
  size_t begin = end - 1;
  while (begin > 0 && (static_cast<unsigned char>(text[begin]) & 0xC0) == 0x80) --begin;
  return begin;
}

std::string MapCase(std::string_view text, bool upper) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const char32_t c = DecodeUtf8(text, &i);
    if (upper && c == 0xDF) {  // ß upper-cases to two letters
      out += "SS";
      continue;
    }
    AppendUtf8(upper ? ToUpper(c) : ToLower(c), &out);
  }
  return out;
}

bool IsLineBreak(char32_t c) {
  return c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || (c >= 0x1C && c <= 0x1E) || c == 0x85 || c == 0x2028 ||
         c == 0x2029;
}

}  // namespace

std::string Strip(std::string_view text, const std::string* chars, bool left, bool right) {
  const std::u32string set = chars != nullptr ? ToCodepoints(*chars) : std::u32string();
  auto strip = [&](char32_t c) { return chars == nullptr ? IsPythonSpace(c) : set.find(c) != std::u32string::npos; };
  size_t begin = 0;
  size_t end = text.size();
  if (left) {
    while (begin < end) {
      size_t next = begin;
      if (!strip(DecodeUtf8(text, &next))) break;
      begin = next;
    }
  }
  if (right) {
    while (end > begin) {
      const size_t start = PrevStart(text, end);
      size_t p = start;
      if (!strip(DecodeUtf8(text, &p))) break;
      end = start;
    }
  }
  return std::string(text.substr(begin, end - begin));
}

std::vector<std::string> SplitWhitespace(std::string_view text, int64_t maxsplit) {
  std::vector<std::string> parts;
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size()) {
      size_t next = i;
      if (!IsPythonSpace(DecodeUtf8(text, &next))) break;
      i = next;
    }
  };
  skip_space();
  while (i < text.size()) {
    if (maxsplit >= 0 && static_cast<int64_t>(parts.size()) == maxsplit) {
      parts.emplace_back(text.substr(i));  // the rest, trailing space included
      return parts;
    }
    const size_t start = i;
    while (i < text.size()) {
      size_t next = i;
      if (IsPythonSpace(DecodeUtf8(text, &next))) break;
      i = next;
    }
    parts.emplace_back(text.substr(start, i - start));
    skip_space();
  }
  return parts;
}

std::vector<std::string> Split(std::string_view text, std::string_view sep, int64_t maxsplit) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t at = text.find(sep, start);
    if (at == std::string_view::npos || (maxsplit >= 0 && static_cast<int64_t>(parts.size()) == maxsplit)) break;
    parts.emplace_back(text.substr(start, at - start));
    start = at + sep.size();
  }
  parts.emplace_back(text.substr(start));
  return parts;
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t at = i;
    const char32_t c = DecodeUtf8(text, &i);
    if (!IsLineBreak(c)) continue;
    lines.emplace_back(text.substr(start, at - start));
    if (c == '\r' && i < text.size() && text[i] == '\n') ++i;
    start = i;
  }
  if (start < text.size()) lines.emplace_back(text.substr(start));
  return lines;
}

std::string Replace(std::string_view text, std::string_view old, std::string_view replacement, int64_t count,
                    size_t max_bytes) {
  std::string out;
  auto append = [&](std::string_view piece) {
    if (piece.size() > max_bytes - out.size()) ThrowRuntime("text would exceed the limit of {} bytes", max_bytes);
    out.append(piece);
  };
  int64_t done = 0;
  auto more = [&] { return count < 0 || done < count; };
  if (old.empty()) {
    size_t i = 0;
    while (i < text.size()) {
      if (more()) {
        append(replacement);
        ++done;
      }
      const size_t start = i;
      DecodeUtf8(text, &i);
      append(text.substr(start, i - start));
    }
    if (more()) append(replacement);
    return out;
  }
  size_t start = 0;
  while (more()) {
    const size_t at = text.find(old, start);
    if (at == std::string_view::npos) break;
    append(text.substr(start, at - start));
    append(replacement);
    start = at + old.size();
    ++done;
  }
  append(text.substr(start));
  return out;
}

std::string Upper(std::string_view text) { return MapCase(text, /*upper=*/true); }
std::string Lower(std::string_view text) { return MapCase(text, /*upper=*/false); }

std::string Title(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool previous_cased = false;
  for (size_t i = 0; i < text.size();) {
    const char32_t c = DecodeUtf8(text, &i);
    if (!previous_cased && c == 0xDF) {
      out += "Ss";
    } else {
      AppendUtf8(previous_cased ? ToLower(c) : ToUpper(c), &out);
    }
    previous_cased = IsCased(c);
  }
  return out;
}

std::string Capitalize(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const bool first = i == 0;
    const char32_t c = DecodeUtf8(text, &i);
    if (first && c == 0xDF) {
      out += "Ss";
    } else {
      AppendUtf8(first ? ToUpper(c) : ToLower(c), &out);
    }
  }
  return out;
}

int64_t Find(std::string_view text, std::string_view sub) {
  const size_t at = text.find(sub);
  return at == std::string_view::npos ? -1 : static_cast<int64_t>(CodepointCount(text.substr(0, at)));
}

int64_t Count(std::string_view text, std::string_view sub) {
  if (sub.empty()) return static_cast<int64_t>(CodepointCount(text)) + 1;
  int64_t n = 0;
  for (size_t at = text.find(sub); at != std::string_view::npos; at = text.find(sub, at + sub.size())) ++n;
  return n;
}

}  // namespace pagoda::chat_template::py
