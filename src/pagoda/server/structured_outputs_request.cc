#include "pagoda/server/structured_outputs_request.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <string>
#include <vector>

namespace pagoda::server {
namespace {

using OrderedJson = nlohmann::ordered_json;

// Collects one constraint, remembering which request field gave it.
class ConstraintReader {
 public:
  ConstraintReader(FieldReader& r, StructuredOutputsParams& out) : r_(r), out_(out) {}

  // Claims the constraint for `field`; false (and an error) if another
  // field claimed it first.
  bool Claim(const std::string& field) {
    if (!source_.empty()) {
      r_.Fail(field, fmt::format("'{}' cannot be combined with '{}': give one structured-output constraint", field,
                                 source_));
      return false;
    }
    source_ = field;
    return true;
  }

  // A schema given as an object, or as a JSON string.
  void Json(const std::string& field, const OrderedJson& v) {
    if (!v.is_object() && !v.is_string() && !v.is_boolean()) {
      return r_.Fail(field, fmt::format("'{}' must be a JSON schema (an object, or a string holding one)", field));
    }
    if (Claim(field)) out_.json = v.is_string() ? v.get<std::string>() : v.dump();
  }
  void Regex(const std::string& field, const OrderedJson& v) {
    if (!v.is_string()) return r_.Fail(field, fmt::format("'{}' must be a string", field));
    if (Claim(field)) out_.regex = v.get<std::string>();
  }
  void Grammar(const std::string& field, const OrderedJson& v) {
    if (!v.is_string()) return r_.Fail(field, fmt::format("'{}' must be a string", field));
    if (Claim(field)) out_.grammar = v.get<std::string>();
  }
  void Choice(const std::string& field, const OrderedJson& v) {
    std::vector<std::string> choices;
    for (const OrderedJson& e : v.is_array() ? v : OrderedJson::array()) {
      if (e.is_string()) choices.push_back(e.get<std::string>());
    }
    if (!v.is_array() || choices.size() != v.size()) {
      return r_.Fail(field, fmt::format("'{}' must be a list of strings", field));
    }
    if (Claim(field)) out_.choice = std::move(choices);
  }
  void JsonObject(const std::string& field) {
    if (Claim(field)) out_.json_object = true;
  }

  FieldReader& reader() { return r_; }
  StructuredOutputsParams& out() { return out_; }

