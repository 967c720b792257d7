// The tokens of a Lark grammar's text (lark.h), as Lark's own grammar
// lexer cuts it: names, "..." strings and /.../ regular expressions with
// their flags, numbers, %directives, punctuation, and the newlines that end
// a definition. Spaces, tabs, `//` and `#` comments and backslash line
// continuations are skipped; a line whose first character (after blanks,
// empty lines and comment lines) is `|` continues the definition before it,
// so no newline token stands before that `|`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pagoda/base/status.h"

namespace pagoda::structured {

// 1-based; columns count code points.
struct LarkPosition {
  int line = 1;
  int column = 1;
};

// INVALID_ARGUMENT "lark: line L, column C: what".
Status LarkError(LarkPosition position, const std::string& what);

// `spelling` (a token as written) for a message: its first 60 code points
// and "..." when it is longer, so that a refusal stays short however long
// the string or regular expression it names.
std::string LarkExcerpt(std::string_view spelling);

struct LarkToken {
  enum class Kind {
    kName,       // [A-Za-z_][A-Za-z0-9_]*: a rule or terminal name, or an import's module
    kString,     // "..." with its `i` flag, as written
    kRegex,      // /.../ with its flags, as written
    kNumber,     // [0-9]+
    kDirective,  // %name
    kPunct,      // : | ( ) [ ] { } , ~ . * + ? ! - and the pairs .. -> ::=
    kNewline,    // ends a definition
    kEnd,
  };
  Kind kind = Kind::kEnd;
  std::string_view text;
  LarkPosition position;
  // No space or comment between this token and the one before it (Lark
  // reads `?name` as a rule modifier only when the two touch).
  bool touches_previous = false;
};

// The tokens, ending with one kEnd; or INVALID_ARGUMENT for invalid UTF-8,
// a string or regular expression not closed on its line, and characters
// that begin no token.
StatusOr<std::vector<LarkToken>> LexLark(std::string_view text);

}  // namespace pagoda::structured
