// Keys of additional properties: JSON strings, in any spelling (raw or
// escaped), that decode to none of the declared property names, so that
// a declared property never slips in under additionalProperties' schema.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "pagoda/structured/expr.h"
#include "pagoda/structured/json_grammar_primitives.h"

namespace pagoda::structured {

// Defines a rule for `body` under a name made from `hint`; refers to it.
using NamedRule = std::function<ExprPtr(const std::string& hint, ExprPtr body)>;

// A JSON string (quotes included) whose value is none of `names` (UTF-8):
// a trie of the names, one rule per node, each allowing the string to end
// (unless a name ends there), go on along the trie, or leave it for any
// other character and then anything.
ExprPtr KeyExcept(const std::vector<std::string>& names, const std::string& hint, const NamedRule& named,
                  JsonGrammarPrimitives* json);

}  // namespace pagoda::structured
