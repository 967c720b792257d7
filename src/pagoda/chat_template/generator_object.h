// A Python generator: what jinja2's map, select, reject, selectattr,
// rejectattr, items, reverse and unique filters return. Unlike a list it is
// true even when empty, has no len() or [], is not JSON, and is exhausted
// once iterated; templates that forget `| list` behave as under jinja2.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "pagoda/chat_template/bounded_string.h"
#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

class Generator : public Object {
 public:
  explicit Generator(std::vector<Value> items) : items_(std::move(items)) {}

  std::string_view type_name() const override { return "generator"; }
  Value GetAttr(std::string_view name) const override {
    return Value::Undefined(fmt::format("'generator object' has no attribute '{}'", name));
  }
  void AppendRepr(BoundedString* out, int) const override { out->Append("<generator object>"); }

  // The items not yet consumed; the generator is empty afterwards.
  std::vector<Value> Take() const { return std::exchange(items_, {}); }

 private:
  mutable std::vector<Value> items_;
};

}  // namespace pagoda::chat_template
