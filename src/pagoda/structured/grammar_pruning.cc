#include "pagoda/structured/grammar_pruning.h"

#include <algorithm>
#include <vector>

#include "pagoda/structured/rule_fixpoint.h"

namespace pagoda::structured {

Status PruneUnproductiveRules(Grammar* grammar) {
  const std::vector<bool> productive = LeastFixedPoint(*grammar, true);
  if (!productive[grammar->root]) {
    return InvalidArgumentError("grammar: rule '" + grammar->rules[grammar->root].name +
                                "' derives no finite text (nothing satisfies it)");
  }
  for (Grammar::Rule& rule : grammar->rules) {
    std::erase_if(rule.alternatives, [&productive](const Grammar::Alternative& alternative) {
      return std::any_of(alternative.begin(), alternative.end(),
                         [&productive](Symbol s) { return s.is_rule() && !productive[s.rule()]; });
    });
  }
  return Status::Ok();
}

}  // namespace pagoda::structured
