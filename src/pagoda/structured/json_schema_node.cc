#include "pagoda/structured/json_schema_node.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <string_view>

namespace pagoda::structured {
namespace {

bool IsAnnotation(std::string_view key) {
  static const std::set<std::string_view> kAnnotations = {
      "title", "description", "examples", "default", "$comment", "deprecated", "readOnly", "writeOnly", "$schema"};
  return kAnnotations.count(key) > 0;
}

Status Refuse(const Located& at, const std::string& what) {
  return InvalidArgumentError("JSON schema: " + what + " at " + Where(at.pointer));
}

StatusOr<uint64_t> NonNegativeInteger(const Located& keyword, const std::string& name) {
  const Json& v = *keyword.value;
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  if (v.is_number_float() && v.get<double>() >= 0 && v.get<double>() < 1.8e19 &&
      std::floor(v.get<double>()) == v.get<double>()) {
    return static_cast<uint64_t>(v.get<double>());
  }
  return Refuse(keyword, name + " must be a non-negative integer");
}

bool IsSchema(const Json& value) { return value.is_object() || value.is_boolean(); }

// Reads one schema object into a node.
class FragmentReader {
 public:
  FragmentReader(const SchemaReader& reader, int depth, SchemaNode* node)
      : reader_(reader), depth_(depth), node_(node) {}

  Status Read(const Located& schema) {
    schema_ = schema.value;
    for (const auto& [key, value] : schema.value->items()) {
      const Located keyword = schema.Child(key, value);
      if (IsAnnotation(key)) continue;
      if (key == "$id") {
        if (!schema.pointer.empty()) return Refuse(keyword, "$id inside the schema (it changes what $ref means) is not supported");
        continue;
      }
      const auto handler = Handlers().find(key);
      if (handler == Handlers().end()) return Refuse(keyword, "keyword '" + key + "' is not supported");
      node_->keywords.emplace(key, keyword.pointer);
      PAGODA_RETURN_IF_ERROR((this->*(handler->second))(keyword));
    }
    if (object_.additional) node_->object_fragments.push_back(object_);
    MergeArrayItems();
    return Status::Ok();
  }

 private:
  using Handler = Status (FragmentReader::*)(const Located&);
  static const std::map<std::string, Handler, std::less<>>& Handlers() {
    static const std::map<std::string, Handler, std::less<>> handlers = {
        {"type", &FragmentReader::Type},
        {"enum", &FragmentReader::Enum},
        {"const", &FragmentReader::Const},
        {"anyOf", &FragmentReader::Choice},
        {"oneOf", &FragmentReader::Choice},
        {"allOf", &FragmentReader::AllOf},
        {"$ref", &FragmentReader::Ref},
        {"$defs", &FragmentReader::Definitions},
        {"definitions", &FragmentReader::Definitions},
        {"properties", &FragmentReader::Properties},
        {"required", &FragmentReader::Required},
        {"additionalProperties", &FragmentReader::AdditionalProperties},
        {"items", &FragmentReader::Items},
        {"prefixItems", &FragmentReader::PrefixItems},
        {"minItems", &FragmentReader::MinItems},
        {"maxItems", &FragmentReader::MaxItems},
        {"minLength", &FragmentReader::MinLength},
        {"maxLength", &FragmentReader::MaxLength},
        {"format", &FragmentReader::Format},
        {"pattern", &FragmentReader::Pattern},
        {"minimum", &FragmentReader::Bound},
        {"maximum", &FragmentReader::Bound},
        {"exclusiveMinimum", &FragmentReader::Bound},
        {"exclusiveMaximum", &FragmentReader::Bound},
        {"multipleOf", &FragmentReader::MultipleOf},
        {"nullable", &FragmentReader::Nullable},
    };
    return handlers;
  }

  // The schema object being read says "nullable": true.
  bool NullableBeside() const {
    const auto it = schema_->find("nullable");
    return it != schema_->end() && it->is_boolean() && it->get<bool>();
  }

