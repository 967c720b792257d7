// A string builder that refuses to grow past a byte limit, so that neither a
// hostile template nor a huge value can build text without bound one append
// at a time.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "pagoda/chat_template/error.h"

namespace pagoda::chat_template {

class BoundedString {
 public:
  explicit BoundedString(size_t max_bytes) : max_bytes_(max_bytes) {}

  void Append(std::string_view text) {
    Reserve(text.size());
    text_.append(text);
  }
  void Append(char c) {
    Reserve(1);
    text_.push_back(c);
  }
  // Throws unless `more` bytes still fit.
  void Reserve(size_t more) const {
    if (more > max_bytes_ - text_.size()) ThrowRuntime("text would exceed the limit of {} bytes", max_bytes_);
  }

  size_t size() const { return text_.size(); }
  std::string Take() && { return std::move(text_); }

 private:
  std::string text_;
  size_t max_bytes_;
};

}  // namespace pagoda::chat_template