 private:
  FieldReader& r_;
  StructuredOutputsParams& out_;
  std::string source_;
};

bool ReadFlag(FieldReader& r, const std::string& field, const OrderedJson& v, bool* out) {
  if (!v.is_boolean()) {
    r.Fail(field, fmt::format("'{}' must be a boolean", field));
    return false;
  }
  *out = v.get<bool>();
  return true;
}

// vLLM's StructuredOutputsParams, key by key; unknown keys are refused.
void ReadStructuredOutputsObject(ConstraintReader& c, const OrderedJson& v) {
  FieldReader& r = c.reader();
  if (!v.is_object()) return r.Fail("structured_outputs", "'structured_outputs' must be an object");
  for (const auto& [key, value] : v.items()) {
    const std::string field = "structured_outputs." + key;
    if (value.is_null()) continue;
    if (key == "json") {
      c.Json(field, value);
    } else if (key == "regex") {
      c.Regex(field, value);
    } else if (key == "choice") {
      c.Choice(field, value);
    } else if (key == "grammar") {
      c.Grammar(field, value);
    } else if (key == "json_object") {
      bool on = false;
      if (ReadFlag(r, field, value, &on) && c.Claim(field)) c.out().json_object = on;
    } else if (key == "structural_tag") {
      r.Fail(field, "'structured_outputs.structural_tag' is not supported");
    } else if (key == "whitespace_pattern") {
      if (!value.is_string()) return r.Fail(field, fmt::format("'{}' must be a string", field));
      c.out().whitespace_pattern = value.get<std::string>();
    } else if (key == "disable_any_whitespace") {
      ReadFlag(r, field, value, &c.out().disable_any_whitespace);
    } else if (key == "disable_additional_properties") {
      ReadFlag(r, field, value, &c.out().disable_additional_properties);
    } else if (key == "disable_fallback") {
      ReadFlag(r, field, value, &c.out().disable_fallback);
    } else {
      r.Fail(field, fmt::format("'{}' is not a field of structured_outputs", field));
    }
  }
}

// OpenAI's response_format: text, json_object or json_schema.
void ReadResponseFormat(ConstraintReader& c, const OrderedJson& v) {
  FieldReader& r = c.reader();
  const OrderedJson* type = v.is_object() && v.contains("type") ? &v["type"] : nullptr;
  if (type == nullptr || !type->is_string()) {
    return r.Fail("response_format", "'response_format' must be an object with a 'type'");
  }
  const std::string kind = type->get<std::string>();
  if (kind == "text") return;
  if (kind == "json_object") return c.JsonObject("response_format");
  if (kind == "structural_tag") return r.Fail("response_format", "response_format type 'structural_tag' is not supported");
  if (kind != "json_schema") {
    return r.Fail("response_format", fmt::format("response_format type '{}' is not one of 'text', 'json_object', "
                                                 "'json_schema'", kind));
  }
  const OrderedJson* spec = v.contains("json_schema") ? &v["json_schema"] : nullptr;
  if (spec == nullptr || !spec->is_object() || !spec->contains("schema") || (*spec)["schema"].is_null()) {
    return r.Fail("response_format", "response_format of type 'json_schema' needs 'json_schema.schema'");
  }
  // strict: Pagoda always holds the output to the schema, strict or not.
  c.Json("response_format.json_schema.schema", (*spec)["schema"]);
}

void ReadGuidedFields(ConstraintReader& c, const OrderedJson& body) {
  auto field = [&](const char* name) -> const OrderedJson* {
    return body.contains(name) && !body[name].is_null() ? &body[name] : nullptr;
  };
  if (const OrderedJson* v = field("guided_json")) c.Json("guided_json", *v);
  if (const OrderedJson* v = field("guided_regex")) c.Regex("guided_regex", *v);
  if (const OrderedJson* v = field("guided_choice")) c.Choice("guided_choice", *v);
  if (const OrderedJson* v = field("guided_grammar")) c.Grammar("guided_grammar", *v);
  if (const OrderedJson* v = field("guided_whitespace_pattern")) {
    if (!v->is_string()) return c.reader().Fail("guided_whitespace_pattern", "'guided_whitespace_pattern' must be a string");
    c.out().whitespace_pattern = v->get<std::string>();
  }
  if (const OrderedJson* v = field("guided_decoding_backend")) {
    if (!v->is_string()) return c.reader().Fail("guided_decoding_backend", "'guided_decoding_backend' must be a string");
    spdlog::warn("guided_decoding_backend '{}': Pagoda has one grammar engine, which serves every request",
                 v->get<std::string>());
  }
}

}  // namespace

void ReadStructuredOutputs(FieldReader& r, const nlohmann::ordered_json& ordered_body, SamplingParams& p) {
  StructuredOutputsParams params;
  ConstraintReader c(r, params);
  const bool object_given = ordered_body.contains("structured_outputs") && !ordered_body["structured_outputs"].is_null();
  if (object_given) ReadStructuredOutputsObject(c, ordered_body["structured_outputs"]);
  if (ordered_body.contains("response_format") && !ordered_body["response_format"].is_null()) {
    ReadResponseFormat(c, ordered_body["response_format"]);
  }
  ReadGuidedFields(c, ordered_body);
  if (!r.ok()) return;
  if (params.NumConstraints() == 0 && !object_given) {
    if (params.whitespace_pattern) {
      r.Fail("guided_whitespace_pattern", "'guided_whitespace_pattern' needs a JSON constraint to apply to");
    }
    return;
  }
  if (Status s = params.Validate(); !s.ok()) return r.Fail("structured_outputs", s.message());
  p.structured_outputs = std::move(params);
}

}  // namespace pagoda::server
