// jinja2's namespace(): the one mutable value, whose attributes
// `{% set ns.attr = ... %}` assigns, so that loops can carry state out.
#pragma once

#include <string>
#include <string_view>

#include "pagoda/chat_template/value.h"

namespace pagoda::chat_template {

class Namespace : public Object {
 public:
  std::string_view type_name() const override { return "Namespace"; }
  Value GetAttr(std::string_view name) const override;
  void AppendRepr(BoundedString* out, int depth) const override;

  void Set(std::string name, Value value);
  // Drops every attribute; ends reference cycles (a namespace holding
  // itself) when a rendering finishes.
  void Clear() { attrs_ = DictData(); }

 private:
  DictData attrs_;
};

}  // namespace pagoda::chat_template
