#include "pagoda/chat_template/namespace_object.h"

#include "pagoda/chat_template/bounded_string.h"
#include "pagoda/chat_template/value_format.h"

namespace pagoda::chat_template {

Value Namespace::GetAttr(std::string_view name) const {
  const Value* value = attrs_.Find(name);
  return value != nullptr ? *value : Value::Undefined(fmt::format("'Namespace object' has no attribute '{}'", name));
}

void Namespace::AppendRepr(BoundedString* out, int depth) const {
  out->Append("<Namespace ");
  // Printed as the dict of its attributes, as jinja2 does.
  out->Append('{');
  bool first = true;
  for (const auto& [key, value] : attrs_.entries()) {
    if (!first) out->Append(", ");
    first = false;
    chat_template::AppendRepr(key, out, depth + 1);
    out->Append(": ");
    chat_template::AppendRepr(value, out, depth + 1);
  }
  out->Append("}>");
}

void Namespace::Set(std::string name, Value value) {
  if (name.starts_with('_')) {
    // transformers' TemplateNamespace refuses these (sandbox escapes).
    ThrowRuntime("Chat templates cannot store underscore-prefixed attributes on a namespace, but got '{}'", name);
  }
  attrs_.Set(std::move(name), std::move(value));
}

}  // namespace pagoda::chat_template