  static std::string KeyOf(const Located& keyword) { return keyword.pointer.substr(keyword.pointer.rfind('/') + 1); }

  Status Type(const Located& keyword) {
    static const std::map<std::string, uint8_t, std::less<>> kTypes = {
        {"null", kNullType},     {"boolean", kBooleanType}, {"integer", kIntegerType},
        {"number", kIntegerType | kFractionType}, {"string", kStringType}, {"array", kArrayType},
        {"object", kObjectType}};
    const Json& v = *keyword.value;
    std::vector<const Json*> names;
    if (v.is_string()) names.push_back(&v);
    if (v.is_array()) {
      for (const Json& name : v) names.push_back(&name);
    }
    uint8_t types = 0;
    for (const Json* name : names) {
      const auto type = name->is_string() ? kTypes.find(name->get_ref<const std::string&>()) : kTypes.end();
      if (type == kTypes.end()) return Refuse(keyword, "type must be a type name or a non-empty array of them");
      types |= type->second;
    }
    if (names.empty()) return Refuse(keyword, "type must be a type name or a non-empty array of them");
    if (NullableBeside()) types |= kNullType;
    node_->types &= types;
    node_->object_shaped |= (types & kObjectType) != 0;
    node_->array_shaped |= (types & kArrayType) != 0;
    return Status::Ok();
  }

  // Keeps the values that are also in `allowed`.
  void IntersectValues(std::vector<Located> allowed) {
    if (node_->values) {
      std::vector<Located> kept;
      for (const Located& value : *node_->values) {
        if (std::any_of(allowed.begin(), allowed.end(), [&](const Located& a) { return JsonEqual(*a.value, *value.value); })) {
          kept.push_back(value);
        }
      }
      allowed = std::move(kept);
    }
    node_->values = std::move(allowed);
  }

  Status Enum(const Located& keyword) {
    if (!keyword.value->is_array()) return Refuse(keyword, "enum must be an array");
    std::vector<Located> values;
    for (size_t i = 0; i < keyword.value->size(); ++i) values.push_back(keyword.Element(i));
    IntersectValues(std::move(values));
    return Status::Ok();
  }

  Status Const(const Located& keyword) {
    IntersectValues({keyword});
    return Status::Ok();
  }

  Status Choice(const Located& keyword) {
    if (!keyword.value->is_array() || keyword.value->empty()) {
      return Refuse(keyword, KeyOf(keyword) + " must be a non-empty array of schemas");
    }
    if (node_->choice) {
      return Refuse(keyword, KeyOf(keyword) + " beside another anyOf/oneOf (at " + Where(node_->choice->pointer) +
                                 ") is not supported");
    }
    node_->choice = keyword;
    return Status::Ok();
  }

  Status AllOf(const Located& keyword) {
    if (!keyword.value->is_array() || keyword.value->empty()) {
      return Refuse(keyword, "allOf must be a non-empty array of schemas");
    }
    for (size_t i = 0; i < keyword.value->size(); ++i) {
      PAGODA_RETURN_IF_ERROR(reader_.Read(keyword.Element(i), depth_ + 1, node_));
    }
    return Status::Ok();
  }

  Status Ref(const Located& keyword) {
    PAGODA_ASSIGN_OR_RETURN(const Located target, ResolveRef(reader_.root(), keyword));
    return reader_.Read(target, depth_ + 1, node_);
  }

  Status Definitions(const Located& keyword) {
    if (!keyword.value->is_object()) return Refuse(keyword, KeyOf(keyword) + " must be an object");
    return Status::Ok();
  }

  Status Properties(const Located& keyword) {
    if (!keyword.value->is_object()) return Refuse(keyword, "properties must be an object of schemas");
    node_->object_shaped = true;
    for (const auto& [name, schema] : keyword.value->items()) {
      const Located property = keyword.Child(name, schema);
      if (!IsSchema(schema)) return Refuse(property, "a property's schema must be an object or a boolean");
      object_.declared.insert(name);
      const auto [it, inserted] = node_->property_index.try_emplace(name, node_->properties.size());
      if (inserted) {
        node_->properties.emplace_back(name, Fragments{property});
      } else {
        node_->properties[it->second].second.push_back(property);
      }
    }
    return Status::Ok();
  }

