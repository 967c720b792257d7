// Bracketed character classes of a regex pattern: [abc], [a-z], [^...],
// with escapes (\d \w \s and their negations among them) inside.
#pragma once

#include "pagoda/base/status.h"
#include "pagoda/structured/regex_scanner.h"
#include "pagoda/structured/utf8_ranges.h"

namespace pagoda::structured {

// Parses the class whose '[' is next in `scanner`: the code points it
// matches (a negated class: every other code point). Refused: a ']' first
// in the class ('[]', '[^]' and '[]a]' mean different things in Python and
// ECMAScript), an unescaped '[' inside (POSIX [:alpha:] and set operations
// would silently read as literals), ranges whose ends are classes or are
// reversed, and a class with no closing ']'.
StatusOr<CodePointRanges> ParseClass(RegexScanner& scanner);

}  // namespace pagoda::structured
