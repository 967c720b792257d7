#include "pagoda/structured/grammar_pruning.h"

#include <algorithm>
#include <vector>

namespace pagoda::structured {
namespace {

// Rules that derive some finite text: least fixed point.
std::vector<bool> ProductiveRules(const Grammar& grammar) {
  std::vector<bool> productive(grammar.rules.size(), false);
  const auto derives = [&productive](const Grammar::Alternative& alternative) {
    return std::all_of(alternative.begin(), alternative.end(),
                       [&productive](Symbol s) { return !s.is_rule() || productive[s.rule()]; });
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t id = 0; id < grammar.rules.size(); ++id) {
      if (productive[id]) continue;
      const auto& alternatives = grammar.rules[id].alternatives;
      if (std::any_of(alternatives.begin(), alternatives.end(), derives)) productive[id] = changed = true;
    }
  }
  return productive;
}

}  // namespace

Status PruneUnproductiveRules(Grammar* grammar) {
  const std::vector<bool> productive = ProductiveRules(*grammar);
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
