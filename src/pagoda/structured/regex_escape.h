// Backslash escapes of a regex pattern, in Python's re spelling plus
// ECMAScript's \u{...} and \uHHHH\uHHHH surrogate pairs (JSON Schema
// patterns are ECMAScript regexes). \d \w \s and their negations have ASCII
// semantics, as Python's with re.ASCII and ECMAScript's do for \d and \w.
#pragma once

#include "pagoda/base/status.h"
#include "pagoda/structured/regex_scanner.h"
#include "pagoda/structured/utf8_ranges.h"

namespace pagoda::structured {

struct RegexEscape {
  bool is_class = false;
  char32_t code_point = 0;  // when !is_class
  CodePointRanges ranges;   // when is_class
};

// Parses the escape whose backslash is next in `scanner`. Inside a class
// (`in_class`) \b is a backspace; outside it is a word boundary, refused
// like the other assertions, backreferences and property classes.
StatusOr<RegexEscape> ParseEscape(RegexScanner& scanner, bool in_class);

}  // namespace pagoda::structured
