// jinja2's tests, the `is` operator's right-hand side: `x is defined`,
// `x is string`, `x is divisibleby 3`.
#pragma once

#include <string_view>

#include "pagoda/chat_template/call_args.h"
#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

class Interpreter;

using TestFn = bool (*)(Interpreter& interp, const Value& input, const CallArgs& args);

bool HasTest(std::string_view name);
// The test called `name`, or nullptr.
TestFn FindTest(std::string_view name);

}  // namespace pagoda::chat_template
