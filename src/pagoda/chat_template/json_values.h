// Template values from JSON: the context a caller renders with.
#pragma once

#include <nlohmann/json.hpp>

#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

// Objects become dicts in the JSON's key order (ordered_json keeps the order
// a request gave, which tojson and items() show; nlohmann::json sorts keys),
// integers ints, other numbers floats. Throws a TemplateError for nesting
// deeper than kMaxValueDepth, strings that are not UTF-8, integers past
// int64 and binary values.
Value FromJson(const nlohmann::json& json);
Value FromJson(const nlohmann::ordered_json& json);

}  // namespace pagoda::chat_template
