// The Python methods templates call on values: str's strip, split,
// startswith, format and friends, and dict's items, keys, values and get.
#pragma once

#include <optional>
#include <string_view>

#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

// `receiver.name` as a bound method, or nullopt when `receiver` has no such
// method. Mutating list and dict methods exist but give an undefined whose
// use raises the sandbox's error, as ImmutableSandboxedEnvironment does.
std::optional<Value> FindMethod(const Value& receiver, std::string_view name);

}  // namespace pagoda::chat_template
