// Attribute, item and slice access as jinja2's sandbox resolves them.
#pragma once

#include <string_view>

#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

class Interpreter;

// `object.name`: a method first, then a dict item or an object's attribute.
// Missing ones are undefined, not errors; only undefined `object` throws.
Value GetAttribute(const Value& object, std::string_view name);
// `object[key]`: an item first (list index, dict key, string character),
// then a method for string keys.
Value GetItem(const Value& object, const Value& key);
// `object[start:stop:step]` with Python's slice rules; each bound is None
// when left out. Other types or non-integer bounds give undefined.
Value GetSlice(Interpreter& interp, const Value& object, const Value& start, const Value& stop, const Value& step);

}  // namespace pagoda::chat_template
