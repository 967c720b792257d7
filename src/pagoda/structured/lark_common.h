// The terminals of Lark's common.lark (`%import common.NAME`), each written
// here as the regular expression of the strings it matches, from Lark's
// definitions: DIGIT, HEXDIGIT, INT, SIGNED_INT, DECIMAL, FLOAT,
// SIGNED_FLOAT, NUMBER, SIGNED_NUMBER, ESCAPED_STRING, LCASE_LETTER,
// UCASE_LETTER, LETTER, WORD, CNAME, WS_INLINE, WS, CR, LF, NEWLINE,
// SH_COMMENT, CPP_COMMENT, C_COMMENT and SQL_COMMENT.
//
// Two are written in other words than Lark's: ESCAPED_STRING ("..." whose
// every '"' or '\' inside is escaped by a backslash, no newline; Lark says
// it with a lazy match and a lookbehind) and C_COMMENT ("/*" to the first
// "*/"; Lark says it with a lazy match).
#pragma once

#include <string_view>

namespace pagoda::structured {

// The pattern (for RegexToExpr) of common terminal `name`, or empty if
// common.lark has no such terminal.
std::string_view LarkCommonPattern(std::string_view name);

// The names, for messages: "CNAME, CR, ...".
std::string_view LarkCommonNames();

}  // namespace pagoda::structured
