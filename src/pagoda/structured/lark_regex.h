// Lark's /.../flags terminals as expressions, through RegexToExpr
// (regex_to_expr.h): the body's escapes are evaluated as Lark does
// (lark_literal.h), then the pattern is read as Python's re reads it, with
// the departures RegexToExpr documents (\d \w \s are ASCII). Flags: `s`
// lets `.` match a newline; `m` and `u` change nothing that is supported;
// `i` and `x` are refused (RegexToExpr has no case folding or verbose
// mode), and so is `l` (Python refuses it for text). Refused too, because
// Lark's lexer reads them differently from a whole-string match: anchors
// (^ $ \A \Z match where the text starts and ends, not where the
// terminal does) and lazy quantifiers (Lark's lexer takes a lazy
// terminal's shortest match, so /a+?/ is one "a" to it).
//
// Errors are INVALID_ARGUMENT with the problem alone; the caller places it.
#pragma once

#include <string_view>

#include "pagoda/base/status.h"
#include "pagoda/structured/expr.h"
#include "pagoda/structured/regex_to_expr.h"

namespace pagoda::structured {

// A regex token as written (/.../flags).
StatusOr<ExprPtr> LarkRegexExpr(std::string_view token, const RegexLimits& limits);

}  // namespace pagoda::structured
