#include "pagoda/chat_template/methods.h"

#include <array>
#include <memory>
#include <string>

#include "pagoda/chat_template/call_args.h"
#include "pagoda/chat_template/error.h"
#include "pagoda/chat_template/interpreter.h"
#include "pagoda/chat_template/operators.h"
#include "pagoda/chat_template/py_str.h"
#include "pagoda/chat_template/value_format.h"

namespace pagoda::chat_template {
namespace {

using MethodFn = Value (*)(Interpreter&, const Value& self, const CallArgs& args);

struct Method {
  std::string_view name;
  MethodFn fn;
};

class BoundMethod : public Callable {
 public:
  BoundMethod(Value self, const Method* method) : self_(std::move(self)), method_(method) {}
  std::string_view name() const override { return method_->name; }
  Value Call(Interpreter& interp, CallArgs& args) const override { return method_->fn(interp, self_, args); }

 private:
  Value self_;
  const Method* method_;
};

const std::string& RequireString(const Value& v, std::string_view function, std::string_view what) {
  if (!v.is_string()) ThrowRuntime("{}() {} must be str, not {}", function, what, TypeName(v));
  return v.string_value();
}

// A `chars` or `sep` argument that may be None.
const std::string* OptionalString(const Value* v, std::string_view function) {
  if (v == nullptr || v->is_none()) return nullptr;
  return &RequireString(*v, function, "argument");
}

int64_t OptionalInt(const Value* v, std::string_view function, int64_t fallback) {
  if (v == nullptr) return fallback;
  if (!v->is_integral()) ThrowRuntime("{}() argument must be int, not {}", function, TypeName(*v));
  return v->int_value();
}

Value StringList(Interpreter& interp, std::vector<std::string> parts) {
  std::vector<Value> items;
  items.reserve(parts.size());
  for (auto& part : parts) items.push_back(Value::String(std::move(part)));
  return interp.MakeList(std::move(items));
}

// Markup's methods that return text keep it Markup.
Value LikeSelf(Interpreter& interp, const Value& self, std::string text) {
  return self.is_markup() ? interp.MakeMarkup(std::move(text)) : interp.MakeString(std::move(text));
}

template <bool kLeft, bool kRight>
Value StripMethod(Interpreter& interp, const Value& self, const CallArgs& args) {
  const char* name = kLeft && kRight ? "strip" : kLeft ? "lstrip" : "rstrip";
  ArgBinder a(name, args, {"chars"});
  return LikeSelf(interp, self, py::Strip(self.string_value(), OptionalString(a.Get(0), name), kLeft, kRight));
}

Value SplitMethod(Interpreter& interp, const Value& self, const CallArgs& args) {
  ArgBinder a("split", args, {"sep", "maxsplit"});
  const std::string* sep = OptionalString(a.Get(0), "split");
  const int64_t maxsplit = OptionalInt(a.Get(1), "split", -1);
  if (sep == nullptr) return StringList(interp, py::SplitWhitespace(self.string_value(), maxsplit));
  if (sep->empty()) ThrowRuntime("empty separator");
  return StringList(interp, py::Split(self.string_value(), *sep, maxsplit));
}

template <bool kStarts>
Value AffixMethod(Interpreter&, const Value& self, const CallArgs& args) {
  const char* name = kStarts ? "startswith" : "endswith";
  ArgBinder a(name, args, {"prefix"}, 1);
  const std::string& text = self.string_value();
  auto matches = [&](const Value& affix) {
    const std::string& s = RequireString(affix, name, "argument");
    return kStarts ? text.starts_with(s) : text.ends_with(s);
  };
  const Value& affix = *a.Get(0);
  if (affix.kind() == Value::Kind::kList && affix.list().is_tuple) {
    for (const Value& item : affix.list().items) {
      if (matches(item)) return Value::Bool(true);
    }
    return Value::Bool(false);
  }
  return Value::Bool(matches(affix));
}

template <std::string (*kFn)(std::string_view)>
Value CaseMethod(Interpreter& interp, const Value& self, const CallArgs& args) {
  ArgBinder a("str method", args, {});
  return LikeSelf(interp, self, kFn(self.string_value()));
}

Value ReplaceMethod(Interpreter& interp, const Value& self, const CallArgs& args) {
  ArgBinder a("replace", args, {"old", "new", "count"}, 2);
  std::string old_text = RequireString(*a.Get(0), "replace", "argument 1");
  std::string new_text = RequireString(*a.Get(1), "replace", "argument 2");
  if (self.is_markup()) {  // Markup.replace escapes its plain arguments
    if (!a.Get(0)->is_markup()) old_text = EscapeHtml(old_text);
    if (!a.Get(1)->is_markup()) new_text = EscapeHtml(new_text);
  }
  return LikeSelf(interp, self,
                  py::Replace(self.string_value(), old_text, new_text, OptionalInt(a.Get(2), "replace", -1),
                              interp.max_string_bytes()));
}

Value StrFindMethod(Interpreter&, const Value& self, const CallArgs& args) {
  ArgBinder a("find", args, {"sub"}, 1);
  return Value::Int(py::Find(self.string_value(), RequireString(*a.Get(0), "find", "argument")));
}

Value CountMethod(Interpreter&, const Value& self, const CallArgs& args) {
  ArgBinder a("count", args, {"sub"}, 1);
  return Value::Int(py::Count(self.string_value(), RequireString(*a.Get(0), "count", "argument")));
}

Value JoinMethod(Interpreter& interp, const Value& self, const CallArgs& args) {
  ArgBinder a("join", args, {"iterable"}, 1);
  BoundedString out = interp.NewBuffer();
  size_t i = 0;
  for (const Value& item : Iterate(*a.Get(0))) {
    if (!item.is_string()) ThrowRuntime("sequence item {}: expected str instance, {} found", i, TypeName(item));
    if (i++ > 0) out.Append(self.string_value());
    out.Append(item.string_value());
  }
  return interp.MakeString(std::move(out).Take());
}

// str.format with plain fields: {}, {0}, {name}, optionally !s or !r.
// Format specs and field attribute/index lookups are not supported.
Value FormatMethod(Interpreter& interp, const Value& self, const CallArgs& args) {
  const std::string& fmt_text = self.string_value();
  BoundedString out = interp.NewBuffer();
  size_t next_auto = 0;
  for (size_t i = 0; i < fmt_text.size(); ++i) {
    const char c = fmt_text[i];
    if (c == '}') {
      if (i + 1 >= fmt_text.size() || fmt_text[i + 1] != '}') ThrowRuntime("Single '}}' encountered in format string");
      out.Append('}');
      ++i;
      continue;
    }
    if (c != '{') {
      out.Append(c);
      continue;
    }
    if (i + 1 < fmt_text.size() && fmt_text[i + 1] == '{') {
      out.Append('{');
      ++i;
      continue;
    }
    const size_t close = fmt_text.find('}', i);
    if (close == std::string::npos) ThrowRuntime("Single '{{' encountered in format string");
    std::string field = fmt_text.substr(i + 1, close - i - 1);
    i = close;
    char conversion = 's';
    if (const size_t bang = field.find('!'); bang != std::string::npos) {
      if (bang + 2 != field.size() || (field[bang + 1] != 's' && field[bang + 1] != 'r')) {
        ThrowRuntime("unsupported conversion in format string field '{}'", field);
      }
      conversion = field[bang + 1];
      field.resize(bang);
    }
    if (field.find_first_of(":.[") != std::string::npos) {
      ThrowRuntime("format specs and field lookups in str.format are not supported: '{}'", field);
    }
    const Value* value = nullptr;
    if (field.empty() || (field[0] >= '0' && field[0] <= '9')) {
      size_t index = field.empty() ? next_auto++ : 0;
      if (!field.empty()) {
        for (char d : field) {
          if (d < '0' || d > '9' || index > args.positional.size()) ThrowRuntime("bad format field '{}'", field);
          index = index * 10 + (d - '0');
        }
      }
      if (index >= args.positional.size()) ThrowRuntime("Replacement index {} out of range", index);
      value = &args.positional[index];
    } else {
      for (const auto& [key, v] : args.keyword) {
        if (key == field) value = &v;
      }
      if (value == nullptr) ThrowRuntime("KeyError: '{}'", field);
    }
    if (conversion == 'r') {
      AppendRepr(*value, &out);
    } else {
      RequireDefined(*value);
      AppendStr(*value, &out);
    }
  }
  return interp.MakeString(std::move(out).Take());
}

Value ItemsMethod(Interpreter& interp, const Value& self, const CallArgs& args) {
  ArgBinder a("items", args, {});
  std::vector<Value> items;
  for (const auto& [key, value] : self.dict().entries()) {
    items.push_back(interp.MakeList({key, value}, /*is_tuple=*/true));
  }
  return interp.MakeList(std::move(items));
}

Value KeysMethod(Interpreter& interp, const Value& self, const CallArgs& args) {
  ArgBinder a("keys", args, {});
  return interp.MakeList(Iterate(self));
}

Value ValuesMethod(Interpreter& interp, const Value& self, const CallArgs& args) {
  ArgBinder a("values", args, {});
  std::vector<Value> values;
  for (const auto& [key, value] : self.dict().entries()) values.push_back(value);
  return interp.MakeList(std::move(values));
}

Value GetMethod(Interpreter&, const Value& self, const CallArgs& args) {
  ArgBinder a("get", args, {"key", "default"}, 1);
  const Value* found = self.dict().Find(*a.Get(0));
  return found != nullptr ? *found : a.Get(1, Value::None());
}

constexpr std::array kStringMethods = {
    Method{"strip", StripMethod<true, true>},
    Method{"lstrip", StripMethod<true, false>},
    Method{"rstrip", StripMethod<false, true>},
    Method{"split", SplitMethod},
    Method{"startswith", AffixMethod<true>},
    Method{"endswith", AffixMethod<false>},
    Method{"upper", CaseMethod<py::Upper>},
    Method{"lower", CaseMethod<py::Lower>},
    Method{"title", CaseMethod<py::Title>},
    Method{"capitalize", CaseMethod<py::Capitalize>},
    Method{"replace", ReplaceMethod},
    Method{"find", StrFindMethod},
    Method{"count", CountMethod},
    Method{"join", JoinMethod},
    Method{"format", FormatMethod},
};

constexpr std::array kDictMethods = {
    Method{"items", ItemsMethod},
    Method{"keys", KeysMethod},
    Method{"values", ValuesMethod},
    Method{"get", GetMethod},
};

// The sandbox refuses these on lists and dicts: templates must not mutate
// their inputs.
constexpr std::array<std::string_view, 11> kMutatingMethods = {
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "setdefault", "popitem"};

template <size_t N>
const Method* Lookup(const std::array<Method, N>& table, std::string_view name) {
  for (const Method& m : table) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace

std::optional<Value> FindMethod(const Value& receiver, std::string_view name) {
  const Method* method = nullptr;
  if (receiver.is_string()) {
    method = Lookup(kStringMethods, name);
  } else if (receiver.kind() == Value::Kind::kDict) {
    method = Lookup(kDictMethods, name);
  }
  if (method != nullptr) return Value::FromCallable(std::make_shared<BoundMethod>(receiver, method));
  if (receiver.kind() == Value::Kind::kList || receiver.kind() == Value::Kind::kDict) {
    for (std::string_view m : kMutatingMethods) {
      if (m == name) {
        return Value::Undefined(
            fmt::format("access to attribute '{}' of '{}' object is unsafe.", name, TypeName(receiver)));
      }
    }
  }
  return std::nullopt;
}

}  // namespace pagoda::chat_template
