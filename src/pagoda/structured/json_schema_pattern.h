// The hook for JSON Schema's `pattern`: the regex front end plugs in here.
#pragma once

#include <string>

#include "pagoda/base/status.h"
#include "pagoda/structured/expr.h"

namespace pagoda::structured {

// The contents of JSON strings (what lies between the quotes, as JSON
// spells it: json_string_chars.h) whose decoded text contains a match of
// `regex` (ECMA-262 syntax, unanchored, as JSON Schema defines `pattern`).
// `pointer` is the keyword's JSON pointer, for messages.
//
// For now UNIMPLEMENTED naming `pattern`: the regex front end is not here
// yet.
StatusOr<ExprPtr> PatternStringContents(const std::string& regex, const std::string& pointer);

}  // namespace pagoda::structured
