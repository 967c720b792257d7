// Objects: the declared properties in schema order, each required one
// present and each optional one present or not, then (where allowed) any
// number of additional properties whose keys are none of the declared
// names. Written as two chains of rules, one pair per property.
#include <algorithm>
#include <utility>

#include "pagoda/structured/json_object_keys.h"
#include "pagoda/structured/json_schema_converter.h"
#include "pagoda/structured/json_string_chars.h"

namespace pagoda::structured {
namespace {

struct ObjectMember {
  ExprPtr rule;  // key ws ':' ws value ws
  bool required;
};

}  // namespace

StatusOr<ExprPtr> JsonSchemaConverter::AdditionalValue(const SchemaNode& node, int depth, const std::string& hint) {
  ExprPtr value;
  if (node.additional_properties) {
    PAGODA_ASSIGN_OR_RETURN(value, Convert(*node.additional_properties, depth, hint + ".additional"));
  } else {
    value = options_.strict ? Never() : json_.AnyValue();
  }
  return value;
}

StatusOr<ExprPtr> JsonSchemaConverter::ConvertObject(const SchemaNode& node, int depth, const std::string& hint) {
  return Guarded([&]() -> StatusOr<ExprPtr> {
    PAGODA_ASSIGN_OR_RETURN(const ExprPtr additional_value, AdditionalValue(node, depth, hint));
    std::vector<std::string> names;
    for (const auto& property : node.properties) names.push_back(property.first);
    // Required but not declared: additionalProperties' schema, in the order of `required`.
    std::vector<std::string> undeclared;
    for (const std::string& name : node.required) {
      if (node.property_index.count(name) == 0) undeclared.push_back(name);
    }
    if (!undeclared.empty() && IsNever(additional_value)) return Never();

    std::vector<ObjectMember> members;
    const auto add_member = [&](const std::string& name, const ExprPtr& value) {
      members.push_back({Named(hint + "." + SanitizeHint(name), json_.Member(Literal(CanonicalJsonString(name)), value)),
                         node.required_set.count(name) > 0});
    };
    for (const auto& [name, schema] : node.properties) {
      PAGODA_ASSIGN_OR_RETURN(const ExprPtr value, Convert(schema, depth, hint + "." + SanitizeHint(name)));
      if (IsNever(value)) {
        if (node.required_set.count(name) > 0) return Never();
        continue;
      }
      add_member(name, value);
    }
    for (const std::string& name : undeclared) {
      add_member(name, additional_value);
      names.push_back(name);
    }

    // next_i: a comma (or the brace) was just written; a member from
    // position i on follows. more_i: a member was written; the object may
    // end if nothing from i on is required, or go on after a comma. The
    // comma comes before the choice of the next member, so each member the
    // choice holds costs the matcher one parse stack, not one per comma.
    ExprPtr next = Never();
    ExprPtr more = Empty();
    if (!IsNever(additional_value)) {
      const NamedRule named = [this](const std::string& h, ExprPtr body) { return Named(h, std::move(body)); };
      const ExprPtr key = KeyExcept(names, hint, named, &json_);
      const ExprPtr member = Named(hint + ".additional", json_.Member(key, additional_value));
      more = Named(hint + ".more", Star(Sequence({json_.Comma(), member})));
      next = Named(hint + ".next", Sequence({member, more}));
    }
    bool rest_optional = true;  // nothing from position i on is required
    for (size_t i = members.size(); i-- > 0;) {
      const ObjectMember& m = members[i];
      rest_optional = rest_optional && !m.required;
      next = Named(hint + ".next" + std::to_string(i),
                   ChoiceOf({Sequence({m.rule, more}), m.required ? Never() : next}));
      more = Named(hint + ".more" + std::to_string(i),
                   ChoiceOf({rest_optional ? Empty() : Never(), SequenceOf({json_.Comma(), next})}));
    }
    const ExprPtr first = ChoiceOf({rest_optional ? Empty() : Never(), next});
    return SequenceOf({json_.ObjectOpen(), first, Literal("}")});
  });
}

}  // namespace pagoda::structured
