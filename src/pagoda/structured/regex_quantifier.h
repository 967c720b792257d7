// Quantifiers of a regex pattern: * + ? {n} {n,} {n,m}, each possibly lazy
// (a trailing '?', which changes which match a search prefers but not which
// strings match in full, so it is read and dropped).
#pragma once

#include <optional>

#include "pagoda/base/status.h"
#include "pagoda/structured/regex_scanner.h"

namespace pagoda::structured {

struct RegexQuantifier {
  int min = 0;
  int max = 0;  // Expr::kUnbounded: no limit
};

// Whether a quantifier begins at the cursor, which does not move. A '{'
// that begins no well-formed count ("a{", "a{x}") is a literal, as in
// Python and ECMAScript, and so is not a quantifier.
bool AtQuantifier(RegexScanner& scanner);

// Parses the quantifier at the cursor, if any (nullopt, cursor unmoved,
// if none). Refused: counts over `max_repeat`, {n,m} with n > m, {,m}
// (Python reads {0,m}, ECMAScript a literal), possessive quantifiers (*+),
// and a quantifier right after another ("a**", "a{2}{3}").
StatusOr<std::optional<RegexQuantifier>> ParseQuantifier(RegexScanner& scanner, int max_repeat);

}  // namespace pagoda::structured
