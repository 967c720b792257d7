// JSON Schema's `pattern`, through the regex front end.
#pragma once

#include <string>

#include "pagoda/base/status.h"
#include "pagoda/structured/expr.h"

namespace pagoda::structured {

// The contents of JSON strings (what lies between the quotes, as JSON
// spells it: json_string_chars.h) whose decoded text contains a match of
// `regex` (ECMA-262 syntax, unanchored, as JSON Schema defines `pattern`).
// `pointer` is the keyword's JSON pointer, for messages. The regex is read
// by RegexToExpr (Python's syntax, which JSON schemas' patterns mostly
// share); each matched byte is then spelled as JSON writes it canonically,
// so '"', '\' and control characters appear escaped. A refused regex is
// INVALID_ARGUMENT naming `pattern` and its pointer.
StatusOr<ExprPtr> PatternStringContents(const std::string& regex, const std::string& pointer);

}  // namespace pagoda::structured
