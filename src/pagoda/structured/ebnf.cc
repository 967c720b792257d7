#include "pagoda/structured/ebnf.h"

#include <map>
#include <utility>

#include "pagoda/structured/ebnf_parser.h"

namespace pagoda::structured {
namespace {

// The rule of the text that a GrammarBuilder rule name stands for: the name
// itself, or an auxiliary rule "name_N" made while lowering `name`.
const EbnfRule* SourceRule(std::string name, const std::map<std::string, const EbnfRule*>& rules) {
  for (;;) {
    if (auto it = rules.find(name); it != rules.end()) return it->second;
    const size_t underscore = name.rfind('_');
    if (underscore == std::string::npos || underscore + 1 == name.size() ||
        name.find_first_not_of("0123456789", underscore + 1) != std::string::npos) {
      return nullptr;
    }
    name.resize(underscore);
  }
}

// GrammarBuilder's refusal ("grammar: ... 'rule' ..." or "... through a -> b
// -> a ..."), placed at the first rule of the text that it names.
Status PlaceBuildError(const Status& status, const std::map<std::string, const EbnfRule*>& rules) {
  std::string what = status.message();
  if (what.starts_with("grammar: ")) what.erase(0, 9);
  const EbnfRule* rule = nullptr;
  if (const size_t quote = what.find('\''); quote != std::string::npos) {
    const size_t end = what.find('\'', quote + 1);
    if (end != std::string::npos) rule = SourceRule(what.substr(quote + 1, end - quote - 1), rules);
  }
  if (const size_t through = what.find(" through "); rule == nullptr && through != std::string::npos) {
    size_t at = through + 9;
    while (rule == nullptr && at < what.size()) {
      const size_t end = what.find_first_of(" ", at);
      const std::string name = what.substr(at, end == std::string::npos ? std::string::npos : end - at);
      rule = SourceRule(name, rules);
      if (end == std::string::npos || what.compare(end, 4, " -> ") != 0) break;
      at = end + 4;
    }
  }
  if (status.code() != StatusCode::kInvalidArgument) return status;
  return EbnfError(rule != nullptr ? rule->position : EbnfPosition{}, what);
}

}  // namespace

StatusOr<Grammar> EbnfToGrammar(std::string_view text, const EbnfOptions& options) {
  PAGODA_ASSIGN_OR_RETURN(EbnfSyntax syntax, ParseEbnf(text, options));

  std::map<std::string, const EbnfRule*> rules;
  for (const EbnfRule& rule : syntax.rules) {
    const auto [it, inserted] = rules.emplace(rule.name, &rule);
    if (!inserted) {
      const EbnfPosition first = it->second->position;
      return EbnfError(rule.position, "rule '" + rule.name + "' is defined twice (first at line " +
                                          std::to_string(first.line) + ", column " + std::to_string(first.column) +
                                          ")");
    }
  }
  for (const EbnfReference& reference : syntax.references) {
    if (!rules.contains(reference.name)) {
      return EbnfError(reference.position, "rule '" + reference.name + "' is used but not defined");
    }
  }
  if (!rules.contains(options.root_rule)) {
    if (syntax.rules.empty()) {
      return EbnfError({}, "the grammar has no rules: it needs '" + options.root_rule + " ::= ...'");
    }
    return EbnfError(syntax.rules[0].position, "no rule '" + options.root_rule + "', where matching starts: define '" +
                                                   options.root_rule + " ::= ...'");
  }

  GrammarBuilder builder;
  for (const EbnfRule& rule : syntax.rules) builder.Define(rule.name, rule.body);
  auto grammar = builder.Build(options.root_rule, options.limits);
  if (!grammar.ok()) return PlaceBuildError(grammar.status(), rules);
  return grammar;
}

}  // namespace pagoda::structured
