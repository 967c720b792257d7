// Repeats of regex sub-expressions, rewritten so that no iteration can
// match the empty string. GrammarBuilder lowers x* into T ::= x T | "",
// which is left recursive when x is nullable (and so refused), and x{0,m}
// into a chain of m rules that, for a nullable x, parses one string in many
// ways: nesting such repeats multiplies the matcher's stacks. A repeat of a
// nullable body matches what the repeat of the body's non-empty strings
// does (x{n,m} = (x minus ""){0,m} when x matches ""), so that is what is
// built: (a?b?){2} becomes (ab?|b){0,2}. And since (y{1,k}){n,} is y{n,},
// (a*)*, (a+)* and ((a*)*)* all become a*.
#pragma once

#include "pagoda/structured/expr.h"

namespace pagoda::structured {

// Whether `expr` matches the empty string.
bool Nullable(const Expr& expr);

// `body` from `min` to `max` (Expr::kUnbounded: no limit) times, with no
// iteration that can be empty.
ExprPtr RegexRepeat(ExprPtr body, int min, int max);

}  // namespace pagoda::structured
