// The JSON Schema converter's inside (json_schema_to_grammar.h is its
// interface): schema nodes to grammar expressions, one file per kind of
// value (json_schema_objects.cc, json_schema_arrays.cc,
// json_schema_scalars.cc).
#pragma once

#include <map>
#include <set>
#include <string>

#include "pagoda/base/status.h"
#include "pagoda/structured/grammar_builder.h"
#include "pagoda/structured/json_grammar_primitives.h"
#include "pagoda/structured/json_schema_node.h"
#include "pagoda/structured/json_schema_to_grammar.h"

namespace pagoda::structured {

// What no value satisfies (a false schema, an empty enum): the empty choice.
ExprPtr Never();
bool IsNever(const ExprPtr& expr);
// `children` in order, Never if one is.
ExprPtr SequenceOf(std::vector<ExprPtr> children);
// `children` but the Never ones; Never if none is left.
ExprPtr ChoiceOf(std::vector<ExprPtr> children);

// Letters and digits of `text` (others as '-'), for rule names: '_' is
// the builder's separator for its own rules.
std::string SanitizeHint(const std::string& text);

class JsonSchemaConverter {
 public:
  JsonSchemaConverter(const Json& root, const JsonSchemaOptions& options, GrammarBuilder* builder);

  // Defines rule "root": the whole document's schema.
  Status ConvertRoot();

 private:
  // `schema` is a list of fragments that must all hold; `hint` names rules.
  StatusOr<ExprPtr> Convert(const Fragments& schema, int depth, const std::string& hint);
  StatusOr<ExprPtr> ConvertRef(const Located& ref, int depth);
  // A rule for the schema at `target`, so that $refs to it (and recursion)
  // share it.
  StatusOr<ExprPtr> ConvertTarget(const Located& target, const std::string& rule, int depth);
  StatusOr<ExprPtr> ConvertNode(const SchemaNode& node, int depth, const std::string& hint);
  StatusOr<ExprPtr> ConvertChoice(const SchemaNode& node, int depth, const std::string& hint);
  StatusOr<ExprPtr> ConvertValues(const SchemaNode& node, int depth);
  StatusOr<ExprPtr> ConvertTypes(const SchemaNode& node, int depth, const std::string& hint);
  // json_schema_objects.cc
  StatusOr<ExprPtr> ConvertObject(const SchemaNode& node, int depth, const std::string& hint);
  // additionalProperties' schema; absent: none in strict mode, else any value.
  StatusOr<ExprPtr> AdditionalValue(const SchemaNode& node, int depth, const std::string& hint);
  // json_schema_arrays.cc
  StatusOr<ExprPtr> ConvertArray(const SchemaNode& node, int depth, const std::string& hint);
  // json_schema_scalars.cc
  StatusOr<ExprPtr> ConvertString(const SchemaNode& node);
  StatusOr<ExprPtr> ConvertNumber(const SchemaNode& node);
  StatusOr<uint64_t> MultipleOf(const SchemaNode& node) const;
  StatusOr<ExprPtr> ValueLiteral(const Json& value, int depth);

  // Converts the inside of an object or array: a $ref cycle through it
  // reads input, so it is fine there.
  template <typename F>
  auto Guarded(F convert) {
    std::set<std::string> outer;
    outer.swap(unguarded_);
    auto result = convert();
    unguarded_.swap(outer);
    return result;
  }
  // A fresh rule name from `hint`.
  std::string NewRuleName(const std::string& hint);
  // Defines a fresh rule for `body` and refers to it.
  ExprPtr Named(const std::string& hint, ExprPtr body);
  Status Refuse(const std::string& pointer, const std::string& what) const;

  const Json& root_;
  const JsonSchemaOptions& options_;
  GrammarBuilder* builder_;
  JsonGrammarPrimitives json_;
  SchemaReader reader_;
  std::map<std::string, std::string> ref_rules_;  // target pointer -> rule
  std::set<std::string> never_rules_;             // rules that match nothing
  std::set<std::string> unguarded_;  // $ref targets entered since the last '{' or '['
  std::set<std::string> names_;
};

}  // namespace pagoda::structured
