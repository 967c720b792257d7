// Collects named rules as expressions and lowers them into a Grammar:
// nested choices and repeats become auxiliary rules (once per expression
// node, however many places share it), byte sets are shared,
// direct left recursion is rewritten into right recursion, and what cannot
// be (indirect left recursion), undefined rules and grammars over the size
// limit are refused with INVALID_ARGUMENT naming the rule.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
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

  // What Build says when `root` derives no finite text, in the front end's
  // words (a JSON schema nothing satisfies, an empty regex).
  void SetUnsatisfiableMessage(std::string message) { unsatisfiable_message_ = std::move(message); }

  // The grammar of the rules reachable from `root`; rules not reachable are
  // left out, and so are alternatives that can never be completed (see
  // grammar_pruning.h).
  StatusOr<Grammar> Build(const std::string& root, const GrammarLimits& limits = {}) const;

 private:
  std::map<std::string, ExprPtr> rules_;
  std::vector<std::string> defined_twice_;
  std::string unsatisfiable_message_;
};

}  // namespace pagoda::structured
