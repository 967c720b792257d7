// The global functions of transformers' chat template environment: jinja2's
// range, dict and namespace, and transformers' raise_exception and
// strftime_now.
#pragma once

#include <string_view>

#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

// The global called `name`, or undefined. Context variables shadow these.
Value FindGlobal(std::string_view name);

}  // namespace pagoda::chat_template
