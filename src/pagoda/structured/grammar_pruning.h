// Rules that derive no finite text (a schema's property that must hold an
// object that must hold itself, forever; a regex branch over an empty
// character class) would let generation start down a path it can never
// finish. Pruning drops every alternative that uses one, or an empty byte
// set, so that each state the matcher reaches can still be completed.
#pragma once

#include <string>

#include "pagoda/base/status.h"
#include "pagoda/structured/grammar.h"

namespace pagoda::structured {

// Removes the alternatives that use a rule deriving no finite text or an
// empty byte set; INVALID_ARGUMENT with `unsatisfiable_message` if the root
// is such a rule (the grammar has no sentence).
Status PruneUnproductiveRules(Grammar* grammar, const std::string& unsatisfiable_message);

}  // namespace pagoda::structured
