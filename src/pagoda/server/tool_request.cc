#include "pagoda/server/tool_request.h"

#include <fmt/format.h>

#include <utility>

namespace pagoda::server {
namespace {

using OrderedJson = nlohmann::ordered_json;

const OrderedJson* Field(const OrderedJson& body, const char* name) {
  return body.contains(name) && !body[name].is_null() ? &body[name] : nullptr;
}

// A function's parameters schema; none means it takes any object.
OrderedJson ParametersOf(const OrderedJson& function) {
  if (function.contains("parameters") && !function["parameters"].is_null()) return function["parameters"];
  return OrderedJson{{"type", "object"}};
}

// `tools`: a list of {"type": "function", "function": {"name": ..., ...}}.
bool CheckTools(FieldReader& r, const OrderedJson& tools) {
  if (!tools.is_array()) {
    r.Fail("tools", "'tools' must be a list");
    return false;
  }
  for (size_t i = 0; i < tools.size(); ++i) {
    const OrderedJson& tool = tools[i];
    const std::string field = fmt::format("tools[{}]", i);
    if (!tool.is_object() || tool.value("type", "") != "function" || !tool.contains("function") ||
        !tool["function"].is_object()) {
      r.Fail(field, fmt::format("'{}' must be {{\"type\": \"function\", \"function\": {{...}}}}", field));
      return false;
    }
    const OrderedJson& function = tool["function"];
    if (!function.contains("name") || !function["name"].is_string() || function["name"].get<std::string>().empty()) {
      r.Fail(field + ".function.name", fmt::format("'{}.function.name' must be a non-empty string", field));
      return false;
    }
    if (function.contains("parameters") && !function["parameters"].is_null() && !function["parameters"].is_object()) {
      r.Fail(field + ".function.parameters", fmt::format("'{}.function.parameters' must be a JSON schema object", field));
      return false;
    }
  }
  return true;
}

const OrderedJson* FindFunction(const OrderedJson& tools, const std::string& name) {
  for (const OrderedJson& tool : tools) {
    if (tool["function"]["name"] == name) return &tool["function"];
  }
  return nullptr;
}

// tool_choice (or the legacy function_call, `field`) into `out`.
void ReadChoice(FieldReader& r, const std::string& field, const OrderedJson& v, bool legacy, ToolRequest& out) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "none") {
      out.choice = ToolChoice::kNone;
    } else if (s == "auto") {
      out.choice = ToolChoice::kAuto;
    } else if (s == "required" && !legacy) {
      out.choice = ToolChoice::kRequired;
    } else {
      r.Fail(field, fmt::format("'{}' must be {}or a named function; got '{}'", field,
                                legacy ? "'none', 'auto' " : "'none', 'auto', 'required' ", s));
    }
    return;
  }
  // {"type": "function", "function": {"name": ...}}, or legacy {"name": ...}.
  const OrderedJson* name = nullptr;
  if (legacy && v.is_object() && v.contains("name")) {
    name = &v["name"];
  } else if (!legacy && v.is_object() && v.value("type", "") == "function" && v.contains("function") &&
             v["function"].is_object() && v["function"].contains("name")) {
    name = &v["function"]["name"];
  }
  if (name == nullptr || !name->is_string()) {
    return r.Fail(field, fmt::format("'{}' must be 'none', 'auto'{} or {}", field, legacy ? "" : ", 'required'",
                                     legacy ? "{\"name\": ...}" : "{\"type\": \"function\", \"function\": {\"name\": ...}}"));
  }
  out.choice = ToolChoice::kNamed;
  out.function = name->get<std::string>();
}

}  // namespace

OrderedJson RequiredToolCallsSchema(const OrderedJson& tools, bool parallel) {
  OrderedJson calls = OrderedJson::array();
  for (const OrderedJson& tool : tools) {
    const OrderedJson& function = tool["function"];
    calls.push_back({{"type", "object"},
                     {"properties", {{"name", {{"type", "string"}, {"enum", {function["name"]}}}},
                                     {"parameters", ParametersOf(function)}}},
                     {"required", {"name", "parameters"}},
                     {"additionalProperties", false}});
  }
  OrderedJson schema = {{"type", "array"}, {"minItems", 1}, {"items", {{"anyOf", std::move(calls)}}}};
  if (!parallel) schema["maxItems"] = 1;
  return schema;
}

std::optional<ToolRequest> ReadToolRequest(FieldReader& r, const OrderedJson& ordered_body, bool auto_tool_choice,
                                           SamplingParams& p) {
  ToolRequest out;
  const OrderedJson* tools = Field(ordered_body, "tools");
  const OrderedJson* functions = Field(ordered_body, "functions");
  const OrderedJson* tool_choice = Field(ordered_body, "tool_choice");
  const OrderedJson* function_call = Field(ordered_body, "function_call");
  if (tools && functions) r.Fail("functions", "give 'tools' or the legacy 'functions', not both");
  if (tool_choice && function_call) r.Fail("function_call", "give 'tool_choice' or the legacy 'function_call', not both");
  if (!r.ok()) return std::nullopt;

  if (functions) {
    if (!functions->is_array()) {
      r.Fail("functions", "'functions' must be a list");
      return std::nullopt;
    }
    out.legacy_functions = true;
    out.tools = OrderedJson::array();
    for (const OrderedJson& f : *functions) out.tools.push_back({{"type", "function"}, {"function", f}});
  } else if (tools) {
    out.tools = *tools;
  }
  const std::string tools_field = out.legacy_functions ? "functions" : "tools";
  if (!out.tools.is_null() && !CheckTools(r, out.tools)) return std::nullopt;
  const bool have_tools = !out.tools.is_null() && !out.tools.empty();

  // OpenAI: "none" without tools, "auto" with them.
  out.choice = have_tools ? ToolChoice::kAuto : ToolChoice::kNone;
  const std::string choice_field = function_call ? "function_call" : "tool_choice";
  if (const OrderedJson* v = function_call ? function_call : tool_choice) {
    ReadChoice(r, choice_field, *v, function_call != nullptr, out);
  }
  if (std::optional<bool> v = r.Bool("parallel_tool_calls")) out.parallel = *v;
  if (!r.ok()) return std::nullopt;

  if (out.choice != ToolChoice::kNone && !have_tools) {
    r.Fail(choice_field, fmt::format("when using '{}', '{}' must be set", choice_field, tools_field));
    return std::nullopt;
  }
  if (out.choice == ToolChoice::kAuto && !auto_tool_choice) {
    r.Fail(choice_field, "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set");
    return std::nullopt;
  }
  if (out.choice == ToolChoice::kRequired || out.choice == ToolChoice::kNamed) {
    OrderedJson schema;
    if (out.choice == ToolChoice::kRequired) {
      schema = RequiredToolCallsSchema(out.tools, out.parallel);
    } else if (const OrderedJson* function = FindFunction(out.tools, out.function)) {
      schema = ParametersOf(*function);
    } else {
      r.Fail(choice_field, fmt::format("tool '{}' has not been passed in '{}'", out.function, tools_field));
      return std::nullopt;
    }
    if (p.structured_outputs) {
      r.Fail(choice_field, fmt::format("'{}' that forces a call cannot be combined with another structured-output "
                                       "constraint", choice_field));
      return std::nullopt;
    }
    StructuredOutputsParams constraint;
    constraint.json = schema.dump();
    p.structured_outputs = std::move(constraint);
  }
  return out;
}

}  // namespace pagoda::server
