#include "pagoda/structured/ebnf.h"

#include <map>
#include <utility>

#include "pagoda/structured/ebnf_parser.h"
#include "pagoda/structured/grammar_build_error.h"

namespace pagoda::structured {
namespace {

// GrammarBuilder's refusal, placed at the first rule of the text that it
// names.
Status PlaceBuildError(const Status& status, const std::map<std::string, const EbnfRule*>& rules) {
  if (status.code() != StatusCode::kInvalidArgument) return status;
  const BuilderRefusal refusal =
      ReadBuilderRefusal(status, [&](const std::string& name) { return rules.contains(name); });
  return EbnfError(refusal.rule.empty() ? EbnfPosition{} : rules.at(refusal.rule)->position, refusal.what);
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
