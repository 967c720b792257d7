// Collects named rules as expressions and lowers them into a Grammar:
// nested choices and repeats become auxiliary rules, byte sets are shared,
// direct left recursion is rewritten into right recursion, and what cannot
// be (indirect left recursion), undefined rules and grammars over the size
// limit are refused with INVALID_ARGUMENT naming the rule.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "pagoda/base/status.h"
#include "pagoda/structured/expr.h"
#include "pagoda/structured/grammar.h"

namespace pagoda::structured {

struct GrammarLimits {
  // Symbols over every alternative after lowering, so that a grammar that
  // would be too large is refused in bounded time and memory.
  size_t max_symbols = size_t{1} << 20;
  // Expressions nested deeper than this are refused (the lowering recurses).
  int max_depth = 1000;
};

class GrammarBuilder {
 public:
  // Rule `name` is `body`. Defining a name twice makes Build fail.
  void Define(const std::string& name, ExprPtr body);
  bool IsDefined(const std::string& name) const { return rules_.count(name) > 0; }
  // `base` if no rule has that name yet, else the first free "base_N".
  std::string FreshName(const std::string& base) const;

  // The grammar of the rules reachable from `root`; rules not reachable are
  // left out.
  StatusOr<Grammar> Build(const std::string& root, const GrammarLimits& limits = {}) const;

 private:
  std::map<std::string, ExprPtr> rules_;
  std::vector<std::string> defined_twice_;
};

}  // namespace pagoda::structured
