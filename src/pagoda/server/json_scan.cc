#include "pagoda/server/json_scan.h"

#include <nlohmann/json.hpp>

namespace pagoda::server {
namespace {

constexpr size_t npos = std::string_view::npos;

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// After the string literal whose opening quote is at `open`, or npos.
size_t StringEnd(std::string_view text, size_t open) {
  for (size_t i = open + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return npos;
}

// After the object or array opened at `open`, or npos.
size_t ContainerEnd(std::string_view text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      i = StringEnd(text, i);
      if (i == npos) return npos;
      --i;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return npos;
}

}  // namespace

size_t SkipJsonWhitespace(std::string_view text, size_t start) {
  while (start < text.size() && IsJsonSpace(text[start])) ++start;
  return start;
}

size_t JsonValueEnd(std::string_view text, size_t start) {
  const size_t i = SkipJsonWhitespace(text, start);
  if (i >= text.size()) return npos;
  if (text[i] == '"') return StringEnd(text, i);
  if (text[i] == '{' || text[i] == '[') return ContainerEnd(text, i);
  size_t end = i;
  while (end < text.size() && text[end] != ',' && text[end] != '}' && text[end] != ']' && !IsJsonSpace(text[end])) {
    ++end;
  }
  return end < text.size() ? end : npos;
}

ScannedObject ScanJsonObject(std::string_view text, size_t start) {
  ScannedObject out;
  size_t i = SkipJsonWhitespace(text, start);
  if (i >= text.size()) return out;
  if (text[i] != '{') {
    out.malformed = true;
    return out;
  }
  ++i;
  while (true) {
    i = SkipJsonWhitespace(text, i);
    if (i >= text.size()) return out;
    if (text[i] == '}') {
      out.end = i + 1;
      return out;
    }
    if (text[i] == ',' && !out.members.empty()) i = SkipJsonWhitespace(text, i + 1);
    if (i >= text.size()) return out;
    const size_t key_end = text[i] == '"' ? StringEnd(text, i) : npos;
    if (text[i] != '"' || key_end == npos) {
      out.malformed = text[i] != '"';
      return out;
    }
    std::optional<std::string> key = DecodeJsonString(text.substr(i, key_end - i));
    i = SkipJsonWhitespace(text, key_end);
    if (i >= text.size()) return out;
    if (!key || text[i] != ':') {
      out.malformed = true;
      return out;
    }
    ScannedMember member{std::move(*key), SkipJsonWhitespace(text, i + 1), npos};
    member.value_end = JsonValueEnd(text, member.value_start);
    out.members.push_back(member);
    if (member.value_end == npos) return out;
    i = member.value_end;
  }
}

std::optional<std::string> DecodeJsonString(std::string_view literal) {
  const nlohmann::json value = nlohmann::json::parse(literal, nullptr, /*allow_exceptions=*/false);
  if (!value.is_string()) return std::nullopt;
  return value.get<std::string>();
}

}  // namespace pagoda::server
