// Python's str methods over UTF-8 text, with Python's notion of whitespace
// and code-point indexing. Shared by the string methods templates call
// (`content.strip()`) and the filters built on them (`trim`, `title`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pagoda::chat_template::py {

// str.strip/lstrip/rstrip; `chars` null means whitespace.
std::string Strip(std::string_view text, const std::string* chars, bool left, bool right);
// str.split(): runs of whitespace separate, empty parts dropped. A negative
// `maxsplit` means no limit.
std::vector<std::string> SplitWhitespace(std::string_view text, int64_t maxsplit);
// str.split(sep); `sep` must not be empty.
std::vector<std::string> Split(std::string_view text, std::string_view sep, int64_t maxsplit);
// str.splitlines() without the line ends.
std::vector<std::string> SplitLines(std::string_view text);
// str.replace; an empty `old` inserts `replacement` around every character.
// Stops with a TemplateError past `max_bytes`.
std::string Replace(std::string_view text, std::string_view old, std::string_view replacement, int64_t count,
                    size_t max_bytes);
std::string Upper(std::string_view text);
std::string Lower(std::string_view text);
// str.title(): upper case after an uncased character, lower case after a
// cased one.
std::string Title(std::string_view text);
// str.capitalize(): the first character upper case, the rest lower case.
std::string Capitalize(std::string_view text);
// str.find in code points; -1 when absent.
int64_t Find(std::string_view text, std::string_view sub);
// str.count: non-overlapping occurrences.
int64_t Count(std::string_view text, std::string_view sub);

}  // namespace pagoda::chat_template::py
