// Objects: the declared properties in schema order, each required one
// present and each optional one present or not, then (where allowed) any
// number of additional properties whose keys are none of the declared
// names. Written as two chains of rules, one per property: first_i (no
// member written yet) and more_i (some written, so the next needs a comma).
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

StatusOr<ExprPtr> JsonSchemaConverter::AdditionalMember(const SchemaNode& node, int depth, const std::string& hint) {
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
    PAGODA_ASSIGN_OR_RETURN(const ExprPtr additional_value, AdditionalMember(node, depth, hint));
    std::vector<std::pair<std::string, Fragments>> declared = node.properties;
    std::vector<std::string> names;
    for (const auto& property : declared) names.push_back(property.first);
    // Required but not declared: additionalProperties' schema, in the order of `required`.
    std::vector<std::string> undeclared;
    for (const std::string& name : node.required) {
      if (std::find(names.begin(), names.end(), name) == names.end()) undeclared.push_back(name);
    }
    if (!undeclared.empty() && IsNever(additional_value)) return Never();

    std::vector<ObjectMember> members;
    const auto add_member = [&](const std::string& name, const ExprPtr& value) {
      const bool required = std::find(node.required.begin(), node.required.end(), name) != node.required.end();
      members.push_back({Named(hint + "." + SanitizeHint(name), json_.Member(Literal(CanonicalJsonString(name)), value)),
                         required});
    };
    for (const auto& [name, schema] : declared) {
      PAGODA_ASSIGN_OR_RETURN(const ExprPtr value, Convert(schema, depth, hint + "." + SanitizeHint(name)));
      if (IsNever(value)) {
        if (std::find(node.required.begin(), node.required.end(), name) != node.required.end()) return Never();
        continue;
      }
      add_member(name, value);
    }
    for (const std::string& name : undeclared) {
      add_member(name, additional_value);
      names.push_back(name);
    }

    ExprPtr more = Empty();   // after the last declared member, some written
    ExprPtr first = Empty();  // likewise, none written
    if (!IsNever(additional_value)) {
      const NamedRule named = [this](const std::string& h, ExprPtr body) { return Named(h, std::move(body)); };
      const ExprPtr key = KeyExcept(names, hint, named, &json_);
      const ExprPtr member = Named(hint + ".additional", json_.Member(key, additional_value));
      more = Named(hint + ".more", Star(Sequence({json_.Comma(), member})));
      first = Optional(Sequence({member, more}));
    }
    for (size_t i = members.size(); i-- > 0;) {
      const ObjectMember& m = members[i];
      const ExprPtr take_more = Sequence({json_.Comma(), m.rule, more});
      const ExprPtr take_first = Sequence({m.rule, more});
      first = Named(hint + ".first" + std::to_string(i), m.required ? take_first : Choice({take_first, first}));
      more = Named(hint + ".more" + std::to_string(i), m.required ? take_more : Choice({take_more, more}));
    }
    return SequenceOf({json_.ObjectOpen(), first, Literal("}")});
  });
}

}  // namespace pagoda::structured
