#include "pagoda/structured/grammar_pruning.h"

#include <algorithm>
#include <vector>

#include "pagoda/structured/rule_fixpoint.h"

namespace pagoda::structured {

Status PruneUnproductiveRules(Grammar* grammar, const std::string& unsatisfiable_message) {
  const std::vector<bool> productive = LeastFixedPoint(*grammar, true);
  if (!productive[grammar->root]) return InvalidArgumentError(unsatisfiable_message);
  for (Grammar::Rule& rule : grammar->rules) {
    std::erase_if(rule.alternatives, [&](const Grammar::Alternative& alternative) {
      return std::any_of(alternative.begin(), alternative.end(), [&](Symbol s) {
        return s.is_rule() ? !productive[s.rule()] : grammar->byte_sets[s.byte_set()].Empty();
      });
    });
  }
  return Status::Ok();
}

}  // namespace pagoda::structured
