#include "pagoda/structured/left_recursion.h"

#include <string>
#include <utility>

#include "pagoda/structured/rule_fixpoint.h"

namespace pagoda::structured {
namespace {

// Rewrites rule `id`'s alternatives that start with itself.
void RemoveDirectLeftRecursion(Grammar* grammar, int32_t id) {
  std::vector<Grammar::Alternative> recursive;  // x of each A ::= A x
  std::vector<Grammar::Alternative> others;
  for (Grammar::Alternative& alternative : grammar->rules[id].alternatives) {
    if (!alternative.empty() && alternative[0] == Symbol::Rule(id)) {
      if (alternative.size() > 1) recursive.emplace_back(alternative.begin() + 1, alternative.end());
    } else {
      others.push_back(std::move(alternative));
    }
  }
  if (recursive.empty()) {
    grammar->rules[id].alternatives = std::move(others);
    return;
  }
  const auto tail = static_cast<int32_t>(grammar->rules.size());
  grammar->rules.push_back({grammar->rules[id].name + "_tail", {}});
  for (Grammar::Alternative& x : recursive) {
    x.push_back(Symbol::Rule(tail));
    grammar->rules[tail].alternatives.push_back(std::move(x));
  }
  grammar->rules[tail].alternatives.emplace_back();
  for (Grammar::Alternative& y : others) y.push_back(Symbol::Rule(tail));
  grammar->rules[id].alternatives = std::move(others);
}

// The rules each rule can start with: those at the front of an
// alternative, or behind only nullable symbols.
std::vector<std::vector<int32_t>> LeftEdges(const Grammar& grammar) {
  const std::vector<bool> nullable = NullableRules(grammar);
  std::vector<std::vector<int32_t>> edges(grammar.rules.size());
  for (size_t id = 0; id < grammar.rules.size(); ++id) {
    for (const Grammar::Alternative& alternative : grammar.rules[id].alternatives) {
      for (Symbol symbol : alternative) {
        if (!symbol.is_rule()) break;
        edges[id].push_back(symbol.rule());
        if (!nullable[symbol.rule()]) break;
      }
    }
  }
  return edges;
}

// The rules of a cycle of left edges, "a -> b -> a", or "" if none.
std::string FindLeftCycle(const Grammar& grammar) {
  const auto edges = LeftEdges(grammar);
  enum Color { kWhite, kGrey, kBlack };
  std::vector<Color> color(grammar.rules.size(), kWhite);
  std::vector<std::pair<int32_t, size_t>> stack;  // (rule, next edge)
  for (size_t start = 0; start < grammar.rules.size(); ++start) {
    if (color[start] != kWhite) continue;
    stack.emplace_back(static_cast<int32_t>(start), 0);
    color[start] = kGrey;
    while (!stack.empty()) {
      auto& [rule, next] = stack.back();
      if (next == edges[rule].size()) {
        color[rule] = kBlack;
        stack.pop_back();
        continue;
      }
      const int32_t to = edges[rule][next++];
      if (color[to] == kGrey) {
        std::string cycle;
        size_t i = 0;
        while (stack[i].first != to) ++i;
        for (; i < stack.size(); ++i) cycle += grammar.rules[stack[i].first].name + " -> ";
        return cycle + grammar.rules[to].name;
      }
      if (color[to] == kWhite) {
        color[to] = kGrey;
        stack.emplace_back(to, 0);
      }
    }
  }
  return "";
}

}  // namespace

std::vector<bool> NullableRules(const Grammar& grammar) { return LeastFixedPoint(grammar, false); }

Status RemoveLeftRecursion(Grammar* grammar) {
  const size_t original = grammar->rules.size();
  for (size_t id = 0; id < original; ++id) RemoveDirectLeftRecursion(grammar, static_cast<int32_t>(id));
  const std::string cycle = FindLeftCycle(*grammar);
  if (cycle.empty()) return Status::Ok();
  return InvalidArgumentError("grammar: left recursion through " + cycle +
                              " is not supported (only a rule that starts with itself can be rewritten)");
}

}  // namespace pagoda::structured
