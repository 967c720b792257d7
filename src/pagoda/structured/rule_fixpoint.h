// Rule properties that hold once some alternative is made only of symbols
// that have them (nullable: derives ""; productive: derives some text), as
// least fixed points computed in time linear in the grammar's size. Sweeping
// the rules until nothing changes would take one sweep per rule of a chain
// (an object schema's properties), quadratic in all.
#pragma once

#include <vector>

#include "pagoda/structured/grammar.h"

namespace pagoda::structured {

// The rules with an alternative whose every symbol is a marked rule, or a
// byte set when `byte_sets_qualify` (an empty byte set never qualifies: it
// matches no byte).
std::vector<bool> LeastFixedPoint(const Grammar& grammar, bool byte_sets_qualify);

}  // namespace pagoda::structured
