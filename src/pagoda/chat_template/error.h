// The one exception type of the template engine. Lexing, parsing and
// rendering throw it from wherever a failure is found; ChatTemplate turns it
// into a Status at the public API. A tree-walking interpreter can fail inside
// any expression, and an exception keeps every evaluation step free of error
// plumbing (raise_exception() in a template is literally an exception).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace pagoda::chat_template {

// Byte offset into the (newline-normalized) template source; kNoOffset until
// the node being evaluated when the error was thrown attaches its own.
inline constexpr uint32_t kNoOffset = UINT32_MAX;

class TemplateError : public std::runtime_error {
 public:
  enum class Kind {
    kSyntax,   // the template does not parse
    kRuntime,  // rendering failed: bad types, undefined values, limits
    kRaised,   // the template called raise_exception(message)
  };

  TemplateError(Kind kind, const std::string& message, uint32_t offset = kNoOffset)
      : std::runtime_error(message), kind_(kind), offset_(offset) {}

  Kind kind() const { return kind_; }
  uint32_t offset() const { return offset_; }
  void set_offset(uint32_t offset) { offset_ = offset; }

 private:
  Kind kind_;
  uint32_t offset_;
};

template <typename... Args>
[[noreturn]] void ThrowRuntime(fmt::format_string<Args...> format, Args&&... args) {
  throw TemplateError(TemplateError::Kind::kRuntime, fmt::format(format, std::forward<Args>(args)...));
}

template <typename... Args>
[[noreturn]] void ThrowSyntax(uint32_t offset, fmt::format_string<Args...> format, Args&&... args) {
  throw TemplateError(TemplateError::Kind::kSyntax, fmt::format(format, std::forward<Args>(args)...), offset);
}

}  // namespace pagoda::chat_template
