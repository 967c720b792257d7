#include "pagoda/chat_template/call_args.h"

#include "pagoda/chat_template/error.h"

namespace pagoda::chat_template {

ArgBinder::ArgBinder(std::string_view function, const CallArgs& args, std::initializer_list<std::string_view> params,
                     size_t required)
    : bound_(params.size(), nullptr) {
  if (args.positional.size() > params.size()) {
    ThrowRuntime("{}() takes at most {} argument(s) ({} given)", function, params.size(), args.positional.size());
  }
  for (size_t i = 0; i < args.positional.size(); ++i) bound_[i] = &args.positional[i];
  for (const auto& [name, value] : args.keyword) {
    size_t i = 0;
    for (std::string_view p : params) {
      if (p == name) break;
      ++i;
    }
    if (i == params.size()) ThrowRuntime("{}() got an unexpected keyword argument '{}'", function, name);
    if (bound_[i] != nullptr) ThrowRuntime("{}() got multiple values for argument '{}'", function, name);
    bound_[i] = &value;
  }
  for (size_t i = 0; i < required; ++i) {
    if (bound_[i] == nullptr) ThrowRuntime("{}() missing required argument '{}'", function, params.begin()[i]);
  }
}

}  // namespace pagoda::chat_template
