#include "pagoda/structured/json_schema_converter.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace pagoda::structured {
namespace {

// Keywords that only combine schemas or restrict the type: enum and const
// may stand beside these and nothing else.
bool CombinesOnly(const std::string& keyword) {
  return keyword == "type" || keyword == "enum" || keyword == "const" || keyword == "allOf" || keyword == "$ref" ||
         keyword == "$defs" || keyword == "definitions" || keyword == "nullable";
}

// The node constrains no type: any value at all.
bool Unconstrained(const SchemaNode& node) {
  return node.types == kAllTypes && !node.object_shaped && !node.array_shaped && node.min_length == 0 &&
         !node.max_length && !node.format && !node.pattern && node.minimum.empty() && node.maximum.empty() &&
         node.exclusive_minimum.empty() && node.exclusive_maximum.empty() && node.multiple_of.empty();
}

// The node with every fragment's additionalProperties applied to the
// properties that fragment does not declare.
SchemaNode Finished(SchemaNode node) {
  SchemaReader::Finish(&node);
  return node;
}

}  // namespace

std::string SanitizeHint(const std::string& text) {
  std::string out;
  for (const char c : text.substr(0, 32)) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

ExprPtr Never() { return Choice({}); }

bool IsNever(const ExprPtr& expr) { return expr->kind == Expr::Kind::kChoice && expr->children.empty(); }

ExprPtr SequenceOf(std::vector<ExprPtr> children) {
  for (const ExprPtr& child : children) {
    if (IsNever(child)) return Never();
  }
  return children.size() == 1 ? children[0] : Sequence(std::move(children));
}

ExprPtr ChoiceOf(std::vector<ExprPtr> children) {
  std::erase_if(children, [](const ExprPtr& child) { return IsNever(child); });
  return children.size() == 1 ? children[0] : Choice(std::move(children));
}

JsonSchemaConverter::JsonSchemaConverter(const Json& root, const JsonSchemaOptions& options, GrammarBuilder* builder)
    : root_(root),
      options_(options),
      builder_(builder),
      json_(builder, options.layout()),
      reader_(root, options.max_depth) {}

Status JsonSchemaConverter::Refuse(const std::string& pointer, const std::string& what) const {
  return InvalidArgumentError("JSON schema: " + what + " at " + Where(pointer));
}

std::string JsonSchemaConverter::NewRuleName(const std::string& hint) {
  std::string name = hint;
  for (int n = 2; names_.count(name) > 0; ++n) name = hint + "~" + std::to_string(n);
  names_.insert(name);
  return name;
}

ExprPtr JsonSchemaConverter::Named(const std::string& hint, ExprPtr body) {
  if (IsNever(body)) return body;
  const std::string name = NewRuleName(hint);
  builder_->Define(name, std::move(body));
  return RuleRef(name);
}

Status JsonSchemaConverter::ConvertRoot() {
  PAGODA_ASSIGN_OR_RETURN(const ExprPtr root, ConvertTarget({&root_, ""}, "root", 0));
  if (IsNever(root)) {
    return InvalidArgumentError(std::string("JSON schema: no JSON value satisfies the schema") +
                                (options_.strict ? " (in strict mode an object schema allows only the properties it "
                                                   "declares, and an array schema only its prefixItems, unless "
                                                   "additionalProperties or items say otherwise)"
                                                 : ""));
  }
  return Status::Ok();
}

StatusOr<ExprPtr> JsonSchemaConverter::Convert(const Fragments& schema, int depth, const std::string& hint) {
  if (schema.empty()) return json_.AnyValue();
  if (schema.size() == 1 && IsPureRef(*schema[0].value)) return ConvertRef(schema[0].Member("$ref"), depth + 1);
  SchemaNode node;
  for (const Located& fragment : schema) PAGODA_RETURN_IF_ERROR(reader_.Read(fragment, depth + 1, &node));
  return ConvertNode(node, depth + 1, hint);
}

StatusOr<ExprPtr> JsonSchemaConverter::ConvertRef(const Located& ref, int depth) {
  PAGODA_ASSIGN_OR_RETURN(const Located target, ResolveRef(root_, ref));
  if (unguarded_.count(target.pointer) > 0) {
    return Refuse(ref.pointer, "$ref cycle that reads no input first (the schema would recurse forever)");
  }
  if (const auto it = ref_rules_.find(target.pointer); it != ref_rules_.end()) {
    return never_rules_.count(it->second) > 0 ? Never() : RuleRef(it->second);
  }
  const std::string token = target.pointer.substr(target.pointer.rfind('/') + 1);
  return ConvertTarget(target, NewRuleName("def." + SanitizeHint(token)), depth);
}

StatusOr<ExprPtr> JsonSchemaConverter::ConvertTarget(const Located& target, const std::string& rule, int depth) {
  names_.insert(rule);
  ref_rules_[target.pointer] = rule;
  unguarded_.insert(target.pointer);
  auto body = Convert({target}, depth, rule);
  unguarded_.erase(target.pointer);
  if (!body.ok()) return body.status();
  if (IsNever(*body)) never_rules_.insert(rule);
  builder_->Define(rule, *body);
  return IsNever(*body) ? Never() : RuleRef(rule);
}

StatusOr<ExprPtr> JsonSchemaConverter::ConvertNode(const SchemaNode& node, int depth, const std::string& hint) {
  if (node.choice) return ConvertChoice(node, depth, hint);
  if (node.values) return ConvertValues(node, depth);
  return ConvertTypes(node, depth, hint);
}

StatusOr<ExprPtr> JsonSchemaConverter::ConvertChoice(const SchemaNode& node, int depth, const std::string& hint) {
  const Located& choice = *node.choice;
  const std::string keyword = choice.pointer.substr(choice.pointer.rfind('/') + 1);
  // Alone, each branch is its own schema; with siblings, each branch is
  // intersected with them.
  const bool alone = std::all_of(node.keywords.begin(), node.keywords.end(), [](const auto& k) {
    return k.first == "anyOf" || k.first == "oneOf" || k.first == "$defs" || k.first == "definitions";
  });
  std::vector<ExprPtr> branches;
  for (size_t i = 0; i < choice.value->size(); ++i) {
    const std::string branch_hint = hint + "." + keyword + std::to_string(i);
    if (alone) {
      PAGODA_ASSIGN_OR_RETURN(ExprPtr branch, Convert({choice.Element(i)}, depth, branch_hint));
      branches.push_back(std::move(branch));
      continue;
    }
    SchemaNode merged = node;
    merged.choice.reset();
    PAGODA_RETURN_IF_ERROR(reader_.Read(choice.Element(i), depth + 1, &merged));
    PAGODA_ASSIGN_OR_RETURN(ExprPtr branch, ConvertNode(merged, depth + 1, branch_hint));
    branches.push_back(std::move(branch));
  }
  return ChoiceOf(std::move(branches));
}

StatusOr<ExprPtr> JsonSchemaConverter::ConvertValues(const SchemaNode& node, int depth) {
  for (const auto& [keyword, pointer] : node.keywords) {
    if (!CombinesOnly(keyword)) return Refuse(pointer, "keyword '" + keyword + "' beside enum or const is not supported");
  }
  std::vector<ExprPtr> values;
  for (const Located& value : *node.values) {
    if ((TypeOf(*value.value) & node.types) == 0) continue;
    PAGODA_ASSIGN_OR_RETURN(ExprPtr literal, ValueLiteral(*value.value, depth));
    values.push_back(std::move(literal));
  }
  return ChoiceOf(std::move(values));
}

StatusOr<ExprPtr> JsonSchemaConverter::ConvertTypes(const SchemaNode& unfinished, int depth, const std::string& hint) {
  const SchemaNode node = Finished(unfinished);
  if (Unconstrained(node)) return json_.AnyValue();
  std::vector<ExprPtr> branches;
  if (node.types & kNullType) branches.push_back(json_.Null());
  if (node.types & kBooleanType) branches.push_back(json_.Boolean());
  if (node.types & (kIntegerType | kFractionType)) {
    PAGODA_ASSIGN_OR_RETURN(ExprPtr number, ConvertNumber(node));
    branches.push_back(std::move(number));
  }
  if (node.types & kStringType) {
    PAGODA_ASSIGN_OR_RETURN(ExprPtr string, ConvertString(node));
    branches.push_back(std::move(string));
  }
  if (node.types & kArrayType) {
    PAGODA_ASSIGN_OR_RETURN(ExprPtr array, node.array_shaped ? ConvertArray(node, depth, hint) : json_.AnyArray());
    branches.push_back(std::move(array));
  }
  if (node.types & kObjectType) {
    PAGODA_ASSIGN_OR_RETURN(ExprPtr object, node.object_shaped ? ConvertObject(node, depth, hint) : json_.AnyObject());
    branches.push_back(std::move(object));
  }
  return ChoiceOf(std::move(branches));
}

}  // namespace pagoda::structured
