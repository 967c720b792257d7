#include "pagoda/structured/rule_fixpoint.h"

#include <cstdint>
#include <utility>

namespace pagoda::structured {

std::vector<bool> LeastFixedPoint(const Grammar& grammar, bool byte_sets_qualify) {
  const size_t n = grammar.rules.size();
  // waiting[r][a]: rule symbols of alternative a of rule r not marked yet
  // (-1: the alternative can never qualify).
  std::vector<std::vector<int32_t>> waiting(n);
  // users[r]: each (rule, alternative) that uses rule r, once per use.
  std::vector<std::vector<std::pair<int32_t, int32_t>>> users(n);
  std::vector<int32_t> ready;
  for (size_t r = 0; r < n; ++r) {
    const auto& alternatives = grammar.rules[r].alternatives;
    waiting[r].assign(alternatives.size(), 0);
    for (size_t a = 0; a < alternatives.size(); ++a) {
      for (const Symbol symbol : alternatives[a]) {
        if (symbol.is_rule()) {
          ++waiting[r][a];
          users[symbol.rule()].emplace_back(static_cast<int32_t>(r), static_cast<int32_t>(a));
        } else if (!byte_sets_qualify || grammar.byte_sets[symbol.byte_set()].Empty()) {
          waiting[r][a] = -1;
          break;
        }
      }
      if (waiting[r][a] == 0) ready.push_back(static_cast<int32_t>(r));
    }
  }
  std::vector<bool> marked(n, false);
  while (!ready.empty()) {
    const int32_t rule = ready.back();
    ready.pop_back();
    if (marked[rule]) continue;
    marked[rule] = true;
    for (const auto& [user, alternative] : users[rule]) {
      int32_t& count = waiting[user][alternative];
      if (count > 0 && --count == 0 && !marked[user]) ready.push_back(user);
    }
  }
  return marked;
}

}  // namespace pagoda::structured
