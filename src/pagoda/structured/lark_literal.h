// Lark's "..." literals and "a".."z" ranges as expressions. Lark evaluates
// a literal's escapes with Python: \n \t \r \f, \xHH, \uHHHH and
// \UHHHHHHHH stand for their characters, \" for a quote and \\ for a
// backslash; any other backslash stays in the text with the character
// after it ("\d" is a backslash and a d). A literal with the `i` flag
// matches as Python's re.IGNORECASE does: each ASCII letter in either case,
// and also U+0130 and U+0131 for i, U+212A for k and U+017F for s.
//
// Errors are INVALID_ARGUMENT with the problem alone; the caller places it.
#pragma once

#include <string>
#include <string_view>

#include "pagoda/base/status.h"
#include "pagoda/structured/expr.h"

namespace pagoda::structured {

// The code points of UTF-8 `text` (valid UTF-8 is assumed).
std::u32string DecodeLarkText(std::string_view text);
std::string EncodeUtf8(std::u32string_view text);

// What Lark's escape evaluation (which both strings and regular expressions
// go through) makes of `body`: refuses a trailing backslash, a short \x,
// \u or \U escape, code points past U+10FFFF and surrogates.
StatusOr<std::u32string> EvalLarkEscapes(std::u32string_view body);

// A string token as written ("..." or "..."i).
StatusOr<ExprPtr> LarkStringExpr(std::string_view token);

// "a".."z": one code point from the first to the last.
StatusOr<ExprPtr> LarkRangeExpr(std::string_view first_token, std::string_view last_token);

}  // namespace pagoda::structured
