// Left recursion, which a top-down matcher cannot run: direct left
// recursion (A ::= A x | y) is rewritten into the right recursion of the
// same language (A ::= y A_tail; A_tail ::= x A_tail | ""); any left
// recursion left after that, through other rules or a nullable prefix, is
// refused with INVALID_ARGUMENT naming the rules of the cycle.
#pragma once

#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/structured/grammar.h"

namespace pagoda::structured {

// For each rule, whether it derives the empty string.
std::vector<bool> NullableRules(const Grammar& grammar);

Status RemoveLeftRecursion(Grammar* grammar);

}  // namespace pagoda::structured
