// The `regex` kind of structured outputs (vLLM's structured_outputs.regex,
// guided_regex, and JSON Schema's "pattern"): a regular expression becomes
// a grammar expression whose sentences are exactly the strings the pattern
// matches in full (Python's re.fullmatch), as the UTF-8 bytes of their code
// points. docs/architecture.md ("Regex") lists what is supported, what is
// refused, and where the language departs from Python's re.
#pragma once

#include <cstddef>
#include <string_view>

#include "pagoda/base/status.h"
#include "pagoda/structured/expr.h"

namespace pagoda::structured {

struct RegexLimits {
  // Longer patterns are refused before parsing, so that a request costs
  // bounded time and memory.
  size_t max_pattern_bytes = 64 * 1024;
  // The largest count a {n}, {n,} or {n,m} may name: counted repeats are
  // unrolled into one rule per count.
  int max_repeat = 1000;
  // Groups nested deeper than this are refused (the parser recurses).
  int max_nesting = 100;
};

// The expression of `pattern`, or INVALID_ARGUMENT naming the construct
// that is malformed or not supported and its byte offset in the pattern, or
// saying that the pattern matches no string at all (as [^\s\S] does).
StatusOr<ExprPtr> RegexToExpr(std::string_view pattern, const RegexLimits& limits = {});

}  // namespace pagoda::structured
