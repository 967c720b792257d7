// Rules that derive no finite text (a schema's property that must hold an
// object that must hold itself, forever) would let generation start down
// a path it can never finish. Pruning drops every alternative that uses
// one, so that each state the matcher reaches can still be completed.
#pragma once

#include "pagoda/base/status.h"
#include "pagoda/structured/grammar.h"

namespace pagoda::structured {

// Removes the alternatives that use a rule deriving no finite text;
// INVALID_ARGUMENT if the root is such a rule (the grammar has no sentence).
Status PruneUnproductiveRules(Grammar* grammar);

}  // namespace pagoda::structured
