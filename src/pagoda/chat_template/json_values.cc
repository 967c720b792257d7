#include "pagoda/chat_template/json_values.h"

#include <limits>
#include <vector>

#include "pagoda/chat_template/error.h"
#include "pagoda/chat_template/unicode.h"

namespace pagoda::chat_template {
namespace {

template <typename Json>
Value Convert(const Json& json, int depth) {
  if (depth > kMaxValueDepth) ThrowRuntime("context nests deeper than {} levels", kMaxValueDepth);
  switch (json.type()) {
    case nlohmann::json::value_t::null: return Value::None();
    case nlohmann::json::value_t::boolean: return Value::Bool(json.template get<bool>());
    case nlohmann::json::value_t::number_integer: return Value::Int(json.template get<int64_t>());
    case nlohmann::json::value_t::number_unsigned: {
      const uint64_t u = json.template get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) ThrowRuntime("context integer too large");
      return Value::Int(static_cast<int64_t>(u));
    }
    case nlohmann::json::value_t::number_float: return Value::Float(json.template get<double>());
    case nlohmann::json::value_t::string: {
      const auto& s = json.template get_ref<const std::string&>();
      if (!IsValidUtf8(s)) ThrowRuntime("context string is not valid UTF-8");
      return Value::String(s);
    }
    case nlohmann::json::value_t::array: {
      std::vector<Value> items;
      items.reserve(json.size());
      for (const auto& item : json) items.push_back(Convert(item, depth + 1));
      return Value::List(std::move(items));
    }
    case nlohmann::json::value_t::object: {
      DictData dict;
      for (const auto& [key, item] : json.items()) {
        if (!IsValidUtf8(key)) ThrowRuntime("context key is not valid UTF-8");
        dict.Set(key, Convert(item, depth + 1));
      }
      return Value::Dict(std::move(dict));
    }
    default: ThrowRuntime("context holds a value JSON cannot express");
  }
}

}  // namespace

Value FromJson(const nlohmann::json& json) { return Convert(json, 0); }
Value FromJson(const nlohmann::ordered_json& json) { return Convert(json, 0); }

}  // namespace pagoda::chat_template