  Status Required(const Located& keyword) {
    if (!keyword.value->is_array()) return Refuse(keyword, "required must be an array of strings");
    node_->object_shaped = true;
    for (const Json& name : *keyword.value) {
      if (!name.is_string()) return Refuse(keyword, "required must be an array of strings");
      const std::string& text = name.get_ref<const std::string&>();
      if (node_->required_set.insert(text).second) node_->required.push_back(text);
    }
    return Status::Ok();
  }

  Status AdditionalProperties(const Located& keyword) {
    if (!IsSchema(*keyword.value)) return Refuse(keyword, "additionalProperties must be an object or a boolean");
    node_->object_shaped = true;
    object_.additional = keyword;
    if (!node_->additional_properties) node_->additional_properties.emplace();
    node_->additional_properties->push_back(keyword);
    return Status::Ok();
  }

  Status Items(const Located& keyword) {
    if (keyword.value->is_array()) {
      return Refuse(keyword, "items as an array (draft 4 tuples) is not supported: use prefixItems");
    }
    if (!IsSchema(*keyword.value)) return Refuse(keyword, "items must be an object or a boolean");
    node_->array_shaped = true;
    items_ = keyword;
    return Status::Ok();
  }

  Status PrefixItems(const Located& keyword) {
    if (!keyword.value->is_array()) return Refuse(keyword, "prefixItems must be an array of schemas");
    for (const Json& item : *keyword.value) {
      if (!IsSchema(item)) return Refuse(keyword, "prefixItems must be an array of schemas");
    }
    node_->array_shaped = true;
    prefix_items_ = keyword;
    return Status::Ok();
  }

  Status MinItems(const Located& keyword) {
    PAGODA_ASSIGN_OR_RETURN(const uint64_t n, NonNegativeInteger(keyword, "minItems"));
    node_->array_shaped = true;
    node_->min_items = std::max(node_->min_items, n);
    return Status::Ok();
  }

  Status MaxItems(const Located& keyword) {
    PAGODA_ASSIGN_OR_RETURN(const uint64_t n, NonNegativeInteger(keyword, "maxItems"));
    node_->array_shaped = true;
    node_->max_items = std::min(node_->max_items.value_or(n), n);
    return Status::Ok();
  }

  Status MinLength(const Located& keyword) {
    PAGODA_ASSIGN_OR_RETURN(const uint64_t n, NonNegativeInteger(keyword, "minLength"));
    node_->min_length = std::max(node_->min_length, n);
    return Status::Ok();
  }

  Status MaxLength(const Located& keyword) {
    PAGODA_ASSIGN_OR_RETURN(const uint64_t n, NonNegativeInteger(keyword, "maxLength"));
    node_->max_length = std::min(node_->max_length.value_or(n), n);
    return Status::Ok();
  }

  // format and pattern: one string each; a second, different one is refused.
  Status SetOnce(const Located& keyword, std::optional<Located>* slot) {
    const std::string name = KeyOf(keyword);
    if (!keyword.value->is_string()) return Refuse(keyword, name + " must be a string");
    if (*slot && *(*slot)->value != *keyword.value) {
      return Refuse(keyword, name + " beside another " + name + " (at " + Where((*slot)->pointer) + ") is not supported");
    }
    *slot = keyword;
    return Status::Ok();
  }
  Status Format(const Located& keyword) { return SetOnce(keyword, &node_->format); }
  Status Pattern(const Located& keyword) { return SetOnce(keyword, &node_->pattern); }

  Status Bound(const Located& keyword) {
    const std::string name = KeyOf(keyword);
    if (!keyword.value->is_number()) return Refuse(keyword, name + " must be a number");
    auto& bounds = name == "minimum"            ? node_->minimum
                   : name == "maximum"          ? node_->maximum
                   : name == "exclusiveMinimum" ? node_->exclusive_minimum
                                                : node_->exclusive_maximum;
    bounds.push_back(keyword);
    return Status::Ok();
  }

