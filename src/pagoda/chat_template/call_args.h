// Arguments of a call to a filter, test, method, global function or macro,
// and their binding to a Python-style signature.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;
};

// Binds `args` to positional-or-keyword parameters `params`, as Python does:
// too many arguments, unknown keywords, a parameter given twice or a missing
// required one (the first `required` params) throw a TemplateError.
class ArgBinder {
 public:
  ArgBinder(std::string_view function, const CallArgs& args, std::initializer_list<std::string_view> params,
            size_t required = 0);

  // The argument bound to parameter `i`, or nullptr when left out.
  const Value* Get(size_t i) const { return bound_[i]; }
  // The argument, or `fallback` when left out.
  const Value& Get(size_t i, const Value& fallback) const { return bound_[i] ? *bound_[i] : fallback; }

 private:
  std::vector<const Value*> bound_;
};

}  // namespace pagoda::chat_template
