// Finding where JSON values end in text that may still be growing (a
// model's output, token by token), without parsing them: enough to split
// a tool call's name from its arguments and to stream the arguments as
// they arrive.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pagoda::server {

// The index after the JSON value that starts at or after `start` (leading
// whitespace skipped), or npos if the text ends before the value does. A
// number or literal at the very end counts as unfinished. Only structure
// is checked (strings, escapes, brackets): the value may still be invalid.
size_t JsonValueEnd(std::string_view text, size_t start);

// The first non-whitespace index at or after `start` (text.size() if none).
size_t SkipJsonWhitespace(std::string_view text, size_t start);

// One member of an object being scanned.
struct ScannedMember {
  std::string key;
  size_t value_start = 0;                   // first character of the value
  size_t value_end = std::string_view::npos;  // npos: the value is unfinished
};

struct ScannedObject {
  std::vector<ScannedMember> members;  // those whose key is complete
  size_t end = std::string_view::npos;  // after the closing brace; npos: open
  bool malformed = false;               // not an object, or broken structure
};

// Scans the object that starts at or after `start` member by member,
// stopping where the text ends.
ScannedObject ScanJsonObject(std::string_view text, size_t start);

// The value of a JSON string literal (quotes included), if it is one.
std::optional<std::string> DecodeJsonString(std::string_view literal);

}  // namespace pagoda::server
