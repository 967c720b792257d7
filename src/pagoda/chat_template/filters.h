// The filters available to templates: jinja2's built-in filters that chat
// templates use, with transformers' own tojson.
#pragma once

#include <string_view>

#include "pagoda/chat_template/call_args.h"
#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

class Interpreter;

using FilterFn = Value (*)(Interpreter& interp, const Value& input, const CallArgs& args);

bool HasFilter(std::string_view name);
// The filter called `name`, or nullptr.
FilterFn FindFilter(std::string_view name);

}  // namespace pagoda::chat_template
