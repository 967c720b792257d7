#include "pagoda/chat_template/access.h"

#include <optional>
#include <string>
#include <vector>

#include "pagoda/chat_template/error.h"
#include "pagoda/chat_template/interpreter.h"
#include "pagoda/chat_template/methods.h"
#include "pagoda/chat_template/unicode.h"

namespace pagoda::chat_template {
namespace {

// Resolves a Python index against `size`; -1 when out of range.
int64_t ResolveIndex(int64_t index, size_t size) {
  const auto n = static_cast<int64_t>(size);
  if (index < 0) index += n;
  return index >= 0 && index < n ? index : -1;
}

}  // namespace

Value GetAttribute(const Value& object, std::string_view name) {
  switch (object.kind()) {
    case Value::Kind::kUndefined: ThrowUndefined(object);
    case Value::Kind::kObject: return object.object().GetAttr(name);
    default: break;
  }
  if (std::optional<Value> method = FindMethod(object, name)) return *method;
  if (object.kind() == Value::Kind::kDict) {
    if (const Value* item = object.dict().Find(name)) return *item;
  }
  return Value::Undefined(MissingAttributeHint(object, name));
}

Value GetItem(const Value& object, const Value& key) {
  switch (object.kind()) {
    case Value::Kind::kUndefined: ThrowUndefined(object);
    case Value::Kind::kDict:
      if (IsHashable(key)) {
        const Value* item = object.dict().Find(key);
        if (item != nullptr) return *item;
      }
      break;
    case Value::Kind::kList:
      if (key.is_integral()) {
        const auto& items = object.list().items;
        const int64_t i = ResolveIndex(key.int_value(), items.size());
        if (i >= 0) return items[i];
        return Value::Undefined(fmt::format("'{} object' has no element {}", TypeName(object), key.int_value()));
      }
      break;
    case Value::Kind::kString:
      if (key.is_integral()) {
        const std::u32string chars = ToCodepoints(object.string_value());
        const int64_t i = ResolveIndex(key.int_value(), chars.size());
        if (i >= 0) return Value::String(FromCodepoints(chars.substr(i, 1)));
        return Value::Undefined(fmt::format("'str object' has no element {}", key.int_value()));
      }
      break;
    case Value::Kind::kObject:
      if (key.is_string()) return object.object().GetAttr(key.string_value());
      break;
    default: break;
  }
  if (key.is_string()) return GetAttribute(object, key.string_value());
  return Value::Undefined(fmt::format("'{} object' has no element of that kind", TypeName(object)));
}

Value GetSlice(Interpreter& interp, const Value& object, const Value& start, const Value& stop, const Value& step) {
  RequireDefined(object);
  const bool is_list = object.kind() == Value::Kind::kList;
  if (!is_list && !object.is_string()) return Value::Undefined("slicing needs a list or a string");
  for (const Value* bound : {&start, &stop, &step}) {
    if (!bound->is_none() && !bound->is_integral()) return Value::Undefined("slice indices must be integers");
  }
  const int64_t s = step.is_none() ? 1 : step.int_value();
  if (s == 0) ThrowRuntime("slice step cannot be zero");
  std::u32string chars;
  if (!is_list) chars = ToCodepoints(object.string_value());
  const auto n = static_cast<int64_t>(is_list ? object.list().items.size() : chars.size());
  // PySlice_AdjustIndices: defaults and clamping depend on the direction.
  auto adjust = [&](const Value& bound, int64_t fallback) {
    if (bound.is_none()) return fallback;
    int64_t i = bound.int_value();
    if (i < 0) {
      i += n;
      if (i < 0) i = s < 0 ? -1 : 0;
    } else if (i >= n) {
      i = s < 0 ? n - 1 : n;
    }
    return i;
  };
  const int64_t first = adjust(start, s < 0 ? n - 1 : 0);
  const int64_t last = adjust(stop, s < 0 ? -1 : n);
  std::vector<int64_t> picked;
  for (int64_t i = first; s > 0 ? i < last : i > last;) {
    picked.push_back(i);
    if (__builtin_add_overflow(i, s, &i)) break;
  }
  if (is_list) {
    std::vector<Value> items;
    items.reserve(picked.size());
    for (int64_t i : picked) items.push_back(object.list().items[i]);
    return interp.MakeList(std::move(items), object.list().is_tuple);
  }
  std::u32string out;
  out.reserve(picked.size());
  for (int64_t i : picked) out.push_back(chars[i]);
  return interp.MakeString(FromCodepoints(out));
}

}  // namespace pagoda::chat_template