  // Position i of the merged array takes both schemas' schema for i: its
  // prefix item, else its items (none: any value).
  void MergeArrayItems() {
    if (!prefix_items_ && !items_) return;
    const size_t mine = prefix_items_ ? prefix_items_->value->size() : 0;
    const size_t length = std::max(node_->prefix_items.size(), mine);
    std::vector<Fragments> merged(length);
    for (size_t i = 0; i < length; ++i) {
      merged[i] = i < node_->prefix_items.size() ? node_->prefix_items[i] : node_->items.value_or(Fragments{});
      if (i < mine) {
        merged[i].push_back(prefix_items_->Element(i));
      } else if (items_) {
        merged[i].push_back(*items_);
      }
    }
    node_->prefix_items = std::move(merged);
    if (items_) {
      if (!node_->items) node_->items.emplace();
      node_->items->push_back(*items_);
    }
  }

  Status MultipleOf(const Located& keyword) {
    if (!keyword.value->is_number() || !(keyword.value->get<double>() > 0)) {
      return Refuse(keyword, "multipleOf must be a number greater than 0");
    }
    node_->multiple_of.push_back(keyword);
    return Status::Ok();
  }

  Status Nullable(const Located& keyword) {
    if (!keyword.value->is_boolean()) return Refuse(keyword, "nullable must be a boolean");
    if (keyword.value->get<bool>() && !schema_->contains("type")) {
      return Refuse(keyword,
                    "nullable without \"type\" beside it (OpenAPI 3.0.3 gives it no effect there) is not "
                    "supported: write \"type\": [..., \"null\"] or anyOf with {\"type\": \"null\"}");
    }
    return Status::Ok();
  }

  const SchemaReader& reader_;
  const Json* schema_ = nullptr;
  int depth_;
  SchemaNode* node_;
  SchemaNode::ObjectFragment object_;
  std::optional<Located> prefix_items_;
  std::optional<Located> items_;
};

}  // namespace

bool IsPureRef(const Json& schema) {
  if (!schema.is_object() || !schema.contains("$ref")) return false;
  return std::all_of(schema.items().begin(), schema.items().end(),
                     [](const auto& item) { return item.key() == "$ref" || IsAnnotation(item.key()); });
}

bool JsonEqual(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return a == b;
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!JsonEqual(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [key, value] : a.items()) {
      if (!b.contains(key) || !JsonEqual(value, b.at(key))) return false;
    }
    return true;
  }
  return a == b;
}

uint8_t TypeOf(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return kNullType;
    case Json::value_t::boolean: return kBooleanType;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return kIntegerType;
    case Json::value_t::number_float: {
      const double v = value.get<double>();
      return std::isfinite(v) && std::floor(v) == v ? kIntegerType : kFractionType;
    }
    case Json::value_t::string: return kStringType;
    case Json::value_t::array: return kArrayType;
    case Json::value_t::object: return kObjectType;
    default: return 0;
  }
}

Status SchemaReader::Read(const Located& schema, int depth, SchemaNode* node) const {
  if (depth > max_depth_) {
    return Refuse(schema, "schemas nested over " + std::to_string(max_depth_) + " deep (or a $ref cycle)");
  }
  if (node->pointer.empty()) node->pointer = schema.pointer;
  if (schema.value->is_boolean()) {
    if (!schema.value->get<bool>()) node->types = 0;
    return Status::Ok();
  }
  if (!schema.value->is_object()) return Refuse(schema, "a schema must be an object or a boolean");
  return FragmentReader(*this, depth, node).Read(schema);
}

void SchemaReader::Finish(SchemaNode* node) {
  for (const SchemaNode::ObjectFragment& fragment : node->object_fragments) {
    for (auto& [name, schema] : node->properties) {
      if (fragment.declared.count(name) == 0) schema.push_back(*fragment.additional);
    }
  }
  node->object_fragments.clear();
}

}  // namespace pagoda::structured
